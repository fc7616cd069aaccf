// Getting a host ready: the first ssh (which becomes its ControlMaster) checks the stage, reports
// the address it was reached on and, where a rendezvous will live, a free port; a host without the
// workload gets it as one tar stream over the master. A host that cannot be reached or refuses the
// login comes back as `down` with ssh's own words.
import { runProc } from "../../../lib/core/proc.ts";
import type { HostSpec } from "./hosts.ts";
import { stageOf, type StagePaths } from "./scripts.ts";

/** `lost`: the host itself did not answer (no route, a timeout, a refused connection), not a login or setup problem */
/** `ownSession`: the host's master ran the unit's process in its own session and ended with it: nothing to close */
export type HostState = { ok: true; addr: string; port?: number; copied: boolean; ownSession?: true } | { ok: false; message: string; lost?: true };

export interface PrepareOptions {
  /** the host's two commands as the manifest renders them (run id and control directory bound) */
  argv: { prepare: string[]; stageIfMissing: string[] };
  stage: StagePaths;
  /** the workload as a tar archive, built once for all hosts */
  tar: () => Uint8Array;
  /** the Python the ranks will run: its absence is found before anything launches */
  python: string;
  /** the host will hold a rendezvous: find a free port there */
  wantPort: boolean;
  signal: AbortSignal;
}

/** ssh's own explanation (its stderr without warnings), classified for the reader. */
export function describeSshFailure(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim().replace(/\.$/, ""))
    .filter((l) => l && !/^Warning: /.test(l));
  const said = lines.slice(-2).join("; ") || "no message from ssh";
  if (/Host key verification failed/.test(said))
    return `login refused: ${said} (the host's key is not in known_hosts: add it, or set platform.ssh.sshOptions: [StrictHostKeyChecking=accept-new])`;
  if (/Permission denied|Too many authentication failures|REMOTE HOST IDENTIFICATION HAS CHANGED/.test(said)) return `login refused: ${said}`;
  if (/Connection refused|timed out|No route to host|Could not resolve hostname|Network is unreachable|Connection closed|Connection reset|kex_exchange_identification/i.test(said))
    return `unreachable: ${said}`;
  return `ssh failed: ${said}`;
}

function lastLines(text: string, n = 3): string {
  return text.trim().split("\n").slice(-n).join(" | ");
}

/** What the first command's output says: the host cannot run the unit, or its address and port and whether the stage is there. */
export type Checked = Extract<HostState, { ok: false }> | { ok: true; addr: string; port?: number; staged: boolean };

export function readPrepare(
  host: HostSpec,
  res: { code: number | null; signal?: string | null; stdout: string; stderr: string; killed: boolean; spawnError?: string },
  o: Pick<PrepareOptions, "python" | "wantPort">,
): Checked {
  if (res.spawnError) return { ok: false, message: `host ${host.name}: ${res.spawnError}` };
  if (res.killed) return { ok: false, message: `host ${host.name}: stopped while connecting` };
  if (res.code === 255) {
    const why = describeSshFailure(res.stderr);
    return { ok: false, message: `host ${host.name}: ${why}`, ...(why.startsWith("unreachable: ") && { lost: true as const }) };
  }
  if (/^gpucheck-no-python$/m.test(res.stdout)) return { ok: false, message: `host ${host.name}: Python ${JSON.stringify(o.python)} not found` };
  const addr = /^gpucheck-addr (\S+)$/m.exec(res.stdout)?.[1];
  const port = /^gpucheck-port (\d+)$/m.exec(res.stdout)?.[1];
  if (res.code !== 0 || !addr || (o.wantPort && !port)) {
    return { ok: false, message: `host ${host.name}: preparing failed (exit ${res.code ?? res.signal}): ${lastLines(res.stderr) || lastLines(res.stdout) || "no output"}` };
  }
  return { ok: true, addr, ...(port ? { port: Number(port) } : {}), staged: /^gpucheck-staged yes$/m.test(res.stdout) };
}

/** Copies the workload where the first command found no stage, over the host's ControlMaster. */
export async function stageHost(host: HostSpec, o: PrepareOptions, c: Checked): Promise<HostState> {
  if (!c.ok) return c;
  const { staged, ...at } = c;
  if (staged) return { ...at, copied: false };
  const up = await runProc({ argv: o.argv.stageIfMissing, input: o.tar(), signal: o.signal, graceMs: 500 });
  if (up.killed) return { ok: false, message: `host ${host.name}: stopped while staging` };
  if (up.code !== 0) {
    const why = up.code === 255 ? describeSshFailure(up.stderr) : `exit ${up.code ?? up.signal}: ${lastLines(up.stderr) || "no output"}`;
    return { ok: false, message: `host ${host.name}: staging the workload into ${stageOf(o.stage)} failed: ${why}` };
  }
  return { ...at, copied: true };
}

export async function prepareHost(host: HostSpec, o: PrepareOptions): Promise<HostState> {
  const res = await runProc({ argv: o.argv.prepare, signal: o.signal, graceMs: 500 });
  return stageHost(host, o, readPrepare(host, res, o));
}
