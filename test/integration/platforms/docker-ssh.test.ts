// The docker platform with one engine per host reached over ssh, as the Docker CLI reaches
// DOCKER_HOST=ssh://…: the loopback sshd's of test/infra/ssh.sh, each of whose "hosts" leads to
// this machine's dockerd. That proves the transport, staging, labels, cleanup on every engine and
// the multi-node rank wiring; it cannot prove two kernels or two GPUs talking.
import { describe, expect, test } from "bun:test";
import Docker from "dockerode";
import type { UnitRun } from "../../../lib/core/types.ts";
import { docker } from "../../../plugins/docker.ts";
import type { Platform } from "../../../lib/core/platform.ts";
import { settings } from "../../../plugins/docker/spec.ts";
import { conformance, runScript, scriptTest } from "../../platforms/conformance.ts";
import { DOCKER_SSH, dockerSshLeftovers, sshTarget } from "./docker-ssh-infra.ts";
import { killHost, reviveHosts, sshInfra } from "./ssh-infra.ts";

const IMAGE = process.env.GPUCHECK_TEST_IMAGE ?? "gpucheck-test/torch-cpu:bookworm";
const t = DOCKER_SSH ? test : test.skip;
const platform = docker as Platform<unknown>;

describe("docker platform, engines over ssh: 2 hosts × 2 ranks", () => {
  conformance(platform, () => sshTarget(sshInfra().hosts.slice(0, 2)), DOCKER_SSH);
});

describe("docker platform, engines over ssh", () => {
  t(
    "multi-node: a gloo all-reduce across the two hosts' containers, MASTER_ADDR the first host as ssh reached it",
    async () => {
      const tg = sshTarget(sshInfra().hosts.slice(0, 2));
      const name = `wired-${process.pid}`;
      const code = [
        "import os, torch, torch.distributed as dist",
        "dist.init_process_group('gloo')",
        "x = torch.tensor([float(dist.get_rank() + 1)])",
        "dist.all_reduce(x)",
        "print('WIRED', os.environ['GPUCHECK_NODE'], os.environ['RANK'], os.environ['MASTER_ADDR'], os.environ['MASTER_PORT'], int(x.item()), flush=True)",
        "dist.destroy_process_group()",
      ].join("\n");
      const { units, lines } = await runScript(platform, tg, scriptTest(name, tg.python, code, { nodes: 2, ranksPerNode: 2 }));
      expect(units.map((u) => [u.unit, u.status, u.message])).toEqual([["all", "completed", undefined]]);
      expect(units[0]!.hosts).toEqual(["127.0.0.2", "127.0.0.3"]);
      expect(units[0]!.ranks.map((r) => [r.rank, r.host, r.exitCode])).toEqual([
        [0, "127.0.0.2", 0],
        [1, "127.0.0.2", 0],
        [2, "127.0.0.3", 0],
        [3, "127.0.0.3", 0],
      ]);
      const wired = lines.filter((l) => l.includes("WIRED")).map((l) => l.slice(l.indexOf("WIRED")).split(" "));
      expect(wired).toHaveLength(4);
      const port = wired[0]![4]!;
      expect(Number(port)).toBeGreaterThan(0);
      // 1+2+3+4 = 10 on every rank: all four ranks in both containers joined one group at 127.0.0.2
      expect(wired.map((w) => [w[2], w[1], w[3], w[4], w[5]]).sort()).toEqual([
        ["0", "127.0.0.2", "127.0.0.2", port, "10"],
        ["1", "127.0.0.2", "127.0.0.2", port, "10"],
        ["2", "127.0.0.3", "127.0.0.2", port, "10"],
        ["3", "127.0.0.3", "127.0.0.2", port, "10"],
      ]);
      expect(await dockerSshLeftovers(name)).toEqual([]);
    },
    180_000,
  );

  t(
    "per-node over 2 hosts: one container and one verdict per host, each with its own rendezvous",
    async () => {
      const tg = sshTarget(sshInfra().hosts.slice(0, 2));
      const name = `pernode-${process.pid}`;
      const test_ = scriptTest(name, tg.python, "import os; print('NODE', os.environ['GPUCHECK_NODE'], os.environ['WORLD_SIZE'], os.environ['MASTER_ADDR'], flush=True)");
      test_.perNode = true;
      const { units, lines } = await runScript(platform, tg, test_);
      expect(units.map((u) => [u.unit, u.status, u.hosts, u.ranks.map((r) => r.rank)])).toEqual([
        ["127.0.0.2", "completed", ["127.0.0.2"], [0, 1]],
        ["127.0.0.3", "completed", ["127.0.0.3"], [0, 1]],
      ]);
      expect(
        lines
          .filter((l) => l.includes("NODE "))
          .map((l) => l.replace(/\/\d: .*NODE/, " NODE"))
          .sort(),
      ).toEqual(["127.0.0.2 NODE 127.0.0.2 2 127.0.0.1", "127.0.0.2 NODE 127.0.0.2 2 127.0.0.1", "127.0.0.3 NODE 127.0.0.3 2 127.0.0.1", "127.0.0.3 NODE 127.0.0.3 2 127.0.0.1"]);
      expect(await dockerSshLeftovers(name)).toEqual([]);
    },
    120_000,
  );

  t(
    "per-node with an unreachable host: that host's verdict is infra naming it, the others run",
    async () => {
      const tg = sshTarget([sshInfra().hosts[0]!, "127.0.0.9"]);
      const name = `unreachable-${process.pid}`;
      const test_ = scriptTest(name, tg.python, "print('fine')");
      test_.perNode = true;
      const { units } = await runScript(platform, tg, test_);
      expect(units.map((u) => [u.unit, u.status])).toEqual([
        ["127.0.0.2", "completed"],
        ["127.0.0.9", "infra"],
      ]);
      expect(units[1]!.message).toBe("host 127.0.0.9: unreachable: ssh: connect to host 127.0.0.9 port 2722: Connection refused");
      expect(await dockerSshLeftovers(name)).toEqual([]);
    },
    120_000,
  );

  t(
    "whole-cluster with an unreachable host: the unit is infra naming the host, nothing started anywhere",
    async () => {
      const tg = sshTarget([sshInfra().hosts[0]!, "127.0.0.9"]);
      const name = `unreachable-all-${process.pid}`;
      const { units } = await runScript(platform, tg, scriptTest(name, tg.python, "print('never')", { nodes: 2 }));
      expect(units.map((u) => [u.unit, u.status, u.message])).toEqual([
        ["all", "infra", "host 127.0.0.9: unreachable: ssh: connect to host 127.0.0.9 port 2722: Connection refused"],
      ]);
      expect(await dockerSshLeftovers(name)).toEqual([]);
    },
    120_000,
  );

  t(
    "per-node: a host lost mid-test is an infra verdict saying so; the other hosts' verdicts stand",
    async () => {
      const hosts = sshInfra().hosts.slice(0, 3);
      const tg = sshTarget(hosts);
      const name = `lost-${process.pid}`;
      const test_ = scriptTest(name, tg.python, "import time; print('started', flush=True); time.sleep(15)", { timeoutMs: 120_000 });
      test_.perNode = true;
      const running = runScript(platform, tg, test_);
      const d = new Docker({ socketPath: "/var/run/docker.sock" });
      const deadline = Date.now() + 90_000;
      while ((await d.listContainers({ filters: { label: [`gpucheck.test=${name}`], status: ["running"] } })).length < 3 && Date.now() < deadline) await Bun.sleep(200);
      await Bun.sleep(1000);
      killHost(3);
      let units: UnitRun[];
      try {
        units = (await running).units;
      } finally {
        reviveHosts();
      }
      expect(units.map((u) => [u.unit, u.status])).toEqual([
        ["127.0.0.2", "completed"],
        ["127.0.0.3", "completed"],
        ["127.0.0.4", "infra"],
      ]);
      expect(units[2]!.message).toMatch(/^lost the engine of 127\.0\.0\.4 while its container ran: host 127\.0\.0\.4: (connection lost \(ssh exited 255\)|unreachable: .+)$/);
      // every "host" reaches the same engine here, so the other hosts' sweeps removed its container too
      expect(await dockerSshLeftovers(name)).toEqual([]);
    },
    180_000,
  );

  t(
    "GPU device requests reach each host's engine as the suite asked, through the ssh transport",
    async () => {
      const hosts = sshInfra().hosts.slice(0, 2);
      // --keep leaves the containers so that the engine's own view of them can be inspected
      const tg = { ...sshTarget(hosts), settings: settings.parse({ hosts, network: "host", ulimits: false, pull: "never", gpus: ["0", "1"] }), cli: { image: IMAGE, keep: true } };
      const name = `gpus-${process.pid}`;
      const test_ = scriptTest(name, tg.python, "import os; print('NV', os.environ.get('NVIDIA_VISIBLE_DEVICES'), flush=True)", { nodes: 2, ranksPerNode: 1 });
      test_.gpusPerNode = 2;
      const { units, lines } = await runScript(platform, tg, test_);
      const d = new Docker({ socketPath: "/var/run/docker.sock" });
      const kept = await d.listContainers({ all: true, filters: { label: [`gpucheck.test=${name}`] } });
      try {
        expect(units.map((u) => [u.unit, u.status, u.message])).toEqual([["all", "completed", undefined]]);
        expect(kept.map((c) => c.Labels["gpucheck.node"]).sort()).toEqual(hosts);
        for (const c of kept) {
          const info = await d.getContainer(c.Id).inspect();
          expect(info.HostConfig.DeviceRequests).toEqual([expect.objectContaining({ Driver: "nvidia", DeviceIDs: ["0", "1"], Capabilities: [["gpu"]] })]);
        }
        // dockerd's nvidia driver (the no-op hook of test/infra/docker.sh) passed the request on
        expect(lines.filter((l) => l.includes("NV ")).map((l) => l.slice(l.indexOf("NV ")))).toEqual(["NV 0,1", "NV 0,1"]);
      } finally {
        await Promise.all(kept.map((c) => d.getContainer(c.Id).remove({ force: true })));
      }
    },
    120_000,
  );

  t(
    "a rank failing on the second host: the verdict names that host and rank, not the first host's container stopped for it",
    async () => {
      const tg = sshTarget(sshInfra().hosts.slice(0, 2));
      const name = `fail-second-${process.pid}`;
      const code = [
        "import os, sys, time",
        "if os.environ['RANK'] == '3':",
        "    time.sleep(1); sys.stderr.write('gpucheck-workload: error: rank 3 saw a bad GPU\\n'); sys.exit(5)",
        "time.sleep(600)  # the peers would wait in a collective",
      ].join("\n");
      const { units, elapsedMs } = await runScript(platform, tg, scriptTest(name, tg.python, code, { nodes: 2, ranksPerNode: 2, timeoutMs: 120_000 }));
      expect(units.map((u) => [u.unit, u.status, u.message])).toEqual([["all", "failed", "container on 127.0.0.3 exited with 5 (rank 3): rank 3 saw a bad GPU"]]);
      expect(elapsedMs).toBeLessThan(60_000);
      expect(await dockerSshLeftovers(name)).toEqual([]);
    },
    120_000,
  );
});
