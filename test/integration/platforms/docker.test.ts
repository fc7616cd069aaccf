// The docker platform against real engines: Docker Engine (dockerd) and podman's Docker API.
import { describe, expect, test } from "bun:test";
import Docker from "dockerode";
import { docker, RUN_LABEL } from "../../../plugins/docker.ts";
import { containerBody, deviceRequests, settings } from "../../../plugins/docker/spec.ts";
import type { Platform } from "../../../lib/core/platform.ts";
import { conformance, expectCompleted, runScript, scriptTest } from "../../platforms/conformance.ts";
import { localLeftovers } from "../../platforms/leftovers.ts";

const INFRA = (process.env.GPUCHECK_INFRA ?? "").split(",");
const IMAGE = process.env.GPUCHECK_TEST_IMAGE ?? "gpucheck-test/torch-cpu:bookworm";
const ENGINES = {
  docker: "unix:///var/run/docker.sock",
  podman: "unix:///run/podman/podman.sock",
} as const;

describe("docker container spec (pure)", () => {
  const s = settings.parse({});
  test("GPU device requests: the test's count, all, or device IDs", () => {
    expect(deviceRequests(s, 8)).toEqual([{ Driver: "nvidia", Capabilities: [["gpu"]], Count: 8 }]);
    expect(deviceRequests(settings.parse({ gpus: "all" }), 8)).toEqual([{ Driver: "nvidia", Capabilities: [["gpu"]], Count: -1 }]);
    expect(deviceRequests(settings.parse({ gpus: ["0", "3"] }), 8)).toEqual([{ Driver: "nvidia", Capabilities: [["gpu"]], DeviceIDs: ["0", "3"] }]);
    expect(deviceRequests(s, 0)).toEqual([]);
  });
  test("GPU settings: ipc host, memlock/stack ulimits, IB device and IPC_LOCK, labels", () => {
    const body = containerBody({
      settings: settings.parse({ infiniband: true, shmSize: "16g", ipc: "private" }),
      image: "img",
      launch: { python: "python3", args: ["-m", "gpucheck_workload", "inventory"], env: { NCCL_DEBUG: "WARN" }, files: [] },
      ranksPerNode: 8,
      worldSize: 16,
      gpusPerNode: 8,
      node: { node: "n1", nodeRank: 1, engine: "unix:///x", masterAddr: "10.0.0.1", masterPort: 29500 },
      labels: { [RUN_LABEL]: "abc" },
      name: "c",
    });
    expect(body.Cmd).toEqual(["python3", "-m", "gpucheck_workload.launch", "--nprocs", "8", "--node-rank", "1", "--", "-m", "gpucheck_workload", "inventory"]);
    expect(body.Env).toEqual(expect.arrayContaining(["NCCL_DEBUG=WARN", "WORLD_SIZE=16", "MASTER_ADDR=10.0.0.1", "MASTER_PORT=29500", "PYTHONPATH=/opt/gpucheck"]));
    expect(body.HostConfig).toMatchObject({
      IpcMode: "private",
      ShmSize: 16 * 1024 ** 3,
      Ulimits: [
        { Name: "memlock", Soft: -1, Hard: -1 },
        { Name: "stack", Soft: 67108864, Hard: 67108864 },
      ],
      Devices: [{ PathOnHost: "/dev/infiniband", PathInContainer: "/dev/infiniband", CgroupPermissions: "rwm" }],
      CapAdd: ["IPC_LOCK"],
      DeviceRequests: [{ Driver: "nvidia", Capabilities: [["gpu"]], Count: 8 }],
    });
    expect(body.Labels).toEqual({ [RUN_LABEL]: "abc" });
  });
});

for (const [engine, socket] of Object.entries(ENGINES)) {
  const enabled = INFRA.includes(engine);
  const target = () => ({
    python: "/usr/bin/python3",
    settings: settings.parse({ hosts: [socket], network: "none", ulimits: false, pull: "never" }),
    cli: { image: IMAGE },
    leftovers: async (marker: string) => {
      const d = new Docker({ socketPath: socket.slice(7) });
      // this test's containers (the marker is an argument of their command), not another run's
      const left = (await d.listContainers({ all: true, filters: { label: [RUN_LABEL] } })).filter((c) => c.Command.includes(marker));
      return [...(await localLeftovers(marker)), ...left.map((c) => `container ${c.Id.slice(0, 12)} ${c.Names.join(",")}`)];
    },
    slackS: 6,
  });
  describe(`docker platform on ${engine}`, () => {
    conformance(docker as Platform<unknown>, target, enabled);

    (enabled ? test : test.skip)(
      `${engine}: an image that is not local and cannot be pulled is one clear error`,
      async () => {
        // a registry on a closed loopback port: the pull is attempted and refused without leaving the machine
        const tg = { ...target(), settings: settings.parse({ hosts: [socket], network: "none", ulimits: false }), cli: { image: "127.0.0.1:9/gpucheck/nope:1" } };
        const { units } = await runScript(docker as Platform<unknown>, tg, scriptTest("pull", tg.python, "print(1)"));
        expect(units[0]!.status).toBe("infra");
        expect(units[0]!.message).toStartWith(`image "127.0.0.1:9/gpucheck/nope:1" is not on engine ${socket} and pulling it failed: `);
      },
      60_000,
    );

    (enabled ? test : test.skip)(
      `${engine}: GPU device requests reach the engine as the suite asked`,
      async () => {
        // --keep leaves the container so the engine's own view of it can be inspected
        const tg = { ...target(), cli: { image: IMAGE, keep: true } };
        tg.settings = settings.parse({ hosts: [socket], network: "none", ulimits: false, pull: "never", gpus: ["0", "1"] });
        const t = scriptTest("gpus", tg.python, "import os; print('NV', os.environ.get('NVIDIA_VISIBLE_DEVICES'))", { ranksPerNode: 1 });
        t.gpusPerNode = 2;
        const { units } = await runScript(docker as Platform<unknown>, tg, t);
        if (engine === "podman") {
          // podman's compat API drops DeviceRequests; gpucheck refuses rather than run GPU tests without GPUs
          expect(units[0]!.status).toBe("infra");
          expect(units[0]!.message).toStartWith("engine unix:///run/podman/podman.sock is Podman Engine 4.");
          expect(units[0]!.message).toContain("ignores GPU device requests: the containers would see no GPU");
          return;
        }
        const d = new Docker({ socketPath: socket.slice(7) });
        const [c] = await d.listContainers({ all: true, filters: { label: [`gpucheck.test=gpus`] } });
        try {
          const info = await d.getContainer(c!.Id).inspect();
          expect(info.HostConfig.DeviceRequests).toEqual([expect.objectContaining({ DeviceIDs: ["0", "1"], Capabilities: [["gpu"]] })]);
          expectCompleted(units[0]!);
          // the fake nvidia hook registered the driver, and dockerd passed the request on
          expect(units[0]!.output).toContain("NV 0,1");
        } finally {
          await d.getContainer(c!.Id).remove({ force: true });
        }
      },
      120_000,
    );
  });
}
