// One dockerode client per engine, and what every caller needs from it: the engine's own words
// for a failure, and the sweep that removes a run's containers by label.
import Docker from "dockerode";
import { DialError } from "./dial.ts";
import type { Engine } from "./engines.ts";
import { RUN_LABEL } from "./plan.ts";
import type { SshEngines } from "./remote.ts";
import { PLAIN_PORT, TLS_PORT, tlsOptions } from "./tls.ts";

export function client(e: Engine, remote: SshEngines | undefined): Docker {
  if (e.kind === "socket") return new Docker({ socketPath: e.path });
  if (e.kind === "ssh") {
    if (!remote) throw new Error(`no ssh transport for ${e.url}`);
    // the host name is only the Host header: the agent's connections go where ssh takes them
    return new Docker({ protocol: "http", host: "docker", port: 80, agent: remote.dialer(e.host).agent } as Docker.DockerOptions);
  }
  const u = new URL(e.url);
  // the URL's host in brackets for IPv6 is the URL's; dockerode wants the bare address
  const host = u.hostname.replace(/^\[(.*)\]$/, "$1");
  if (!e.tls) return new Docker({ protocol: "http", host, port: Number(u.port || PLAIN_PORT) });
  // https: Node's TLS verifies the engine's certificate against ca (else the system's roots) and its name
  return new Docker({ protocol: "https", host, port: Number(u.port || TLS_PORT), ...tlsOptions(e.url, e.tls) });
}

/** The engine's message (or the ssh transport's, which names the host) rather than a stack. */
export function apiMessage(err: unknown): string {
  const e = err as { statusCode?: number; json?: { message?: string }; reason?: string; message?: string; code?: string };
  if (err instanceof DialError) return err.message;
  return e.json?.message ?? e.reason ?? e.code ?? e.message ?? String(err);
}

/** Failures of the engine itself carry its URL; the ssh transport's already name the host. */
export function engineMessage(url: string, err: unknown): string {
  return err instanceof DialError ? err.message : `docker engine ${url}: ${apiMessage(err)}`;
}

/**
 * Kills and removes every container labelled with this run on each engine given; returns what
 * could not be done, per engine (an engine lost mid-run keeps its containers).
 */
export async function removeRun(clients: Map<string, Docker>, runId: string): Promise<string[]> {
  const failed = await Promise.all(
    [...clients].map(async ([url, d]) => {
      try {
        const list = await d.listContainers({ all: true, filters: { label: [`${RUN_LABEL}=${runId}`] } });
        // gone already, or being removed by another sweep reaching the same engine: fine
        const gone = (err: { statusCode?: number }) => {
          if (err.statusCode !== 404 && err.statusCode !== 409) throw err;
        };
        await Promise.all(list.map((c) => d.getContainer(c.Id).remove({ force: true }).catch(gone)));
        return [];
      } catch (err) {
        return [`${url}: ${apiMessage(err)}`];
      }
    }),
  );
  return failed.flat();
}
