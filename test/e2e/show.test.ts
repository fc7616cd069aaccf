// `gpucheck show <suite>`: the suite as it runs, extends merged, each value's file:line and each
// threshold's source comment, for built-ins and for files.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gpucheckRun } from "./cli.ts";
import { tempDir } from "../tmp.ts";

const SLOW = 60_000;

test(
  "a built-in: each threshold with the comment its suite wrote, each value with its line",
  async () => {
    const r = await gpucheckRun(["show", "h100-8x"], { cwd: tmpdir() });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toStartWith(
      "# gpucheck show: the suite as it runs, every extends merged in; after each value, the file:line that set it;\n# above each threshold, the comment its file wrote for it (its source).\n# builtin:h100-8x.yaml (sha256 ",
    );
    expect(r.stdout).toContain(`    expect:
      # 8× H100 with NVLS reaches 476–483 GB/s busbw at 4–16 GiB (476.5 in nccl-tests #290, 478.87 on
      # Azure ND H100 v5, 482.12 in #309, 483.05 on AWS p5; performance.md 5.2). 460 is Azure's health
      # check floor for the same node (Azure/azurehpc-health-checks conf/nd96isr_h100_v5.conf:
      # \`check_nccl_allreduce 460.0 1 16G\`), 4 % under the lowest healthy figure.
      # floor explained (method, margin, faults it catches): docs/thresholds.md#floor-h100-8x-nvlink-allreduce-busbw
      busbw:
        min: 460 GB/s # builtin:h100-8x.yaml:45
      # nccl-tests data check: a wrong value is silent corruption
      wrong:
        max: 0 # builtin:h100-8x.yaml:46
`);
    // every threshold of every built-in has a source
    for (const name of ["cpu-smoke", "gpu-1x", "h100-8x", "h200-8x", "h100-multinode", "b200-8x", "gb200-nvl72", "quick"]) {
      expect((await gpucheckRun(["show", name], { cwd: tmpdir() })).stdout).not.toContain("no source comment");
    }
  },
  SLOW,
);

test(
  "a file extending a built-in: the child's thresholds with its own comments, the rest from the parent",
  async () => {
    const dir = tempDir("gpucheck-show-");
    writeFileSync(
      join(dir, "site.yaml"),
      "name: site\nextends: h100-8x\nremove: [ib-allreduce, resnet18-fashionmnist, resnet50-synthetic, transformer-bandwidth, inventory]\ntests:\n  - name: nvlink-allreduce\n    expect:\n      # node07 on 2026-11-02: 471 GB/s; 2 % below\n      busbw: { min: 460 GB/s }\n      out_of_bounds: { max: 0 }\n",
    );
    const r = await gpucheckRun(["show", "site.yaml"], { cwd: dir });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("# site.yaml (sha256 ");
    expect(r.stdout).toContain("\n#   extends builtin:h100-8x.yaml (sha256 ");
    expect(r.stdout).toContain(`    expect:
      # node07 on 2026-11-02: 471 GB/s; 2 % below
      busbw:
        min: 460 GB/s # site.yaml:8
      # nccl-tests data check: a wrong value is silent corruption
      wrong:
        max: 0 # builtin:h100-8x.yaml:46
      # (no source comment in the file that set it)
      out_of_bounds:
        max: 0 # site.yaml:9
`);
  },
  SLOW,
);

test(
  "a broken suite is reported as validate reports it, exit 2, nothing on stdout",
  async () => {
    const dir = tempDir("gpucheck-show-");
    writeFileSync(join(dir, "bad.yaml"), "name: bad\ntests:\n  - { name: t, kind: colective }\n");
    const r = await gpucheckRun(["show", "bad.yaml"], { cwd: dir });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toStartWith('bad.yaml:3:22: invalid kind "colective": did you mean "collective"?\n');
    expect((await gpucheckRun(["show", "h100-9x"], { cwd: dir })).stderr).toBe('gpucheck: no built-in suite "h100-9x" and no file ./h100-9x: did you mean "h100-8x"?\n');
  },
  SLOW,
);
