// The evidence bundle (issue 28 item 7): a ustar archive read back header by header, and a node's
// bundle on a machine without the GPU tools: every tool listed as missing with why, the test's logs
// packed, the size limit kept.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { tarGz } from "../../lib/evidence/ustar.ts";
import { collectLocal } from "../../lib/evidence/collect.ts";
import { tempDir } from "../tmp.ts";

/** name → content of each regular file in a tar (ustar headers: name at 0, size in octal at 124, checksum at 148). */
function untar(gz: Uint8Array): Record<string, string> {
  const tar = gunzipSync(gz);
  const out: Record<string, string> = {};
  for (let at = 0; at + 512 <= tar.length; ) {
    const h = tar.subarray(at, at + 512);
    if (h.every((b) => b === 0)) break;
    const name = h.subarray(0, 100).toString().replace(/\0.*$/s, "");
    const size = Number.parseInt(h.subarray(124, 136).toString().replace(/\0.*$/s, ""), 8);
    const sum = Number.parseInt(h.subarray(148, 156).toString(), 8);
    let counted = 0;
    for (const [i, b] of h.entries()) counted += i >= 148 && i < 156 ? 32 : b;
    expect(counted).toBe(sum);
    expect(h.subarray(257, 263).toString()).toBe("ustar\0");
    out[name] = tar.subarray(at + 512, at + 512 + size).toString();
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

describe("ustar + gzip", () => {
  test("entries of 0, 1, 512 and 513 bytes come back whole, each header's checksum right", () => {
    const files = { empty: "", one: "x", block: "a".repeat(512), more: "b".repeat(513) };
    const gz = tarGz(Object.entries(files).map(([name, s]) => ({ name, data: new TextEncoder().encode(s) })));
    expect(untar(gz)).toEqual(files);
  });

  test("a name over ustar's 100 bytes is refused, never cut", () => {
    expect(() => tarGz([{ name: "n".repeat(101), data: new Uint8Array() }])).toThrow("tar entry name over 100 bytes");
  });
});

describe("a node's bundle without the GPU tools", () => {
  const dir = tempDir("evidence");
  mkdirSync(join(dir, "logs", "t"), { recursive: true });
  writeFileSync(join(dir, "logs", "t", "rank0.log"), "GPUCHECK_RESULT {}\nsome output\n");
  const empty = join(dir, "empty-bin");
  mkdirSync(empty);

  test("every tool is listed missing with why; the log is packed; MANIFEST says both", () => {
    const { bundle, archive } = collectLocal({
      node: "gpu01",
      outDir: dir,
      since: "2026-11-28T10:00:00.000Z",
      until: "2026-11-28T10:05:00.000Z",
      logs: ["logs/t/rank0.log"],
      maxBytes: 1 << 20,
      env: { PATH: empty },
    });
    expect(bundle.file).toBe("evidence/gpu01.tar.gz");
    expect(bundle.missing.map((m) => m.why)).toEqual([
      "journalctl is not installed on gpu01",
      "nvidia-smi is not installed on gpu01",
      "nvidia-smi is not installed on gpu01",
      "ibstat is not installed on gpu01",
      "iblinkinfo is not installed on gpu01",
      "dcgmi is not installed on gpu01",
      "nvidia-bug-report.sh is not installed on gpu01",
    ]);
    const files = untar(archive!);
    expect(files["logs/rank0.log"]).toBe("GPUCHECK_RESULT {}\nsome output\n");
    expect(files["MANIFEST.txt"]).toStartWith("collected logs/rank0.log (31 bytes)\nmissing kernel-log.txt: journalctl is not installed on gpu01\n");
    expect(bundle.bytes).toBe(archive!.length);
  });

  test("the size limit: a log that would pass it is left out and listed with the sizes", () => {
    const { bundle, archive } = collectLocal({
      node: "gpu01",
      outDir: dir,
      since: "2026-11-28T10:00:00Z",
      until: "2026-11-28T10:05:00Z",
      logs: ["logs/t/rank0.log"],
      maxBytes: 1000,
      env: { PATH: empty },
    });
    expect(bundle.missing.at(-1)).toEqual({ item: "logs/rank0.log", why: "over the evidence limit (31 bytes with 0 already collected, maxBytes 1000)" });
    expect(Object.keys(untar(archive!))).toEqual(["MANIFEST.txt"]);
  });
});
