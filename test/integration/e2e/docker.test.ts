// cpu-smoke in a real container on a real local engine, through the binary, as the user runs it.
import { describe, expect, test } from "bun:test";
import { execSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runLabel } from "../../../plugins/docker.ts";
import { assertJunitValid } from "../../report/xsd.ts";
import { gpucheck, gpucheckAsync, tempDir } from "../../e2e/cli.ts";

const INFRA = (process.env.GPUCHECK_INFRA ?? "").split(",");
const IMAGE = process.env.GPUCHECK_TEST_IMAGE ?? "gpucheck-test/torch-cpu:bookworm";
// the same tests on Docker Engine and on podman's Docker-compatible API, chosen by DOCKER_HOST
const ENGINES = { docker: "unix:///var/run/docker.sock", podman: "unix:///run/podman/podman.sock" };

for (const [engine, socket] of Object.entries(ENGINES)) {
  const env = { DOCKER_HOST: socket };
  /** containers of the run whose results go to `out` (other runs may share the engine) */
  const containers = (out: string) => execSync(`docker ps -aq --filter label=gpucheck.run=${runLabel(out)}`, { encoding: "utf8", env: { ...process.env, ...env } }).trim();

  describe.skipIf(!INFRA.includes(engine))(`docker platform end to end on ${engine}`, () => {
    // ResNet-18 trains in Docker Engine's container; on podman's API (the same containers through another
    // engine) the inventory and the all-reduce prove the launch, about 30 s less of CI
    const only = engine === "podman" ? ["--only", "inventory,allreduce-gloo"] : [];
    test(`gpucheck suite cpu-smoke${only.length ? " (inventory, all-reduce)" : ""} --platform docker passes in a real container`, () => {
      const out = tempDir("docker-smoke");
      const r = gpucheck(["suite", "cpu-smoke", ...only, "--platform", "docker", "--image", IMAGE, "--python", "/usr/bin/python3", "--out", out, "--progress", "none"], {
        timeoutMs: 900_000,
        env,
      });
      expect(r.stdout).toContain("PASSED");
      expect(r.status).toBe(0);
      assertJunitValid(join(out, "junit.xml"));
      const res = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
      expect(res.platform).toBe("docker");
      const coll = res.tests.find((t: { kind: string }) => t.kind === "collective");
      expect(coll.units[0].measurement.metrics.busbw).toBeGreaterThan(0);
      const train = res.tests.find((t: { kind: string }) => t.kind === "train");
      if (only.length) expect(train).toBeUndefined();
      else expect(train.units[0].measurement.metrics.samples_per_s).toBeGreaterThan(0);
      // the inventory came from inside the container: Debian's torch, not the host's
      expect(res.inventory[0].torch).toBeString();
      expect(containers(out)).toBe("");
    }, 900_000);

    test("Ctrl-C during a containerised run removes every container of the run", async () => {
      const out = tempDir("docker-sigint");
      const run = gpucheckAsync(
        ["suite", "cpu-smoke", "--only", "resnet18-fashionmnist", "--platform", "docker", "--image", IMAGE, "--python", "/usr/bin/python3", "--out", out, "--progress", "plain"],
        { env },
      );
      const deadline = Date.now() + 120_000;
      // rank 0 prints the results; once it speaks, every rank is up
      while (!/rank 0\]|latest /.test(run.output()) && Date.now() < deadline) await Bun.sleep(250);
      expect(containers(out)).not.toBe("");
      run.child.kill("SIGINT");
      expect(await run.exited).toBe(130);
      expect(containers(out)).toBe("");
      const res = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
      expect(res.tests[0].units[0].status).toBe("cancelled");
      assertJunitValid(join(out, "junit.xml"));
    }, 300_000);
  });
}
