// A minimal ustar writer for staging the workload (text files) into containers and onto hosts
// in one stream, without a temp directory or a tar binary.

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, "0") + "\0";
}

function header(name: string, size: number, mode: number, type: "0" | "5", mtime: number): Uint8Array {
  const h = new Uint8Array(512);
  const enc = new TextEncoder();
  let prefix = "";
  let base = name;
  if (enc.encode(name).length > 100) {
    // ustar splits long names at a slash into prefix (155) and name (100)
    const cut = name.lastIndexOf("/", 155);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
  }
  const put = (s: string, off: number) => h.set(enc.encode(s), off);
  put(base, 0);
  put(octal(mode, 8), 100);
  put(octal(0, 8), 108);
  put(octal(0, 8), 116);
  put(octal(size, 12), 124);
  put(octal(mtime, 12), 136);
  put("        ", 148); // checksum is computed with its own field as spaces
  put(type, 156);
  put("ustar\0" + "00", 257);
  put(prefix, 345);
  const sum = h.reduce((a, b) => a + b, 0);
  put(octal(sum, 7) + " ", 148);
  return h;
}

/** Files (relative path → text) as a tar archive, directories included, under an optional root. */
export function tarFiles(files: ReadonlyMap<string, string>, root = ""): Uint8Array {
  const enc = new TextEncoder();
  const mtime = Math.floor(Date.now() / 1000);
  const parts: Uint8Array[] = [];
  const dirs = new Set<string>();
  const join = (p: string) => (root ? `${root.replace(/\/+$/, "")}/${p}` : p);
  for (const rel of [...files.keys()].sort()) {
    const segs = rel.split("/");
    for (let i = 1; i < segs.length; i++) {
      const d = segs.slice(0, i).join("/");
      if (!dirs.has(d)) {
        dirs.add(d);
        parts.push(header(`${join(d)}/`, 0, 0o755, "5", mtime));
      }
    }
    const body = enc.encode(files.get(rel)!);
    parts.push(header(join(rel), body.length, 0o644, "0", mtime), body, new Uint8Array((512 - (body.length % 512)) % 512));
  }
  parts.push(new Uint8Array(1024));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}
