// DSSE envelopes: sign a payload, read an envelope back, check a signature.
// https://github.com/secure-systems-lab/dsse/blob/v1.0.2/envelope.md
// gpucheck writes ECDSA signatures DER-encoded (what cosign, in-toto and securesystemslib verify)
// and reads both DER and raw r‖s (IEEE P1363: the DSSE spec's own test vector, and sigstore ≥ 1.8.3).
import { createPublicKey, sign as cryptoSign, verify as cryptoVerify, type KeyObject } from "node:crypto";
import { fingerprint, keyAlgorithm } from "./keys.ts";
import { pae } from "./pae.ts";

export const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";

/** Anything that signs bytes: a key file today, an HSM or ssh-agent tomorrow (sigstore-js's Signer). */
export interface Signer {
  /** unauthenticated hint naming the key: its OpenSSH SHA256 fingerprint, or "" */
  keyid: string;
  sign(data: Uint8Array): Promise<Buffer>;
}

export interface Envelope {
  payloadType: string;
  /** standard base64 of the payload bytes */
  payload: string;
  signatures: Array<{ keyid: string; sig: string }>;
}

/** A signer over a private key; keyid is the key's fingerprint, which go-securesystemslib computes too. */
export function keySigner(privateKey: KeyObject): Signer {
  const ecdsa = keyAlgorithm(privateKey) === "p256";
  return {
    keyid: fingerprint(createPublicKey(privateKey)),
    // Ed25519 signs the message itself (no prehash); ECDSA hashes with SHA-256
    sign: async (data) => (ecdsa ? cryptoSign("sha256", data, { key: privateKey, dsaEncoding: "der" }) : cryptoSign(null, data, privateKey)),
  };
}

export async function signEnvelope(payloadType: string, payload: Uint8Array, signer: Signer): Promise<Envelope> {
  const sig = await signer.sign(pae(payloadType, payload));
  return {
    payloadType,
    payload: Buffer.from(payload).toString("base64"),
    signatures: [{ keyid: signer.keyid, sig: sig.toString("base64") }],
  };
}

/** Compact, without a trailing newline: every byte of the file is then structure or signed data. */
export function serializeEnvelope(env: Envelope): string {
  return JSON.stringify({ payloadType: env.payloadType, payload: env.payload, signatures: env.signatures.map((s) => ({ keyid: s.keyid, sig: s.sig })) });
}

/** Ed25519 over the message; ECDSA P-256 with SHA-256, the signature DER or raw r‖s. */
export function verifySignature(publicKey: KeyObject, data: Uint8Array, sig: Uint8Array): boolean {
  try {
    if (keyAlgorithm(publicKey) === "ed25519") return cryptoVerify(null, data, publicKey, sig);
    if (cryptoVerify("sha256", data, { key: publicKey, dsaEncoding: "der" }, sig)) return true;
    return sig.length === 64 && cryptoVerify("sha256", data, { key: publicKey, dsaEncoding: "ieee-p1363" }, sig);
  } catch {
    // a DER parser rejecting garbage is a failed verification, not a crash
    return false;
  }
}

/**
 * Base64 as DSSE allows it (standard or URL-safe, padded or not), but only in its canonical form:
 * a lenient decoder maps several strings to the same bytes (unused trailing bits), and then one
 * changed character in a certificate would go unnoticed. Returns null when s is not canonical.
 */
export function decodeBase64Strict(s: string): Buffer | null {
  const urlSafe = /[-_]/.test(s);
  if (!(urlSafe ? /^[A-Za-z0-9_-]*={0,2}$/ : /^[A-Za-z0-9+/]*={0,2}$/).test(s)) return null;
  const bytes = Buffer.from(s, urlSafe ? "base64url" : "base64");
  let again = bytes.toString("base64");
  if (urlSafe) again = again.replace(/\+/g, "-").replace(/\//g, "_");
  if (!s.endsWith("=")) again = again.replace(/=+$/, "");
  return again === s ? bytes : null;
}

export interface ParsedEnvelope {
  payloadType: string;
  /** the decoded payload: exactly the bytes the signature covers, never re-serialised */
  payload: Buffer;
  /** keyid is undefined when the field is absent (the spec reads that as "") */
  signatures: Array<{ keyid: string | undefined; sig: Buffer }>;
}

/** Structure as envelope.md requires it; unknown fields are ignored, as the spec says they must be. */
export function parseEnvelope(text: string): { ok: true; envelope: ParsedEnvelope } | { ok: false; message: string } {
  const bad = (message: string) => ({ ok: false as const, message });
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return bad("not valid JSON");
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return bad("not a JSON object");
  const env = raw as Record<string, unknown>;
  for (const field of ["payloadType", "payload"]) {
    if (typeof env[field] !== "string") return bad(`"${field}" ${field in env ? "is not a string" : "is missing"}`);
  }
  if (!Array.isArray(env.signatures)) return bad(`"signatures" ${"signatures" in env ? "is not an array" : "is missing"}`);
  const payload = decodeBase64Strict(env.payload as string);
  if (!payload) return bad(`"payload" is not valid base64`);
  const signatures: ParsedEnvelope["signatures"] = [];
  for (const [i, s] of (env.signatures as unknown[]).entries()) {
    if (typeof s !== "object" || s === null || Array.isArray(s)) return bad(`signatures[${i}] is not an object`);
    const { keyid, sig } = s as Record<string, unknown>;
    if (typeof sig !== "string") return bad(`signatures[${i}].sig ${sig === undefined ? "is missing" : "is not a string"}`);
    if (keyid !== undefined && typeof keyid !== "string") return bad(`signatures[${i}].keyid is not a string`);
    const bytes = decodeBase64Strict(sig);
    if (!bytes) return bad(`signatures[${i}].sig is not valid base64`);
    signatures.push({ keyid, sig: bytes });
  }
  return { ok: true, envelope: { payloadType: env.payloadType as string, payload, signatures } };
}
