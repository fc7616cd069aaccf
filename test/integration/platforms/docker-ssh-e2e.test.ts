// gpucheck as a user runs it (the compiled binary when built) with `--platform docker --hosts …`:
// every host of the ssh platform runs the container, reached through the loopback sshd's of
// test/infra/ssh.sh, each leading to this machine's dockerd.
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runLabel } from "../../../plugins/docker.ts";
import { gpucheck, gpucheckAsync, tempDir } from "../../e2e/cli.ts";
import { DOCKER_SSH, transports } from "./docker-ssh-infra.ts";
import { sshInfra } from "./ssh-infra.ts";

const IMAGE = process.env.GPUCHECK_TEST_IMAGE ?? "gpucheck-test/torch-cpu:bookworm";
const t = DOCKER_SSH ? test : test.skip;

function suiteFile(dir: string): string {
  const path = join(dir, "suite.yaml");
  const body = [
    "extends: cpu-smoke",
    "name: cpu-smoke-docker-ssh",
    "defaults:",
    "  nodes: 2",
    "  ranksPerNode: 2",
    "platform:",
    "  type: docker",
    "  docker:",
    "    network: host",
    "    ulimits: false # this sandbox's engine may not raise memlock/stack",
    "    pull: never",
    "  ssh:",
    `    configFile: ${sshInfra().config}`,
  ];
  writeFileSync(path, `${body.join("\n")}\n`);
  return path;
}

/** `gpucheck suite` of the tests `only` on the hosts' engines, results to `out`. */
function suiteArgs(dir: string, out: string, hosts: string[], only: string, progress: string): string[] {
  return [
    "suite",
    suiteFile(dir),
    "--only",
    only,
    "--platform",
    "docker",
    "--hosts",
    hosts.join(","),
    "--image",
    IMAGE,
    "--python",
    "/usr/bin/python3",
    "--out",
    out,
    "--progress",
    progress,
  ];
}

const results = (out: string): any => JSON.parse(readFileSync(join(out, "results.json"), "utf8"));

/** `docker ps -a --filter label=gpucheck.run=<this run>`: what the run left on the engine. */
const containersOf = (out: string) => execFileSync("docker", ["ps", "-a", "-q", "--filter", `label=gpucheck.run=${runLabel(out)}`], { encoding: "utf8" }).trim();

describe("gpucheck suite --platform docker over ssh hosts", () => {
  t(
    // ResNet-18 is left out: DDP's launch is the all-reduce's (about 80 s of CI), and it trains in
    // containers on the local engines (e2e/docker.test.ts) and across hosts on ssh and Slurm
    "cpu-smoke's inventory and all-reduce across 2 hosts × 2 ranks: every test passes, inventory per host, nothing left",
    async () => {
      const dir = tempDir("docker-ssh-smoke");
      const out = join(dir, "out");
      const hosts = sshInfra().hosts.slice(0, 2);
      const r = gpucheck(suiteArgs(dir, out, hosts, "inventory,allreduce-gloo", "none"), {
        timeoutMs: 1_500_000,
      });
      const res = results(out);
      const units = res.tests.flatMap((x: { name: string; units: Array<{ unit: string; status: string; message?: string }> }) =>
        x.units.map((u) => [x.name, u.unit, u.status, u.message]),
      );
      expect(units).toEqual([...hosts.map((h) => ["inventory", h, "completed", undefined]), ["allreduce-gloo", "all", "completed", undefined]]);
      expect(r.status).toBe(0);
      expect(res.outcome).toBe("passed");
      // a log per rank of both hosts' containers, demultiplexed from the launcher's [rank N] prefixes
      const logs = res.tests[1].units[0].logs as string[];
      expect(logs).toEqual([0, 1, 2, 3].map((r) => `logs/allreduce-gloo/all/rank-${r}.log`));
      for (const l of logs) expect(existsSync(join(out, l))).toBe(true);
      expect(readFileSync(join(out, logs[0]!), "utf8")).toContain("# Collective test concluded: all_reduce_perf");
      // rank 2 is local rank 0 of the second host's container: its inventory line names that node
      expect(readFileSync(join(out, logs[2]!), "utf8")).toContain(`GPUCHECK_INVENTORY {"hostname":"${hosts[1]}"`);
      expect(containersOf(out)).toBe("");
      expect(await transports()).toEqual([]);
    },
    1_600_000,
  );

  t(
    "Ctrl-C mid-test: exit 130, cancelled, no container of the run on any engine",
    async () => {
      const dir = tempDir("docker-ssh-sigint");
      const out = join(dir, "out");
      const hosts = sshInfra().hosts.slice(0, 2);
      const run = gpucheckAsync(suiteArgs(dir, out, hosts, "allreduce-gloo", "plain"));
      const deadline = Date.now() + 120_000;
      // rank 0 prints the nccl-tests table once all four ranks in both containers have joined
      while (!/\[rank 0\]\s+1024\s/.test(run.output()) && Date.now() < deadline) await Bun.sleep(100);
      expect(run.output()).toMatch(/\[rank 0\]\s+1024\s/);
      expect(containersOf(out).split("\n")).toHaveLength(2);
      run.child.kill("SIGINT");
      expect(await run.exited).toBe(130);
      const res = results(out);
      expect(res.complete).toBe(false);
      expect(res.tests[0].units[0].status).toBe("cancelled");
      expect(res.tests[0].units[0].message).toMatch(/^cancelled: stopped containers 127\.0\.0\.2:[0-9a-f]{12}, 127\.0\.0\.3:[0-9a-f]{12}$/);
      expect(containersOf(out)).toBe("");
      expect(await transports()).toEqual([]);
    },
    180_000,
  );
});
