// DSSE envelopes: sign a payload, check a signature with a node:crypto key (envelope.ts reads one back).
// https://github.com/secure-systems-lab/dsse/blob/v1.0.2/envelope.md
// gpucheck writes ECDSA signatures DER-encoded (what cosign, in-toto and securesystemslib verify)
// and reads both DER and raw r‖s (IEEE P1363: the DSSE spec's own test vector, and sigstore ≥ 1.8.3).
import { createPublicKey, sign as cryptoSign, verify as cryptoVerify, type KeyObject } from "node:crypto";
import { fingerprint, keyAlgorithm } from "./keys.ts";
import { pae } from "./pae.ts";
import type { PublicKey } from "./public-key.ts";

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

/** A node:crypto public key as verification takes it (lib/sign/web-key.ts reads --key without node:crypto). */
export function keyVerifier(publicKey: KeyObject): PublicKey {
  const algorithm = keyAlgorithm(publicKey);
  return { algorithm, fingerprint: fingerprint(publicKey), verify: async (data, sig) => verifySignature(publicKey, data, sig) };
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
