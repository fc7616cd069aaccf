// The certificate printed to PDF by headless Chromium (Debian's chromium, and pdfinfo from
// poppler-utils): the 2-node runs fit on one A4 page, 16 and 40 nodes on two. Here rather than in
// test/sign/certificate.test.ts (the unit tier) because it needs those two programs.
import { describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ResultsFile } from "../../../lib/core/types.ts";
import { certify } from "../../../lib/sign/certify.ts";
import { resultsCopy, SIGN, tmp } from "../../sign/keys-fixture.ts";

const load = (name: string): ResultsFile => JSON.parse(readFileSync(join(SIGN, name, "results.json"), "utf8"));

/** results.json for n alike nodes, grown from the 2-node fixture. */
function scaled(n: number): string {
  const dir = resultsCopy("h100-2node");
  const r = load("h100-2node");
  const hosts = Array.from({ length: n }, (_, i) => `gpu-a${String(i + 1).padStart(3, "0")}`);
  r.inventory = hosts.map((h, k) => ({
    ...r.inventory[0],
    hostname: h,
    gpus: r.inventory[0].gpus.map((g, i) => ({ ...g, uuid: `GPU-${k}-${i}`, serial: String(1654923000000 + k * 8 + i) })),
  }));
  for (const t of r.tests) {
    t.nodes = n;
    t.units = t.perNode ? hosts.map((h) => ({ ...t.units[0], unit: h, hosts: [h] })) : t.units.map((u) => ({ ...u, hosts }));
  }
  writeFileSync(join(dir, "results.json"), JSON.stringify(r, null, 2));
  return dir;
}

function pdfPages(html: string): number {
  const work = tmp("gpucheck-pdf-");
  const pdf = join(work, "certificate.pdf");
  const argv = [
    "/usr/bin/chromium",
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    `--user-data-dir=${join(work, "profile")}`,
    "--no-pdf-header-footer",
    `--print-to-pdf=${pdf}`,
    `file://${html}`,
  ];
  const run = Bun.spawnSync(argv, { timeout: 60_000 });
  if (run.exitCode !== 0) throw new Error(`chromium exited ${run.exitCode}: ${run.stderr.toString().slice(-2000)}`);
  const info = Bun.spawnSync(["pdfinfo", pdf]);
  if (info.exitCode !== 0) throw new Error(`pdfinfo failed (apt-get install poppler-utils): ${info.stderr.toString()}`);
  const pages = /^Pages:\s+(\d+)$/m.exec(info.stdout.toString());
  expect(info.stdout.toString()).toMatch(/^Page size:\s+59[45]\.\d+ x 84[12]\.\d+ pts \(A4\)$/m);
  return Number(pages?.[1]);
}

describe("printed with headless Chromium", () => {
  const key = generateKeyPairSync("ed25519").privateKey;
  test.each([
    ["the 2-node passing run", 1, () => resultsCopy("h100-2node")],
    ["the 2-node failing run", 1, () => resultsCopy("h100-2node-failing")],
    ["16 nodes, 128 GPUs", 2, () => scaled(16)],
    ["40 nodes, 320 GPUs", 2, () => scaled(40)],
  ])(
    "%s fits on %d A4 page(s)",
    async (_name, pages, make) => {
      const c = await certify(make(), key);
      expect(pdfPages(c.htmlPath)).toBeLessThanOrEqual(pages);
    },
    120_000,
  );
});
