// SHA-256 through Bun's native hasher. node:crypto's createHash gives the same digest, but importing
// node:crypto costs a compiled gpucheck about 13 ms of CPU (its Hash is a stream, so the stream
// modules load with it), more than a whole hello-world start-up: every command that loads a suite
// or the platforms paid it (BENCHMARKS.md, "Start-up: issue 12 item 10").

/** The digest of the parts one after the other (strings as UTF-8), as hex or base64. */
export function sha256(parts: ReadonlyArray<string | Uint8Array> | string | Uint8Array, encoding: "hex" | "base64" = "hex"): string {
  const h = new Bun.CryptoHasher("sha256");
  for (const p of typeof parts === "string" || parts instanceof Uint8Array ? [parts] : parts) h.update(p);
  return h.digest(encoding);
}
