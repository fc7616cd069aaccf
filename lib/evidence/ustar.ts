// A minimal POSIX ustar writer (IEEE Std 1003.1 "pax" format's ustar header) gzipped with node:zlib:
// enough for an evidence bundle of regular files, without a new dependency.
import { gzipSync } from "node:zlib";

export interface TarEntry {
  /** the path inside the archive (≤ 100 bytes) */
  name: string;
  data: Uint8Array;
}

const BLOCK = 512;

function octal(n: number, width: number): string {
  return `${n.toString(8).padStart(width - 1, "0")}\0`;
}

function header(name: string, size: number, mtime: number): Uint8Array {
  const h = new Uint8Array(BLOCK);
  const put = (s: string, at: number) => h.set(new TextEncoder().encode(s), at);
  const bytes = new TextEncoder().encode(name);
  if (bytes.length > 100) throw new Error(`tar entry name over 100 bytes: ${name}`);
  h.set(bytes, 0);
  put(octal(0o600, 8), 100); // mode: private, as the run directory
  put(octal(0, 8), 108); // uid
  put(octal(0, 8), 116); // gid
  put(octal(size, 12), 124);
  put(octal(mtime, 12), 136);
  put("        ", 148); // checksum counted as spaces
  put("0", 156); // regular file
  put("ustar\u000000", 257);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return h;
}

/** The entries as a .tar.gz. */
export function tarGz(entries: TarEntry[], mtime = Math.floor(Date.now() / 1000)): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    parts.push(header(e.name, e.data.length, mtime), e.data);
    const pad = (BLOCK - (e.data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(new Uint8Array(pad));
  }
  parts.push(new Uint8Array(BLOCK * 2)); // end of archive
  return gzipSync(Buffer.concat(parts));
}
