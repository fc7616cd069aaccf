import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PREDICATE_TYPE, STATEMENT_TYPE } from "../../lib/sign/predicate.ts";
import { acceptancePredicate } from "../../lib/sign/predicate-schema.ts";
import { buildStatement, redactPaths } from "../../lib/sign/statement.ts";
import type { ResultsFile } from "../../lib/core/types.ts";
import { SIGN } from "./keys-fixture.ts";

const load = (name: string): ResultsFile => JSON.parse(readFileSync(join(SIGN, name, "results.json"), "utf8"));
const subjects = [
  { name: "results.json", sha256: "a".repeat(64) },
  { name: "junit.xml", sha256: "b".repeat(64) },
  { name: "suite.yaml", sha256: "c".repeat(64) },
];
const meta = { certifiedAt: "2025-03-04T09:15:00.000Z", gpucheckVersion: "0.1.0" };

describe("buildStatement", () => {
  const st = buildStatement(load("h100-2node"), subjects, meta);

  test("is an in-toto Statement v1 naming each file by its digest", () => {
    expect(st._type).toBe(STATEMENT_TYPE);
    expect(st.predicateType).toBe(PREDICATE_TYPE);
    expect(st.subject).toEqual(subjects.map((s) => ({ name: s.name, digest: { sha256: s.sha256 } })));
  });

  test("the predicate records the run, every node and GPU, and each test with its thresholds", () => {
    const p = st.predicate;
    expect(acceptancePredicate.parse(p)).toEqual(p);
    expect(p.cluster).toBe("acme-h100-a");
    expect(p.outcome).toBe("passed");
    expect(p.complete).toBe(true);
    expect(p.suite).toEqual({
      name: "h100-2node",
      description: "Two-node H100 acceptance (NVLink + InfiniBand)",
      file: "suite.yaml",
      sha256: load("h100-2node").suite.sha256,
    });
    expect(p.platform).toBe("slurm");
    expect([p.startedAt, p.endedAt, p.certifiedAt]).toEqual(["2025-03-04T09:00:00.000Z", "2025-03-04T09:12:04.000Z", "2025-03-04T09:15:00.000Z"]);
    expect(p.gpucheck).toEqual({ ran: "0.1.0", certified: "0.1.0" });
    expect(p.nodes.map((n) => n.hostname)).toEqual(["gpu-a01", "gpu-a02"]);
    expect(p.nodes[1]).toMatchObject({ driver: "550.90.07", cuda: "12.4", nccl: "2.21.5", torch: "2.4.0+cu124" });
    expect(p.nodes[1].gpus).toHaveLength(8);
    expect(p.nodes[1].gpus[3]).toEqual({ index: 3, name: "NVIDIA H100 80GB HBM3", uuid: "GPU-133c1a2b-7d4e-5f60-8a9b-0c1d2e3f4a13", serial: "165492301312" });
    expect(p.tests.map((t) => [t.name, t.outcome, t.units.map((u) => u.headline)])).toEqual([
      ["inventory", "passed", [8, 8]],
      ["nccl-allreduce-node", "passed", [478.2, 481]],
      ["nccl-allreduce", "passed", [371.4]],
      ["train-resnet50", "passed", [23817.6]],
    ]);
    expect(p.tests[2].thresholds).toEqual([{ metric: "busbw", unit: "GB/s", min: 360, text: "busbw >= 360 GB/s" }]);
    expect(p.tests[2].units[0].checks[0]).toEqual({
      metric: "busbw",
      expectation: "busbw >= 360 GB/s",
      measured: 371.4,
      expected: 360,
      unit: "GB/s",
      ok: true,
      message: "busbw 371.4 GB/s at 8 GiB ≥ 360 GB/s expected (+3%)",
    });
  });

  test("carries no command line, log tails, environment, extra inventory or private paths", () => {
    const text = JSON.stringify(st);
    for (const leak of ["/home/alice", "gpucheck.key", "HF_TOKEN", "hf_SECRET", "rank 0: done", "logs/", "ib_ports", "kernel", "memory_total_mib", "venv", "command", "tail"]) {
      expect(text).not.toContain(leak);
    }
  });

  test("paths in failure reasons are cut to their file name", () => {
    const p = buildStatement(load("h100-2node-failing"), subjects, meta).predicate;
    expect(p.outcome).toBe("error");
    expect(p.tests[3].units[0]).toMatchObject({ outcome: "error", headline: null, reason: "timed out after 10m (log: …/rank0.log)" });
    expect(p.tests[1].units[1]).toMatchObject({ outcome: "failed", headline: 402.7, reason: "busbw 402.7 GB/s at 8 GiB < 450 GB/s expected (-11%)" });
    expect(JSON.stringify(p)).not.toContain("/scratch");
  });

  test("a host that ran a test but sent no inventory is still listed", () => {
    const r = load("h100-2node");
    r.inventory = r.inventory.slice(0, 1);
    const p = buildStatement(r, subjects, meta).predicate;
    expect(p.nodes.map((n) => [n.hostname, n.gpus.length, n.driver])).toEqual([
      ["gpu-a01", 8, "550.90.07"],
      ["gpu-a02", 0, null],
    ]);
  });

  test("an interrupted run says so, and a missing suite cluster is null", () => {
    const r = load("h100-2node");
    r.complete = false;
    r.endedAt = null;
    delete r.suite.cluster;
    const p = buildStatement(r, subjects, meta).predicate;
    expect([p.complete, p.endedAt, p.cluster]).toEqual([false, null, null]);
    expect(acceptancePredicate.safeParse(p).success).toBe(true);
  });

  test("is a pure function of its inputs", () => {
    expect(JSON.stringify(buildStatement(load("h100-2node"), subjects, meta))).toBe(JSON.stringify(st));
  });
});

describe("redactPaths", () => {
  test.each([
    ["rank 3 exited 1: /home/alice/venv/bin/python3: No module named torch", "rank 3 exited 1: …/python3: No module named torch"],
    ["see ~/gpucheck/logs/rank0.log", "see …/rank0.log"],
    // a space ends the match: the directories are gone, which is what matters
    ["(log: /scratch/alice/a b.log)", "(log: …/a b.log)"],
    ["busbw 402.7 GB/s < 450 GB/s", "busbw 402.7 GB/s < 450 GB/s"],
    ["N/A and 1/2 and µs/step", "N/A and 1/2 and µs/step"],
    ["see https://gpucheck.dev/acceptance/v1 for the format", "see https://gpucheck.dev/acceptance/v1 for the format"],
    ["logs/train/rank0.log is relative", "logs/train/rank0.log is relative"],
  ])("%s", (input, output) => {
    expect(redactPaths(input)).toBe(output);
  });
});
