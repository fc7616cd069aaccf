// DSSE envelopes read back: structure as envelope.md requires it, payload and signatures decoded.
// Apart from dsse.ts (signing) so that `gpucheck verify` reads a certificate without node:crypto.
// https://github.com/secure-systems-lab/dsse/blob/v1.0.2/envelope.md

export const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";

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
