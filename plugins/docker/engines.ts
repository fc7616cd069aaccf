// Which Docker engines a test uses, one per node: the local socket, DOCKER_HOST, tcp:// engines,
// or hosts reached with the system ssh client (`ssh host docker system dial-stdio`, as the Docker
// CLI does for DOCKER_HOST=ssh://…), so ~/.ssh/config, ProxyJump and agents work as by hand.
import { SuiteError } from "../../lib/core/errors.ts";
import type { Suite } from "../../lib/core/types.ts";
import { parseHost, type HostSpec } from "../_shared/ssh/hosts.ts";
import { sshSettings } from "../_shared/ssh/settings.ts";
import { resolveHosts } from "../_shared/ssh/target.ts";
import type { CliOverrides } from "../../lib/core/platform.ts";
import type { DockerSettings } from "./spec.ts";
import { type EngineTls, tcpTls } from "./tls.ts";

/** tcp: `tls` absent is plain HTTP, which only platform.docker.insecureTcp allows (tls.ts) */
export type Engine = { kind: "socket"; url: string; path: string } | { kind: "tcp"; url: string; host: string; tls?: EngineTls } | { kind: "ssh"; url: string; host: HostSpec };

export const LOCAL_SOCKET = "unix:///var/run/docker.sock";

/** What the Docker CLI runs on the host for DOCKER_HOST=ssh://…: the engine's socket on stdio. */
export const DIAL_COMMAND = "docker system dial-stdio";

/** One entry of a host list: an engine URL, or a bare `[user@]host[:port]` reached over ssh. */
export function parseEngine(entry: string): Engine {
  if (entry.startsWith("unix://")) {
    const path = entry.slice("unix://".length);
    if (!path.startsWith("/")) throw new SuiteError(`gpucheck: docker: engine ${JSON.stringify(entry)} is not valid: expected unix:///absolute/path`);
    return { kind: "socket", url: entry, path };
  }
  if (/^(tcp|http|https):\/\//.test(entry)) {
    let host: string;
    try {
      host = new URL(entry).hostname;
    } catch {
      throw new SuiteError(`gpucheck: docker: engine ${JSON.stringify(entry)} is not valid: expected tcp://host:port`);
    }
    return { kind: "tcp", url: entry, host };
  }
  const rest = entry.startsWith("ssh://") ? entry.slice("ssh://".length) : entry;
  if (rest.includes("://")) throw new SuiteError(`gpucheck: docker: engine ${JSON.stringify(entry)} is not valid: expected unix://, tcp://, ssh:// or [user@]host[:port]`);
  // the ssh platform's own host syntax and checks: the same host list works for both platforms
  const host = parseHost(rest.replace(/\/$/, ""));
  return { kind: "ssh", url: `ssh://${host.name}`, host };
}

/**
 * `--hosts` first (the command line wins over the suite), then `platform.docker.hosts`, then the
 * suite's ssh hosts (`platform.ssh.hosts`/`hostfile`: "each host of the ssh platform runs the
 * container"), then DOCKER_HOST, then the local socket.
 */
export function engineList(s: DockerSettings, cli: CliOverrides, suite: Suite): Engine[] {
  const ssh = sshBlock(suite);
  let entries: string[];
  if (cli.hosts?.length) entries = cli.hosts;
  else if (s.hosts?.length) entries = s.hosts;
  else if (ssh.hosts || ssh.hostfile) entries = resolveHosts(ssh, {}, suite).map((h) => h.name);
  else entries = [process.env.DOCKER_HOST || LOCAL_SOCKET];
  // a tcp engine is TLS, or plain HTTP where the suite says so by name, or refused here: before anything runs
  const engines = entries.map(parseEngine).map((e) => {
    if (e.kind !== "tcp") return e;
    const tls = tcpTls(e.url, s, suite);
    return tls ? { ...e, tls } : e;
  });
  const seen = new Set<string>();
  for (const e of engines) {
    if (seen.has(e.url)) throw new SuiteError(`gpucheck: docker: engine ${JSON.stringify(e.url)} is listed twice: give one engine per node, or one engine for all nodes`);
    seen.add(e.url);
  }
  return engines;
}

/** The suite's `platform.ssh:` block (defaults when it has none): how ssh engines are reached. */
export function sshBlock(suite: Suite) {
  return sshSettings.parse(suite.platform.settings.ssh ?? {});
}

/** The node's name in units, logs and labels: the host as written, or localhost for a socket. */
export function nodeName(e: Engine): string {
  return e.kind === "ssh" ? e.host.name : e.kind === "tcp" ? e.host : "localhost";
}
