// The ssh platform: bare-metal hosts reached with the system OpenSSH client. gpucheck stages the
// workload on each host once (content-hashed), fans the ranks out itself (one ssh per rank, or one
// torchrun per host, or one mpirun), and stops every remote process group it started.
// The run-time half (child processes, tar, sockets) is loaded only when a test runs.
import type { UnitRun } from "../lib/types.ts";
import { rankArgv, remoteCommand, sshArgv } from "./ssh/argv.ts";
import { procsOf, unitsOf } from "./ssh/layout.ts";
import { shJoin } from "./ssh/quote.ts";
import { prepareScript, stageOf, stageScript } from "./ssh/scripts.ts";
import { sshSettings, type SshSettings } from "./ssh/settings.ts";
import { hostsForTest, resolveHosts, targetOf } from "./ssh/target.ts";
import type { Platform, RenderContext, RunContext } from "./types.ts";

const RUN = "<run-id>";

function render(ctx: RenderContext<SshSettings>) {
  const s = ctx.settings;
  const hosts = hostsForTest(ctx.test, resolveHosts(s, ctx.cli, ctx.suite));
  const units = unitsOf(ctx.test, hosts);
  const target = targetOf(s, ctx.suite, "<control-dir>");
  const stage = { base: s.stageDir, hash: ctx.workloadHash };
  const python = ctx.cli.python ?? s.python ?? ctx.launch.python;
  const rendezvousHosts = new Set(units.map((u) => u.hosts[0]!));
  const prepared = hosts.map((h) => ({
    host: h.name,
    prepare: sshArgv(target, h, "master", remoteCommand(prepareScript(stage, rendezvousHosts.has(h) && !s.masterPort ? python : undefined), `gpucheck-${RUN}-prepare`)),
    stageIfMissing: sshArgv(target, h, "mux", remoteCommand(stageScript(stage), `gpucheck-${RUN}-stage`)),
  }));
  const launched = units.map((u) => {
    const master = { addr: s.masterAddr ?? `<address ssh reached ${u.hosts[0]!.name} on>`, port: String(s.masterPort ?? `<free port on ${u.hosts[0]!.name}>`) };
    const procs = procsOf(u, ctx.launch, python, s.launcher, master, { GPUCHECK_RUN_ID: RUN });
    return {
      unit: u.unit,
      hosts: u.hosts.map((h) => h.name),
      master,
      ranks: procs.map((p) => ({ rank: p.id, host: p.host.name, ranks: p.ranks, argv: rankArgv(p, target, stage, RUN) })),
    };
  });
  const text = [
    `ssh: ${hosts.length} host(s), launcher ${s.launcher}, stage ${stageOf(stage)}, at most ${s.maxParallel} connections at a time`,
    `<run-id> and <control-dir> are made when the run starts; MASTER_ADDR/MASTER_PORT come from rank 0's host`,
    ...prepared.flatMap((p) => [`prepare ${p.host}: ${shJoin(p.prepare)}`, `stage ${p.host} (when missing, tar on stdin): ${shJoin(p.stageIfMissing)}`]),
    ...launched.flatMap((u) => [`unit ${u.unit}: MASTER_ADDR=${u.master.addr} MASTER_PORT=${u.master.port}`, ...u.ranks.map((r) => `  rank ${r.rank} on ${r.host}: ${shJoin(r.argv)}`)]),
  ].join("\n");
  return { launcher: s.launcher, stageDir: stageOf(stage), maxParallel: s.maxParallel, hosts: prepared, units: launched, text };
}

export const ssh: Platform<SshSettings> = {
  name: "ssh",
  summary: "bare-metal hosts over the system OpenSSH client (ControlMaster), one process per rank",
  settings: sshSettings,
  render,
  run: async (ctx: RunContext<SshSettings>): Promise<UnitRun[]> => (await import("./ssh/run.ts")).runSsh(ctx),
};
