// Every single-byte change to a certificate gpucheck wrote must fail verification: three changes at
// each of its thousands of positions, about 10 s of signature checks, too long for the unit tier
// (test/sign/verify.test.ts holds the rest of verification).
import { beforeAll, expect, test } from "bun:test";
import { createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { certify } from "../../../lib/sign/certify.ts";
import { keyVerifier } from "../../../lib/sign/dsse.ts";
import { verifyCertificate } from "../../../lib/sign/verify.ts";
import { resultsCopy } from "../../sign/keys-fixture.ts";

let publicKey: KeyObject;
let text: string;

beforeAll(async () => {
  const dir = resultsCopy("h100-2node");
  const privateKey = generateKeyPairSync("ed25519").privateKey;
  publicKey = createPublicKey(privateKey);
  await certify(dir, privateKey, { now: new Date("2025-03-04T09:15:00Z") });
  text = readFileSync(join(dir, "certificate.intoto.json"), "utf8");
});

test("any single-byte change to the certificate makes verification fail, at every position", async () => {
  const bytes = Buffer.from(text);
  const survivors: string[] = [];
  for (let i = 0; i < bytes.length; i++) {
    for (const change of [(b: number) => b ^ 0x01, (b: number) => b ^ 0x20, (b: number) => (b === 0x20 ? 0x09 : 0x20)]) {
      const copy = Buffer.from(bytes);
      copy[i] = change(copy[i]!);
      const r = await verifyCertificate({ envelopeText: copy.toString("utf8"), publicKey: keyVerifier(publicKey) });
      if (r.ok) survivors.push(`${i}: ${JSON.stringify(copy.subarray(Math.max(0, i - 10), i + 10).toString())}`);
    }
  }
  expect(bytes.length).toBeGreaterThan(1000);
  expect(survivors).toEqual([]);
}, 60_000);
