// Engines behind ssh, driven the ssh platform's way (its argv builders, ControlMaster, options):
// one probe per host opens the host's ControlMaster, checks the docker CLI is there and learns the
// address ssh reached the host on and, where a rendezvous will live, a port free there. Every API
// connection after it is `docker system dial-stdio` on a channel of that master.
import { rmSync } from "node:fs";
import type { Suite } from "../../lib/core/types.ts";
import { runProc } from "../../lib/core/proc.ts";
import { exitArgv, remoteCommand, sshArgv } from "../_shared/ssh/argv.ts";
import { describeSshFailure } from "../_shared/ssh/connect.ts";
import type { HostSpec } from "../_shared/ssh/hosts.ts";
import { limiter } from "../_shared/limit.ts";
import { controlDirectory } from "../_shared/ssh/control.ts";
import { freePortLines } from "../_shared/ssh/scripts.ts";
import type { SshSettings } from "../_shared/ssh/settings.ts";
import { targetOf } from "../_shared/ssh/target.ts";
import { commandDialer, type Dialer } from "./dial.ts";
import { DIAL_COMMAND as DIAL } from "./engines.ts";

export type Probe = { ok: true; addr: string; port?: number } | { ok: false; message: string };

/** Pure: what the first ssh to a host runs. */
export function probeScript(wantPort: boolean): string {
  return [
    `set -- $SSH_CONNECTION; echo "gpucheck-addr $3"`,
    `command -v docker >/dev/null 2>&1 || { echo gpucheck-no-docker; exit 0; }`,
    // with host networking the rendezvous port is the host's: find one nothing listens on
    ...(wantPort ? freePortLines("python3") : []),
  ].join("\n");
}

/** Why a dial-stdio connection to a host ended badly. */
export function dialFailure(host: string, code: number | null, signal: string | null, stderr: string): string {
  // a channel whose ControlMaster died ends with 255 and nothing on stderr
  if (code === 255) return `host ${host}: ${stderr.trim() ? describeSshFailure(stderr) : "connection lost (ssh exited 255)"}`;
  // dial-stdio's harmless complaint when the engine closes first is not the reason
  const said = stderr
    .split("\n")
    .filter((l) => l.trim() && !/error while CloseWrite/.test(l))
    .slice(-2)
    .join(" | ")
    .trim();
  return `host ${host}: \`${DIAL}\` ${code === null ? `killed by ${signal}` : `exited with ${code}`}: ${said || "no message"}`;
}

export interface SshEngines {
  probe(host: HostSpec): Promise<Probe>;
  dialer(host: HostSpec): Dialer;
  /** ends every connection and closes the masters */
  close(): Promise<void>;
}

export function openSshEngines(hosts: HostSpec[], wantPort: (h: HostSpec) => boolean, ssh: SshSettings, suite: Suite, signal: AbortSignal): SshEngines {
  const controlDir = controlDirectory();
  const target = (() => {
    try {
      return targetOf(ssh, suite, controlDir);
    } catch (e) {
      // engines that cannot be reached leave no ControlPath directory behind
      rmSync(controlDir, { recursive: true, force: true });
      throw e;
    }
  })();
  const slots = limiter(ssh.maxParallel);
  const probes = new Map<string, Promise<Probe>>();
  const dialers = new Map<string, Dialer>();

  const probeOnce = async (host: HostSpec): Promise<Probe> => {
    const argv = sshArgv(target, host, "master", remoteCommand(probeScript(wantPort(host)), "gpucheck-docker-probe"));
    const res = await runProc({ argv, signal, graceMs: 500 });
    if (res.spawnError) return { ok: false, message: `host ${host.name}: ${res.spawnError}` };
    if (res.killed) return { ok: false, message: `host ${host.name}: stopped while connecting` };
    if (res.code === 255) return { ok: false, message: `host ${host.name}: ${describeSshFailure(res.stderr)}` };
    if (/^gpucheck-no-docker$/m.test(res.stdout))
      return { ok: false, message: `host ${host.name}: no docker command on the host's PATH: the Docker CLI relays the engine's API over ssh (\`${DIAL}\`)` };
    const addr = /^gpucheck-addr (\S+)$/m.exec(res.stdout)?.[1];
    const port = /^gpucheck-port (\d+)$/m.exec(res.stdout)?.[1];
    if (res.code !== 0 || !addr || (wantPort(host) && !port)) {
      const said = (res.stderr.trim() || res.stdout.trim()).split("\n").slice(-3).join(" | ") || "no output";
      return { ok: false, message: `host ${host.name}: probing it failed (exit ${res.code ?? res.signal}): ${said}` };
    }
    return { ok: true, addr, ...(port ? { port: Number(port) } : {}) };
  };

  return {
    probe: (host) =>
      probes.get(host.name) ??
      probes
        .set(
          host.name,
          slots.run(() => probeOnce(host)),
        )
        .get(host.name)!,
    dialer: (host) => {
      let d = dialers.get(host.name);
      if (!d) {
        d = commandDialer(sshArgv(target, host, "mux", DIAL), (code, sig, stderr) => dialFailure(host.name, code, sig, stderr));
        dialers.set(host.name, d);
      }
      return d;
    },
    close: async () => {
      for (const d of dialers.values()) d.close();
      const opened = hosts.filter((h) => probes.has(h.name));
      await Promise.all(
        opened.map(async (h) => {
          if ((await probes.get(h.name)!).ok) await slots.run(() => runProc({ argv: exitArgv(target, h), signal: AbortSignal.timeout(5000) }));
        }),
      );
      rmSync(controlDir, { recursive: true, force: true });
    },
  };
}
