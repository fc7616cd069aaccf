// --json on validate, list, keygen, certify, verify and judge: one JSON document on stdout with the
// field names docs/running.md documents; errors stay on stderr with the same exit codes.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { serialiseResults } from "../../lib/report/results.ts";
import { FIXTURES } from "../fixtures/results/fixtures.ts";
import { resultsCopy, tmp } from "../sign/keys-fixture.ts";
import { gpucheckRun } from "./cli.ts";
import { removeAfterRun, tempDir } from "../tmp.ts";

const SLOW = 60_000;
const run = (...args: string[]) => gpucheckRun(args, { cwd: tmp() });

test(
  "validate --json: the suite, its tests, no warnings",
  async () => {
    const r = await run("validate", "cpu-smoke", "--json");
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect({ ...doc, sha256: "" }).toEqual({
      valid: true,
      path: "builtin:cpu-smoke.yaml",
      sha256: "",
      name: "cpu-smoke",
      platform: "local",
      extends: [],
      tests: [
        { name: "inventory", kind: "inventory", nodes: 1, gpusPerNode: 0 },
        { name: "allreduce-gloo", kind: "collective", nodes: 1, gpusPerNode: 0 },
        { name: "resnet18-fashionmnist", kind: "train", nodes: 1, gpusPerNode: 0 },
      ],
      warnings: [],
    });
    expect(doc.sha256).toMatch(/^[0-9a-f]{64}$/);
  },
  SLOW,
);

test(
  "validate --json on a bad suite: nothing on stdout, the problems on stderr, exit 2",
  async () => {
    const dir = tempDir("gpucheck-json-");
    writeFileSync(join(dir, "bad.yaml"), "name: bad\ntests:\n  - { name: t, kind: colective }\n");
    const r = await gpucheckRun(["validate", "bad.yaml", "--json"], { cwd: dir });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toStartWith('bad.yaml:3:22: invalid kind "colective": did you mean "collective"?\n');
  },
  SLOW,
);

test(
  "list --json: each metric's unit, direction and description, and the telemetry metrics",
  async () => {
    const r = await run("list", "--json");
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    const train = doc.kinds.find((k: { kind: string }) => k.kind === "train");
    expect(train.metrics[0]).toEqual({
      name: "samples_per_s",
      unit: "samples/s",
      better: "higher",
      description: "training throughput of the whole job after warm-up (images/s for ResNet)",
      total: "job",
    });
    expect(doc.kinds[0].metrics[0]).toMatchObject({ name: "busbw", unit: "GB/s", better: "higher", perSize: true });
    expect(doc.telemetry.map((m: { name: string }) => m.name)).toEqual([
      "gpu_temp_max",
      "gpu_power_max",
      "gpu_util_mean",
      "xid_hardware",
      "xid_application",
      "xid_events",
      "throttle_hw",
      "throttle_sw_thermal",
      "throttle_sw_power_cap",
      "throttle_events",
      "sm_clock_min_mhz",
      "ib_link_downed",
      "ib_port_errors",
      "nvlink_errors",
    ]);
    expect(doc.telemetry[0]).toEqual({ name: "gpu_temp_max", unit: "C", better: "lower", description: "highest GPU temperature seen" });
  },
  SLOW,
);

test(
  "list: one line per metric with its unit and which way is better",
  async () => {
    const r = await run("list");
    expect(r.stdout).toContain("\n  time_us                  us         lower is better   time per operation (per message size: time_us@1GiB)\n");
    expect(r.stdout).toContain(
      "\nTelemetry metrics (collected on every node during any test; thresholds allowed on every kind):\n  gpu_temp_max             C          lower is better   highest GPU temperature seen\n",
    );
    expect(r.stdout).toContain("\n  loss_end                 -          lower is better   loss of the last step\n");
  },
  SLOW,
);

describe("keygen, certify, verify --json", () => {
  test(
    "each prints one document; a tampered run is valid: false with the reason, exit 1",
    async () => {
      const keys = join(tmp(), "keys");
      const kg = await run("keygen", "--out", keys, "--json");
      expect(kg.stderr).toBe("");
      expect(kg.status).toBe(0);
      const k = JSON.parse(kg.stdout);
      expect(k).toEqual({ privateKey: join(keys, "gpucheck.key"), publicKey: join(keys, "gpucheck.pub"), fingerprint: expect.stringMatching(/^SHA256:/), algorithm: "ed25519" });

      const dir = resultsCopy("h100-2node-failing");
      const cf = await run("certify", dir, "--key", k.privateKey, "--json");
      expect(cf.status).toBe(0);
      expect(JSON.parse(cf.stdout)).toEqual({
        certificate: join(dir, "certificate.intoto.json"),
        testResult: join(dir, "certificate.test-result.intoto.json"),
        html: join(dir, "certificate.html"),
        md: join(dir, "certificate.md"),
        fingerprint: k.fingerprint,
        algorithm: "ed25519",
        suite: "h100-2node",
        cluster: "acme-h100-a",
        outcome: "error",
        verdict: "ERROR",
        complete: true,
      });

      const cert = join(dir, "certificate.intoto.json");
      const ok = await run("verify", cert, "--key", k.publicKey, "--results", dir, "--json");
      expect(ok.status).toBe(0);
      const v = JSON.parse(ok.stdout);
      expect({ valid: v.valid, certificate: v.certificate, signer: v.signer, files: v.files }).toEqual({
        valid: true,
        certificate: cert,
        signer: { fingerprint: k.fingerprint, algorithm: "ed25519" },
        files: { checked: true, dir, matched: ["results.json", "junit.xml", "suite.yaml"] },
      });
      expect(v.predicate.suite.name).toBe("h100-2node");
      expect(v.predicate.outcome).toBe("error");

      writeFileSync(join(dir, "junit.xml"), "<testsuites/>\n");
      const bad = await run("verify", cert, "--key", k.publicKey, "--results", dir, "--json");
      expect(bad.status).toBe(1);
      const b = JSON.parse(bad.stdout);
      expect(b).toMatchObject({ valid: false, certificate: cert, reason: "digest-mismatch", file: "junit.xml" });
      expect(bad.stderr).toBe(`gpucheck: certificate "${cert}" is NOT valid: ${b.message}\n`);
    },
    SLOW,
  );
});

test(
  "judge --json: the new directory, the outcome and each test's, exit as the verdict",
  async () => {
    const dir = tempDir("gpucheck-json-");
    writeFileSync(join(dir, "results.json"), serialiseResults(FIXTURES.passing()));
    const suite = removeAfterRun(join(dir, "..", `${dir.split("/").pop()}-other.yaml`));
    writeFileSync(
      suite,
      "name: other\nplatform:\n  type: local\ntests:\n  - name: nvlink-allreduce\n    kind: collective\n    gpusPerNode: 8\n    collective: { op: all_reduce, minBytes: 8, maxBytes: 8G }\n    expect:\n      busbw: { min: 100000 GB/s }\n",
    );
    const out = removeAfterRun(`${dir}-judged`);
    const r = await gpucheckRun(["judge", dir, "--suite", suite, "--out", out, "--json"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('gpucheck: note: test "resnet18-fashionmnist" is not in suite "other"');
    const doc = JSON.parse(r.stdout);
    expect(doc).toEqual({
      judged: dir,
      suite,
      out,
      outcome: "failed",
      complete: true,
      files: ["results.json", "junit.xml", "report.html"],
      notes: doc.notes,
      tests: [
        { name: "nvlink-allreduce", kind: "collective", outcome: "failed" },
        { name: "resnet18-fashionmnist", kind: "train", outcome: "passed" },
        { name: "inventory", kind: "inventory", outcome: "passed" },
      ],
    });
    expect(doc.notes[0]).toStartWith('test "resnet18-fashionmnist" is not in suite "other"');
  },
  SLOW,
);
