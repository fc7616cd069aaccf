// cpu-smoke and its failure modes end to end on the local platform, as a user runs them.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { processesWithEnv } from "../../platforms/leftovers.ts";
import { assertJunitValid } from "../../report/xsd.ts";
import { assertCdxValid, assertCtrfValid, promtoolCheck } from "../../report/ecosystem-validators.ts";
import { fixture, gpucheck, gpucheckAsync, tempDir } from "../../e2e/cli.ts";

/** results.json of a run; its junit.xml must validate against junit-10.xsd whatever happened */
const readResults = (dir: string) => {
  assertJunitValid(join(dir, "junit.xml"));
  return JSON.parse(readFileSync(join(dir, "results.json"), "utf8"));
};

describe("local platform end to end", () => {
  test("cpu-smoke passes with non-zero bandwidth and throughput measured by 2 real ranks", async () => {
    const out = tempDir("smoke");
    const r = gpucheck(["suite", "cpu-smoke", "--python", "/usr/bin/python3", "--out", out, "--progress", "plain"]);
    expect(r.stderr + r.stdout).toContain("cpu-smoke");
    expect(r.status).toBe(0);
    const res = readResults(out);
    expect(res.complete).toBe(true);
    expect(res.outcome).toBe("passed");
    const coll = res.tests.find((t: { kind: string }) => t.kind === "collective");
    const train = res.tests.find((t: { kind: string }) => t.kind === "train");
    expect(coll.worldSize).toBe(2);
    expect(coll.units[0].measurement.metrics.busbw).toBeGreaterThan(0);
    expect(coll.units[0].measurement.metrics.wrong).toBe(0);
    expect(train.worldSize).toBe(2);
    expect(train.units[0].measurement.metrics.samples_per_s).toBeGreaterThan(0);
    expect(train.units[0].logs).toEqual(["logs/" + train.name + "/all/rank-0.log", "logs/" + train.name + "/all/rank-1.log"]);
    for (const f of ["junit.xml", "report.html", "suite.yaml", train.units[0].logs[1]]) expect(existsSync(join(out, f))).toBe(true);
    expect(res.inventory.length).toBeGreaterThan(0);
    expect(res.preflight).toMatchObject({ passed: true, nodes: [{ node: hostname(), passed: true, problems: [] }] });
    expect(await processesWithEnv(out)).toEqual([]);
  }, 600_000);

  test("an impossible threshold exits 1 and junit.xml names the metric and both values", () => {
    const out = tempDir("impossible");
    const r = gpucheck(["suite", fixture("impossible.yaml"), "--out", out, "--progress", "none"]);
    expect(r.status).toBe(1);
    readResults(out);
    const junit = readFileSync(join(out, "junit.xml"), "utf8");
    expect(junit).toMatch(/<failure [^>]*message="[^"]*busbw [\d.]+ GB\/s[^"]*100000 GB\/s/);
  }, 300_000);

  test("a rank that outlives its timeout is killed: exit 3, an error testcase, nothing left running", async () => {
    const out = tempDir("hang");
    const t0 = Date.now();
    const r = gpucheck(["suite", fixture("hang.yaml"), "--out", out, "--progress", "none"]);
    expect(r.status).toBe(3);
    expect(Date.now() - t0).toBeLessThan(60_000);
    const unit = readResults(out).tests[0].units[0];
    expect(unit.status).toBe("timeout");
    expect(unit.message).toMatch(/^timed out after 8s: killed rank 0 \(pid \d+\), rank 1 \(pid \d+\)$/);
    expect(readFileSync(join(out, "junit.xml"), "utf8")).toContain("<error ");
    expect(await processesWithEnv(out)).toEqual([]);
  }, 120_000);

  test("Ctrl-C stops the run, kills every rank and keeps results.json and junit.xml", async () => {
    const out = tempDir("sigint");
    const run = gpucheckAsync(["suite", fixture("interrupted.yaml"), "--out", out, "--progress", "plain"]);
    const deadline = Date.now() + 60_000;
    // rank 0 prints the table; once it speaks, every rank is up
    while (!/rank 0\]|latest /.test(run.output()) && Date.now() < deadline) await Bun.sleep(200);
    await Bun.sleep(500);
    run.child.kill("SIGINT");
    const code = await run.exited;
    expect(code).toBe(130);
    const res = readResults(out);
    expect(res.complete).toBe(false);
    expect(res.tests[0].units[0].status).toBe("cancelled");
    // the tests that never started are accounted for in every output
    const why = "not started: the run was interrupted (Ctrl-C or SIGTERM)";
    expect(res.tests.map((t: { name: string; outcome: string }) => `${t.name} ${t.outcome}`)).toEqual(["too-big error", "never-started skipped", "nor-this skipped"]);
    expect(res.tests[1].units[0].verdict.reason).toBe(why);
    const junit = readFileSync(join(out, "junit.xml"), "utf8");
    expect(junit).toContain('tests="3"');
    expect(junit).toContain(`<skipped message="${why}"`);
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain("never-started");
    expect(run.output()).toContain("Run incomplete: 1 test of 3 started before it stopped (interrupted by Ctrl-C or SIGTERM).");
    expect(res.stopped).toBe("interrupted by Ctrl-C or SIGTERM");
    expect(junit).toContain("\ninterrupted by Ctrl-C or SIGTERM: 1 of 3 tests started</system-out>");
    // the outputs beside junit.xml, checked by their own validators, never read the stopped run as green
    assertCtrfValid(join(out, "ctrf.json"));
    const ctrf = JSON.parse(readFileSync(join(out, "ctrf.json"), "utf8"));
    expect(ctrf.results.summary).toMatchObject({ tests: 3, passed: 0, failed: 1, skipped: 2, extra: { "gpucheck.outcome": "incomplete", "gpucheck.complete": false } });
    expect(ctrf.results.environment.healthy).toBe(false);
    assertCdxValid(join(out, "inventory.cdx.json"));
    expect(promtoolCheck(join(out, "metrics.prom"))).toEqual({ code: 0, out: "" });
    expect(readFileSync(join(out, "metrics.prom"), "utf8")).toContain('\ngpucheck_run_passed{suite="e2e-interrupted"} 0\n');
    expect(await processesWithEnv(out)).toEqual([]);
  }, 120_000);

  test("a missing data set is one line naming the files expected and where", () => {
    const out = tempDir("nodata");
    const r = gpucheck(["suite", fixture("missing-data.yaml"), "--out", out, "--progress", "none"]);
    expect(r.status).toBe(3);
    const unit = readResults(out).tests[0].units[0];
    expect(unit.message).toContain("/nonexistent/fashion-mnist");
    expect(unit.message).toContain("train-images-idx3-ubyte");
    expect(unit.message).not.toContain("Traceback");
    expect(unit.message.split("\n")).toHaveLength(1);
  }, 120_000);

  test("a Python without torch stops at preflight: one line naming the node, the interpreter and the fix", () => {
    const venv = tempDir("notorch");
    const mk = Bun.spawnSync(["/usr/bin/python3", "-m", "venv", "--without-pip", venv]);
    expect(mk.exitCode).toBe(0);
    const out = tempDir("notorch-out");
    const r = gpucheck(["suite", fixture("impossible.yaml"), "--python", `${venv}/bin/python3`, "--out", out, "--progress", "none"]);
    expect(r.status).toBe(3);
    const unit = readResults(out).tests[0].units[0];
    expect(unit.status).toBe("skipped");
    expect(unit.message).toBe(
      `preflight failed on ${hostname()}: PyTorch is not installed for ${venv}/bin/python3 (ModuleNotFoundError: No module named 'torch'), needed by allreduce-small: pass --python /path/to/python3 or set defaults.python in the suite`,
    );
  }, 120_000);

  test("a rank killed mid-run (kill -9) is an error with the log tail in junit.xml, exit 3", async () => {
    const out = tempDir("kill9");
    const run = gpucheckAsync(["suite", fixture("interrupted.yaml"), "--out", out, "--progress", "plain"]);
    const deadline = Date.now() + 60_000;
    let victim: string | undefined;
    while (!victim && Date.now() < deadline) {
      await Bun.sleep(300);
      victim = (await processesWithEnv(out)).map((l) => l.split(" ")[0]).find((pid) => readFileSync(`/proc/${pid}/environ`, "latin1").includes("\0RANK=1\0"));
    }
    expect(victim).toBeDefined();
    await Bun.sleep(1500);
    process.kill(Number(victim), "SIGKILL");
    const code = await run.exited;
    expect(code).toBe(3);
    const unit = readResults(out).tests[0].units[0];
    expect(unit.status).toBe("failed");
    expect(unit.message).toContain("rank 1");
    const junit = readFileSync(join(out, "junit.xml"), "utf8");
    expect(junit).toContain("<error ");
    expect(junit).toContain(`[${hostname()} rank 0]`);
    expect(await processesWithEnv(out)).toEqual([]);
  }, 120_000);
});
