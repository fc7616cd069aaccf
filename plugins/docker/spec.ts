// Pure: a planned test on one node → the Docker Engine API's container create body.
// `gpucheck plan --platform docker` prints exactly this.
import * as z from "../../lib/core/schema.ts";
import type { Launch } from "../../lib/core/types.ts";

export const DEFAULT_IMAGE = "nvcr.io/nvidia/pytorch:24.10-py3";
export const STAGE = "/opt/gpucheck";

export const settings = z.lazy(() =>
  z
    .object({
      /** image with python and torch; the workload is injected, no custom image needed */
      image: z.string().min(1).optional(),
      /**
       * engines, one per node: unix:///…, tcp://host:2376, or ssh hosts (ssh://[user@]host[:port] or
       * just [user@]host[:port]) reached with the system ssh client and platform.ssh's options;
       * default: platform.ssh's hosts, else DOCKER_HOST, else the local socket. --hosts wins
       */
      hosts: z.array(z.string().min(1)).optional(),
      /** GPUs per container: "all", a count, or device IDs; default: the test's gpusPerNode */
      gpus: z.union([z.literal("all"), z.number().int().min(0), z.array(z.string().min(1)).min(1)]).optional(),
      ipc: z.enum(["host", "private"]).default("host"),
      /** /dev/shm size when ipc is private, e.g. 16g */
      shmSize: z
        .string()
        .regex(/^\d+[kmg]?$/i, "expected a size like 16g or 512m")
        .optional(),
      /** host networking is what multi-node NCCL needs; "none" for single-node runs in a sandbox */
      network: z.enum(["host", "none", "bridge"]).default("host"),
      /** memlock=-1 and stack=64 MiB as NVIDIA's containers recommend; false where the engine may not raise limits */
      ulimits: z.boolean().default(true),
      /** /dev/infiniband and IPC_LOCK for RDMA */
      infiniband: z.boolean().default(false),
      mounts: z.array(z.string().regex(/^[^:]+:[^:]+(:ro|:rw)?$/, 'expected "host-path:container-path[:ro]"')).default([]),
      pull: z.enum(["missing", "always", "never"]).default("missing"),
      /** TLS to tcp:// engines: the CA to verify the engine with, the client certificate and key (relative to the suite file); default DOCKER_CERT_PATH as the docker CLI */
      tls: z
        .object({ ca: z.string().min(1).optional(), cert: z.string().min(1).optional(), key: z.string().min(1).optional() })
        .strict()
        .transform((t, ctx) => {
          if (!!t.cert === !!t.key) return t;
          const [has, lacks] = t.cert ? ["cert", "key"] : ["key", "cert"];
          ctx.issues.push({ code: "custom", input: t, message: `"tls" has ${has} but no ${lacks}: give the client certificate (cert) and its private key (key) together` });
          return z.NEVER;
        })
        .optional(),
      /** reach tcp:// engines over plain HTTP, without TLS: anyone on the network path can read and change what gpucheck asks the engine (tls.ts) */
      insecureTcp: z.boolean().default(false),
      /** seconds between SIGTERM and SIGKILL when stopping a container */
      stopGraceS: z.number().int().min(0).default(5),
    })
    .strict(),
);

export type DockerSettings = z.infer<typeof settings>;

export interface NodeSpec {
  node: string;
  nodeRank: number;
  engine: string;
  masterAddr: string;
  /** a placeholder string in `gpucheck plan` */
  masterPort: number | string;
}

export interface ContainerBody {
  name: string;
  Image: string;
  Cmd: string[];
  Env: string[];
  Labels: Record<string, string>;
  WorkingDir: string;
  HostConfig: Record<string, unknown>;
}

export function deviceRequests(s: DockerSettings, gpusPerNode: number): unknown[] {
  const gpus = s.gpus ?? Math.max(gpusPerNode, 0);
  if (gpus === 0) return [];
  const base = { Driver: "nvidia", Capabilities: [["gpu"]] };
  if (gpus === "all") return [{ ...base, Count: -1 }];
  if (Array.isArray(gpus)) return [{ ...base, DeviceIDs: gpus }];
  return [{ ...base, Count: gpus }];
}

export function containerBody(p: {
  settings: DockerSettings;
  image: string;
  launch: Launch;
  ranksPerNode: number;
  worldSize: number;
  gpusPerNode: number;
  node: NodeSpec;
  labels: Record<string, string>;
  name: string;
}): ContainerBody {
  const s = p.settings;
  const env: Record<string, string> = {
    ...p.launch.env,
    WORLD_SIZE: String(p.worldSize),
    MASTER_ADDR: p.node.masterAddr,
    MASTER_PORT: String(p.node.masterPort),
    GPUCHECK_NODE: p.node.node,
    GPUCHECK_NODE_RANK: String(p.node.nodeRank),
    PYTHONPATH: STAGE,
    PYTHONUNBUFFERED: "1",
  };
  const host: Record<string, unknown> = {
    NetworkMode: s.network,
    IpcMode: s.ipc === "host" ? "host" : "private",
    // tini as PID 1 so SIGTERM reaches the launcher instead of being ignored by PID 1
    Init: true,
    AutoRemove: false,
  };
  if (s.shmSize) host.ShmSize = shmBytes(s.shmSize);
  const requests = deviceRequests(s, p.gpusPerNode);
  if (requests.length) host.DeviceRequests = requests;
  if (s.ulimits) {
    host.Ulimits = [
      { Name: "memlock", Soft: -1, Hard: -1 },
      { Name: "stack", Soft: 67108864, Hard: 67108864 },
    ];
  }
  if (s.infiniband) {
    host.Devices = [{ PathOnHost: "/dev/infiniband", PathInContainer: "/dev/infiniband", CgroupPermissions: "rwm" }];
    host.CapAdd = ["IPC_LOCK"];
  }
  if (s.mounts.length) host.Binds = s.mounts;
  return {
    name: p.name,
    Image: p.image,
    Cmd: [p.launch.python, "-m", "gpucheck_workload.launch", "--nprocs", String(p.ranksPerNode), "--node-rank", String(p.node.nodeRank), "--", ...p.launch.args],
    Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
    Labels: p.labels,
    WorkingDir: STAGE,
    HostConfig: host,
  };
}

function shmBytes(s: string): number {
  const m = /^(\d+)([kmg]?)$/i.exec(s)!;
  const f = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2]!.toLowerCase() as "" | "k" | "m" | "g"];
  return Number(m[1]) * f;
}
