// Host lists for the ssh platform: `--hosts`, `hosts:` or `hostfile:`, each entry
// `[user@]host[:port]` (IPv6 as `[addr]:port`). Names are passed to ssh as destinations, so
// ~/.ssh/config aliases (ProxyJump, bastions) work; only what could be read as an option is refused.
import { SuiteError } from "../../../lib/core/errors.ts";

export interface HostSpec {
  /** as the user wrote it: the unit name in per-node mode and the name in messages */
  name: string;
  /** the ssh destination without user and port */
  host: string;
  user?: string;
  port?: number;
}

const HOST = /^[A-Za-z0-9_.%][A-Za-z0-9_.%-]*$/;
const V6 = /^[0-9A-Fa-f:.%A-Za-z]+$/;
const USER = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/;

function bad(entry: string, why: string): SuiteError {
  return new SuiteError(`gpucheck: ssh: host ${JSON.stringify(entry)} is not valid: ${why}`);
}

export function parseHost(entry: string): HostSpec {
  let rest = entry.trim();
  let user: string | undefined;
  const at = rest.indexOf("@");
  if (at >= 0) {
    user = rest.slice(0, at);
    rest = rest.slice(at + 1);
    if (!USER.test(user)) throw bad(entry, "expected [user@]host[:port] with a user of letters, digits, . _ -");
  }
  let host: string;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(rest);
  if (bracketed) {
    [host, portText] = [bracketed[1]!, bracketed[2]];
    if (!V6.test(host)) throw bad(entry, "expected an IPv6 address inside [ ]");
  } else if ((rest.match(/:/g) ?? []).length >= 2) {
    host = rest; // a bare IPv6 address: no port (write [addr]:port for one)
    if (!V6.test(host)) throw bad(entry, "expected an IPv6 address");
  } else {
    [host, portText] = rest.split(":") as [string, string | undefined];
    if (!HOST.test(host)) throw bad(entry, "expected [user@]host[:port] with a host of letters, digits, . _ - (not starting with -)");
  }
  const spec: HostSpec = { name: entry.trim(), host, ...(user ? { user } : {}) };
  if (portText !== undefined) {
    const port = Number(portText);
    if (!/^\d+$/.test(portText) || port < 1 || port > 65535) throw bad(entry, `port ${JSON.stringify(portText)} is not a number from 1 to 65535`);
    spec.port = port;
  }
  return spec;
}

/** One host per line; `#` starts a comment; further columns (MPI's `slots=8`) are ignored. */
export function parseHostfile(text: string, path: string): string[] {
  const hosts: string[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/#.*/, "").trim();
    if (!line) return;
    const first = line.split(/\s+/)[0]!;
    try {
      parseHost(first);
    } catch (e) {
      throw new SuiteError(`${path}:${i + 1}: ${(e as Error).message.replace(/^gpucheck: ssh: /, "")}`);
    }
    hosts.push(first);
  });
  if (hosts.length === 0) throw new SuiteError(`gpucheck: ssh: hostfile ${path} lists no hosts`);
  return hosts;
}

/** Parses every entry and refuses duplicates: a host listed twice would run two nodes' ranks. */
export function parseHostList(entries: readonly string[]): HostSpec[] {
  const seen = new Set<string>();
  return entries.map((e) => {
    const spec = parseHost(e);
    const key = `${spec.user ?? ""}@${spec.host}:${spec.port ?? ""}`;
    if (seen.has(key)) throw new SuiteError(`gpucheck: ssh: host ${JSON.stringify(spec.name)} is listed twice`);
    seen.add(key);
    return spec;
  });
}
