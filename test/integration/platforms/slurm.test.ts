// The slurm platform against a real Slurm 22.05 (test/infra/slurm.sh: 4 logical nodes on this
// host). Runs when GPUCHECK_INFRA lists "slurm"; then a Slurm that does not answer fails the tests.
import { afterAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { workloadHash } from "../../../lib/core/assets.ts";
import type { UnitRun } from "../../../lib/core/types.ts";
import { slurm } from "../../../plugins/slurm.ts";
import { type IoResult, type SlurmIo, systemIo } from "../../../plugins/slurm/cli.ts";
import { runSlurm } from "../../../plugins/slurm/run.ts";
import type { Platform } from "../../../lib/core/platform.ts";
import { groupUnit } from "../../../lib/plan/pattern.ts";
import { gpucheck, gpucheckAsync, tempDir } from "../../e2e/cli.ts";
import { conformance, expectCompleted, scriptTest } from "../../platforms/conformance.ts";
import { localLeftovers, processesWithEnv } from "../../platforms/leftovers.ts";
import { meetingCode, removeSlurmContexts, slurmContext } from "../../platforms/slurm-context.ts";

const enabled = (process.env.GPUCHECK_INFRA ?? "").split(",").includes("slurm");
const it = enabled ? test : test.skip;
const PY = "/usr/bin/python3";
const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: "utf8" });

/** Jobs still pending or running (the whole local cluster is this test's). */
const queued = () => sh("squeue", ["-h", "-o", "%i %T %j"]).split("\n").filter(Boolean);

/** After a Ctrl-C test, whatever happened in it: its gpucheck gone and its jobs cancelled, so that a
 *  failed assertion leaves no 100,000-step job holding the nodes the next tests need. */
async function cleanUp(run: ReturnType<typeof gpucheckAsync>, jobPrefix: string): Promise<void> {
  if (run.child.exitCode === null) run.child.kill("SIGKILL");
  const ids = queued()
    .map((l) => l.split(" "))
    .filter(([, , name]) => name?.startsWith(jobPrefix))
    .map(([id]) => id!);
  if (ids.length) sh("scancel", ids);
  for (let i = 0; i < 100 && queued().some((l) => l.split(" ")[2]?.startsWith(jobPrefix)); i++) await Bun.sleep(100);
}

/** Counts every scheduler command gpucheck runs, by name. */
function counting(): SlurmIo & { calls: Record<string, number> } {
  const calls: Record<string, number> = {};
  return {
    calls,
    exec(argv, opts): Promise<IoResult> {
      calls[argv[0]!] = (calls[argv[0]!] ?? 0) + 1;
      return systemIo.exec(argv, opts);
    },
  };
}

const perNode = (code: string) => ({ ...scriptTest("sweep", PY, code, { ranksPerNode: 2 }), perNode: true, worldSize: 2 });
const SHOW_RANK =
  "import os; print('ME', os.environ['GPUCHECK_NODE'], os.environ['RANK'], os.environ['WORLD_SIZE'], os.environ['MASTER_ADDR'], os.environ['MASTER_PORT'], flush=True)";
const byUnit = (units: UnitRun[]) => Object.fromEntries(units.map((u) => [u.unit, u.status]));

describe("slurm on a real Slurm", () => {
  it("the local cluster answers with 4 idle nodes", () => {
    const nodes = sh("sinfo", ["-h", "-N", "-o", "%N %T"]).trim().split("\n");
    expect(nodes.filter((l) => / (idle|mixed)$/.test(l)).length).toBeGreaterThanOrEqual(4);
  });

  it("per-node mode: one verdict per node, each with its own rendezvous, from one sbatch", async () => {
    const io = counting();
    const ctx = slurmContext(perNode(SHOW_RANK));
    const started = Date.now();
    const units = await runSlurm(ctx, io);
    const seconds = (Date.now() - started) / 1000;
    expect(byUnit(units)).toEqual({ node1: "completed", node2: "completed", node3: "completed", node4: "completed" });
    expect(io.calls.sbatch).toBe(1);
    expect(io.calls.sinfo).toBe(1);
    // polling does not depend on the node count: a handful of squeue calls for a job of seconds, at
    // most one a second (pollMaxS 1) beyond the first quick ones however long a loaded machine makes it
    expect(io.calls.squeue).toBeLessThanOrEqual(Math.max(12, 4 + Math.ceil(seconds)));
    const ports = new Set<string>();
    for (const u of units) {
      const [, node, rank, world, addr, port] = u.output.trim().split(" ");
      expect([node, rank, world, addr]).toEqual([u.unit, "0", "2", u.unit]);
      ports.add(port!);
      expect(u.ranks.map((r) => r.path)).toEqual([0, 1].map((r) => join(ctx.logDir, u.unit, `rank-${r}.log`)));
      expect(readFileSync(u.ranks[1]!.path, "utf8")).toContain(`ME ${u.unit} 1 2 ${u.unit}`);
    }
    expect(ports.size).toBe(4);
    expect(ctx.lines.filter((l) => l.includes(" ME ")).length).toBe(8);
  }, 60_000);

  it("an isolating round: two 2-node groups side by side in one job, each a unit with its own logs and rendezvous", async () => {
    // the nodes share this host's /tmp
    const met = tempDir("round-met");
    const code = meetingCode(met, 8, 40);
    const units = [groupUnit({ name: "1.node1+node3", nodes: ["node1", "node3"] }, 2), groupUnit({ name: "1.node2+node4", nodes: ["node2", "node4"] }, 2)];
    const io = counting();
    const ctx = slurmContext({ ...scriptTest("round", PY, code, { nodes: 4, ranksPerNode: 2 }), worldSize: 4, units });
    const runs = await runSlurm(ctx, io);
    expect(byUnit(runs)).toEqual({ "1.node1+node3": "completed", "1.node2+node4": "completed" });
    expect(io.calls.sbatch).toBe(1);
    expect(runs.map((u) => u.ranks.map((r) => `${r.rank}@${r.host}`))).toEqual([
      ["0@node1", "1@node1", "2@node3", "3@node3"],
      ["0@node2", "1@node2", "2@node4", "3@node4"],
    ]);
    const ports = new Set<string>();
    for (const u of runs) {
      expect(u.ranks.map((r) => r.path)).toEqual([0, 1, 2, 3].map((r) => join(ctx.logDir, u.unit, `rank-${r}.log`)));
      const [, node, rank, world, addr, port, seen] = u.output.trim().split(" ");
      expect([node, rank, world, addr, seen]).toEqual([u.hosts[0], "0", "4", u.hosts[0], "8"]);
      expect(readFileSync(u.ranks[3]!.path, "utf8")).toStartWith(`ME ${u.hosts[1]} 3 4 ${u.hosts[0]} ${port} `);
      ports.add(port!);
    }
    expect(ports.size).toBe(2);
    rmSync(met, { recursive: true, force: true });
  }, 90_000);

  it("a drained node is skipped with the admin's reason; the others run", async () => {
    sh("scontrol", ["update", "nodename=node4", "state=drain", "reason=gpucheck test: fan 3 | bad"]);
    try {
      const io = counting();
      const units = await runSlurm(slurmContext(perNode(SHOW_RANK)), io);
      expect(byUnit(units)).toEqual({ node1: "completed", node2: "completed", node3: "completed", node4: "skipped" });
      expect(units.find((u) => u.unit === "node4")!.message).toBe("node4 is drained: gpucheck test: fan 3 | bad");
      expect(io.calls.sbatch).toBe(1);
    } finally {
      sh("scontrol", ["update", "nodename=node4", "state=resume"]);
      for (let i = 0; i < 50 && !/^idle$/m.test(sh("sinfo", ["-h", "-n", "node4", "-o", "%T"])); i++) await Bun.sleep(200);
    }
  }, 60_000);

  it("a job stuck pending is cancelled at the queue timeout with Slurm's reason", async () => {
    const ctx = slurmContext(scriptTest("toobig", PY, "print(1)", { nodes: 5, ranksPerNode: 1 }), { suite: { queueTimeoutMs: 3000 } });
    const [u] = await runSlurm(ctx);
    expect(u!.status).toBe("infra");
    expect(u!.message).toMatch(/^pending for [34] s \(Slurm reason: Partition(NodeLimit|Config)\), longer than the queue timeout of 3 s: gpucheck cancelled it \(job \d+\)$/);
    expect(queued()).toEqual([]);
  }, 60_000);

  it("a job Slurm refuses outright is an infra error with sbatch's words", async () => {
    const t = { ...scriptTest("nine-gpus", PY, "print(1)"), gpusPerNode: 9 };
    const ctx = slurmContext(t);
    const [u] = await runSlurm(ctx);
    expect(u!.status).toBe("infra");
    expect(u!.message).toBe(
      `sbatch refused gpucheck-conformance-nine-gpus: sbatch: error: Batch job submission failed: Requested node configuration is not available (script: ${ctx.logDir}/job.sbatch)`,
    );
  }, 60_000);

  it("Slurm's own time limit (an extra --time line shorter than the test's timeout) reads as a timeout", async () => {
    const t = scriptTest("slurm-limit", PY, "import time; print('sleeping', flush=True); time.sleep(600)", { ranksPerNode: 1, timeoutMs: 300_000 });
    const [u] = await runSlurm(slurmContext(t, { settings: { sbatch: ["--time=0:01:00"] } }));
    expect(u!.status).toBe("timeout");
    expect(u!.message).toMatch(/^job \d+ hit its Slurm time limit \(TIMEOUT\)/);
    expect(u!.output).toContain("sleeping");
    expect(queued()).toEqual([]);
  }, 200_000);

  it("a Python the nodes do not have is an infra problem naming it", async () => {
    const [u] = await runSlurm(slurmContext(scriptTest("nopython", "/nope/python3", "print(1)", { nodes: 2, ranksPerNode: 1 })));
    expect(u!.status).toBe("infra");
    expect(u!.message).toMatch(/^node[12] has no "\/nope\/python3" \(exit code 127 on rank [01]\): set the test's python or --python \(job \d+\)$/);
  }, 60_000);

  it("a job name with spaces and quotes arrives literally", async () => {
    const code = "import os; print('NAME', os.environ['SLURM_JOB_NAME'], flush=True)";
    const suiteName = `it's "a" suite $(x) \`y\``;
    const ctx = slurmContext(scriptTest("t 1", PY, code, { ranksPerNode: 1 }), { suite: { name: suiteName } });
    const [u] = await runSlurm(ctx);
    expectCompleted(u!);
    expect(u!.output.trim()).toBe(`NAME gpucheck-${suiteName}-t 1`);
    const id = /^slurm-(\d+)\.out$/m.exec(sh("ls", [ctx.logDir]))![1]!;
    expect(sh("squeue", ["-h", "-t", "all", "-j", id, "-o", "%j"]).trim()).toBe(`gpucheck-${suiteName}-t 1`);
  }, 60_000);

  it("stageDir: the workload is written once per content and imported from there", async () => {
    const stageDir = tempDir("stage");
    const code = "import os, gpucheck_workload; print('FROM', os.path.dirname(os.path.dirname(gpucheck_workload.__file__)), flush=True)";
    const first = await runSlurm(slurmContext(scriptTest("staged", PY, code, { ranksPerNode: 1 }), { settings: { stageDir } }));
    const dir = join(stageDir, `gpucheck-${workloadHash().slice(0, 16)}`);
    expect(first[0]!.output.trim()).toBe(`FROM ${dir}`);
    const mtime = statSync(join(dir, "gpucheck_workload", "__main__.py")).mtimeMs;
    const second = await runSlurm(slurmContext(scriptTest("staged", PY, code, { ranksPerNode: 1 }), { settings: { stageDir } }));
    expectCompleted(second[0]!);
    expect(statSync(join(dir, "gpucheck_workload", "__main__.py")).mtimeMs).toBe(mtime);
    rmSync(stageDir, { recursive: true, force: true });
  }, 60_000);

  it("sbcast staging leaves no archive beside the logs and no copy in the nodes' /tmp", async () => {
    const ctx = slurmContext(scriptTest("sbcast", PY, "import gpucheck_workload, os; print('FROM', os.environ['PYTHONPATH'])", { nodes: 2, ranksPerNode: 1 }));
    const [u] = await runSlurm(ctx);
    expectCompleted(u!);
    const from = u!.output.trim().split(" ")[1]!;
    expect(from).toMatch(/^\/tmp\/gpucheck-\d+\/node1$/);
    expect(existsSync(from)).toBe(false);
    expect(
      sh("ls", [ctx.logDir])
        .split("\n")
        .filter((f) => f.endsWith(".tar.gz")),
    ).toEqual([]);
  }, 60_000);

  it("a job sweeps away the /tmp copies of the user's ended jobs, and keeps a running job's and another user's", async () => {
    const running = sh("sbatch", ["--parsable", "--nodes=1", "--job-name=gpucheck-sweep-keep", "--output=/dev/null", "--wrap", "sleep 60"]).trim();
    try {
      for (let i = 0; i < 100 && !queued().some((q) => q.startsWith(`${running} RUNNING`)); i++) await Bun.sleep(100);
      const ended = `/tmp/gpucheck-${4_000_000_000 + (process.pid % 1000)}`; // never a job here: Slurm calls it invalid
      const mine = `/tmp/gpucheck-${running}`;
      const theirs = `/tmp/gpucheck-${4_100_000_000 + (process.pid % 1000)}`;
      for (const d of [ended, mine, theirs]) mkdirSync(join(d, "node1"), { recursive: true });
      writeFileSync(`${ended}.tar.gz`, "");
      sh("chown", ["-R", "nobody", theirs]);
      const [u] = await runSlurm(slurmContext(scriptTest("sweep", PY, "print('ok')", { nodes: 2, ranksPerNode: 1 })));
      expectCompleted(u!);
      expect([ended, `${ended}.tar.gz`, mine, theirs].map((p) => existsSync(p))).toEqual([false, false, true, true]);
      rmSync(mine, { recursive: true, force: true });
      rmSync(theirs, { recursive: true, force: true });
    } finally {
      sh("scancel", [running]);
      for (let i = 0; i < 100 && queued().some((q) => q.startsWith(`${running} `)); i++) await Bun.sleep(100);
    }
  }, 60_000);

  it("Ctrl-C on `gpucheck suite` cancels the job: exit 130 and an empty queue", async () => {
    const dir = tempDir("slurm-sigint");
    const marker = `gpucheck-sigint-${process.pid}`;
    writeFileSync(
      join(dir, "suite.yaml"),
      [
        "name: slurm-sigint",
        "platform: { type: slurm, slurm: { pollMaxS: 1 } }",
        "defaults: { nodes: 2, gpusPerNode: 0, ranksPerNode: 2, timeout: 10m }",
        "tests:",
        "  - name: long-train",
        "    kind: train",
        `    env: { MARKER: ${marker} }`,
        "    train: { model: resnet18, data: synthetic, batchSize: 8, steps: 100000, warmupSteps: 1, imageSize: 32 }",
        "",
      ].join("\n"),
    );
    const run = gpucheckAsync(["suite", join(dir, "suite.yaml"), "--python", PY, "-o", join(dir, "out"), "--progress", "plain"]);
    try {
      // the test's own job, not the preflight's before it
      const ofTest = () => run.output().split("long-train (train): started")[1] ?? "";
      for (let i = 0; i < 600 && !/job \d+ RUNNING/.test(ofTest()); i++) await Bun.sleep(100);
      expect(ofTest()).toMatch(/job \d+ RUNNING/);
      // the ranks are up on the (local) nodes before the interrupt
      // up to 90 s: each node's launcher (one Python, seen first) imports torch before it starts its 2
      // ranks, which took over 30 s on a loaded 2-core machine
      // seen twice a second apart: a count met once may include a step's short-lived processes, or ranks
      // already failing (their output, and the job's, are then in the message)
      const up = async () => (await processesWithEnv(marker)).length >= 4;
      for (let i = 0; i < 900 && run.child.exitCode === null; i++) {
        if (await up()) {
          await Bun.sleep(1000);
          if (await up()) break;
        }
        await Bun.sleep(100);
      }
      const ranks = await processesWithEnv(marker);
      expect(ranks.length, `the job's processes:\n${ranks.join("\n")}\ngpucheck said:\n${run.output()}\n${logsOf(join(dir, "out"))}`).toBeGreaterThanOrEqual(4);
      run.child.kill("SIGINT");
      expect(await run.exited).toBe(130);
      expect(queued()).toEqual([]);
      expect(await processesWithEnv(marker)).toEqual([]);
      const results = JSON.parse(readFileSync(join(dir, "out", "results.json"), "utf8"));
      expect(results.complete).toBe(false);
      expect(results.tests[0].units[0].status).toBe("cancelled");
    } finally {
      await cleanUp(run, "gpucheck-slurm-sigint");
    }
  }, 240_000);

  it("--hosts names the nodes of the job; more hosts than the test's nodes is Slurm's refusal, quoted", async () => {
    const ctx = slurmContext(scriptTest("pinned", PY, SHOW_RANK, { nodes: 2, ranksPerNode: 2 }), { cli: { hosts: ["node3", "node4"] } });
    const [u] = await runSlurm(ctx);
    expectCompleted(u!);
    expect(u!.ranks.map((r) => `${r.rank}@${r.host}`)).toEqual(["0@node3", "1@node3", "2@node4", "3@node4"]);
    const wide = slurmContext(scriptTest("wide", PY, SHOW_RANK, { nodes: 2, ranksPerNode: 2 }), { cli: { hosts: ["node1", "node2", "node3"] } });
    const [w] = await runSlurm(wide);
    expect(w!.message).toBe(`sbatch refused gpucheck-conformance-wide: sbatch: error: invalid number of nodes (-N 3-2) (script: ${wide.logDir}/job.sbatch)`);
  }, 60_000);

  it("a second Ctrl-C exits at once and still leaves nothing queued", async () => {
    const dir = tempDir("slurm-sigint2");
    writeFileSync(
      join(dir, "suite.yaml"),
      "name: slurm-sigint-twice\nplatform: { type: slurm, slurm: { pollMaxS: 1 } }\ndefaults: { nodes: 1, gpusPerNode: 0, ranksPerNode: 1, timeout: 10m }\ntests:\n  - name: long\n    kind: train\n    train: { model: resnet18, data: synthetic, batchSize: 8, steps: 100000, warmupSteps: 1, imageSize: 32 }\n",
    );
    const run = gpucheckAsync(["suite", join(dir, "suite.yaml"), "--python", PY, "-o", join(dir, "out"), "--progress", "plain"]);
    try {
      for (let i = 0; i < 300 && !/job \d+ RUNNING/.test(run.output()); i++) await Bun.sleep(100);
      expect(run.output()).toMatch(/job \d+ RUNNING/);
      run.child.kill("SIGINT");
      await Bun.sleep(50);
      run.child.kill("SIGINT");
      expect(await run.exited).toBe(130);
      // the exit hook's scancel was sent; the job's processes take KillWait at most to go
      for (let i = 0; i < 100 && queued().length; i++) await Bun.sleep(100);
      expect(queued()).toEqual([]);
    } finally {
      await cleanUp(run, "gpucheck-slurm-sigint-twice");
    }
  }, 120_000);

  it("a failed per-node test: each failed node's evidence is collected on it by a Slurm job, bundled and listed", () => {
    const dir = tempDir("slurm-evidence");
    writeFileSync(
      join(dir, "suite.yaml"),
      [
        "name: slurm-evidence",
        "platform: { type: slurm, slurm: { pollMaxS: 1 } }",
        "defaults: { gpusPerNode: 0, ranksPerNode: 1, timeout: 2m }",
        "evidence: { maxBytes: 1MiB, timeout: 60s }",
        "tests:",
        "  - name: allreduce-node",
        "    kind: collective",
        "    perNode: true",
        "    nodes: 2",
        "    collective: { op: all_reduce, minBytes: 1KiB, maxBytes: 4KiB, iters: 2, warmup: 1, backend: gloo }",
        "    expect:",
        "      busbw: { min: 1000 GB/s } # no CPU moves this: both nodes fail",
        "",
      ].join("\n"),
    );
    const out = join(dir, "out");
    const r = gpucheck(["suite", join(dir, "suite.yaml"), "--hosts", "node1,node2", "--python", PY, "-o", out, "--progress", "plain"], { timeoutMs: 300_000 });
    expect(r.status).toBe(1);
    const res = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    const evidence = res.evidence as Array<{ node: string; file: string; bytes: number; collected: string[]; missing: Array<{ item: string; why: string }> }>;
    expect(evidence.map((e) => [e.node, e.file])).toEqual([
      ["node1", "evidence/node1.tar.gz"],
      ["node2", "evidence/node2.tar.gz"],
    ]);
    for (const e of evidence) {
      // collected on the node by the workload under srun (GPUCHECK_NODE is Slurm's node name), never the jump host's view
      expect(e.missing).toContainEqual({ item: "nvidia-smi-q.txt", why: `nvidia-smi is not installed on ${e.node}` });
      expect(e.missing.find((m) => m.item.startsWith("the "))).toBeUndefined();
      expect(e.collected).toContain(`logs/allreduce-node/${e.node}/rank-0.log`);
      expect(statSync(join(out, e.file)).size).toBe(e.bytes);
    }
    expect(queued()).toEqual([]);
  }, 320_000);

  it("cpu-smoke's inventory and all-reduce as a 2-node job with 2 ranks per node pass through sbatch", () => {
    const dir = tempDir("slurm-cpu-smoke");
    writeFileSync(join(dir, "suite.yaml"), "name: cpu-smoke-slurm\nextends: cpu-smoke\ndefaults: { nodes: 2 }\nplatform: { type: slurm, slurm: { pollMaxS: 1 } }\n");
    // ResNet-18's DDP training on 2 × 2 ranks runs over ssh (ssh-e2e.test.ts), in Docker's container
    // and on local; on Slurm it cost about 190 s of CI and launches through the same srun step as the
    // all-reduce, which proves the launch
    const r = gpucheck(["suite", join(dir, "suite.yaml"), "--only", "inventory,allreduce-gloo", "--python", PY, "-o", join(dir, "out"), "--progress", "none"], {
      timeoutMs: 600_000,
    });
    expect(r.stdout + r.stderr).toContain("PASSED");
    expect(r.status).toBe(0);
    const results = JSON.parse(readFileSync(join(dir, "out", "results.json"), "utf8"));
    const shared = results.tests.filter((t: { perNode: boolean }) => !t.perNode);
    expect(shared.length).toBeGreaterThan(0);
    for (const t of shared) expect(t.units[0].hosts).toEqual(["node1", "node2"]);
    expect(results.tests.map((t: { name: string }) => t.name)).toEqual(["inventory", "allreduce-gloo"]);
    expect(queued()).toEqual([]);
  }, 700_000);
});

/** The last lines of every log a run wrote so far (the job's and its ranks'), for a failure's message. */
function logsOf(out: string): string {
  const root = join(out, "logs");
  if (!existsSync(root)) return `(no ${root})`;
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .map((f) => join(root, f))
    .filter((f) => statSync(f).isFile())
    .map((f) => `--- ${f}\n${readFileSync(f, "utf8").split("\n").slice(-20).join("\n")}`)
    .join("\n");
}

// after every test of this file, the conformance ones included
afterAll(() => {
  removeSlurmContexts();
  if (!enabled) return;
  expect(queued()).toEqual([]);
  // the node-local copies of jobs these tests cancelled (all nodes share this host's /tmp)
  for (const f of readdirSync("/tmp").filter((f) => /^gpucheck-\d+(\.tar\.gz)?$/.test(f))) rmSync(join("/tmp", f), { recursive: true, force: true });
});

conformance(
  slurm as Platform<unknown>,
  () => ({
    python: PY,
    settings: slurm.settings.parse({ pollMaxS: 1 }),
    nodes: 2,
    ranksPerNode: 2,
    slackS: 3,
    leftovers: async (marker) => [...queued(), ...(await localLeftovers(marker))],
  }),
  enabled,
);
