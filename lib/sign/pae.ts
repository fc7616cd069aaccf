// DSSE v1 pre-authentication encoding: the exact bytes a signature covers.
// https://github.com/secure-systems-lab/dsse/blob/v1.0.2/protocol.md
//   PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
// LEN is the ASCII decimal byte length (UTF-8 bytes, not characters), so the encoding is
// unambiguous without escaping and the payload is signed as bytes, never re-serialised.

export function pae(payloadType: string, payload: Uint8Array): Buffer {
  const type = Buffer.from(payloadType, "utf8");
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `, "ascii"), type, Buffer.from(` ${payload.length} `, "ascii"), payload]);
}
