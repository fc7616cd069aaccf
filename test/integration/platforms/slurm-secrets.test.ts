// A test's secrets on a real Slurm (test/infra/slurm.sh): given to sbatch in its environment with
// --export=ALL, never written into job.sbatch nor put on a command line, and they reach every rank;
// --export=ALL on sbatch's command line wins over an SBATCH_EXPORT=NONE in the operator's environment.
import { afterEach, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { systemIo } from "../../../plugins/slurm/cli.ts";
import { runSlurm } from "../../../plugins/slurm/run.ts";
import { scriptTest } from "../../platforms/conformance.ts";
import { slurmContext } from "../../platforms/slurm-context.ts";

const enabled = (process.env.GPUCHECK_INFRA ?? "").split(",").includes("slurm");
const SECRET = `slurm-secret-${crypto.randomUUID()}`;
const sha = (v: string) => createHash("sha256").update(v).digest("hex");
const saved = process.env.SBATCH_EXPORT;
afterEach(() => {
  if (saved === undefined) delete process.env.SBATCH_EXPORT;
  else process.env.SBATCH_EXPORT = saved;
});

(enabled ? test : test.skip)(
  "2 nodes: every rank gets the secret, job.sbatch holds none of it, SBATCH_EXPORT=NONE notwithstanding",
  async () => {
    process.env.SBATCH_EXPORT = "NONE";
    const code = "import hashlib, os; print('SEEN', os.environ['GPUCHECK_NODE'], hashlib.sha256(os.environ['API_TOKEN'].encode()).hexdigest(), flush=True)";
    const t = scriptTest("sec", "/usr/bin/python3", code, { nodes: 2, ranksPerNode: 1, env: { API_TOKEN: SECRET } });
    const ctx = slurmContext({ ...t, launch: { ...t.launch, secret: ["API_TOKEN"] } });
    expect(process.env.API_TOKEN).toBeUndefined();
    const units = await runSlurm(ctx, systemIo);
    expect(units.map((u) => [u.status, u.message ?? ""])).toEqual([["completed", ""]]);
    // each rank's own log
    expect(units[0]!.ranks.map((r) => readFileSync(r.path, "utf8").trim())).toEqual([`SEEN node1 ${sha(SECRET)}`, `SEEN node2 ${sha(SECRET)}`]);
    expect(readFileSync(join(ctx.logDir, "job.sbatch"), "utf8")).not.toContain(SECRET);
  },
  120_000,
);
