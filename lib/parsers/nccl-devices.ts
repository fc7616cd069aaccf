// The device every rank of an nccl-tests run drove, from its "#  Rank  N Group  G Pid P on HOST
// device D [BUS] NAME" lines (nccl-tests' own, and gpucheck's torch loop prints the same layout with
// device -1 and "CPU <model>" for a CPU rank: workload/gpucheck_workload/nccl_layout.py). A GPU is
// named by its PCI bus there (nccl-tests prints no UUID), so two ranks of a node on one bus drove one
// GPU (lib/assess/devices.ts).
import type { RankDeviceId } from "../core/types.ts";
import { launcherPrefix } from "./nccl-line.ts";

const RANK_LINE = /^#\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+(-?\d+)\s+\[([^\]]*)\]\s*(.*)$/;

/** The first run's rank lines (a log of several runs repeats them); undefined when it printed none. */
export function ncclRankDevices(output: string): RankDeviceId[] | undefined {
  const byRank = new Map<number, RankDeviceId>();
  for (const line of output.split("\n")) {
    const text = line.slice(launcherPrefix(line).cut).trimEnd();
    const m = RANK_LINE.exec(text);
    if (!m) continue;
    const rank = Number(m[1]);
    if (byRank.has(rank)) break;
    const device = Number(m[3]);
    const bus = m[4]!.trim();
    byRank.set(
      rank,
      device < 0
        ? { rank, host: m[2]!, type: "cpu", name: m[5]!.replace(/^CPU\s+/, "") || null, index: null, uuid: null, pciBusId: null }
        : // the CUDA ordinal is not nvidia-smi's index (CUDA_VISIBLE_DEVICES renumbers it): the bus names the GPU
          { rank, host: m[2]!, type: "cuda", name: m[5]! || null, index: null, uuid: null, pciBusId: /^0x0*$|^0000:00:00$/.test(bus) ? null : bus },
    );
  }
  return byRank.size ? [...byRank.values()].sort((a, b) => a.rank - b.rank) : undefined;
}
