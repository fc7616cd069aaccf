// What the docker-over-ssh tests share: whether both infras are expected, the conformance target
// (docker engines reached through test/infra/ssh.sh's hosts) and what a run may leave behind.
import Docker from "dockerode";
import { RUN_LABEL } from "../../../plugins/docker.ts";
import { settings } from "../../../plugins/docker/spec.ts";
import type { ConformanceTarget } from "../../platforms/conformance.ts";
import { localLeftovers } from "../../platforms/leftovers.ts";
import { remoteProcesses, sshInfra } from "./ssh-infra.ts";

const INFRA = (process.env.GPUCHECK_INFRA ?? "").split(",");
export const DOCKER_SSH = INFRA.includes("ssh") && INFRA.includes("docker");
const IMAGE = process.env.GPUCHECK_TEST_IMAGE ?? "gpucheck-test/torch-cpu:bookworm";

/**
 * The transport's processes still alive: ssh clients here and `docker system dial-stdio` on the
 * hosts (this machine too), and the probe a host runs as the test user.
 */
export async function transports(): Promise<string[]> {
  const dial = await localLeftovers("system dial-stdio");
  return [...dial, ...remoteProcesses(sshInfra().user).filter((p) => p.includes("gpucheck-docker-probe"))];
}

/**
 * What a test left: containers of a gpucheck run on the local engine whose command line holds the
 * marker (the conformance tests pass it as an argument) or whose test is named by it, and the
 * transport's processes still alive. Scoped so that another run's containers are not this test's.
 */
export async function dockerSshLeftovers(marker: string): Promise<string[]> {
  const d = new Docker({ socketPath: "/var/run/docker.sock" });
  const all = await d.listContainers({ all: true, filters: { label: [RUN_LABEL] } });
  const left = all.filter((c) => c.Command.includes(marker) || c.Labels["gpucheck.test"] === marker);
  return [...(await localLeftovers(marker)), ...left.map((c) => `container ${c.Id.slice(0, 12)} ${c.Names.join(",")}`), ...(await transports())];
}

/** The conformance target: one container per host, host networking as multi-node needs. */
export function sshTarget(hosts: string[]): ConformanceTarget {
  return {
    python: "/usr/bin/python3",
    settings: settings.parse({ hosts, network: "host", ulimits: false, pull: "never" }),
    cli: { image: IMAGE },
    platformSettings: { ssh: { configFile: sshInfra().config } },
    nodes: hosts.length,
    ranksPerNode: 2,
    leftovers: dockerSshLeftovers,
    slackS: 8,
  };
}
