// Inventories as a node reports them, built from the real captures in workload/tests/fixtures by the
// workload's own Python parsers.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { toInventory } from "../../lib/kinds/inventory/parse.ts";
import type { NodeInventory } from "../../lib/core/types.ts";

const workload = join(import.meta.dir, "..", "..", "workload");
const fixtures = join(workload, "tests", "fixtures");
/** each capture set's report, parsed once per file: a Python start is most of a test's time */
const reports = new Map<string, string>();
let python: string | undefined;
/**
 * The interpreter `python3` on $PATH resolves to, asked once: a version manager's shim (pyenv) on
 * $PATH takes over a second to start on a loaded machine, every time. Its -S start skips site-packages,
 * which the parsers (standard library only) never need.
 */
function interpreter(): string {
  if (python) return python;
  const r = spawnSync("python3", ["-S", "-c", "import sys; print(sys.executable)"], { encoding: "utf8" });
  if (r.status !== 0 || !r.stdout.trim()) throw new Error(`test/parsers/_inventory.ts: python3 on $PATH did not say where it is (exit ${r.status}): ${r.stderr}`);
  python = r.stdout.trim();
  return python;
}

/**
 * An inventory as a node would report it, from captures: `-q` for the GPUs, `nvlink -s` (the 1-GPU
 * H100 capture repeated for each GPU index, when given), ibstat, and `nvidia-imex-ctl -N` when given.
 */
export function node(opts: { q: string; nvlink?: string | null; ibstat?: string; hostname?: string; imex?: string }): NodeInventory {
  const key = JSON.stringify(opts);
  // a fresh object each call: tests may change what they are given
  const known = reports.get(key);
  if (known !== undefined) return toInventory(JSON.parse(known));
  const script = `
import json, sys
sys.path.insert(0, ${JSON.stringify(workload)})
o = json.loads(sys.argv[1])
from gpucheck_workload import ib, imex, nvsmi
fx = lambda n: open(${JSON.stringify(fixtures)} + "/" + n).read()
driver, cuda, gpus = nvsmi.parse_query(fx(o["q"]))
nv = o.get("nvlink")
links = None
if nv:
    one = fx(nv)
    links = nvsmi.parse_nvlink_status("\\n".join(one.replace("GPU 0:", "GPU %d:" % g["index"]) for g in gpus))
for g in gpus:
    g["nvlinks"] = None if links is None else links.get(g["index"], [])
ibs = o.get("ibstat")
print(json.dumps({"hostname": o.get("hostname", "gpu01"), "gpus": gpus, "driver": driver, "cuda": cuda,
  "ib_ports": ib.parse_ibstat(fx(ibs)) if ibs else [], "xid_events": [],
  "imex": imex.parse(fx(o["imex"])) if o.get("imex") else None,
  "unmeasured": {} if nv else {"nvlinks": "nvidia-smi nvlink -s exited 255: Failed to get NVLink status"}}))
`;
  const r = spawnSync(interpreter(), ["-S", "-c", script, key], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(r.stderr);
  reports.set(key, r.stdout);
  return toInventory(JSON.parse(r.stdout));
}
