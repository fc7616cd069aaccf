// Interoperability: what gpucheck signs must verify with stock openssl over the PAE bytes, and the
// commands printed on the certificate must work as printed.
import { describe, expect, test } from "bun:test";
import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { certify } from "../../../lib/sign/certify.ts";
import { resultsCopy, tmp } from "../../sign/keys-fixture.ts";

function sh(script: string, cwd: string) {
  const p = Bun.spawnSync(["bash", "-euo", "pipefail", "-c", script], { cwd });
  return { code: p.exitCode, out: p.stdout.toString() + p.stderr.toString() };
}

async function certified(alg: "ed25519" | "p256") {
  const pair = alg === "ed25519" ? generateKeyPairSync("ed25519") : generateKeyPairSync("ec", { namedCurve: "P-256" });
  const dir = resultsCopy("h100-2node");
  await certify(dir, pair.privateKey);
  writeFileSync(join(dir, "gpucheck.pub"), pair.publicKey.export({ type: "spki", format: "pem" }));
  return dir;
}

function unescapeHtml(s: string): string {
  return s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}

/** The fenced blocks of certificate.md, in order. */
function codeBlocks(md: string): string[] {
  return [...md.matchAll(/^(`{3,})sh\n([\s\S]*?)\n\1$/gm)].map((m) => m[2]);
}

for (const alg of ["ed25519", "p256"] as const) {
  describe(`${alg}: openssl verifies the envelope gpucheck wrote`, () => {
    test("over PAE bytes built independently of gpucheck", async () => {
      const dir = await certified(alg);
      const env = JSON.parse(readFileSync(join(dir, "certificate.intoto.json"), "utf8"));
      const payload = Buffer.from(env.payload, "base64");
      const work = tmp();
      writeFileSync(join(work, "pae.bin"), Buffer.concat([Buffer.from(`DSSEv1 28 application/vnd.in-toto+json ${payload.length} `), payload]));
      writeFileSync(join(work, "sig.bin"), Buffer.from(env.signatures[0].sig, "base64"));
      copyFileSync(join(dir, "gpucheck.pub"), join(work, "pub.pem"));
      const cmd =
        alg === "ed25519" ? "openssl pkeyutl -verify -pubin -inkey pub.pem -rawin -in pae.bin -sigfile sig.bin" : "openssl dgst -sha256 -verify pub.pem -signature sig.bin pae.bin";
      const ok = sh(cmd, work);
      expect(ok).toEqual({ code: 0, out: alg === "ed25519" ? "Signature Verified Successfully\n" : "Verified OK\n" });
      if (alg === "p256") expect(sh("openssl asn1parse -inform DER -in sig.bin", work).out).toContain("INTEGER");

      // one flipped byte in the signed bytes and openssl says no
      const pae = readFileSync(join(work, "pae.bin"));
      pae[pae.length - 5] ^= 0x01;
      writeFileSync(join(work, "pae.bin"), pae);
      const bad = sh(cmd, work);
      expect(bad.code).not.toBe(0);
      expect(bad.out).toContain(alg === "ed25519" ? "Signature Verification Failure" : "Verification failure");
    }, 30_000);

    test("the openssl steps printed on the certificate work as printed, and catch a changed file", async () => {
      const dir = await certified(alg);
      const blocks = codeBlocks(readFileSync(join(dir, "certificate.md"), "utf8"));
      expect(blocks).toHaveLength(3);
      // the HTML shows the same commands
      const pres = [...readFileSync(join(dir, "certificate.html"), "utf8").matchAll(/<pre>([\s\S]*?)<\/pre>/g)].map((m) => unescapeHtml(m[1]));
      expect(pres).toEqual(blocks);

      const ok = sh(blocks[1], dir);
      expect(ok.code).toBe(0);
      // both envelopes: the acceptance certificate, then the in-toto Test Result statement over the same files
      const verified = `${alg === "ed25519" ? "Signature Verified Successfully" : "Verified OK"}\nresults.json: OK\njunit.xml: OK\nsuite.yaml: OK\n`;
      expect(ok.out).toBe(`${verified}${verified}`);
      expect(blocks[2]!.split("\n")).toEqual([
        "cosign verify-blob-attestation --key gpucheck.pub --signature certificate.intoto.json --type https://gpucheck.dev/acceptance/v1 --insecure-ignore-tlog results.json",
        "cosign verify-blob-attestation --key gpucheck.pub --signature certificate.test-result.intoto.json --type https://in-toto.io/attestation/test-result/v0.1 --insecure-ignore-tlog results.json",
      ]);

      const junit = readFileSync(join(dir, "junit.xml"));
      junit[100] ^= 0x01;
      writeFileSync(join(dir, "junit.xml"), junit);
      const bad = sh(blocks[1], dir);
      expect(bad.code).not.toBe(0);
      expect(bad.out).toContain("junit.xml: FAILED");
    }, 30_000);

    test("the same steps catch a Test Result envelope whose signature was changed", async () => {
      const dir = await certified(alg);
      const script = codeBlocks(readFileSync(join(dir, "certificate.md"), "utf8"))[1]!;
      const file = join(dir, "certificate.test-result.intoto.json");
      const env = JSON.parse(readFileSync(file, "utf8"));
      const sig = Buffer.from(env.signatures[0].sig, "base64");
      sig[sig.length - 1]! ^= 0x01;
      env.signatures[0].sig = sig.toString("base64");
      writeFileSync(file, JSON.stringify(env));
      const bad = sh(script, dir);
      expect(bad.code).not.toBe(0);
      expect(bad.out).toContain("certificate.test-result.intoto.json: FAILED");
    }, 30_000);
  });
}

test("the public key written beside the results is the signer's", async () => {
  const dir = await certified("ed25519");
  expect(createPublicKey(readFileSync(join(dir, "gpucheck.pub"))).asymmetricKeyType).toBe("ed25519");
});
