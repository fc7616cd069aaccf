// The fault lab for tests: the hosts of test/infra/netns.sh (each its own network namespace, sshd and
// cgroup) and the logical nodes of test/infra/slurm.sh. Each fault returns its undo; the test that
// set it runs the undo (try/finally or afterEach), and a fault that failed half-way is undone at once.
//   const undo = await netnsLab().slow("ns2", "10mbit");
//   try { ... } finally { await undo(); }
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { join } from "node:path";
import { readInfraEnv } from "../infra-env.ts";

const listed = (process.env.GPUCHECK_INFRA ?? "").split(",");
export const NETNS_INFRA = listed.includes("netns");
export const SLURM_INFRA = listed.includes("slurm");
export const SLURM_LAB_INFRA = listed.includes("slurm-lab");
const INFRA = join(import.meta.dir, "../../infra");
const ENV_FILE = `${process.env.GPUCHECK_NETNS_BASE ?? "/run/gpucheck-test/netns"}/env`;

export type Undo = () => Promise<void>;

/** A fault script's refusal: its own message (stderr) and exit code; 2 means it applied nothing. */
export class InfraError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** Runs bash test/infra/<script> ARGS; rejects with an InfraError when it fails. */
export async function infra(script: string, ...args: string[]): Promise<string> {
  const p = Bun.spawn(["bash", join(INFRA, script), ...args], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new InfraError(err.trim() || `${script} ${args.join(" ")}: exit ${code}`, code);
  return out;
}

async function fault(script: string, set: string[], undo: string[]): Promise<Undo> {
  const revert = () => infra(script, ...undo).then(() => undefined);
  try {
    await infra(script, ...set);
  } catch (err) {
    // exit 2 is a refusal before anything was touched; anything else may have applied part of it
    if ((err as InfraError).code !== 2) await revert().catch(() => undefined);
    throw err;
  }
  let done: Promise<void> | undefined;
  return () => (done ??= revert());
}

/** The faults every lab host and Slurm node has: a cgroup CPU quota and the cgroup freezer. */
export interface CgroupFaults {
  /** All the host's processes together get `percent` of one CPU. */
  cpuCap(host: string, percent: number): Promise<Undo>;
  /** Every process of the host stops (sessions, ranks, job steps, the daemon itself). */
  freeze(host: string): Promise<Undo>;
  /** One line per host: its faults as the kernel reports them ("no fault" when none). */
  status(): Promise<string[]>;
}

function cgroupFaults(script: string): CgroupFaults {
  return {
    cpuCap: (host, percent) => fault(script, ["cpu-cap", host, String(percent)], ["cpu-uncap", host]),
    freeze: (host) => fault(script, ["freeze", host], ["thaw", host]),
    status: async () => (await infra(script, "status")).split("\n").filter((l) => /^(ns|node|sn)\d+ .*: /.test(l)),
  };
}

/** The faults of a host's or node's links (test/infra/netns-faults.sh): both labs have them. */
export interface NetFaults {
  /** A token bucket at `rate` (tc: "10mbit", "500kbit") on the host's link, both ways. */
  slow(host: string, rate: string): Promise<Undo>;
  /** "loss 5%" (both ways), and netem's other options ("delay 50ms") where the kernel has netem. */
  netem(host: string, spec: string): Promise<Undo>;
  /** The host's link down: no carrier, its packets vanish. */
  cut(host: string): Promise<Undo>;
  /** Its fabric link (fab0) down while its management link still works: ranks with GLOO_SOCKET_IFNAME=fab0 lose it. */
  cutFabric(host: string): Promise<Undo>;
  /** `command` (a shell command line) on the host; stdin, stdout, stderr are pipes. */
  ssh(host: string, command: string, options?: string[]): ChildProcessWithoutNullStreams;
}

function netFaults(script: string): Omit<NetFaults, "ssh"> {
  return {
    slow: (host, rate) => fault(script, ["slow", host, rate], ["unslow", host]),
    netem: (host, spec) => fault(script, ["netem", host, spec], ["unnetem", host]),
    cut: (host) => fault(script, ["cut", host], ["uncut", host]),
    cutFabric: (host) => fault(script, ["cut-fabric", host], ["uncut-fabric", host]),
  };
}

export interface NetnsLab extends CgroupFaults, NetFaults {
  /** ns1..nsN, resolvable on this machine and on every host */
  hosts: string[];
  addrs: string[];
  /** ssh -F: the names, user, key and known_hosts */
  sshConfig: string;
  user: string;
}

/** The running netns lab; throws (rather than skips) when GPUCHECK_INFRA lists netns but it never started. */
export function netnsLab(): NetnsLab {
  const env = readInfraEnv(ENV_FILE, "netns");
  const sshConfig = env.GPUCHECK_NETNS_SSH_CONFIG!;
  return {
    hosts: env.GPUCHECK_NETNS_HOSTS!.split(","),
    addrs: env.GPUCHECK_NETNS_ADDRS!.split(","),
    sshConfig,
    user: env.GPUCHECK_NETNS_USER!,
    ...cgroupFaults("netns.sh"),
    ...netFaults("netns.sh"),
    // ssh [options] to the host
    ssh: (host, command, options = []) => spawn("ssh", ["-F", sshConfig, ...options, host, command]),
  };
}

/** The Slurm test cluster's logical nodes (node1..nodeN): CPU cap and freeze of a slurmd and its steps. */
export const slurmFaults: CgroupFaults = cgroupFaults("slurm.sh");

export interface SlurmLab extends CgroupFaults, NetFaults {
  /** sn1..snN: each node's slurmd in its own network namespace (test/infra/slurm-lab.sh) */
  nodes: string[];
  /** SLURM_CONF and nothing else: what every Slurm command and gpucheck need to reach this cluster, not test/infra/slurm.sh's */
  env: Record<string, string>;
}

/**
 * The running namespaced Slurm cluster; throws (rather than skips) when GPUCHECK_INFRA lists
 * slurm-lab but it never started. Its `ssh` runs the command as a job step on the node (srun), so
 * it runs where the node's ranks run: in the node's network namespace and cgroup.
 */
export function slurmLab(): SlurmLab {
  const file = `${process.env.GPUCHECK_SLURM_LAB_BASE ?? "/run/gpucheck-test/slurm-lab"}/env`;
  const vars = readInfraEnv(file, "slurm-lab");
  const env = { SLURM_CONF: vars.SLURM_CONF! };
  return {
    nodes: vars.GPUCHECK_SLURM_LAB_NODES!.split(","),
    env,
    ...cgroupFaults("slurm-lab.sh"),
    ...netFaults("slurm-lab.sh"),
    ssh: (node, command) => spawn("srun", ["-w", node, "-N1", "-n1", "--quiet", "bash", "-c", command], { env: { ...process.env, ...env } }),
  };
}
