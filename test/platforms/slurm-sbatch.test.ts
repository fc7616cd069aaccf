// The batch script, pure: quoting (round-tripped through a real bash), time limits, settings
// errors, and golden scripts for each shape a test can take (every golden also passes bash -n).
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { PlannedTest } from "../../lib/core/types.ts";
import { slurm } from "../../plugins/slurm.ts";
import { renderSbatch, slurmTime } from "../../plugins/slurm/sbatch.ts";
import { directive, quote, word } from "../../plugins/slurm/quote.ts";
import { groupUnit } from "../../lib/plan/pattern.ts";
import type { RenderContext, TestToRender } from "../../lib/core/platform.ts";
import type { SlurmSettings } from "../../plugins/slurm/settings.ts";
import { gpucheck } from "../e2e/cli.ts";
import { expectGolden } from "../report/golden.ts";
import { fakeSuite } from "./conformance.ts";

const GOLDEN = join(import.meta.dir, "../golden/slurm");
const HOSTILE = [`a b`, `it's`, `"dq"`, "$(touch /tmp/gpucheck-pwned)", "`id`", "x; rm -rf /", "line1\nline2", "$HOME", "*", "\\back", "tab\there", "#hash", "!bang", "", "-n"];

describe("quote", () => {
  test("every hostile value reads back literally in bash", () => {
    for (const v of HOSTILE) {
      const r = spawnSync("/bin/bash", ["-c", `printf '%s' ${quote(v)}`], { encoding: "utf8" });
      expect(r.stdout).toBe(v);
    }
  });
  test("escapes exactly the four characters special inside double quotes", () => {
    expect(quote(`a\\b"c$d\`e'f #g`)).toBe(`"a\\\\b\\"c\\$d\\\`e'f #g"`);
  });
  test("a NUL byte cannot be passed on and says so", () => {
    expect(() => quote("a\0b")).toThrow('gpucheck: slurm: a value contains a NUL byte, which no shell can pass on: "a\\u0000b"');
  });
  test("plain words stay bare", () => {
    expect(word("--mem=0")).toBe("--mem=0");
    expect(word("node[1-2]")).toBe('"node[1-2]"');
    expect(word("a b")).toBe('"a b"');
  });
  test("a directive value with a line break is refused", () => {
    expect(() => directive("job-name", "a\nb")).toThrow('gpucheck: slurm: the value of --job-name contains a line break, which an #SBATCH line cannot hold: "a\\nb"');
    expect(directive("exclusive")).toBe("#SBATCH --exclusive");
    expect(directive("partition", "gpu h100")).toBe('#SBATCH --partition="gpu h100"');
  });
});

test("--time rounds the timeout up to whole minutes", () => {
  expect(slurmTime(1)).toBe("0:01:00");
  expect(slurmTime(60_000)).toBe("0:01:00");
  expect(slurmTime(60_001)).toBe("0:02:00");
  expect(slurmTime(90 * 60_000)).toBe("1:30:00");
  expect(slurmTime(25 * 3600_000 + 1)).toBe("1-01:01:00");
});

describe("settings", () => {
  const problems = (v: unknown) => {
    const r = slurm.settings.safeParse(v);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  };
  test("defaults", () => {
    expect(slurm.settings.parse({})).toEqual({ exclusive: true, sbatch: [], srun: [], pollMaxS: 5 });
  });
  test("bad values are named with the reason", () => {
    expect(problems({ sbatch: ["mem=0"] })).toEqual(['sbatch.0: must be an sbatch option starting with "-", e.g. "--mem=0"']);
    expect(problems({ stageDir: "shared/x" })).toEqual(["stageDir: must be an absolute path"]);
    expect(problems({ partition: "a\nb" })).toEqual(["partition: must be a single line"]);
    expect(problems({ cpusPerTask: 0 })).toEqual(["cpusPerTask: Too small: expected number to be >0"]);
    expect(problems({ container: { image: "x", mounts: ["/a:/a,/b:/b"] } })).toEqual(["container.mounts.0: must not contain a comma (pyxis separates mounts with commas)"]);
    expect(problems({ partiton: "gpu" })).toEqual([': Unrecognized key: "partiton"']);
  });
});

function ctx(over: Partial<TestToRender> = {}, settings: Record<string, unknown> = {}, cli = {}): RenderContext<SlurmSettings> {
  const launch = over.launch ?? {
    python: "/usr/bin/python3",
    args: ["-m", "gpucheck_workload", "collective", "--op", "all_reduce", "--min-bytes", "1M"],
    env: { NCCL_DEBUG: "INFO" },
    files: [],
  };
  const t: TestToRender = {
    name: "allreduce",
    kind: "collective",
    nodes: 2,
    gpusPerNode: 8,
    ranksPerNode: 8,
    worldSize: 16,
    perNode: false,
    timeoutMs: 600_000,
    launch,
    expect: [],
    spec: {} as PlannedTest["spec"],
    ...over,
  };
  return { suite: { ...fakeSuite(), name: "h100-8x" }, settings: slurm.settings.parse(settings), cli, test: t, launch, workloadHash: "0123456789abcdef".repeat(4) };
}

const SHAPES: Record<string, [RenderContext<SlurmSettings>, string[]?]> = {
  "two-nodes-sbcast": [ctx({}, { partition: "gpu" })],
  "per-node-plan": [ctx({ perNode: true, nodes: 4, worldSize: 8 }, { nodelist: "gpu[001-004]", exclude: "gpu003" })],
  "per-node-pyxis": [ctx({ perNode: true, nodes: 4, worldSize: 8 }, { container: { image: "nvcr.io#nvidia/pytorch:24.05-py3" } }), ["gpu001", "gpu002"]],
  "per-node-apptainer": [ctx({ perNode: true, nodes: 4, worldSize: 8 }, { container: { image: "/images/torch.sif", runtime: "apptainer" } }), ["gpu001", "gpu002"]],
  "per-node-sweep-shared": [ctx({ perNode: true, nodes: 4, worldSize: 8 }, { stageDir: "/shared/gpucheck", nodelist: "gpu[001-004]" }), ["gpu001", "gpu002", "gpu004"]],
  // an isolating round: two pairs side by side in one allocation, one step each (a pair named out of
  // Slurm's node order: its rendezvous is its first node in the job's order, found at run time)
  "round-of-pairs": [
    ctx(
      {
        nodes: 4,
        worldSize: 16,
        units: [groupUnit({ name: "2.gpu001+gpu003", nodes: ["gpu001", "gpu003"] }, 8), groupUnit({ name: "2.gpu004+gpu002", nodes: ["gpu004", "gpu002"] }, 8)],
      },
      { partition: "gpu", nodelist: "gpu[001-004]", exclude: "gpu009" },
    ),
  ],
  // cpusPerTask: the suite's own count, in #SBATCH and on the step
  pyxis: [ctx({}, { container: { image: "nvcr.io#nvidia/pytorch:24.05-py3", mounts: ["/data:/data:ro"] }, stageDir: "/shared/stage", cpusPerTask: 24 })],
  "apptainer-cpu": [ctx({ gpusPerNode: 0, ranksPerNode: 2, worldSize: 4 }, { container: { image: "/images/torch.sif", runtime: "apptainer" } })],
  everything: [
    ctx(
      {
        name: `it's "quoted" and spaced`,
        timeoutMs: 26 * 3600_000,
        launch: { python: "python3", args: ["-c", "print('$HOME')", "a b"], env: { A: `it's "q" $(x) \`y\``, B: "line1\nline2" }, files: [] },
      },
      {
        account: "acct",
        reservation: "acceptance",
        qos: "high",
        constraint: "h100&ib",
        segment: 2,
        exclude: "gpu007",
        exclusive: false,
        sbatch: ["--mem=0", "--switches=1@10:00"],
        srun: ["--mpi=pmix", "--cpu-bind=none"],
      },
      { hosts: ["gpu001", "gpu002"] },
    ),
  ],
};

describe("renderSbatch", () => {
  for (const [name, [c, sweep]] of Object.entries(SHAPES)) {
    test(`${name}: golden, and valid bash`, () => {
      const script = renderSbatch(c, sweep);
      expectGolden(join(GOLDEN, `${name}.sbatch`), script);
      const r = spawnSync("/bin/bash", ["-n"], { input: script, encoding: "utf8" });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
    });
  }
  test("plan prints the same script the run submits", () => {
    const c = SHAPES["two-nodes-sbcast"]![0];
    expect(slurm.render(c).script).toBe(renderSbatch(c));
  });
  test("segment (block topology) is written only on a job whose node count is a multiple of it, as Slurm requires", () => {
    expect(renderSbatch(ctx({ nodes: 18 }, { segment: 18 }))).toContain("\n#SBATCH --segment=18\n");
    expect(renderSbatch(ctx({ nodes: 36 }, { segment: 18 }))).toContain("\n#SBATCH --segment=18\n");
    expect(renderSbatch(ctx({ nodes: 1 }, { segment: 18 }))).not.toContain("--segment");
    expect(renderSbatch(ctx({ nodes: 9 }, { segment: 18 }))).not.toContain("--segment");
  });
  test("an env name that is not a shell variable is refused", () => {
    const c = ctx({ launch: { python: "python3", args: [], env: { "BAD-NAME": "1" }, files: [] } });
    expect(() => renderSbatch(c)).toThrow('gpucheck: slurm: env name "BAD-NAME" is not a shell variable name');
  });
  test("a job name with a line break is refused", () => {
    const c = ctx({ name: "a\nb" });
    expect(() => renderSbatch(c)).toThrow('gpucheck: slurm: the value of --job-name contains a line break, which an #SBATCH line cannot hold: "gpucheck-h100-8x-a\\nb"');
  });
});

test("`gpucheck plan --platform slurm` prints every test's exact batch script", () => {
  const r = gpucheck(["plan", "cpu-smoke", "--platform", "slurm", "--python", "/usr/bin/python3"]);
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  expect(r.stdout.match(/^ {3}#!\/bin\/bash$/gm)?.length).toBe(3);
  for (const name of ["inventory", "allreduce-gloo", "resnet18-fashionmnist"]) expect(r.stdout).toContain(`   #SBATCH --job-name=gpucheck-cpu-smoke-${name}\n`);
  expect(r.stdout).toContain('/bin/bash -c "$rank_env" gpucheck-rank /usr/bin/python3 -m gpucheck_workload');
}, 60_000);

describe("the rendezvous port", () => {
  // every MASTER_PORT line of the goldens, evaluated by bash for job ids across Slurm's range: each port
  // below Linux's ephemeral range (32768–60999), where outgoing connections take their local ports
  test("stays in 10000–32767 for any job id, node and group index", () => {
    const exprs = new Set<string>();
    for (const f of readdirSync(GOLDEN).filter((f) => f.endsWith(".sbatch")))
      for (const m of readFileSync(join(GOLDEN, f), "utf8").matchAll(/MASTER_PORT=(\$\(\(.*?\)\))/g)) exprs.add(m[1]!);
    expect(exprs.size).toBeGreaterThanOrEqual(3);
    const ids = [1, 173, 22768, 250_000, 67_108_863];
    const lines = [...exprs].flatMap((e) => ids.flatMap((id) => [0, 1, 17].map((n) => `SLURM_JOB_ID=${id}; SLURM_NODEID=${n}; echo ${e}`)));
    const r = spawnSync("/bin/bash", ["-c", lines.join("\n")], { encoding: "utf8" });
    expect(r.status).toBe(0);
    const ports = r.stdout.trim().split("\n").map(Number);
    expect(ports).toHaveLength(lines.length);
    for (const p of ports) expect(p >= 10000 && p <= 32767).toBe(true);
  });
});
