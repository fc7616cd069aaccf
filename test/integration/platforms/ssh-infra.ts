// What the ssh integration tests share: whether the sshd's of test/infra/ssh.sh are expected,
// what that script wrote about them, and a way to kill and revive one host.
import { execFileSync } from "node:child_process";
import { readlinkSync } from "node:fs";
import { join } from "node:path";
import { readInfraEnv } from "../infra-env.ts";

export const SSH_INFRA = (process.env.GPUCHECK_INFRA ?? "").split(",").includes("ssh");
export const INFRA_SCRIPT = join(import.meta.dir, "../../infra/ssh.sh");
const ENV_FILE = `${process.env.GPUCHECK_SSH_BASE ?? "/run/gpucheck-test/ssh"}/env`;

export interface SshInfra {
  config: string;
  hosts: string[];
  benchHosts: string[];
  user: string;
  port: number;
}

/** Fails (rather than skips) when GPUCHECK_INFRA lists ssh but the script never wrote its env file. */
export function sshInfra(): SshInfra {
  const env = readInfraEnv(ENV_FILE, "ssh");
  const list = (v: string | undefined) => (v ?? "").split(",").filter(Boolean);
  return {
    config: env.GPUCHECK_SSH_CONFIG!,
    hosts: list(env.GPUCHECK_SSH_HOSTS),
    benchHosts: list(env.GPUCHECK_SSH_BENCH_HOSTS),
    user: env.GPUCHECK_SSH_USER!,
    port: Number(env.GPUCHECK_SSH_PORT),
  };
}

/** Simulates the death of host i (1-based): its sshd and every process under it are SIGKILLed. */
export function killHost(i: number): void {
  execFileSync("bash", [INFRA_SCRIPT, "kill-host", String(i)], { stdio: "ignore" });
}

/** Makes host i stop answering (SIGSTOP of its sshd tree), or answer again. */
export function freezeHost(i: number, frozen: boolean): void {
  execFileSync("bash", [INFRA_SCRIPT, frozen ? "freeze-host" : "thaw-host", String(i)], { stdio: "ignore" });
}

/** Starts whatever sshd is down again (idempotent; benchmark hosts that run are kept). */
export function reviveHosts(): void {
  execFileSync("bash", [INFRA_SCRIPT, "start"], { stdio: "ignore" });
}

/** The test user's processes still there after up to `graceMs` (the remote side's own cleanup, a
 *  watchdog's last poll, takes a moment after a run returns). */
export async function remoteLeftovers(user: string, graceMs = 5000): Promise<string[]> {
  const until = Date.now() + graceMs;
  let left = remoteProcesses(user);
  while (left.length && Date.now() < until) {
    await Bun.sleep(200);
    left = remoteProcesses(user);
  }
  return left;
}

/** Processes of the test user (every fake host's remote side) alive now, but not sshd itself. Only
 *  those in this process's network namespace: the loopback hosts' (test/infra/ssh.sh). The fault lab's
 *  hosts (test/infra/netns.sh) log in as the same user, each in a namespace of its own, and its tests
 *  run beside these in the integration tier's other shard (scripts/test-integration.sh). */
export function remoteProcesses(user: string): string[] {
  let lines: string[];
  try {
    lines = execFileSync("ps", ["-u", user, "-o", "pid=,stat=,args="], { encoding: "utf8" })
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l && !/^\d+\s+Z/.test(l) && !l.includes("sshd:"));
  } catch {
    return []; // ps exits 1 when the user has no process
  }
  const ours = netns("self");
  return lines.filter((l) => {
    const ns = netns(l.split(/\s+/, 1)[0]!);
    // a process that ended since ps listed it has no namespace to read, and is not left over
    return ns !== undefined && ns === ours;
  });
}

function netns(pid: string): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return undefined;
  }
}
