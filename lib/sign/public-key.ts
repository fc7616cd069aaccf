// A public key as verification needs it, whichever library checks the signature: node:crypto
// (dsse.ts keyVerifier) or WebCrypto (web-key.ts), and its name, the OpenSSH fingerprint.
import { sha256 } from "../core/sha256.ts";

export type KeyAlgorithm = "ed25519" | "p256";

export interface PublicKey {
  algorithm: KeyAlgorithm;
  /** OpenSSH's SHA256 fingerprint, which is also the DSSE keyid gpucheck writes */
  fingerprint: string;
  /** Ed25519 over the data; ECDSA P-256 with SHA-256, the signature DER or raw r‖s */
  verify(data: Uint8Array, sig: Uint8Array): Promise<boolean>;
}

/**
 * OpenSSH's SHA256 fingerprint (`ssh-keygen -lf`), which go-securesystemslib also uses as the DSSE
 * keyid, so cosign and in-toto tools name the key the same way. `raw`: Ed25519's 32 bytes, or
 * P-256's uncompressed point 04‖x‖y.
 */
export function rawFingerprint(algorithm: KeyAlgorithm, raw: Uint8Array): string {
  return `SHA256:${sha256(sshPublicKeyBlob(algorithm, raw), "base64").replace(/=+$/, "")}`;
}

/** RFC 4253 §6.6 / RFC 5656 §3.1 public key blob: a sequence of uint32-length-prefixed strings. */
export function sshPublicKeyBlob(algorithm: KeyAlgorithm, raw: Uint8Array): Buffer {
  const parts = algorithm === "ed25519" ? [Buffer.from("ssh-ed25519"), raw] : [Buffer.from("ecdsa-sha2-nistp256"), Buffer.from("nistp256"), raw];
  return Buffer.concat(
    parts.flatMap((p) => {
      const len = Buffer.alloc(4);
      len.writeUInt32BE(p.length);
      return [len, p];
    }),
  );
}
