// The evidence bundle (issue 28 item 7): a ustar archive read back header by header, and a node's
// bundle from what the node's `evidence` command sent: every item it could not have listed with why,
// the test's logs packed, the size limit kept.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { tarGz } from "../../lib/evidence/ustar.ts";
import { nodeItems, packBundle } from "../../lib/evidence/collect.ts";
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

describe("a node's bundle from what the node sent", () => {
  const dir = tempDir("evidence");
  mkdirSync(join(dir, "logs", "t"), { recursive: true });
  writeFileSync(join(dir, "logs", "t", "rank0.log"), "GPUCHECK_RESULT {}\nsome output\n");
  // the workload's own lines (workload/gpucheck_workload/evidence.py) behind a launcher's prefix, on a node without the GPU tools
  const sent = [
    '[gpu01 rank 0] GPUCHECK_EVIDENCE {"item":"kernel-log.txt","bytes":17,"data":"LS0gTm8gZW50cmllcyAtLQo="}',
    'GPUCHECK_EVIDENCE {"item":"nvidia-smi-q.txt","missing":"nvidia-smi is not installed on gpu01"}',
    'GPUCHECK_EVIDENCE {"item":"nvidia-bug-report.txt","bytes":90000000}',
    'GPUCHECK_EVIDENCE {"item":"../../etc/x","bytes":1,"data":"eA=="}',
    'GPUCHECK_EVIDENCE {"item":"ibstat.txt"',
  ].join("\n");

  test("each item as sent: data packed, a missing tool and an item over the limit listed with why; a name with a path is renamed", () => {
    expect(nodeItems([sent]).map((i) => [i.item, i.bytes, i.missing])).toEqual([
      ["kernel-log.txt", 17, undefined],
      ["nvidia-smi-q.txt", undefined, "nvidia-smi is not installed on gpu01"],
      ["nvidia-bug-report.txt", 90000000, undefined],
      ["item-4", 1, undefined],
    ]);
    const { bundle, archive } = packBundle({ node: "gpu01", outDir: dir, items: nodeItems([sent]), logs: ["logs/t/rank0.log"], maxBytes: 1 << 20 });
    expect(bundle.file).toBe("evidence/gpu01.tar.gz");
    expect(bundle.collected).toEqual(["MANIFEST.txt", "kernel-log.txt", "item-4", "logs/t/rank0.log"]);
    expect(bundle.missing).toEqual([
      { item: "nvidia-smi-q.txt", why: "nvidia-smi is not installed on gpu01" },
      { item: "nvidia-bug-report.txt", why: "over the evidence limit (90000000 bytes with 1041 already collected, maxBytes 1048576)" },
    ]);
    const files = untar(archive);
    expect(files["kernel-log.txt"]).toBe("-- No entries --\n");
    expect(files["logs/t/rank0.log"]).toBe("GPUCHECK_RESULT {}\nsome output\n");
    expect(files["MANIFEST.txt"]).toStartWith("collected kernel-log.txt (17 bytes)\ncollected item-4 (1 bytes)\ncollected logs/t/rank0.log (31 bytes)\nmissing nvidia-smi-q.txt: ");
    expect(bundle.bytes).toBe(archive.length);
  });

  test("a node that could not be reached: its part is one missing entry with why, the logs from here are still packed", () => {
    const { bundle, archive } = packBundle({
      node: "gpu02",
      outDir: dir,
      items: [],
      problem: "the evidence command on gpu02 ended infra: host gpu02: ssh: connect to host gpu02 port 22: Connection refused",
      logs: ["logs/t/rank0.log", "logs/t/gone.log"],
      maxBytes: 1 << 20,
    });
    expect(bundle.missing[0]).toEqual({
      item: "the node's state",
      why: "the evidence command on gpu02 ended infra: host gpu02: ssh: connect to host gpu02 port 22: Connection refused",
    });
    expect(bundle.missing[1]!.item).toBe("logs/t/gone.log");
    expect(bundle.missing[1]!.why).toStartWith("ENOENT: no such file or directory");
    expect(Object.keys(untar(archive))).toEqual(["MANIFEST.txt", "logs/t/rank0.log"]);
  });

  test("the size limit: a log that would pass it is left out and listed with the sizes", () => {
    const { bundle, archive } = packBundle({ node: "gpu01", outDir: dir, items: [], logs: ["logs/t/rank0.log"], maxBytes: 1000 });
    expect(bundle.missing.at(-1)).toEqual({ item: "logs/t/rank0.log", why: "over the evidence limit (31 bytes with 0 already collected, maxBytes 1000)" });
    expect(Object.keys(untar(archive))).toEqual(["MANIFEST.txt"]);
  });
});
