// From settings and flags to what the run needs: the host list and the ssh client options.
// Local paths in the suite (hostfile, configFile, identityFile) are relative to the suite file.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { SuiteError } from "../../../lib/core/errors.ts";
import { asFileError, isErrnoError } from "../../../lib/core/fs-error.ts";
import type { PlannedTest, Suite } from "../../../lib/core/types.ts";
import type { CliOverrides } from "../../../lib/core/platform.ts";
import type { SshTarget } from "./argv.ts";
import { parseHostList, parseHostfile, type HostSpec } from "./hosts.ts";
import type { SshSettings } from "./settings.ts";

export function localPath(path: string, suite: Suite): string {
  if (path === "~" || path.startsWith("~/")) return join(homedir(), path.slice(1));
  if (isAbsolute(path)) return path;
  return suite.source.builtin ? resolve(path) : resolve(dirname(suite.source.path), path);
}

/** `--hosts`/`--hostfile` (already merged into cli.hosts) win over `hosts:`, which excludes `hostfile:`. */
export function resolveHosts(settings: SshSettings, cli: CliOverrides, suite: Suite): HostSpec[] {
  if (cli.hosts?.length) return parseHostList(cli.hosts);
  if (settings.hosts) return parseHostList(settings.hosts);
  if (settings.hostfile) {
    const path = localPath(settings.hostfile, suite);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT" && isErrnoError(e)) throw asFileError(e, { doing: "read the hostfile", path, option: "hostfile:", mode: "read" });
      throw new SuiteError(`gpucheck: ssh: cannot read hostfile ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    return parseHostList(parseHostfile(text, path));
  }
  throw new SuiteError("gpucheck: ssh: no hosts: set platform.ssh.hosts or platform.ssh.hostfile in the suite, or pass --hosts or --hostfile");
}

/** The hosts a test uses; fewer than it needs is a usage error, before anything connects. */
export function hostsForTest(test: Pick<PlannedTest, "name" | "nodes">, hosts: HostSpec[]): HostSpec[] {
  if (hosts.length < test.nodes) {
    throw new SuiteError(
      `gpucheck: ssh: test "${test.name}" needs ${test.nodes} nodes but ${hosts.length} host${hosts.length === 1 ? " was" : "s were"} given: ${hosts.map((h) => h.name).join(", ")}; give ${test.nodes} with --hosts or --hostfile`,
    );
  }
  return hosts;
}

export function targetOf(settings: SshSettings, suite: Suite, controlDir: string): SshTarget {
  return {
    ...(settings.configFile ? { configFile: localPath(settings.configFile, suite) } : {}),
    ...(settings.identityFile ? { identityFile: localPath(settings.identityFile, suite) } : {}),
    ...(settings.user ? { user: settings.user } : {}),
    ...(settings.port ? { port: settings.port } : {}),
    options: settings.sshOptions,
    connectTimeoutS: settings.connectTimeout,
    aliveIntervalS: settings.aliveInterval,
    controlDir,
    persistS: 60,
  };
}
