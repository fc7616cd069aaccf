// Pure: the human half of `gpucheck plan --platform docker` (the JSON half has every create body).
import { shJoin } from "../_shared/ssh/quote.ts";
import type { Master, Planned } from "./plan.ts";
import type { ContainerBody } from "./spec.ts";

function gpus(body: ContainerBody): string {
  const r = (body.HostConfig.DeviceRequests as Array<{ Count?: number; DeviceIDs?: string[] }> | undefined)?.[0];
  if (!r) return "no GPU";
  if (r.DeviceIDs) return `GPUs ${r.DeviceIDs.join(",")}`;
  return r.Count === -1 ? "all GPUs" : `${r.Count} GPU(s)`;
}

function summary(body: ContainerBody): string {
  const h = body.HostConfig;
  return [
    `network ${h.NetworkMode}`,
    h.IpcMode === "host" ? "ipc host" : `ipc private${h.ShmSize ? ` shm ${h.ShmSize} B` : ""}`,
    gpus(body),
    ...(h.Ulimits ? ["memlock unlimited, stack 64 MiB"] : []),
    ...(h.CapAdd ? ["/dev/infiniband + IPC_LOCK"] : []),
    ...((h.Binds as string[] | undefined) ?? []).map((b) => `mount ${b}`),
  ].join(", ");
}

export function planText(p: {
  engines: string[];
  image: string;
  pull: string;
  dial: Array<[string, string[]]>;
  /** one line per tcp:// engine (tls.ts transportText) */
  transport?: string[];
  units: Array<{ unit: string; master: Master; containers: Planned }>;
}): string {
  return [
    `engines: ${p.engines.join(", ")}; image ${p.image} (pull: ${p.pull}); workload copied into each container at /opt/gpucheck`,
    ...(p.transport?.length ? ["tcp engines:", ...p.transport.map((t) => `  ${t}`)] : []),
    ...(p.dial.length
      ? ["API connections to ssh engines (the first to each host opens its ControlMaster with the same options):", ...p.dial.map(([url, argv]) => `  ${url}: ${shJoin(argv)}`)]
      : []),
    ...p.units.flatMap((u) => [
      `unit ${u.unit}: MASTER_ADDR=${u.containers[0]?.node.masterAddr ?? u.master.addr} MASTER_PORT=${u.master.port}`,
      ...u.containers.map(({ node, body }) => `  node ${node.nodeRank} ${node.node} on ${node.engine}: ${body.name}, ${summary(body)}\n    ${shJoin(body.Cmd)}`),
    ]),
    "exact container create bodies: gpucheck plan --json",
  ].join("\n");
}
