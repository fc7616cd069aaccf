// Pure pieces of the slurm platform against output captured from a real Slurm 22.05
// (test/fixtures/slurm/capture.sh): hostlists, squeue/scontrol/sacct/sinfo, job states,
// the per-node sweep, and the verdicts built from a job's batch output.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compressHostlist, expandHostlist, expandRanges } from "../../lib/core/hostlist.ts";
import { sweepNodes, unusable } from "../../plugins/slurm/nodes.ts";
import { type OutcomeInput, parseBatchOutput, unitRuns } from "../../plugins/slurm/outcome.ts";
import { parseSacct, parseScontrolJob, parseSinfo, parseSqueue } from "../../plugins/slurm/query.ts";
import { endedStatus, phaseOf } from "../../plugins/slurm/states.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dir, "../fixtures/slurm", name), "utf8");

describe("hostlists", () => {
  test("expand", () => {
    expect(expandHostlist("node[1-3],login1")).toEqual(["node1", "node2", "node3", "login1"]);
    expect(expandHostlist("gpu[008-010,012]")).toEqual(["gpu008", "gpu009", "gpu010", "gpu012"]);
    expect(expandHostlist("r[1-2]n[1-2]")).toEqual(["r1n1", "r1n2", "r2n1", "r2n2"]);
    expect(expandHostlist("node7")).toEqual(["node7"]);
    expect(expandHostlist("")).toEqual([]);
    expect(expandRanges("0-2,5")).toEqual(["0", "1", "2", "5"]);
  });
  test("bad lists say what is wrong", () => {
    expect(() => expandHostlist("node[1-3")).toThrow('unbalanced "[" in hostlist "node[1-3"');
    expect(() => expandHostlist("node1-3]")).toThrow('unbalanced "]" in hostlist "node1-3]"');
    expect(() => expandHostlist("node[3-1]")).toThrow('bad range "3-1" in "3-1": 1 is below 3');
    expect(() => expandHostlist("node[a-b]")).toThrow('bad range "a-b" in "a-b": expected N or N-M');
  });
  test("compress is the inverse, keeping zero padding", () => {
    expect(compressHostlist(["node1", "node2", "node3", "node5"])).toBe("node[1-3,5]");
    expect(compressHostlist(["gpu001", "gpu002", "login", "gpu010"])).toBe("gpu[001-002,010],login");
    expect(compressHostlist(["node4"])).toBe("node4");
    const many = Array.from({ length: 32 }, (_, i) => `node${i + 1}`);
    expect(expandHostlist(compressHostlist(many))).toEqual(many);
  });
});

describe("squeue", () => {
  test("pending, running, ended", () => {
    expect(parseSqueue(fixture("squeue-pending.txt"))).toEqual([{ id: "20", state: "PENDING", reason: "PartitionConfig", nodes: "" }]);
    expect(parseSqueue(fixture("squeue-running.txt"))).toEqual([{ id: "21", state: "RUNNING", reason: "", nodes: "node[1-2]" }]);
    expect(parseSqueue(fixture("squeue-timeout.txt"))).toEqual([{ id: "23", state: "TIMEOUT", reason: "TimeLimit", nodes: "node1" }]);
    expect(parseSqueue(fixture("squeue-two-jobs.txt")).map((j) => `${j.id} ${j.state} ${j.reason}`)).toEqual(["20 CANCELLED PartitionNodeLimit", "21 CANCELLED "]);
  });
  test("a line of another shape is a parse error naming it", () => {
    expect(() => parseSqueue("20 PENDING")).toThrow('line 1: squeue: expected "jobid|state|reason|nodes", got "20 PENDING"');
  });
});

describe("scontrol show job", () => {
  test("completed and pending", () => {
    expect(parseScontrolJob(fixture("scontrol-completed.txt"))).toEqual({ id: "22", state: "COMPLETED", reason: "", nodes: "node[1-2]", exitCode: "0:0" });
    expect(parseScontrolJob(fixture("scontrol-pending.txt"))).toEqual({ id: "20", state: "PENDING", reason: "PartitionConfig", nodes: "", exitCode: "0:0" });
  });
  test("a job name that imitates fields does not fool it", () => {
    expect(fixture("scontrol-running-hostile-name.txt")).toContain("JobName=x JobState=FAILED Reason=Fake NodeList=evil[1-9]");
    expect(parseScontrolJob(fixture("scontrol-running-hostile-name.txt"))).toEqual({ id: "21", state: "RUNNING", reason: "", nodes: "node[1-2]", exitCode: "0:0" });
  });
  test("an unknown job is no job", () => {
    expect(parseScontrolJob(fixture("scontrol-unknown-job.txt"))).toBeUndefined();
  });
});

test("sacct -c (the jobcomp file)", () => {
  expect(parseSacct(fixture("sacct-c.txt"))).toEqual([
    { id: "21", state: "CANCELLED", reason: "", nodes: "node[1-2]", exitCode: "0:0" },
    { id: "22", state: "COMPLETED", reason: "", nodes: "node[1-2]", exitCode: "0:0" },
  ]);
});

describe("states", () => {
  test("phases", () => {
    for (const s of ["PENDING", "REQUEUED", "SUSPENDED"]) expect(phaseOf(s)).toBe("pending");
    for (const s of ["RUNNING", "COMPLETING", "CONFIGURING", "SOMETHING_NEW"]) expect(phaseOf(s)).toBe("running");
    for (const s of ["COMPLETED", "FAILED", "TIMEOUT", "CANCELLED by 0", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE"]) expect(phaseOf(s)).toBe("ended");
  });
  test("verdicts", () => {
    const table = Object.fromEntries(
      ["COMPLETED", "FAILED", "TIMEOUT", "CANCELLED by 1000", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "WEIRD"].map((s) => [s, endedStatus(s).status]),
    );
    expect(table).toEqual({
      COMPLETED: "completed",
      FAILED: "failed",
      TIMEOUT: "timeout",
      "CANCELLED by 1000": "infra",
      NODE_FAIL: "infra",
      OUT_OF_MEMORY: "failed",
      PREEMPTED: "infra",
      BOOT_FAIL: "infra",
      DEADLINE: "timeout",
      WEIRD: "infra",
    });
    expect(endedStatus("CANCELLED", "cancelled")).toEqual({ status: "cancelled", what: "was cancelled" });
    expect(endedStatus("NODE_FAIL").what).toBe("lost a node (NODE_FAIL)");
  });
});

describe("per-node sweep", () => {
  const rows = parseSinfo(fixture("sinfo-drained.txt"));
  test("sinfo keeps a reason that contains the separator", () => {
    expect(rows[3]).toEqual({ node: "node4", partition: "debug", isDefault: true, state: "drained", reason: "fan 3 | bad gpu" });
  });
  test("drained nodes are skipped with the admin's reason; unknown names are reported", () => {
    expect(sweepNodes(rows, {})).toEqual({ usable: ["node1", "node2", "node3"], skipped: [{ node: "node4", why: "drained: fan 3 | bad gpu" }], unknown: [] });
    expect(sweepNodes(rows, { nodelist: "node[3-5]", exclude: "node3" })).toEqual({
      usable: [],
      skipped: [{ node: "node4", why: "drained: fan 3 | bad gpu" }],
      unknown: ["node5"],
    });
    expect(sweepNodes(rows, { partition: "other" }).usable).toEqual([]);
  });
  test("node states", () => {
    expect(unusable("idle", "none")).toBeUndefined();
    expect(unusable("mixed", "none")).toBeUndefined();
    expect(unusable("allocated", "none")).toBeUndefined();
    expect(unusable("idle~", "none")).toBeUndefined();
    expect(unusable("down*", "Not responding")).toBe("down* (not responding): Not responding");
    expect(unusable("idle*", "none")).toBe("idle* (not responding)");
    expect(unusable("draining", "Kill task failed")).toBe("draining: Kill task failed");
    expect(unusable("maint$", "none")).toBe("maint$ (in a maintenance reservation)");
  });
});

describe("batch output", () => {
  test("srun's task reports: ranges, exit codes and signals", () => {
    const r = parseBatchOutput(fixture("batch-task-failures.out"));
    expect([...r.steps]).toEqual([
      ["all", 143],
      ["segv", 139],
    ]);
    expect(r.tasks.map((t) => [t.node, t.tasks, t.exitCode, t.how])).toEqual([
      ["node1", [0, 2], 5, "exit code 5"],
      ["node1", [1], 143, "Terminated"],
      ["node2", [3, 4, 5], 143, "Terminated"],
      ["node1", [0, 1, 2], 139, "Segmentation fault"],
      ["node2", [3, 4, 5], 139, "Segmentation fault"],
    ]);
    expect(r.errors[1]).toBe("slurmstepd-node1: error: *** STEP 22.0 ON node1 CANCELLED AT 2026-11-22T00:08:33 ***");
  });
});

describe("unit verdicts", () => {
  const base = (over: Partial<OutcomeInput>): OutcomeInput => ({
    jobId: "22",
    units: [{ unit: "all", hosts: ["node1", "node2"] }],
    ranksPerNode: 3,
    logDir: "/r/logs/t",
    batch: "",
    state: "COMPLETED",
    python: "/usr/bin/python3",
    stage: "/shared/gpucheck-0123 (platform.slurm.stageDir)",
    readLog: (p) => (p.endsWith("rank-2.log") ? "step 1\ngpucheck-workload: error: NCCL timeout on rank 2\n" : p.endsWith("rank-0.log") ? "GPUCHECK_RESULT {}\n" : ""),
    startedAt: "2026-01-01T00:00:00.000Z",
    endedAt: "2026-01-01T00:01:00.000Z",
    ...over,
  });
  test("a failing rank is named with its host and exit code; the peers srun killed after it are not blamed", () => {
    const [u] = unitRuns(base({ batch: fixture("batch-task-failures.out") }));
    expect(u!.status).toBe("failed");
    expect(u!.message).toBe("rank 0 on node1 failed with exit code 5 (job 22)");
    expect(u!.ranks.map((r) => [r.rank, r.host, r.exitCode])).toEqual([
      [0, "node1", 5],
      [1, "node1", 143],
      [2, "node1", 5],
      [3, "node2", 143],
      [4, "node2", 143],
      [5, "node2", 143],
    ]);
    expect(u!.ranks[4]!.path).toBe("/r/logs/t/all/rank-4.log");
    expect(u!.output).toBe("GPUCHECK_RESULT {}\n");
    expect(u!.tail.split("\n")[0]).toBe("srun: error: node1: tasks 0,2: Exited with exit code 5");
  });
  test("the workload's error line of the failing rank is in the message", () => {
    const [u] = unitRuns(base({ batch: "srun: error: node1: task 2: Exited with exit code 3\ngpucheck-step unit=all exit=3\n" }));
    expect(u!.message).toBe("rank 2 on node1 failed with exit code 3: NCCL timeout on rank 2 (job 22)");
    expect(u!.tail).toContain("[node1 rank 2] gpucheck-workload: error: NCCL timeout on rank 2");
  });
  test("a node without the Python, or without the staged workload, is an infra problem that says which", () => {
    const batch = "srun: error: node2: task 3: Exited with exit code 127\ngpucheck-step unit=all exit=127\n";
    const noPython = unitRuns(base({ batch, readLog: (p) => (p.endsWith("rank-3.log") ? "gpucheck-rank: line 1: exec: /usr/bin/python3: not found\n" : "") }))[0]!;
    expect(noPython).toMatchObject({ status: "infra", message: 'node2 has no "/usr/bin/python3" (exit code 127 on rank 3): set the test\'s python or --python (job 22)' });
    const noModule = unitRuns(
      base({ batch: batch.replaceAll("127", "1"), readLog: (p) => (p.endsWith("rank-3.log") ? "/usr/bin/python3: No module named gpucheck_workload\n" : "") }),
    )[0]!;
    expect(noModule).toMatchObject({
      status: "infra",
      message: "node2 cannot import gpucheck_workload from /shared/gpucheck-0123 (platform.slurm.stageDir): the nodes must see it at the same path (job 22)",
    });
  });
  test("a rank killed for memory says so", () => {
    const [u] = unitRuns(base({ batch: "srun: error: node1: task 1: Out Of Memory\ngpucheck-step unit=all exit=1\n", state: "OUT_OF_MEMORY" }));
    expect(u).toMatchObject({ status: "failed", message: "rank 1 on node1 failed with Out Of Memory (job 22 ran out of memory (OUT_OF_MEMORY))" });
  });
  test("completed", () => {
    const [u] = unitRuns(base({ batch: "gpucheck-step unit=all exit=0\ngpucheck-job-end\n" }));
    expect(u!.status).toBe("completed");
    expect(u!.message).toBeUndefined();
    expect(u!.ranks.every((r) => r.exitCode === 0)).toBe(true);
  });
  test("Slurm's own time limit, a lost node, and a queue timeout", () => {
    expect(unitRuns(base({ batch: "slurmstepd-node1: error: *** JOB 22 ON node1 CANCELLED AT 2026 DUE TO TIME LIMIT ***\n", state: "TIMEOUT" }))[0]).toMatchObject({
      status: "timeout",
      message: "job 22 hit its Slurm time limit (TIMEOUT): slurmstepd-node1: error: *** JOB 22 ON node1 CANCELLED AT 2026 DUE TO TIME LIMIT ***",
    });
    expect(unitRuns(base({ batch: "gpucheck-step unit=all exit=1\n", state: "NODE_FAIL" }))[0]).toMatchObject({ status: "infra", message: "job 22 lost a node (NODE_FAIL)" });
    expect(unitRuns(base({ batch: "srun: error: node1: task 0: Terminated\ngpucheck-step unit=all exit=143\n", state: "TIMEOUT" }))[0]).toMatchObject({
      status: "timeout",
      message: "job 22 hit its Slurm time limit (TIMEOUT): srun: error: node1: task 0: Terminated",
    });
    const q = unitRuns(
      base({
        units: [{ unit: "all", hosts: [] }],
        state: "CANCELLED",
        cancelled: { by: "queue-timeout", detail: "pending for 5 s (Slurm reason: PartitionNodeLimit), longer than the queue timeout of 5 s: gpucheck cancelled it" },
      }),
    )[0]!;
    expect(q).toMatchObject({
      status: "infra",
      message: "pending for 5 s (Slurm reason: PartitionNodeLimit), longer than the queue timeout of 5 s: gpucheck cancelled it (job 22)",
      ranks: [],
    });
  });
  test("a step cut short by gpucheck's own scancel is cancelled, not failed", () => {
    const [u] = unitRuns(
      base({
        batch: "srun: error: node1: task 0: Terminated\ngpucheck-step unit=all exit=143\n",
        state: "CANCELLED",
        cancelled: { by: "cancelled", detail: "cancelled: gpucheck cancelled the job" },
      }),
    );
    expect(u).toMatchObject({ status: "cancelled", message: "cancelled: gpucheck cancelled the job (job 22)" });
  });
  test("no batch output at all points at the shared filesystem", () => {
    const [u] = unitRuns(base({ batch: undefined, state: "FAILED" }));
    expect(u!.message).toBe("job 22 ended FAILED without writing slurm-22.out in /r/logs/t: the nodes must see this directory at the same path (a shared filesystem)");
  });
  test("staging failures are infra problems", () => {
    const [u] = unitRuns(base({ batch: "sbcast: error: Can't open `workload.tar.gz`: No such file\ngpucheck-stage-failed: sbcast\n", state: "FAILED" }));
    expect(u).toMatchObject({ status: "infra", message: "staging the workload failed on the nodes (sbcast; job 22): gpucheck-stage-failed: sbcast" });
  });
  test("per node: each node's step decides its own unit", () => {
    const batch = "srun: error: node2: task 1: Exited with exit code 2\ngpucheck-step unit=node1 exit=0\ngpucheck-step unit=node2 exit=2\n";
    const units = unitRuns(
      base({
        batch,
        ranksPerNode: 2,
        units: [
          { unit: "node1", hosts: ["node1"] },
          { unit: "node2", hosts: ["node2"] },
          { unit: "node3", hosts: ["node3"] },
        ],
        state: "FAILED",
      }),
    );
    expect(units.map((u) => [u.unit, u.status, u.message])).toEqual([
      ["node1", "completed", undefined],
      ["node2", "failed", "rank 1 on node2 failed with exit code 2 (job 22)"],
      // node2's failed task is node2's story, not why node3 never reported
      ["node3", "infra", "job 22 ended FAILED before its step on node3 reported"],
    ]);
    expect(units[1]!.ranks.map((r) => r.path)).toEqual(["/r/logs/t/node2/rank-0.log", "/r/logs/t/node2/rank-1.log"]);
  });
});
