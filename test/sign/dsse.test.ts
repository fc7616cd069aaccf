import { describe, expect, test } from "bun:test";
import { createPublicKey } from "node:crypto";
import { keySigner, serializeEnvelope, signEnvelope, verifySignature } from "../../lib/sign/dsse.ts";
import { decodeBase64Strict, parseEnvelope } from "../../lib/sign/envelope.ts";
import { pae } from "../../lib/sign/pae.ts";
import { dsseFixture, dsseSpecP256, rfc8032Test1 } from "./keys-fixture.ts";

const spec = JSON.parse(dsseFixture("official-dsse-spec-vector.json").toString());
const specPub = createPublicKey(dsseFixture("spec-vector-p256-public.pem"));
const edPub = createPublicKey(dsseFixture("derived-ed25519-public.pem"));

function verifyEnvelopeFile(name: string, pub = specPub): boolean {
  const parsed = parseEnvelope(dsseFixture(name).toString());
  if (!parsed.ok) throw new Error(parsed.message);
  const { payloadType, payload, signatures } = parsed.envelope;
  return verifySignature(pub, pae(payloadType, payload), signatures[0].sig);
}

describe("the DSSE spec test vector", () => {
  test("the published public key is the one built from the spec's integers", () => {
    expect(createPublicKey(dsseSpecP256()).export({ type: "spki", format: "pem" })).toBe(dsseFixture("spec-vector-p256-public.pem").toString());
  });

  test("its raw r‖s signature verifies, from protocol.md's envelope", () => {
    const env = spec.envelope_from_protocol_md;
    const parsed = parseEnvelope(JSON.stringify(env));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.envelope.payload.toString()).toBe("hello world");
    expect(parsed.envelope.signatures[0].keyid).toBeUndefined();
    expect(parsed.envelope.signatures[0].sig.length).toBe(64);
    expect(verifySignature(specPub, pae(env.payloadType, parsed.envelope.payload), parsed.envelope.signatures[0].sig)).toBe(true);
  });

  test("the same signature DER-encoded verifies too", () => {
    const der = Buffer.from(dsseFixture("spec-vector-sig-der.b64").toString().trim(), "base64");
    expect(der[0]).toBe(0x30);
    expect(verifySignature(specPub, Buffer.from(spec.pae_hex, "hex"), der)).toBe(true);
  });

  test("neither form verifies over different bytes", () => {
    const sig = Buffer.from(spec.envelope_from_protocol_md.signatures[0].sig, "base64");
    expect(verifySignature(specPub, pae(spec.payloadType, Buffer.from("hello world!")), sig)).toBe(false);
    expect(verifySignature(edPub, Buffer.from(spec.pae_hex, "hex"), sig)).toBe(false);
  });

  test("a signature gpucheck makes with the spec key is DER and verifies against the spec PAE", async () => {
    const env = await signEnvelope(spec.payloadType, Buffer.from("hello world"), keySigner(dsseSpecP256()));
    const sig = Buffer.from(env.signatures[0].sig, "base64");
    expect(sig[0]).toBe(0x30);
    expect(sig.length).toBeGreaterThanOrEqual(68);
    expect(verifySignature(specPub, Buffer.from(spec.pae_hex, "hex"), sig)).toBe(true);
    expect(env.signatures[0].keyid).toBe("SHA256:f4AuBLdH4Lj/dIuwAUXXebzoI9B/cJ4iSQ3/qByIl4M");
  });
});

describe("the derived in-toto vectors", () => {
  test("Ed25519: signing the payload with the RFC 8032 key reproduces the envelope's signature byte for byte", async () => {
    const expected = JSON.parse(dsseFixture("derived-ed25519-envelope.json").toString());
    const payload = dsseFixture("derived-ed25519-statement.payload.json");
    const env = await signEnvelope("application/vnd.in-toto+json", payload, { ...keySigner(rfc8032Test1()), keyid: "" });
    expect(env).toEqual(expected);
    expect(verifyEnvelopeFile("derived-ed25519-envelope.json", edPub)).toBe(true);
  });

  test("P-256: the DER and the r‖s forms of the signature both verify", () => {
    expect(verifyEnvelopeFile("derived-p256-envelope-der-sig.json")).toBe(true);
    expect(verifyEnvelopeFile("derived-p256-envelope-p1363-sig.json")).toBe(true);
  });

  test("the Ed25519 envelope does not verify with the P-256 key, nor the other way round", () => {
    expect(verifyEnvelopeFile("derived-ed25519-envelope.json", specPub)).toBe(false);
    expect(verifyEnvelopeFile("derived-p256-envelope-der-sig.json", edPub)).toBe(false);
  });

  test("keySigner names the key by its OpenSSH fingerprint", () => {
    expect(keySigner(rfc8032Test1()).keyid).toBe("SHA256:bbXpuKG6zhzdmnxq256TlqzFBzRl2f6OOg722cYNbU8");
  });
});

describe("envelope files", () => {
  test("serialised compactly in cosign's field order, with no trailing newline", async () => {
    const env = await signEnvelope("application/vnd.in-toto+json", Buffer.from("{}"), { keyid: "k", sign: async () => Buffer.from([1, 2, 3]) });
    expect(serializeEnvelope(env)).toBe('{"payloadType":"application/vnd.in-toto+json","payload":"e30=","signatures":[{"keyid":"k","sig":"AQID"}]}');
  });

  test.each([
    ["{", "not valid JSON"],
    ["[]", "not a JSON object"],
    ['{"payload":"","signatures":[]}', '"payloadType" is missing'],
    ['{"payloadType":1,"payload":"","signatures":[]}', '"payloadType" is not a string'],
    ['{"payloadType":"t","signatures":[]}', '"payload" is missing'],
    ['{"payloadType":"t","payload":""}', '"signatures" is missing'],
    ['{"payloadType":"t","payload":"","signatures":{}}', '"signatures" is not an array'],
    ['{"payloadType":"t","payload":"e30","signatures":[]}', null],
    ['{"payloadType":"t","payload":"e31=","signatures":[]}', '"payload" is not valid base64'],
    ['{"payloadType":"t","payload":"","signatures":[7]}', "signatures[0] is not an object"],
    ['{"payloadType":"t","payload":"","signatures":[{"keyid":""}]}', "signatures[0].sig is missing"],
    ['{"payloadType":"t","payload":"","signatures":[{"sig":"AQID","keyid":3}]}', "signatures[0].keyid is not a string"],
    ['{"payloadType":"t","payload":"","signatures":[{"sig":"AQ=D"}]}', "signatures[0].sig is not valid base64"],
  ])("parseEnvelope(%s) → %s", (text, message) => {
    const r = parseEnvelope(text);
    if (message === null) expect(r.ok).toBe(true);
    else expect(r).toEqual({ ok: false, message });
  });

  test("unknown fields are ignored, as the spec requires", () => {
    const r = parseEnvelope('{"payloadType":"t","payload":"aGk=","signatures":[{"sig":"AQID","extra":1}],"future":true}');
    expect(r.ok && r.envelope.payload.toString()).toBe("hi");
  });
});

describe("decodeBase64Strict", () => {
  test("accepts standard and URL-safe alphabets, padded or not", () => {
    expect(decodeBase64Strict("+/+/")?.toString("hex")).toBe("fbffbf");
    expect(decodeBase64Strict("-_-_")?.toString("hex")).toBe("fbffbf");
    expect(decodeBase64Strict("aGk=")?.toString()).toBe("hi");
    expect(decodeBase64Strict("aGk")?.toString()).toBe("hi");
    expect(decodeBase64Strict("")?.length).toBe(0);
  });

  test("rejects strings a lenient decoder would map to the same bytes", () => {
    expect(Buffer.from("aGl=", "base64").toString()).toBe("hi"); // the leniency this guards against
    expect(decodeBase64Strict("aGl=")).toBeNull();
    expect(decodeBase64Strict("aGk==")).toBeNull();
    expect(decodeBase64Strict("aG k=")).toBeNull();
    expect(decodeBase64Strict("+_ab")).toBeNull();
    expect(decodeBase64Strict("aGk=aGk=")).toBeNull();
  });
});
