// The ssh platform's run: prepare every host once (at most maxParallel handshakes at a time),
// run the units, and close every ControlMaster at the end whatever happened.
import { rmSync } from "node:fs";
import { PlatformError, SuiteError } from "../../lib/core/errors.ts";
import type { UnitRun } from "../../lib/core/types.ts";
import { ended } from "../_shared/unit-result.ts";
import { runProc } from "../../lib/core/proc.ts";
import { tarFiles } from "../_shared/tar.ts";
import type { RunContext } from "../../lib/core/platform.ts";
import { exitArgv } from "../_shared/ssh/argv.ts";
import { envBlock } from "../_shared/ssh/scripts.ts";
import { prepareHost, type HostState, type PrepareOptions } from "../_shared/ssh/connect.ts";
import type { HostSpec } from "../_shared/ssh/hosts.ts";
import { type UnitLayout, unitsOf } from "./layout.ts";
import { controlDirectory } from "../_shared/ssh/control.ts";
import { limiter } from "../_shared/limit.ts";
import { inWindow, takesTurns } from "../_shared/window.ts";
import type { SshSettings } from "../_shared/ssh/settings.ts";
import { hostsForTest, resolveHosts, targetOf } from "../_shared/ssh/target.ts";
import { runUnit } from "./unit.ts";
import { bindSlots, complete } from "../../lib/core/slots.ts";
import type { SshManifest } from "./manifest.ts";

/** Runs the rendered manifest: the run id and control directory bound here, each unit's rendezvous when its first host answers. */
export async function runSsh(ctx: RunContext<SshSettings>, render: () => SshManifest): Promise<UnitRun[]> {
  const s = ctx.settings;
  let hosts: HostSpec[];
  let rendered: SshManifest;
  try {
    hosts = hostsForTest(ctx.test, resolveHosts(s, ctx.cli, ctx.suite));
    rendered = render();
  } catch (e) {
    throw e instanceof SuiteError ? new PlatformError(e.message.replace(/^gpucheck: /, "")) : e;
  }
  const units = unitsOf(ctx.test, hosts);
  const used = [...new Set(units.flatMap((u) => u.hosts))];
  // WebCrypto, a global: importing node:crypto for six bytes cost every command ~13 ms (lib/core/sha256.ts)
  const runId = Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString("hex");
  const stage = { base: s.stageDir, hash: ctx.workloadHash };
  const python = ctx.cli.python ?? s.python ?? ctx.launch.python;
  const needsPort = new Set(s.masterPort ? [] : units.map((u) => u.hosts[0]!));
  const controlDir = controlDirectory();
  const { target, manifest, hostArgv } = (() => {
    try {
      const target = targetOf(s, ctx.suite, controlDir);
      // from here on, what runs is the rendered manifest with this run's values bound
      const manifest = bindSlots(rendered!, { runId, controlDir });
      const hostArgv = new Map(manifest.hosts.map((h) => [h.host, complete(h, Object.keys(rendered!.slots), `the ssh commands for host ${h.host}`)]));
      return { target, manifest, hostArgv };
    } catch (e) {
      // a run that cannot start leaves no ControlPath directory behind
      rmSync(controlDir, { recursive: true, force: true });
      throw e;
    }
  })();
  let tar: Uint8Array | undefined;
  const connectSlots = limiter(s.maxParallel);
  // a host is connected to when first needed: at once for a whole-cluster unit, in its turn for a per-node one
  const prepared = new Map<HostSpec, Promise<HostState>>();
  // `first`: a per-node unit's own first command (its process in the same session), once per host as any prepare
  const ready = (h: HostSpec, signal = ctx.signal, first: (h: HostSpec, o: PrepareOptions) => Promise<HostState> = prepareHost) => {
    let p = prepared.get(h);
    if (!p) {
      p = connectSlots.run(() => first(h, { argv: hostArgv.get(h.name)!, stage, tar: () => (tar ??= tarFiles(ctx.workload)), python, wantPort: needsPort.has(h), signal }));
      prepared.set(h, p);
    }
    return p;
  };
  const closed = new Set<HostSpec>();
  const close = async (h: HostSpec) => {
    if (closed.has(h) || !prepared.has(h)) return;
    closed.add(h);
    // also where the prepare did not finish: Ctrl-C during it can leave a master that already forked
    // (found at 100 hosts: 4 masters outlived the run); without a socket `ssh -O exit` ends at once
    const state = await prepared.get(h);
    if (state?.ok && state.ownSession) return;
    await runProc({ argv: exitArgv(target, h), signal: AbortSignal.timeout(5000) });
  };
  const windowed = takesTurns(units.map((u) => u.hosts.map((h) => h.name)));
  if (!windowed) {
    for (const h of used) ready(h);
    void Promise.all(prepared.values()).then((states) => stagedNote(ctx, states));
  }
  const env = {
    target,
    stage,
    runId,
    python,
    launcher: s.launcher,
    launch: ctx.launch,
    ...(Object.keys(manifest.envOnStdin).length && { stdin: envBlock(manifest.envOnStdin) }),
    ...(s.masterAddr ? { masterAddr: s.masterAddr } : {}),
    ...(s.masterPort ? { masterPort: s.masterPort } : {}),
    peerFailureGraceMs: s.peerFailureGraceMs,
    killGraceMs: s.killGraceMs,
    timeoutMs: ctx.test.timeoutMs,
    logDir: ctx.logDir,
    signal: ctx.signal,
    ready: (h: HostSpec, first?: (h: HostSpec, o: PrepareOptions) => Promise<HostState>) => ready(h, ctx.signal, first),
    launchSlots: limiter(s.maxParallel),
    controlSlots: limiter(s.maxParallel),
    onLine: ctx.onLine,
    note: ctx.note,
  };
  try {
    const planned = new Map(manifest.units.map((u) => [u.unit, u]));
    if (!windowed) return await Promise.all(units.map(async (u) => ended(ctx, await runUnit(u, env, planned.get(u.unit)!))));
    // each host's ControlMaster closes with its unit: 1,000 hosts are never 1,000 masters
    const window = {
      size: s.maxParallel,
      signal: ctx.signal,
      timeoutMs: ctx.test.timeoutMs,
      noun: "host",
      placeOf: (u: UnitLayout) => ({ unit: u.unit, node: u.hosts[0]!.name }),
      ctx,
    };
    const runs = await inWindow(units, window, async (u, signal) => {
      try {
        return await runUnit(u, { ...env, signal, ready: (h, first) => ready(h, signal, first) }, planned.get(u.unit)!);
      } finally {
        await close(u.hosts[0]!);
      }
    });
    stagedNote(ctx, await Promise.all(prepared.values()));
    return runs;
  } finally {
    await Promise.all([...prepared.keys()].map((h) => connectSlots.run(() => close(h))));
    rmSync(controlDir, { recursive: true, force: true });
  }
}

function stagedNote(ctx: RunContext<SshSettings>, states: HostState[]): void {
  const ok = states.filter((x) => x.ok);
  const copied = ok.filter((x) => x.ok && x.copied).length;
  if (ok.length)
    ctx.note(
      copied
        ? `staged the workload (${ctx.workloadHash}) on ${copied} of ${ok.length} hosts`
        : `workload ${ctx.workloadHash} already staged on ${ok.length === 1 ? "the host" : `all ${ok.length} hosts`}`,
    );
}
