// The platform conformance suite (success, failure, timeout, Ctrl-C, hostile values) through the
// docker platform's own entry point and dockerode, against an in-process fake engine on a unix
// socket (test/fakes/fake-docker.ts) whose containers are local process groups. Images, pulls,
// GPUs, networks, podman's quirks and remote engines over ssh need the real engines
// (test/integration/platforms/docker*.test.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { docker } from "../../../plugins/docker.ts";
import { settings } from "../../../plugins/docker/spec.ts";
import type { Platform } from "../../../lib/core/platform.ts";
import { FakeDockerEngine } from "../../fakes/fake-docker.ts";
import { conformance, expectCompleted, runScript, scriptTest, type ConformanceTarget } from "../../platforms/conformance.ts";
import { localLeftovers } from "../../platforms/leftovers.ts";

const PY = "/usr/bin/python3";
const platform = docker as Platform<unknown>;
let engine: FakeDockerEngine;
beforeAll(async () => {
  engine = await FakeDockerEngine.start();
});
afterAll(() => engine.stop());

function target(): ConformanceTarget {
  return {
    python: PY,
    settings: settings.parse({ hosts: [engine.url], network: "none", ulimits: false, pull: "never", stopGraceS: 1 }),
    leftovers: async (marker) => [...(await localLeftovers(marker)), ...engine.leftovers()],
    slackS: 1,
    settleMs: 1500,
  };
}

conformance(platform, target);

describe("docker (fake engine): the workload inside the container", () => {
  test("the workload is unpacked at /opt/gpucheck and imported from there; the run's containers are removed", async () => {
    const code =
      "import os, gpucheck_workload; print('AT', os.getcwd() == os.path.dirname(os.path.dirname(gpucheck_workload.__file__)), os.environ['PYTHONPATH'].endswith('/opt/gpucheck'), flush=True)";
    const { units } = await runScript(platform, target(), scriptTest("stage", PY, code));
    expectCompleted(units[0]!);
    expect(units[0]!.output).toContain("AT True True");
    expect(engine.leftovers()).toEqual([]);
  }, 60_000);
});
