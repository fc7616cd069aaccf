import { beforeAll, describe, expect, test } from "bun:test";
import { createHash, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { certify } from "../../lib/sign/certify.ts";
import { keySigner, keyVerifier, serializeEnvelope, signEnvelope } from "../../lib/sign/dsse.ts";
import { fingerprint } from "../../lib/sign/keys.ts";
import { type VerifyReason, type VerifyResult, verifyCertificate } from "../../lib/sign/verify.ts";
import { resultsCopy } from "./keys-fixture.ts";

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

let dir: string;
let privateKey: KeyObject;
let publicKey: KeyObject;
let text: string;
let env: { payloadType: string; payload: string; signatures: Array<{ keyid: string; sig: string }> };
let files: Map<string, Buffer>;

beforeAll(async () => {
  dir = resultsCopy("h100-2node");
  privateKey = generateKeyPairSync("ed25519").privateKey;
  publicKey = createPublicKey(privateKey);
  await certify(dir, privateKey, { now: new Date("2025-03-04T09:15:00Z") });
  text = readFileSync(join(dir, "certificate.intoto.json"), "utf8");
  env = JSON.parse(text);
  files = new Map(["results.json", "junit.xml", "suite.yaml"].map((n) => [n, readFileSync(join(dir, n))]));
});

function verify(envelopeText: string, opts: { key?: KeyObject; files?: Map<string, Buffer> | null } = {}): Promise<VerifyResult> {
  const f = opts.files === undefined ? files : opts.files;
  return verifyCertificate({ envelopeText, publicKey: keyVerifier(opts.key ?? publicKey), readSubject: f ? (n) => f.get(n) ?? null : undefined });
}

/** A certificate whose signature is good but whose payload is the given object or text. */
async function signed(payload: unknown): Promise<string> {
  const bytes = Buffer.from(typeof payload === "string" ? payload : JSON.stringify(payload));
  return serializeEnvelope(await signEnvelope("application/vnd.in-toto+json", bytes, keySigner(privateKey)));
}

function statement(): Record<string, any> {
  return JSON.parse(Buffer.from(env.payload, "base64").toString());
}

describe("a certificate gpucheck wrote", () => {
  test("verifies, names its signer and checks every file", async () => {
    const r = await verify(text);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.signer).toBe(fingerprint(publicKey));
    expect(env.signatures[0].keyid).toBe(r.signer);
    expect(r.checkedFiles).toEqual(["results.json", "junit.xml", "suite.yaml"]);
    expect(r.statement.predicate.cluster).toBe("acme-h100-a");
  });

  test("without the results directory only the signature is checked", async () => {
    const r = await verify(text, { files: null });
    expect(r.ok && r.checkedFiles).toEqual([]);
  });

  test("an ECDSA signature in raw r‖s form is accepted too", async () => {
    const p256 = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
    const d = resultsCopy("h100-2node");
    await certify(d, p256);
    const e = JSON.parse(readFileSync(join(d, "certificate.intoto.json"), "utf8"));
    const der = Buffer.from(e.signatures[0].sig, "base64");
    expect(der[0]).toBe(0x30);
    const raw = derToP1363(der);
    e.signatures[0].sig = raw.toString("base64");
    expect((await verify(JSON.stringify(e), { key: createPublicKey(p256), files: null })).ok).toBe(true);
  });
});

describe("every way a certificate can be wrong, with its reason", () => {
  test("one changed byte in the payload (371.4 GB/s made 971.4): bad signature", async () => {
    const payload = Buffer.from(env.payload, "base64");
    payload[payload.indexOf('"measured":371.4') + '"measured":'.length] = "9".charCodeAt(0);
    expect(payload.toString()).toContain('"measured":971.4');
    expect(await verify(JSON.stringify({ ...env, payload: payload.toString("base64") }))).toEqual({
      ok: false,
      reason: "bad-signature",
      message: `bad signature: it does not verify with --key (${fingerprint(publicKey)})`,
    });
  });

  for (const name of ["results.json", "junit.xml", "suite.yaml"]) {
    test(`one changed byte in ${name}: digest mismatch naming the file`, async () => {
      const changed = Buffer.from(files.get(name) as Buffer);
      changed[Math.floor(changed.length / 2)] ^= 0x20;
      const expected = statement().subject.find((s: { name: string }) => s.name === name).digest.sha256;
      expect(await verify(text, { files: new Map([...files, [name, changed]]) })).toEqual({
        ok: false,
        reason: "digest-mismatch",
        message: `digest mismatch: ${name} has sha256 ${sha(changed)}, the certificate says ${expected}`,
        file: name,
      });
    });
  }

  test("a subject file that is gone", async () => {
    const f = new Map(files);
    f.delete("junit.xml");
    expect(await verify(text, { files: f })).toEqual({
      ok: false,
      reason: "missing-file",
      message: "missing file: junit.xml is named in the certificate but is not in the results directory",
      file: "junit.xml",
    });
  });

  test("a swapped key: bad signature, naming both keys", async () => {
    const other = createPublicKey(generateKeyPairSync("ed25519").privateKey);
    expect(await verify(text, { key: other })).toEqual({
      ok: false,
      reason: "bad-signature",
      message: `bad signature: it does not verify with --key (${fingerprint(other)}); the envelope names key ${fingerprint(publicKey)}`,
    });
  });

  test("a key of the other algorithm: bad signature, no crash", async () => {
    const other = createPublicKey(generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey);
    expect(await verify(text, { key: other })).toMatchObject({ ok: false, reason: "bad-signature" });
  });

  test("an added second signature", async () => {
    const two = { ...env, signatures: [env.signatures[0], { keyid: "", sig: env.signatures[0].sig }] };
    expect(await verify(JSON.stringify(two))).toEqual({
      ok: false,
      reason: "several-signatures",
      message: "several signatures: the envelope has 2, a gpucheck certificate has exactly one",
    });
  });

  test("no signature", async () => {
    expect(await verify(JSON.stringify({ ...env, signatures: [] }))).toEqual({ ok: false, reason: "no-signature", message: `no signature: the envelope's "signatures" is empty` });
  });

  test("truncated JSON", async () => {
    expect(await verify(text.slice(0, Math.floor(text.length / 2)))).toEqual({ ok: false, reason: "malformed-envelope", message: "malformed envelope: not valid JSON" });
    expect(await verify(text.slice(0, -1))).toEqual({ ok: false, reason: "malformed-envelope", message: "malformed envelope: not valid JSON" });
  });

  test("wrong payloadType", async () => {
    expect(await verify(JSON.stringify({ ...env, payloadType: "application/json" }))).toEqual({
      ok: false,
      reason: "wrong-payload-type",
      message: `wrong payloadType: "application/json", expected "application/vnd.in-toto+json"`,
    });
  });

  test("a keyid naming another key, though the signature is good", async () => {
    const e = { ...env, signatures: [{ keyid: "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", sig: env.signatures[0].sig }] };
    expect(await verify(JSON.stringify(e))).toEqual({
      ok: false,
      reason: "keyid-mismatch",
      message: `keyid mismatch: the signature verifies with --key (${fingerprint(publicKey)}) but the envelope names SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
    });
  });

  test("an empty keyid is accepted (cosign and go-securesystemslib write it); a missing one is not", async () => {
    expect((await verify(JSON.stringify({ ...env, signatures: [{ keyid: "", sig: env.signatures[0].sig }] }))).ok).toBe(true);
    expect(await verify(JSON.stringify({ ...env, signatures: [{ sig: env.signatures[0].sig }] }))).toEqual({
      ok: false,
      reason: "malformed-envelope",
      message: `malformed envelope: signatures[0] has no "keyid"`,
    });
  });
});

describe("a well-signed payload that is not a gpucheck statement", () => {
  const cases: Array<[string, (s: Record<string, any>) => unknown, VerifyReason, string]> = [
    ["not JSON", () => "{not json", "malformed-statement", "malformed statement: the payload is not JSON"],
    [
      "an in-toto v0.1 statement",
      (s) => ({ ...s, _type: "https://in-toto.io/Statement/v0.1" }),
      "malformed-statement",
      `malformed statement: "_type" is "https://in-toto.io/Statement/v0.1", expected "https://in-toto.io/Statement/v1"`,
    ],
    [
      "another predicate type",
      (s) => ({ ...s, predicateType: "https://slsa.dev/provenance/v1" }),
      "wrong-predicate-type",
      `wrong predicateType: "https://slsa.dev/provenance/v1", expected "https://gpucheck.dev/acceptance/v1"`,
    ],
    ["no subjects", (s) => ({ ...s, subject: [] }), "malformed-statement", "malformed statement: subject: Too small: expected array to have >=1 items"],
    [
      "a subject outside the results directory",
      (s) => ({ ...s, subject: [{ name: "../../etc/passwd", digest: { sha256: "0".repeat(64) } }, ...s.subject] }),
      "malformed-statement",
      `malformed statement: subject[0].name "../../etc/passwd" is not a file name in the results directory`,
    ],
    ["a subject twice", (s) => ({ ...s, subject: [...s.subject, s.subject[0]] }), "malformed-statement", `malformed statement: subject "results.json" appears twice`],
    [
      "a sha512-only subject",
      (s) => ({ ...s, subject: [{ name: "results.json", digest: { sha512: "0".repeat(128) } }, ...s.subject.slice(1)] }),
      "malformed-statement",
      "malformed statement: subject[0].digest.sha256 is not 64 lowercase hex digits",
    ],
    ["no suite.yaml subject", (s) => ({ ...s, subject: s.subject.slice(0, 2) }), "malformed-statement", "malformed statement: no subject for suite.yaml"],
    [
      "a predicate without its cluster",
      (s) => ({ ...s, predicate: { ...s.predicate, cluster: undefined } }),
      "malformed-statement",
      "malformed statement: predicate.cluster: Invalid input: expected string, received undefined",
    ],
    [
      "a test with an unknown outcome",
      (s) => ({ ...s, predicate: { ...s.predicate, tests: [{ ...s.predicate.tests[0], outcome: "ok" }] } }),
      "malformed-statement",
      `malformed statement: predicate.tests.0.outcome: Invalid option: expected one of "passed"|"failed"|"error"|"skipped"|"unfinished"`,
    ],
  ];
  for (const [name, edit, reason, message] of cases) {
    test(name, async () => {
      expect(await verify(await signed(edit(statement())), { files: null })).toEqual({ ok: false, reason, message });
    });
  }
});

/** DER ECDSA-Sig-Value → r‖s, each left-padded to 32 bytes. */
function derToP1363(der: Buffer): Buffer {
  let i = 2 + (der[1] & 0x80 ? der[1] & 0x7f : 0);
  const ints: Buffer[] = [];
  for (let k = 0; k < 2; k++) {
    const len = der[i + 1];
    let v = der.subarray(i + 2, i + 2 + len);
    while (v.length > 32 && v[0] === 0) v = v.subarray(1);
    ints.push(Buffer.concat([Buffer.alloc(32 - v.length), v]));
    i += 2 + len;
  }
  return Buffer.concat(ints);
}
