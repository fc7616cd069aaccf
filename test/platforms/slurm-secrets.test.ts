// A test's secrets on the slurm platform (lib/core/redact.ts): not written into the batch script
// (a file gpucheck keeps and sbatch copies) and not on sbatch's command line, but given to sbatch in
// its environment with --export=ALL; the script checks each arrived. Through the fake Slurm, whose
// sbatch hands the job the environment it was given, as Slurm's --export=ALL does.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { slurm } from "../../plugins/slurm.ts";
import { runSlurm } from "../../plugins/slurm/run.ts";
import { FakeSlurm } from "../fakes/fake-slurm.ts";
import { scriptTest } from "./conformance.ts";
import { slurmContext } from "./slurm-context.ts";
import { PY } from "./fake-slurm-platform.ts";
import { tempDir } from "../tmp.ts";

const SECRET = `slurm-secret-${crypto.randomUUID()}`;
const sha = (v: string) => createHash("sha256").update(v).digest("hex");
const CODE = "import hashlib, os; print('SEEN', hashlib.sha256(os.environ['API_TOKEN'].encode()).hexdigest(), os.environ['NCCL_DEBUG'])";

function secretTest() {
  const t = scriptTest("sec", PY, CODE, { nodes: 2, ranksPerNode: 1, env: { API_TOKEN: SECRET, NCCL_DEBUG: "INFO" } });
  return { ...t, launch: { ...t.launch, secret: ["API_TOKEN"] } };
}

describe("slurm: secrets in sbatch's environment, not in the script", () => {
  test("the rendered script names the secret and checks it arrived, without its value; the others are exported as before", () => {
    const ctx = slurmContext(secretTest(), { settings: { stageDir: tempDir("gpucheck-slurm-sec-stage-") } });
    const script = slurm.render(ctx).script;
    expect(script).not.toContain(SECRET);
    expect(script).toContain(`export NCCL_DEBUG="INFO"`);
    expect(script).toContain(
      `# the test's secrets, given to sbatch in its environment (--export=ALL) rather than written here\n[ -n "\${API_TOKEN+x}" ] || { echo "gpucheck: API_TOKEN did not reach the job: sbatch was given it in its environment (--export=ALL)" >&2; exit 1; }\n`,
    );
  });

  test("a run: the ranks get the value; job.sbatch and sbatch's argv hold none", async () => {
    const fake = new FakeSlurm();
    const ctx = slurmContext(secretTest(), { settings: { stageDir: tempDir("gpucheck-slurm-sec-stage-") } });
    const units = await runSlurm(ctx, fake);
    expect(units.map((u) => [u.status, u.message ?? ""])).toEqual([["completed", ""]]);
    expect(units[0]!.output).toContain(`SEEN ${sha(SECRET)} INFO`);
    const sbatch = fake.calls.find((c) => c[0] === "sbatch")!;
    expect(sbatch).toEqual(["sbatch", "--parsable", expect.stringMatching(/^--comment=gpucheck run /), "--export=ALL", "job.sbatch"]);
    expect(readFileSync(join(ctx.logDir, "job.sbatch"), "utf8")).not.toContain(SECRET);
  });

  test("the secret missing from the job's environment (an sbatch that did not pass it on): the job stops, saying which", async () => {
    const fake = new FakeSlurm();
    // a door that drops what sbatch was given, as a site's sbatch wrapper with --export=NONE would
    const dropping = { exec: (argv: string[], opts: { cwd?: string } = {}) => fake.exec(argv, { cwd: opts.cwd }) };
    const ctx = slurmContext(secretTest(), { settings: { stageDir: tempDir("gpucheck-slurm-sec-stage-") } });
    const saved = process.env.API_TOKEN;
    delete process.env.API_TOKEN;
    try {
      const units = await runSlurm(ctx, dropping);
      expect(units[0]!.status).toBe("infra");
      expect(units[0]!.message).toMatch(/^job \d+ ended FAILED before its step on node1,node2 reported$/);
      const batch = readdirSync(ctx.logDir).find((f) => /^slurm-\d+\.out$/.test(f))!;
      expect(readFileSync(join(ctx.logDir, batch), "utf8")).toBe("gpucheck: API_TOKEN did not reach the job: sbatch was given it in its environment (--export=ALL)\n");
      expect(units[0]!.output).not.toContain("SEEN");
    } finally {
      if (saved !== undefined) process.env.API_TOKEN = saved;
    }
  });
});
