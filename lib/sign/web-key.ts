// --key for `gpucheck verify` through WebCrypto, a global of the runtime. node:crypto answers the
// same, but loading it costs a compiled gpucheck about 13 ms of CPU (its Hash is a stream), which
// was most of what verify spent beyond a hello-world (BENCHMARKS.md, "Start-up: issue 12 item 10").
// Only a key exactly as gpucheck keygen and openssl write it is read here: one PEM block of an
// Ed25519 or uncompressed P-256 SubjectPublicKeyInfo. Anything else (other algorithms, other PEM
// layouts, a damaged key) returns undefined and goes through keys.ts, which says what is wrong.
// test/sign/web-key.test.ts compares every answer with node:crypto's.
import { type KeyAlgorithm, type PublicKey, rawFingerprint } from "./public-key.ts";

/** The whole DER of such a key is this prefix (SEQUENCE, AlgorithmIdentifier, BIT STRING header), then the raw key */
const SPKI: Record<KeyAlgorithm, { prefix: Buffer; raw: number }> = {
  ed25519: { prefix: Buffer.from("302a300506032b6570032100", "hex"), raw: 32 },
  // id-ecPublicKey, prime256v1; the raw key is the point 04‖x‖y, uncompressed
  p256: { prefix: Buffer.from("3059301306072a8648ce3d020106082a8648ce3d030107034200", "hex"), raw: 65 },
};

const PEM = /^-----BEGIN PUBLIC KEY-----\r?\n((?:[A-Za-z0-9+/]+={0,2}\r?\n)+)-----END PUBLIC KEY-----\r?\n?$/;

export async function webPublicKey(pemText: string): Promise<PublicKey | undefined> {
  const body = PEM.exec(pemText)?.[1]?.replace(/\r?\n/g, "");
  if (body === undefined) return undefined;
  const der = Buffer.from(body, "base64");
  if (der.toString("base64") !== body) return undefined;
  const algorithm = (Object.keys(SPKI) as KeyAlgorithm[]).find(
    (a) => der.length === SPKI[a].prefix.length + SPKI[a].raw && der.subarray(0, SPKI[a].prefix.length).equals(SPKI[a].prefix),
  );
  const raw = algorithm && der.subarray(SPKI[algorithm].prefix.length);
  if (!algorithm || !raw || (algorithm === "p256" && raw[0] !== 0x04)) return undefined;
  const params = algorithm === "ed25519" ? { name: "Ed25519" } : { name: "ECDSA", namedCurve: "P-256" };
  let key: CryptoKey;
  try {
    // a point off the curve is refused here, and then by node:crypto with its message
    key = await crypto.subtle.importKey("spki", der, params, false, ["verify"]);
  } catch {
    return undefined;
  }
  const check = async (sig: Uint8Array, data: Uint8Array) => {
    try {
      return await crypto.subtle.verify(algorithm === "ed25519" ? params : { name: "ECDSA", hash: "SHA-256" }, key, sig as BufferSource, data as BufferSource);
    } catch {
      return false;
    }
  };
  return {
    algorithm,
    fingerprint: rawFingerprint(algorithm, raw),
    // ECDSA as dsse.ts verifySignature does it: DER first, then a 64-byte signature as raw r‖s
    verify: async (data, sig) => {
      if (algorithm === "ed25519") return check(sig, data);
      const rs = derToRaw(sig);
      return (rs !== undefined && (await check(rs, data))) || (sig.length === 64 && check(sig, data));
    },
  };
}

/**
 * A DER ECDSA-Sig-Value → r‖s (32 bytes each), or undefined unless the encoding is canonical DER:
 * node:crypto (BoringSSL) re-encodes what it parsed and refuses a signature whose bytes differ,
 * so a lenient reading here would accept signatures it refuses.
 */
export function derToRaw(sig: Uint8Array): Uint8Array | undefined {
  if (sig.length < 8 || sig[0] !== 0x30 || sig[1] !== sig.length - 2) return undefined;
  const ints: Uint8Array[] = [];
  let i = 2;
  for (let k = 0; k < 2; k++) {
    if (sig[i] !== 0x02 || i + 2 > sig.length) return undefined;
    const len = sig[i + 1]!;
    const v = sig.subarray(i + 2, i + 2 + len);
    if (len === 0 || v.length !== len) return undefined;
    ints.push(v);
    i += 2 + len;
  }
  if (i !== sig.length) return undefined;
  const out = new Uint8Array(64);
  for (const [k, v] of ints.entries()) {
    if (v[0]! & 0x80) return undefined; // negative
    const n = v[0] === 0 ? v.subarray(1) : v;
    // a leading zero only before a byte with the high bit set; no value longer than the curve's 32 bytes
    if ((v[0] === 0 && v.length > 1 && !(v[1]! & 0x80)) || n.length > 32) return undefined;
    out.set(n, k * 32 + 32 - n.length);
  }
  return out;
}
