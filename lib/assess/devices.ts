// No GPU work passes on a CPU (issue 26): when a test's suite asks for GPUs, every rank must have run
// on a GPU it names (index, UUID, PCI bus), no two ranks of a node on the same GPU, and each node
// with at least gpusPerNode GPUs measured. Anything else is an error naming the rank and node,
// whatever the thresholds say: a CPU's figure, or one GPU measured twice, is not the node's GPUs.
import type { RankDeviceId } from "../core/types.ts";

const ranksText = (ranks: number[]) => `${ranks.length === 1 ? "rank" : "ranks"} ${ranks.join(", ")}`;

/** One line per problem (empty when every rank ran on its own named GPU); `devices` as the per-GPU kinds report them. */
export function deviceProblems(devices: RankDeviceId[], gpusPerNode: number): string[] {
  if (gpusPerNode <= 0) return [];
  const problems: string[] = [];
  for (const d of devices.filter((x) => x.type !== "cuda")) {
    problems.push(
      `rank ${d.rank} on ${d.host} ran on the CPU (${d.name ?? "unknown model"}), not a GPU, while the suite asks for ${gpusPerNode} GPUs per node: ` +
        `its figures are not a GPU's; check that torch sees the GPUs on ${d.host} (nvidia-smi, the driver, CUDA_VISIBLE_DEVICES)`,
    );
  }
  const byHost = new Map<string, Map<string, number[]>>();
  for (const d of devices.filter((x) => x.type === "cuda")) {
    const id = d.uuid ?? d.pciBusId;
    if (id === null) {
      problems.push(
        `rank ${d.rank} on ${d.host} ran on a GPU it could not name (no UUID or PCI bus${d.unnamed ? `: ${d.unnamed}` : ""}): ` +
          `a figure that names no GPU cannot be told from another rank's; check that nvidia-smi runs on ${d.host}`,
      );
      continue;
    }
    const gpus = byHost.get(d.host) ?? new Map<string, number[]>();
    byHost.set(d.host, gpus);
    gpus.set(id, [...(gpus.get(id) ?? []), d.rank]);
  }
  for (const [host, gpus] of byHost) {
    for (const [id, ranks] of gpus) {
      if (ranks.length < 2) continue;
      problems.push(
        `${ranksText(ranks)} on ${host} all ran on the same GPU ${id}: each rank needs its own GPU; check how GPUs are given to ranks on ${host} (CUDA_VISIBLE_DEVICES, --gpus-per-task)`,
      );
    }
  }
  // a node whose ranks all ran on CPUs was already named rank by rank above
  const hosts = new Set(devices.map((d) => d.host));
  for (const host of hosts) {
    const gpus = byHost.get(host)?.size ?? 0;
    if (gpus === 0 || gpus >= gpusPerNode) continue;
    const ranks = devices.filter((d) => d.host === host).map((d) => d.rank);
    problems.push(
      `${host}: ${gpus} GPU${gpus === 1 ? "" : "s"} measured (${ranksText(ranks)}), fewer than the suite's gpusPerNode ${gpusPerNode}: the other GPUs of ${host} were never measured`,
    );
  }
  return problems;
}
