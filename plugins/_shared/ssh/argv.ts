// The ssh client command lines. gpucheck drives the system OpenSSH client so that the user's
// ssh config, agent, ProxyJump and bastions work as they do by hand; multiplexing (ControlMaster)
// makes every command after the first on a host cost a channel, not a handshake.
import type { HostSpec } from "./hosts.ts";
import { shQuote } from "./quote.ts";
import { rankScript, type StagePaths } from "./scripts.ts";

/** One remote process: a rank (direct) or a launcher (gpucheck, torchrun: one per host; mpirun: one in all). */
export interface RemoteProc {
  /** pid-file and log name: the global rank, or the first global rank the launcher starts */
  id: number;
  hostIndex: number;
  host: HostSpec;
  /** the global ranks whose output this process carries */
  ranks: number[];
  argv: string[];
  env: Record<string, string>;
  mux: boolean;
}

export interface SshTarget {
  configFile?: string;
  identityFile?: string;
  user?: string;
  port?: number;
  /** `Name=value` options from the suite */
  options: readonly string[];
  connectTimeoutS: number;
  aliveIntervalS: number;
  /** private directory for the ControlMaster sockets of this run */
  controlDir: string;
  /** s the master outlives its last session: it closes itself if gpucheck dies */
  persistS: number;
}

/**
 * How a command reaches a host:
 * - master: the first command; becomes the host's ControlMaster (backgrounded, ControlPersist)
 * - first: the first command as a master that ends with its own session, in the foreground: no
 *   second ssh process and no `ssh -O exit` (a per-node unit's process run in its first ssh)
 * - mux: a channel on the master, or a direct connection if the master is gone
 * - direct: its own connection (sshd allows MaxSessions, default 10, channels per connection)
 */
export type Channel = "master" | "first" | "mux" | "direct";

function controlOptions(t: SshTarget, channel: Channel): string[] {
  const path = `ControlPath=${t.controlDir}/%C`;
  if (channel === "master") return ["-o", "ControlMaster=auto", "-o", path, "-o", `ControlPersist=${t.persistS}`];
  if (channel === "first") return ["-o", "ControlMaster=auto", "-o", path];
  if (channel === "mux") return ["-o", "ControlMaster=no", "-o", path];
  return ["-o", "ControlMaster=no", "-o", "ControlPath=none"];
}

/** Everything before the destination; the suite's options come before gpucheck's defaults (ssh keeps the first value). */
function commonOptions(t: SshTarget, host: HostSpec): string[] {
  const user = host.user ?? t.user;
  const port = host.port ?? t.port;
  return [
    ...(t.configFile ? ["-F", t.configFile] : []),
    ...(t.identityFile ? ["-i", t.identityFile] : []),
    ...(user ? ["-l", user] : []),
    ...(port ? ["-p", String(port)] : []),
    "-T",
    "-o",
    "BatchMode=yes",
    ...t.options.flatMap((o) => ["-o", o]),
    "-o",
    `ConnectTimeout=${t.connectTimeoutS}`,
    "-o",
    `ServerAliveInterval=${t.aliveIntervalS}`,
    "-o",
    "ServerAliveCountMax=3",
  ];
}

/** The remote side gets exactly one string, run by the login shell: `exec /bin/sh -c '<script>' <name>`. */
export function remoteCommand(script: string, name: string): string {
  return `exec /bin/sh -c ${shQuote(script)} ${shQuote(name)}`;
}

export function sshArgv(t: SshTarget, host: HostSpec, channel: Channel, command: string): string[] {
  return ["ssh", ...controlOptions(t, channel), ...commonOptions(t, host), "--", host.host, command];
}

/** Asks the host's master to close (`ssh -O exit`). */
export function exitArgv(t: SshTarget, host: HostSpec): string[] {
  return ["ssh", ...controlOptions(t, "mux"), ...commonOptions(t, host), "-O", "exit", "--", host.host];
}

/**
 * The ssh command line of one rank (or launcher); its `$0` on the remote side names the run. The
 * variables in `onStdin` are left out of it: the wrapper reads them from stdin (scripts.ts envBlock).
 */
export function rankArgv(p: RemoteProc, t: SshTarget, stage: StagePaths, runId: string, onStdin: Readonly<Record<string, string>> = {}): string[] {
  const script = rankScript({ runId, stage, id: p.id, argv: p.argv, ...splitEnv(p.env, onStdin) });
  return sshArgv(t, p.host, p.mux ? "mux" : "direct", remoteCommand(script, `gpucheck-${runId}-${p.id}`));
}

/** A process's env less what comes on stdin, and whether anything does. */
export function splitEnv(env: Readonly<Record<string, string>>, onStdin: Readonly<Record<string, string>>): { env: Record<string, string>; envOnStdin: boolean } {
  const keys = Object.keys(onStdin);
  return { env: Object.fromEntries(Object.entries(env).filter(([k]) => !keys.includes(k))), envOnStdin: keys.length > 0 };
}
