// The CPU faults' checks, shared by the fault lab's tests (fault-lab.test.ts) and the local Slurm's
// (fault-lab-slurm.test.ts): a busy process on the faulted host or node against one elsewhere.
import { expect } from "bun:test";
import type { ChildProcess } from "node:child_process";
import type { CgroupFaults } from "./fault-lab.ts";
import { busyShare, cpuTicks, firstLine } from "./probes.ts";

/** The pid a BUSY program printed first, with the process that runs it. */
async function busyPid(p: ChildProcess): Promise<number> {
  return Number((await firstLine(p)).split(" ")[1]);
}

/** A busy process is making progress over `ms` when its CPU time grows. */
async function progress(pid: number, ms = 800): Promise<number> {
  const before = cpuTicks(pid);
  await Bun.sleep(ms);
  return cpuTicks(pid) - before;
}

export type Busy = (host: string, seconds: number) => ChildProcess;

/** With `capped` at 10 % of a CPU, a busy loop there gets about that, and one on `free` far more. */
export async function expectCap(faults: CgroupFaults, busy: Busy, capped: string, free: string): Promise<void> {
  const undo = await faults.cpuCap(capped, 10);
  try {
    const [share, freeShare] = await Promise.all([busyShare(busy(capped, 2)), busyShare(busy(free, 2))]);
    expect(share).toBeLessThan(0.13);
    expect(freeShare).toBeGreaterThan(2 * share);
  } finally {
    await undo();
  }
}

/** With `frozen` frozen, a busy process there gets no CPU time while one on `other` does; thawed, it runs again. */
export async function expectFreeze(faults: CgroupFaults, busy: Busy, frozen: string, other: string): Promise<void> {
  const [pid, otherPid] = await Promise.all([busyPid(busy(frozen, 15)), busyPid(busy(other, 15))]);
  try {
    const undo = await faults.freeze(frozen);
    try {
      const [f, o] = await Promise.all([progress(pid), progress(otherPid)]);
      expect(f).toBe(0);
      expect(o).toBeGreaterThan(0);
    } finally {
      await undo();
    }
    expect(await progress(pid)).toBeGreaterThan(0);
  } finally {
    for (const p of [pid, otherPid]) process.kill(p, "SIGKILL"); // its ssh session or srun step ends with it
  }
}
