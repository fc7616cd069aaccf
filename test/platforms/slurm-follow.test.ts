// Following a job through a scheduler door that replays captured output: which command answers
// (probed once, with fallbacks), how often it is asked, the queue timeout and cancellation.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { IoResult, SlurmIo } from "../../plugins/slurm/cli.ts";
import { JobQuery, cancelJob, followJob } from "../../plugins/slurm/follow.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dir, "../fixtures/slurm", name), "utf8");
const ok = (stdout: string): IoResult => ({ code: 0, stdout, stderr: "" });
const err = (stderr: string, code = 1): IoResult => ({ code, stdout: "", stderr });
const missing = (cmd: string): IoResult => ({ code: null, stdout: "", stderr: "", spawnError: `${cmd}: command not found` });
const UNKNOWN = err("slurm_load_jobs error: Invalid job id specified\n");
const DISABLED = err("Slurm accounting storage is disabled\n");

/** A door that answers each command from a queue of replies (the last one repeats) and records calls. */
function replay(replies: Record<string, IoResult[]>): SlurmIo & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async exec(argv) {
      const key = argv[0] === "sacct" && argv[1] === "-c" ? "sacct -c" : argv[0] === "scontrol" ? "scontrol" : argv[0]!;
      calls.push(key);
      const q = replies[key];
      if (!q) return missing(key);
      return q.length > 1 ? q.shift()! : q[0]!;
    },
  };
}

const fast = (over: Partial<Parameters<typeof followJob>[2]> = {}) => ({ signal: new AbortController().signal, queueTimeoutMs: 60_000, pollMaxMs: 20, tick: () => false, ...over });

describe("JobQuery", () => {
  test("squeue answers while slurmctld knows the job", async () => {
    const io = replay({ squeue: [ok(fixture("squeue-running.txt"))] });
    expect(await new JobQuery(io).get("21")).toEqual({ id: "21", state: "RUNNING", reason: "", nodes: "node[1-2]" });
    expect(io.calls).toEqual(["squeue"]);
  });
  test("without squeue, scontrol; the probe is remembered", async () => {
    const io = replay({ scontrol: [ok(fixture("scontrol-completed.txt"))] });
    const q = new JobQuery(io);
    expect((await q.get("22"))?.state).toBe("COMPLETED");
    expect((await q.get("22"))?.state).toBe("COMPLETED");
    expect(io.calls).toEqual(["squeue", "scontrol", "scontrol"]);
  });
  test("a job slurmctld forgot: sacct, and when accounting is disabled the jobcomp file", async () => {
    const io = replay({ squeue: [UNKNOWN], sacct: [DISABLED], "sacct -c": [ok(fixture("sacct-c.txt"))] });
    const q = new JobQuery(io);
    expect((await q.get("22"))?.state).toBe("COMPLETED");
    expect(await q.get("99")).toBeUndefined();
    expect(io.calls).toEqual(["squeue", "sacct", "sacct -c", "squeue", "sacct -c"]);
  });
  test("nothing works: the error names every command and why", async () => {
    const io = replay({ sacct: [DISABLED] });
    await expect(new JobQuery(io).get("5")).rejects.toThrow(
      "cannot query Slurm for job 5: squeue: squeue: command not found; scontrol: scontrol: command not found; sacct: accounting storage is disabled; sacct -c: sacct -c: command not found",
    );
  });
  test("an unreachable controller is not a missing command: the query fails, the probe stays", async () => {
    const io = replay({ squeue: [err("squeue: error: Unable to contact slurm controller (connect failure)"), ok(fixture("squeue-running.txt"))] });
    const q = new JobQuery(io);
    await expect(q.get("21")).rejects.toThrow("squeue -h -t all -j 21 -o %i|%T|%r|%N: squeue: error: Unable to contact slurm controller (connect failure)");
    expect((await q.get("21"))?.state).toBe("RUNNING");
    expect(q.broken.size).toBe(0);
  });
});

describe("followJob", () => {
  test("pending → running → completed, one query per tick", async () => {
    const io = replay({
      squeue: [
        ok(fixture("squeue-pending.txt").replace("20", "21")),
        ok(fixture("squeue-running.txt")),
        ok(fixture("squeue-running.txt")),
        ok(fixture("squeue-completed.txt").replace("22", "21")),
      ],
    });
    const seen: string[] = [];
    const r = await followJob(new JobQuery(io), "21", fast({ onChange: (j) => seen.push(j.state) }));
    expect(r.kind).toBe("ended");
    expect(r.kind === "ended" && r.info.state).toBe("COMPLETED");
    expect(r.kind === "ended" && typeof r.startedAt).toBe("number");
    expect(seen).toEqual(["PENDING", "RUNNING", "COMPLETED"]);
    expect(io.calls).toEqual(["squeue", "squeue", "squeue", "squeue"]);
  });
  test("the script's end mark cuts the wait short", async () => {
    const io = replay({ squeue: [ok(fixture("squeue-running.txt")), ok(fixture("squeue-completed.txt").replace("22", "21"))] });
    const t0 = Date.now();
    const r = await followJob(new JobQuery(io), "21", fast({ pollMaxMs: 60_000, tick: () => true }));
    expect(r.kind).toBe("ended");
    expect(Date.now() - t0).toBeLessThan(1000);
  });
  test("after the end mark, a job still completing is asked about every 200 ms, not in a loop without a pause", async () => {
    // squeue answers at once (a resolved promise, like the in-process fake) and says RUNNING until a timer ends the job
    let ended = false;
    const calls: number[] = [];
    const io: SlurmIo = {
      async exec() {
        calls.push(Date.now());
        // a follow that never lets a timer run would never see the job end: stop it here instead of hanging the test
        if (calls.length > 200) ended = true;
        return ok(fixture(ended ? "squeue-completed.txt" : "squeue-running.txt").replace("22", "21"));
      },
    };
    setTimeout(() => (ended = true), 700);
    const t0 = Date.now();
    const r = await followJob(new JobQuery(io), "21", fast({ pollMaxMs: 60_000, tick: () => true }));
    expect(r.kind).toBe("ended");
    expect(calls.length).toBeLessThan(10);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
  test("pending past the queue timeout gives up with Slurm's reason", async () => {
    const io = replay({ squeue: [ok(fixture("squeue-pending.txt"))] });
    const r = await followJob(new JobQuery(io), "20", fast({ queueTimeoutMs: 300 }));
    expect(r.kind).toBe("queue-timeout");
    expect(r.kind === "queue-timeout" && r.info.reason).toBe("PartitionConfig");
    expect(r.kind === "queue-timeout" && r.waitedMs).toBeGreaterThanOrEqual(300);
  });
  test("a controller that is briefly away is waited for; one that stays away ends the follow", async () => {
    const down = err("squeue: error: slurm_receive_msg: Socket timed out on send/recv operation");
    const io = replay({ squeue: [down, down, ok(fixture("squeue-completed.txt").replace("22", "21"))] });
    expect((await followJob(new JobQuery(io), "21", fast())).kind).toBe("ended");
    const gone = replay({ squeue: [down] });
    await expect(followJob(new JobQuery(gone), "21", fast())).rejects.toThrow("Socket timed out on send/recv operation");
    expect(gone.calls.length).toBe(8);
  });
  test("an abort ends the wait at once", async () => {
    const ctl = new AbortController();
    const io = replay({ squeue: [ok(fixture("squeue-running.txt"))] });
    setTimeout(() => ctl.abort("cancelled"), 100);
    const r = await followJob(new JobQuery(io), "21", fast({ signal: ctl.signal, pollMaxMs: 60_000 }));
    expect(r.kind).toBe("aborted");
  });
  test("polling slows down to the maximum gap", async () => {
    const io = replay({ squeue: [ok(fixture("squeue-running.txt"))] });
    const ctl = new AbortController();
    setTimeout(() => ctl.abort("cancelled"), 2000);
    await followJob(new JobQuery(io), "21", fast({ signal: ctl.signal, pollMaxMs: 400 }));
    // 200, 300, 400, 400 … ms apart: about 6 in 2 s, not one per 250 ms tick
    expect(io.calls.length).toBeGreaterThanOrEqual(4);
    expect(io.calls.length).toBeLessThanOrEqual(7);
  });
});

describe("cancelJob", () => {
  test("waits until the job has left the queue", async () => {
    const io = replay({ scancel: [ok("")], squeue: [ok("21|COMPLETING|None|node[1-2]\n"), ok(fixture("squeue-cancelled.txt"))] });
    expect((await cancelJob(io, new JobQuery(io), "21"))?.state).toBe("CANCELLED");
    expect(io.calls).toEqual(["scancel", "squeue", "squeue"]);
  });
  test("a refused scancel says the job may still be there", async () => {
    const io = replay({ scancel: [err("scancel: error: Kill job error on job id 21: Access/permission denied")] });
    await expect(cancelJob(io, new JobQuery(io), "21")).rejects.toThrow(
      "scancel 21 failed: scancel: error: Kill job error on job id 21: Access/permission denied: the job may still be queued or running",
    );
  });
  test("a job that will not go away is reported", async () => {
    const io = replay({ scancel: [ok("")], squeue: [ok(fixture("squeue-running.txt"))] });
    await expect(cancelJob(io, new JobQuery(io), "21", 300)).rejects.toThrow("job 21 is still RUNNING 0 s after scancel");
  });
});
