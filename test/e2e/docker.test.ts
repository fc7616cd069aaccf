// cpu-smoke in a real container on a real local engine, through the binary, as the user runs it.
import { describe, expect, test } from "bun:test";
import { execSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { assertJunitValid } from "../report/xsd.ts";
import { gpucheck, gpucheckAsync, tempDir } from "./cli.ts";

const ENABLED = (process.env.GPUCHECK_INFRA ?? "").split(",").includes("docker");
const IMAGE = process.env.GPUCHECK_TEST_IMAGE ?? "gpucheck-test/torch-cpu:bookworm";
const containers = () => execSync("docker ps -aq --filter label=gpucheck.run", { encoding: "utf8" }).trim();

describe.skipIf(!ENABLED)("docker platform end to end", () => {
  test("gpucheck suite cpu-smoke --platform docker passes in a real container", () => {
    const out = tempDir("docker-smoke");
    const r = gpucheck(["suite", "cpu-smoke", "--platform", "docker", "--image", IMAGE, "--python", "/usr/bin/python3", "--out", out, "--progress", "none"], { timeoutMs: 900_000 });
    expect(r.stdout).toContain("PASSED");
    expect(r.status).toBe(0);
    assertJunitValid(join(out, "junit.xml"));
    const res = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    expect(res.platform).toBe("docker");
    const coll = res.tests.find((t: { kind: string }) => t.kind === "collective");
    expect(coll.units[0].measurement.metrics.busbw).toBeGreaterThan(0);
    const train = res.tests.find((t: { kind: string }) => t.kind === "train");
    expect(train.units[0].measurement.metrics.samples_per_s).toBeGreaterThan(0);
    // the inventory came from inside the container: Debian's torch, not the host's
    expect(res.inventory[0].torch).toBeString();
    expect(containers()).toBe("");
  }, 900_000);

  test("Ctrl-C during a containerised run removes every container of the run", async () => {
    const out = tempDir("docker-sigint");
    const run = gpucheckAsync(["suite", "cpu-smoke", "--only", "resnet18-fashionmnist", "--platform", "docker", "--image", IMAGE, "--python", "/usr/bin/python3", "--out", out, "--progress", "plain"]);
    const deadline = Date.now() + 120_000;
    // rank 0 prints the results; once it speaks, every rank is up
    while (!/rank 0\]|latest /.test(run.output()) && Date.now() < deadline) await Bun.sleep(250);
    expect(containers()).not.toBe("");
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(130);
    expect(containers()).toBe("");
    const res = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    expect(res.tests[0].units[0].status).toBe("cancelled");
    assertJunitValid(join(out, "junit.xml"));
  }, 300_000);
});
