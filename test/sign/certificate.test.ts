import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { renderCertificateHtml } from "../../lib/sign/certificate-html.ts";
import { renderCertificateMd } from "../../lib/sign/certificate-md.ts";
import { certificateView } from "../../lib/sign/certificate-view.ts";
import { buildStatement } from "../../lib/sign/statement.ts";
import { withRemediations } from "../../lib/assess/remediation.ts";
import type { ResultsFile } from "../../lib/core/types.ts";
import { SIGN } from "./keys-fixture.ts";

const signer = { fingerprint: "SHA256:bbXpuKG6zhzdmnxq256TlqzFBzRl2f6OOg722cYNbU8", algorithm: "ed25519" as const };
const subjects = ["results.json", "junit.xml", "suite.yaml"].map((name, i) => ({ name, sha256: String(i).repeat(64) }));
const meta = { certifiedAt: "2025-03-04T09:15:00.000Z", gpucheckVersion: "0.1.0" };
const load = (name: string): ResultsFile => JSON.parse(readFileSync(join(SIGN, name, "results.json"), "utf8"));
const view = (r: ResultsFile) => certificateView(buildStatement(r, subjects, meta), signer);

describe("what the certificate says", () => {
  const v = view(load("h100-2node-failing"));

  test("the verdict, the cluster and the run", () => {
    expect(v.verdict).toBe("ERROR");
    expect(v.caveat).toBeNull();
    expect(v.cluster).toBe("acme-h100-a");
    expect(v.hardware).toBe("2 nodes, 16 GPUs (NVIDIA H100 80GB HBM3)");
    expect(v.run).toBe("2025-03-04 09:00:00 UTC → 2025-03-04 09:12:04 UTC (12m04s)");
    expect(v.certifiedAt).toBe("2025-03-04 09:15:00 UTC");
    expect(v.counts).toBe("4 tests: 2 passed, 1 failed, 1 error");
  });

  test("nodes with their GPU serials; alike nodes are described once", () => {
    expect(v.nodesAlike).toBe("8 × NVIDIA H100 80GB HBM3 · driver 550.90.07, CUDA 12.4, NCCL 2.21.5");
    expect(v.nodes[0]).toEqual({
      hostname: "gpu-a01",
      gpus: "8 × NVIDIA H100 80GB HBM3",
      serials: "165492300000 165492300137 165492300274 165492300311 165492300448 165492300585 165492300622 165492300759",
      versions: "driver 550.90.07, CUDA 12.4, NCCL 2.21.5",
    });
    const r = load("h100-2node");
    r.inventory[1].driver = "535.183.01";
    expect(view(r).nodesAlike).toBeNull();
  });

  test("each test's headline against its threshold, the worst unit first, and why it did not pass", () => {
    expect(v.tests).toEqual([
      { name: "inventory", outcome: "PASSED", measured: "gpu_count 8 (worst of 2: gpu-a01)", threshold: "gpu_count = 8", note: "", transport: "" },
      {
        name: "nccl-allreduce-node",
        outcome: "FAILED",
        measured: "busbw 402.7 GB/s (worst of 2: gpu-a02)",
        threshold: "busbw >= 450 GB/s",
        note: "gpu-a02: busbw 402.7 GB/s at 8 GiB < 450 GB/s expected (-11%)",
        transport: "",
      },
      { name: "nccl-allreduce", outcome: "PASSED", measured: "busbw 371.4 GB/s", threshold: "busbw >= 360 GB/s", note: "", transport: "" },
      { name: "train-resnet50", outcome: "ERROR", measured: "not measured", threshold: "samples_per_s >= 20000", note: "timed out after 10m (log: …/rank0.log)", transport: "" },
    ]);
  });

  test("a maximum threshold makes the highest value the worst", () => {
    const r = load("h100-2node");
    const t = r.tests[1];
    t.expect = [{ metric: "busbw", unit: "GB/s", max: 500, text: "busbw <= 500 GB/s" }];
    t.units.forEach((u) => (u.verdict.checks = []));
    expect(view(r).tests[1].measured).toBe("busbw 481 GB/s (worst of 2: gpu-a02)");
  });

  test("an interrupted run carries a caveat", () => {
    const r = load("h100-2node");
    r.complete = false;
    r.endedAt = null;
    const w = view(r);
    expect(w.caveat).toBe("INCOMPLETE: the run stopped early (interrupted, or --fail-fast); only the tests listed here finished");
    expect(w.run).toBe("2025-03-04 09:00:00 UTC → not finished");
  });

  test("the signer, the files and the commands that verify it", () => {
    expect(v.signer).toEqual({ fingerprint: signer.fingerprint, algorithm: "Ed25519" });
    expect(v.subjects.map((s) => s.name)).toEqual(["results.json", "junit.xml", "suite.yaml"]);
    expect(v.verify.gpucheck).toBe("gpucheck verify certificate.intoto.json --key gpucheck.pub --results .");
    expect(v.verify.cosign).toBe(
      "cosign verify-blob-attestation --key gpucheck.pub --signature certificate.intoto.json --type https://gpucheck.dev/acceptance/v1 --insecure-ignore-tlog results.json",
    );
  });

  test("the HTML and the Markdown both carry all of it", () => {
    const html = renderCertificateHtml(v);
    const md = renderCertificateMd(v);
    for (const text of [
      "acme-h100-a",
      "165492301760",
      "nccl-allreduce-node",
      "busbw 402.7 GB/s (worst of 2: gpu-a02)",
      signer.fingerprint,
      "2025-03-04 09:15:00 UTC",
      v.verify.gpucheck,
    ]) {
      expect(html).toContain(text);
      expect(md).toContain(text);
    }
    expect(html).toContain("busbw &gt;= 450 GB/s");
    expect(md).toContain(
      "| nccl-allreduce-node | FAILED | busbw 402.7 GB/s (worst of 2: gpu-a02) | busbw >= 450 GB/s | gpu-a02: busbw 402.7 GB/s at 8 GiB < 450 GB/s expected (-11%) |",
    );
    expect(html).toContain("@page { size: A4;");
    // nothing to fetch: the page is the same offline, in a ticket, years later
    expect(html).not.toMatch(/\b(src|href)=|url\(|@import/);
  });

  test("hostile names stay text", () => {
    const r = load("h100-2node");
    r.tests[0].name = "<img src=x onerror=alert(1)>|x\n| y";
    r.inventory[0].hostname = "`` ``` gpu";
    const w = view(r);
    const html = renderCertificateHtml(w);
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;|x");
    const md = renderCertificateMd(w);
    expect(md).toContain("| \\<img src=x onerror=alert(1)>\\|x \\| y | PASSED |");
  });
});

describe("the certificate's remediation table", () => {
  test("each missed check's remediation, by test and hosts, signed in the statement and shown in the Markdown and HTML", () => {
    const r = load("h100-2node-failing");
    // as the judge gives them (lib/assess/judge.ts): each missed check's remediation from the test's kind
    for (const t of r.tests) for (const u of t.units) u.verdict.checks = withRemediations(t.kind, u.verdict.checks, u.measurement);
    const statement = buildStatement(r, subjects, meta);
    const remedied = statement.predicate.tests.flatMap((t) => t.units.flatMap((u) => u.checks.filter((c) => c.remediation)));
    expect(remedied.length).toBeGreaterThan(0);
    const v = certificateView(statement, signer);
    expect(v.remediations.length).toBeGreaterThan(0);
    const first = v.remediations[0]!;
    expect(first.action.length).toBeGreaterThan(20);
    expect(renderCertificateMd(v)).toContain(`## Remediation`);
    expect(renderCertificateMd(v)).toContain(`| ${first.test} | ${first.hosts} | ${first.class} |`);
    expect(renderCertificateHtml(v)).toContain(`<h2>Remediation</h2>`);
  });
});
