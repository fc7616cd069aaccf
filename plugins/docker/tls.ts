// How a tcp:// engine is reached: TLS as the Docker CLI does it, or plain HTTP only where the suite
// says so by name. An engine's API runs containers as root on its host: over plain HTTP anyone on
// the network path reads and changes every request (issue 31: a listener on 127.0.0.1:2376 received
// the image inspect in clear text, DOCKER_TLS_VERIFY=1 notwithstanding).
//
// As the Docker CLI: DOCKER_TLS_VERIFY (any non-empty value) or DOCKER_TLS turns TLS on, with ca.pem,
// cert.pem and key.pem from DOCKER_CERT_PATH (default ~/.docker); an https:// engine is TLS too. The
// suite's platform.docker.tls { ca, cert, key } names the files itself (relative to the suite file)
// and wins. Unlike the CLI's DOCKER_TLS, the engine's certificate is always verified: against ca.pem
// where there is one, else the system's roots.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { PlatformError, SuiteError } from "../../lib/core/errors.ts";
import type { Suite } from "../../lib/core/types.ts";
import type { DockerSettings } from "./spec.ts";

/** The files of a TLS engine, and where their names came from (said in `gpucheck plan`). */
export interface EngineTls {
  ca?: string;
  cert?: string;
  key?: string;
  from: string;
}

/** The default port of a tcp:// engine, as the Docker CLI's: 2376 with TLS, 2375 without. */
export const TLS_PORT = 2376;
export const PLAIN_PORT = 2375;

/**
 * TLS for this engine (its files), or undefined for plain HTTP where the suite set insecureTcp;
 * anything else is refused before anything runs.
 */
export function tcpTls(url: string, s: DockerSettings, suite: Suite, env: NodeJS.ProcessEnv = process.env): EngineTls | undefined {
  if (s.tls) {
    const base = suite.source.builtin ? process.cwd() : dirname(resolve(suite.source.path));
    const at = (p: string | undefined) => p && resolve(base, p.replace(/^~(?=\/)/, homedir()));
    return { ...(s.tls.ca && { ca: at(s.tls.ca) }), ...(s.tls.cert && { cert: at(s.tls.cert), key: at(s.tls.key) }), from: "platform.docker.tls" };
  }
  const wanted = url.startsWith("https://") || !!env.DOCKER_TLS_VERIFY || !!env.DOCKER_TLS;
  if (wanted) {
    const dir = env.DOCKER_CERT_PATH || join(homedir(), ".docker");
    // the CLI's rule: each file is used where it exists (a client certificate is optional)
    const file = (name: string) => (existsSync(join(dir, name)) ? join(dir, name) : undefined);
    const [ca, cert, key] = [file("ca.pem"), file("cert.pem"), file("key.pem")];
    return { ...(ca && { ca }), ...(cert && key && { cert, key }), from: env.DOCKER_CERT_PATH ? "DOCKER_CERT_PATH" : "~/.docker" };
  }
  if (s.insecureTcp) return undefined;
  throw new SuiteError(
    `gpucheck: docker: engine ${JSON.stringify(url)} would be reached over plain HTTP, which anyone on the network path can read and change (the engine runs containers as root): set DOCKER_TLS_VERIFY=1 and DOCKER_CERT_PATH (ca.pem, cert.pem, key.pem) as for the docker CLI, or platform.docker.tls: { ca, cert, key }, or accept plain HTTP with platform.docker.insecureTcp: true`,
  );
}

/** The engine's TLS files read, for dockerode (https): a file that cannot be read is named, with where its name came from. */
export function tlsOptions(url: string, tls: EngineTls): { ca?: Buffer; cert?: Buffer; key?: Buffer } {
  const read = (what: string, path: string | undefined) => {
    if (!path) return undefined;
    try {
      return readFileSync(path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new PlatformError(
        `docker: cannot read the ${what} for engine ${url}: ${path} (${code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : (e as Error).message}; named by ${tls.from})`,
      );
    }
  };
  const ca = read("CA certificate", tls.ca);
  const cert = read("client certificate", tls.cert);
  const key = read("client key", tls.key);
  return { ...(ca && { ca }), ...(cert && { cert }), ...(key && { key }) };
}

/** One line of `gpucheck plan` per tcp engine: how it is reached. */
export function transportText(url: string, tls: EngineTls | undefined): string {
  if (!tls) return `${url}: plain HTTP (platform.docker.insecureTcp: true)`;
  const parts = [tls.ca ? `CA ${tls.ca}` : "the system's CAs", tls.cert ? `client certificate ${tls.cert}, key ${tls.key}` : "no client certificate"];
  return `${url}: TLS, the engine verified against ${parts[0]}, ${parts[1]} (from ${tls.from})`;
}
