// `gpucheck suite auto`: the built-in suite for the node gpucheck runs on, from what nvidia-smi says
// of its GPUs (model and count) and their NVLink domain (the Fabric CliqueId and ClusterUUID: a
// GB200 tray in its rack's fabric has a non-zero clique; an HGX board's fabric ends at the node,
// CliqueId 0). It picks one suite and says why in one line, or refuses in one line naming what it
// found: a wrong guess would judge a node against another product's floors.
import { spawnSync } from "node:child_process";
import { SuiteError } from "../core/errors.ts";

/** What the choice reads of a node: each GPU's product name, and each GPU's fabric clique where printed. */
export interface NodeGpus {
  names: string[];
  fabric: Array<{ cliqueId: string; clusterUuid: string }>;
}

export interface AutoChoice {
  suite: string;
  /** one line: the suite and what on this node made it the one */
  why: string;
}

const ZERO_UUID = /^0{8}-0{4}-0{4}-0{4}-0{12}$/;

/**
 * `nvidia-smi -q` (its `Product Name` and Fabric `CliqueId` / `ClusterUUID` lines) or
 * `nvidia-smi -L` (`GPU 0: NVIDIA GB200 (UUID: …)`) → the node's GPUs.
 */
export function nodeGpus(text: string): NodeGpus {
  const names: string[] = [];
  const fabric: NodeGpus["fabric"] = [];
  let clique: string | undefined;
  for (const line of text.split("\n")) {
    const q = /^\s+Product Name\s*:\s*(.+?)\s*$/.exec(line);
    if (q) names.push(q[1]!);
    const l = /^GPU \d+: (.+?) \(UUID: [^)]*\)\s*$/.exec(line);
    if (l) names.push(l[1]!);
    const c = /^\s+CliqueId\s*:\s*(.+?)\s*$/.exec(line);
    if (c) clique = c[1]!;
    const u = /^\s+ClusterUUID\s*:\s*(.+?)\s*$/.exec(line);
    if (u && clique !== undefined) {
      fabric.push({ cliqueId: clique, clusterUuid: u[1]! });
      clique = undefined;
    }
  }
  return { names, fabric };
}

const inRackDomain = (f: NodeGpus["fabric"][number]) => f.cliqueId !== "0" && f.cliqueId !== "N/A" && f.clusterUuid !== "N/A" && !ZERO_UUID.test(f.clusterUuid);

/** "8 × NVIDIA H100 80GB HBM3" (or each model's count when they differ) */
function described(names: string[]): string {
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  return [...counts].map(([n, k]) => `${k} × ${n}`).join(" and ");
}

const COVERED = "8 × H100 SXM, 8 × H200, 8 × B200, 1 × H100 or H200, GB200 trays of 4 in an NVL72 rack";
const nameOne = "name a suite (gpucheck list) or write one (docs/writing-suites.md)";

/** The built-in suite for these GPUs; a SuiteError, one line naming what was found, when none fits. */
export function chooseSuite(gpus: NodeGpus): AutoChoice {
  const { names } = gpus;
  if (names.length === 0) throw new SuiteError(`gpucheck: suite auto: nvidia-smi lists no GPU on this node: no built-in suite fits; ${nameOne}`);
  const found = described(names);
  const models = new Set(names);
  if (models.size > 1) throw new SuiteError(`gpucheck: suite auto: this node has ${found}: the built-in suites are for one model per node; ${nameOne}`);
  const model = names[0]!;
  const n = names.length;
  const rack = gpus.fabric.filter(inRackDomain);
  if (rack.length) {
    const first = rack[0]!;
    const domain = `NVLink domain rack (CliqueId ${first.cliqueId}, ClusterUUID ${first.clusterUuid})`;
    if (/\bGB200\b/.test(model) && n === 4) return { suite: "gb200-nvl72", why: `suite auto: gb200-nvl72, for this node's ${found} in a multi-node ${domain}` };
    throw new SuiteError(`gpucheck: suite auto: no built-in suite for this node's ${found} in a multi-node ${domain} (built-ins: ${COVERED}); ${nameOne}`);
  }
  if (/\bGB200\b/.test(model)) {
    const f = gpus.fabric[0];
    const state = f ? `CliqueId ${f.cliqueId}, ClusterUUID ${f.clusterUuid}` : "nvidia-smi printed no Fabric section";
    throw new SuiteError(
      `gpucheck: suite auto: this node's ${found} are in no multi-node NVLink domain (${state}): gb200-nvl72 needs the tray in its rack's fabric; check \`nvidia-smi -q\` Fabric and the rack's fabric manager, or ${nameOne}`,
    );
  }
  const pick = (suite: string, what: string): AutoChoice => ({ suite, why: `suite auto: ${suite}, for this node's ${found} (${what})` });
  // B200 before H100/H200: no other product name contains it; GB200 is handled above
  if (/\bB200\b/.test(model) && n === 8) return pick("b200-8x", "HGX B200, NVLink domain node");
  if (/\bH200\b/.test(model) && n === 8) return pick("h200-8x", "HGX H200, NVLink domain node");
  // the SXM H100 prints "H100 80GB HBM3" (or "H100 SXM"); a PCIe or NVL card is not an HGX board
  if (/\bH100\b/.test(model) && /HBM3|SXM/.test(model) && n === 8) return pick("h100-8x", "HGX H100 SXM, NVLink domain node");
  if (/\bH(100|200)\b/.test(model) && n === 1) return pick("gpu-1x", "one GPU: gpu-1x's H100 floors, which an H200 clears too");
  throw new SuiteError(`gpucheck: suite auto: no built-in suite for this node's ${found} (built-ins: ${COVERED}); ${nameOne}`);
}

/** `nvidia-smi -q` on this node; a SuiteError naming why when there is no GPU driver to ask. */
export function queryThisNode(): string {
  const r = spawnSync("nvidia-smi", ["-q"], { encoding: "utf8", timeout: 30_000, maxBuffer: 64 * 1024 * 1024 });
  const e = r.error as NodeJS.ErrnoException | undefined;
  if (e?.code === "ENOENT") {
    throw new SuiteError(`gpucheck: suite auto: no GPU on this node (nvidia-smi is not on PATH): no built-in suite fits; run it on a GPU node, or ${nameOne}`);
  }
  if (e) throw new SuiteError(`gpucheck: suite auto: nvidia-smi -q could not run (${e.message}): no built-in suite chosen; ${nameOne}`);
  if (r.status !== 0) {
    const said =
      `${r.stdout ?? ""}\n${r.stderr ?? ""}`
        .split("\n")
        .find((l) => l.trim())
        ?.trim() ?? "no output";
    throw new SuiteError(`gpucheck: suite auto: nvidia-smi -q failed (exit ${r.status}: ${said}): no built-in suite chosen; check the GPU driver, or ${nameOne}`);
  }
  return r.stdout;
}

/** The suite `auto` stands for on this node, and the line saying why. */
export function autoSuite(query: () => string = queryThisNode): AutoChoice {
  return chooseSuite(nodeGpus(query()));
}
