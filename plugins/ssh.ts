// The ssh platform: bare-metal hosts reached with the system OpenSSH client. gpucheck stages the
// workload on each host once (content-hashed), fans the ranks out itself (one ssh per rank, or one
// torchrun per host, or one mpirun), and stops every remote process group it started.
// The run-time half (child processes, tar, sockets) is loaded only when a test runs.
import type { UnitRun } from "../lib/core/types.ts";
import { rankArgv, remoteCommand, splitEnv, sshArgv } from "./_shared/ssh/argv.ts";
import { envOnStdin, onePass, procsOf, unitsOf } from "./ssh/layout.ts";
import type { SshManifest } from "./ssh/manifest.ts";
import { shJoin, shQuote } from "./_shared/ssh/quote.ts";
import { ENV_END, onePassScript, prepareScript, rankScript, stageOf, stageScript } from "./_shared/ssh/scripts.ts";
import { sshSettings, type SshSettings } from "./_shared/ssh/settings.ts";
import { hostsForTest, resolveHosts, targetOf } from "./_shared/ssh/target.ts";
import type { Platform, RenderContext, RunContext } from "../lib/core/platform.ts";
import { slot, slotsIn } from "../lib/core/slots.ts";
import { describeSlots } from "./_shared/ssh/slots.ts";
import { takesTurns } from "./_shared/window.ts";

const RUN = slot("runId");

function render(ctx: RenderContext<SshSettings>): SshManifest {
  const s = ctx.settings;
  const hosts = hostsForTest(ctx.test, resolveHosts(s, ctx.cli, ctx.suite));
  const units = unitsOf(ctx.test, hosts);
  const target = targetOf(s, ctx.suite, slot("controlDir"));
  const stage = { base: s.stageDir, hash: ctx.workloadHash };
  const python = ctx.cli.python ?? s.python ?? ctx.launch.python;
  const rendezvousHosts = new Set(units.map((u) => u.hosts[0]!));
  // as the run does: only the hosts a unit uses are connected to
  const used = [...new Set(units.flatMap((u) => u.hosts))];
  const prepared = used.map((h) => ({
    host: h.name,
    prepare: sshArgv(target, h, "master", remoteCommand(prepareScript(stage, python, rendezvousHosts.has(h) && !s.masterPort), `gpucheck-${RUN}-prepare`)),
    stageIfMissing: sshArgv(target, h, "mux", remoteCommand(stageScript(stage), `gpucheck-${RUN}-stage`)),
  }));
  // per-node units taking turns: a host's unit is its only one, so its first ssh may run it
  const windowed = takesTurns(units.map((u) => u.hosts.map((h) => h.name)));
  const procsOfUnit = units.map((u) => {
    const h0 = u.hosts[0]!.name;
    const master = { addr: (u.unit === "all" ? s.masterAddr : undefined) ?? slot(`masterAddr:${h0}`), port: String(s.masterPort ?? slot(`masterPort:${h0}`)) };
    return { u, master, procs: procsOf(u, ctx.launch, python, s.launcher, master, { GPUCHECK_RUN_ID: RUN }) };
  });
  const onStdin = envOnStdin(
    ctx.launch,
    procsOfUnit.flatMap((x) => x.procs),
  );
  const launched = procsOfUnit.map(({ u, master, procs }) => {
    const first = windowed ? onePass(u, procs, s.launcher) : undefined;
    const script = first && onePassScript(stage, python, { runId: RUN, stage, id: first.id, argv: first.argv, ...splitEnv(first.env, onStdin) }, s.masterPort);
    return {
      unit: u.unit,
      hosts: u.hosts.map((h) => h.name),
      master,
      ranks: procs.map((p) => ({ rank: p.id, host: p.host.name, ranks: p.ranks, argv: rankArgv(p, target, stage, RUN, onStdin) })),
      ...(script && { onePass: sshArgv(target, u.hosts[0]!, "first", remoteCommand(script, `gpucheck-${RUN}-${first.id}`)) }),
      procs,
    };
  });
  const example = launched[0]?.procs[0];
  const text = [
    `ssh to ${used.length === hosts.length ? `${hosts.length} host(s)` : `${used.length} of the ${hosts.length} hosts (${used.map((h) => h.name).join(", ")})`}, launcher ${s.launcher}, stage ${stageOf(stage)}, at most ${s.maxParallel} connections at a time`,
    `ssh options: ${shJoin(prepared[0]!.prepare.slice(1, prepared[0]!.prepare.indexOf("--")))}`,
    "  (later commands on a host: ControlMaster=no over the same ControlPath; exact argv of every command: gpucheck plan --json)",
    "first ssh to each host (opens its ControlMaster):",
    ...indent(prepareScript(stage, python, !s.masterPort)),
    `then, where the stage is missing, with a tar stream of ${ctx.launch.files.length} files on stdin:`,
    ...indent(stageScript(stage)),
    ...(example
      ? [
          `each ${s.launcher === "direct" ? "rank" : "launcher"} runs this wrapper (the one for ${s.launcher === "direct" ? "rank" : "ranks from"} ${example.id} on ${example.host.name}):`,
          ...indent(rankScript({ runId: RUN, stage, id: example.id, argv: example.argv, ...splitEnv(example.env, onStdin) })),
          ...(Object.keys(onStdin).length
            ? [
                `  its stdin carries the suite's env first (${Object.keys(onStdin).join(", ")}), one "NAME value" line each, bytes outside [A-Za-z0-9_@%+:,./=-] as \\0ooo, then ${ENV_END};`,
                "  no value is on a command line. The rest of stdin is the watchdog's: its end kills the rank",
              ]
            : []),
        ]
      : []),
    ...(launched.some((u) => u.onePass)
      ? [
          "each host's one process of its per-node unit runs in that first ssh itself: after the checks above, where the stage",
          `is there, the wrapper, with MASTER_ADDR and MASTER_PORT the address and port just found; that ssh is a ControlMaster`,
          "without ControlPersist, ending with its session. Where the stage is missing, the session waits on its stdin while",
          "the copy and then the wrapper run on channels of their own, and `ssh -O exit` ends it",
        ]
      : []),
    ...launched.flatMap((u) => [
      `unit ${u.unit}: MASTER_ADDR=${u.master.addr} MASTER_PORT=${u.master.port}`,
      ...u.procs.map(
        (p) => `  ${s.launcher === "direct" ? `rank ${p.id}` : `ranks ${p.ranks[0]}-${p.ranks.at(-1)}`} on ${p.host.name}: ${[...varying(p.env), shJoin(p.argv)].join(" ")}`,
      ),
    ]),
  ].join("\n");
  const manifest = {
    launcher: s.launcher,
    stageDir: stageOf(stage),
    maxParallel: s.maxParallel,
    envOnStdin: onStdin,
    hosts: prepared,
    units: launched.map(({ procs: _, ...u }) => u),
    text,
  };
  return { ...manifest, slots: describeSlots(slotsIn(manifest), "a fresh random id per test run (names remote pid files and logs)") };
}

const indent = (script: string) => script.split("\n").map((l) => `    ${l}`);
/** the per-rank part of a rank's environment, for the one-line summary */
const varying = (env: Record<string, string>) => ["RANK", "LOCAL_RANK", "GPUCHECK_NODE"].filter((k) => k in env).map((k) => `${k}=${shQuote(env[k]!)}`);

export type { SshManifest };

export const ssh: Platform<SshSettings, SshManifest> = {
  name: "ssh",
  summary: "bare-metal hosts over the system OpenSSH client (ControlMaster), one process per rank",
  flags: ["hosts"],
  // each unit on its own hosts, all of a round at once: the isolating patterns run here
  anyUnits: true,
  perNodeWindow: (s) => s.maxParallel,
  settings: sshSettings,
  hosts: (ctx) => ({ names: resolveHosts(ctx.settings, ctx.cli, ctx.suite).map((h) => h.name), separate: true }),
  render,
  run: async (ctx: RunContext<SshSettings>): Promise<UnitRun[]> => (await import("./ssh/run.ts")).runSsh(ctx, () => render(ctx)),
};
