// `gpucheck fabric check --pkeys majority` through a real ssh to the "SM node": every compute port's
// PKey table is one smpquery, and each is one ssh connection, as `via: ssh sm-node` makes it on a real
// fabric. Two binaries, interleaved run by run so that they share the machine's noise; prints each one's
// median wall time and the ratio, and fails if their answers differ.
//
//   bash test/infra/ssh.sh start && bash test/infra/ibsim.sh start
//   node_modules/.bin/bun bench/fabric-pkeys.ts --old /tmp/gpucheck-base --new compiled/gpucheck [--runs 7]
//
// The ssh test host (127.0.0.2, the lab's sshd) reaches ibsim's subnet through its abstract socket, so
// the tools it runs under ibsim-run read the simulated fat tree (16 compute ports).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { median } from "./median.ts";

const argOf = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const oldBin = resolve(argOf("old") ?? "");
const newBin = resolve(argOf("new") ?? "compiled/gpucheck");
const runs = Number(argOf("runs") ?? 7);

const envOf = (path: string) =>
  Object.fromEntries(
    readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((l) => l.split("=", 2) as [string, string]),
  );
const ssh = envOf("/run/gpucheck-test/ssh/env");
const ibsim = envOf("/run/gpucheck-test/ibsim/env");
// the test user's PATH has no /usr/sbin, where infiniband-diags' tools are
const via = `ssh -F ${ssh.GPUCHECK_SSH_CONFIG} ${ssh.GPUCHECK_SSH_HOSTS!.split(",")[0]} PATH=/usr/sbin:/usr/bin IBSIM_SOCKNAME=${ibsim.GPUCHECK_IBSIM_SOCKNAME} ibsim-run`;

const dir = mkdtempSync(join(tmpdir(), "gpucheck-bench-pkeys-"));
const topo = join(dir, "fat-tree.topo");
const snap = spawnSync(newBin, ["fabric", "snapshot", "--via", via, "--out", topo], { encoding: "utf8" });
if (snap.status !== 0) throw new Error(`fabric snapshot: ${snap.stderr}`);

function check(bin: string): { ms: number; out: string } {
  const t0 = performance.now();
  const r = spawnSync(bin, ["fabric", "check", "--topology", topo, "--pkeys", "majority", "--via", via], { encoding: "utf8" });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${bin} fabric check exited ${r.status}: ${r.stderr}${r.stdout}`);
  return { ms, out: r.stdout };
}

const times: Record<"old" | "new", number[]> = { old: [], new: [] };
let answer: string | undefined;
for (let i = 0; i < runs; i++) {
  for (const [which, bin] of [
    ["old", oldBin],
    ["new", newBin],
  ] as const) {
    const { ms, out } = check(bin);
    if (answer !== undefined && out !== answer) throw new Error(`the answers differ:\n${answer}\n---\n${out}`);
    answer = out;
    times[which].push(ms);
  }
}
rmSync(dir, { recursive: true, force: true });
const mOld = median(times.old);
const mNew = median(times.new);
console.log(`fabric check --pkeys majority via ssh, 16 compute ports, ${runs} runs each, interleaved`);
console.log(`old ${oldBin}: median ${Math.round(mOld)} ms (${times.old.map(Math.round).join(", ")})`);
console.log(`new ${newBin}: median ${Math.round(mNew)} ms (${times.new.map(Math.round).join(", ")})`);
console.log(`new / old: ${(mNew / mOld).toFixed(2)}; the answer: ${answer!.trim().split("\n").slice(-1)[0]}`);
