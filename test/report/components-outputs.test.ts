// A gemm test whose GPU 3 is slow, through every output: JUnit's testcase per part (valid against
// junit-10.xsd), the summary's failing components, report.html's per-component table, the
// certificate's failing parts, and results.json read back through its schema.
import { describe, expect, test as it } from "bun:test";
import { renderJunit } from "../../lib/report/junit.ts";
import { renderSummary } from "../../lib/report/summary.ts";
import { renderHtml } from "../../lib/report/html.ts";
import { buildStatement } from "../../lib/sign/statement.ts";
import { acceptancePredicate } from "../../lib/sign/predicate-schema.ts";
import { certificateView } from "../../lib/sign/certificate-view.ts";
import { renderCertificateMd } from "../../lib/sign/certificate-md.ts";
import { renderCertificateHtml } from "../../lib/sign/certificate-html.ts";
import { ResultsFileSchema } from "../../lib/report/results-schema.ts";
import type { ComponentValues, Expectation, Measurement } from "../../lib/core/types.ts";
import { results, test } from "../fixtures/results/build.ts";
import { assertJunitTextValid } from "./junit-check.ts";

const gpu = (index: number, tflops: number): ComponentValues => ({
  part: { type: "gpu", host: "gpu-01", rank: index, index, uuid: `GPU-0000000${index}-aaaa-bbbb-cccc-dddddddddddd`, pciBusId: `00000000:${18 + index}:00.0` },
  metrics: { gemm_bf16_tflops: tflops, gemm_bf16_median: tflops - 20 },
});
const measurement: Measurement = { metrics: { gemm_bf16_tflops_min: 512.3 }, components: [gpu(0, 790), gpu(1, 800), gpu(2, 810), gpu(3, 512.3)] };
const rule: Expectation = {
  metric: "gemm_bf16_tflops",
  unit: "TFLOP/s",
  min: 700,
  perComponent: true,
  outlier: { side: "below", ratio: 0.93, over: "unit" },
  text: "gemm_bf16_tflops: min 700 TFLOP/s, outlier below 0.93",
};
const run = () => results([test("gemm", "gemm", [rule], [{ unit: "all", hosts: ["gpu-01"], status: "completed", startS: 1, durationS: 40, measurement, tail: "", ranks: 4 }])]);
const GPU3 = "gpu-01 GPU 3 (GPU-00000003-aaaa-bbbb-cccc-dddddddddddd, 00000000:21:00.0)";

describe("per-component outputs", () => {
  it("JUnit: the unit's testcase, then one per GPU under it, the slow one failing with its messages; valid against junit-10.xsd", () => {
    const xml = renderJunit(run());
    assertJunitTextValid(xml, "components.xml");
    const names = [...xml.matchAll(/<testcase name="([^"]+)"/g)].map((m) => m[1]);
    expect(names).toEqual([
      "gemm",
      "gemm [gpu-01] GPU 0 00000000:18:00.0",
      "gemm [gpu-01] GPU 1 00000000:19:00.0",
      "gemm [gpu-01] GPU 2 00000000:20:00.0",
      "gemm [gpu-01] GPU 3 00000000:21:00.0",
    ]);
    expect(xml).toContain('<testsuite name="h100-8x" tests="5" failures="2" errors="0"');
    const gpu3 = xml.slice(xml.indexOf('<testcase name="gemm [gpu-01] GPU 3'));
    expect(gpu3).toContain(
      `<failure message="${GPU3}: gemm_bf16_tflops 512.3 TFLOP/s &lt; 700 TFLOP/s expected (-27%); ${GPU3}: gemm_bf16_tflops 512.3 TFLOP/s is 0.640 × the median 800 TFLOP/s of 3 gpu parts:`,
    );
    expect(xml.slice(xml.indexOf('<testcase name="gemm [gpu-01] GPU 0'), xml.indexOf('<testcase name="gemm [gpu-01] GPU 1'))).not.toContain("<failure");
  });

  it("the summary lists the failing component after the failing hosts", () => {
    const text = renderSummary(run(), { color: false });
    const block = text.slice(text.indexOf("Failing components:"));
    expect(block.split("\n").slice(0, 2)).toEqual([
      "Failing components:",
      `  gemm: failed: ${GPU3}: gemm_bf16_tflops 512.3 TFLOP/s < 700 TFLOP/s expected (-27%); ${GPU3}: gemm_bf16_tflops 512.3 TFLOP/s is 0.640 × the median 800 TFLOP/s of 3 gpu parts: gpu-01 GPU 0 (GPU-00000000-aaaa-bbbb-cccc-dddddddddddd, 00000000:18:00.0), gpu-01 GPU 1 (GPU-00000001-aaaa-bbbb-cccc-dddddddddddd, 00000000:19:00.0), gpu-01 GPU 2 (GPU-00000002-aaaa-bbbb-cccc-dddddddddddd, 00000000:20:00.0) (< 0.93 expected)`,
    ]);
  });

  it("report.html: a row per part with its values, its ratio to the median and its verdict", () => {
    const html = renderHtml(run());
    const table = html.slice(html.indexOf('<table class="verdicts components">'), html.indexOf("</table>", html.indexOf('<table class="verdicts components">')));
    expect(table).toContain("<th>part</th><th>gemm_bf16_tflops</th><th>gemm_bf16_median</th><th>gemm_bf16_tflops / median</th><th>verdict</th>");
    expect(table).toContain(
      `<tr data-outcome="failed"><td>${GPU3}</td><td class="num">512.3 TFLOP/s</td><td class="num">492.3 TFLOP/s</td><td class="num">0.640</td><td><span class="badge failed">FAILED</span></td></tr>`,
    );
    expect(table.match(/badge passed/g)).toHaveLength(3);
  });

  it("the certificate's statement names the failing part and keeps each check's part", () => {
    const s = buildStatement(run(), [], { certifiedAt: "2026-01-01T00:00:00Z", gpucheckVersion: "0.1.0" });
    const unit = acceptancePredicate.parse(s.predicate).tests[0]!.units[0]!;
    expect(unit.failingParts).toEqual([
      {
        part: { type: "gpu", host: "gpu-01", rank: 3, index: 3, uuid: "GPU-00000003-aaaa-bbbb-cccc-dddddddddddd", pciBusId: "00000000:21:00.0" },
        outcome: "failed",
        messages: [
          `${GPU3}: gemm_bf16_tflops 512.3 TFLOP/s < 700 TFLOP/s expected (-27%)`,
          `${GPU3}: gemm_bf16_tflops 512.3 TFLOP/s is 0.640 × the median 800 TFLOP/s of 3 gpu parts: gpu-01 GPU 0 (GPU-00000000-aaaa-bbbb-cccc-dddddddddddd, 00000000:18:00.0), gpu-01 GPU 1 (GPU-00000001-aaaa-bbbb-cccc-dddddddddddd, 00000000:19:00.0), gpu-01 GPU 2 (GPU-00000002-aaaa-bbbb-cccc-dddddddddddd, 00000000:20:00.0) (< 0.93 expected)`,
        ],
      },
    ]);
    expect(unit.checks.every((c) => c.part !== undefined)).toBe(true);
    expect(acceptancePredicate.parse(s.predicate).tests[0]!.thresholds[0]!.outlier).toEqual({ side: "below", ratio: 0.93, over: "unit" });
  });

  it("the human-readable certificate lists the part to replace with why, in Markdown and HTML", () => {
    const s = buildStatement(run(), [], { certifiedAt: "2026-01-01T00:00:00Z", gpucheckVersion: "0.1.0" });
    const v = certificateView(s, { fingerprint: "SHA256:test", algorithm: "ed25519" });
    expect(v.parts).toHaveLength(1);
    expect(v.parts[0]).toMatchObject({ test: v.tests[0]!.name, part: GPU3, outcome: "FAILED" });
    // both checks' messages, without the part's name (it has its own column)
    expect(v.parts[0]!.why).toStartWith(
      "gemm_bf16_tflops 512.3 TFLOP/s < 700 TFLOP/s expected (-27%); gemm_bf16_tflops 512.3 TFLOP/s is 0.640 × the median 800 TFLOP/s of 3 gpu parts: gpu-01 GPU 0",
    );
    const md = renderCertificateMd(v);
    expect(md).toContain("## Parts that failed\n\n| Test | Part | Verdict | Why |");
    expect(md).toContain(`| ${v.tests[0]!.name} | ${GPU3} | FAILED | gemm_bf16_tflops 512.3 TFLOP/s < 700 TFLOP/s expected (-27%); gemm_bf16_tflops`);
    const html = renderCertificateHtml(v);
    expect(html).toContain("<h2>Parts that failed</h2>");
    expect(html).toContain(`<td class="mono small">${GPU3}</td><td class="bad">FAILED</td>`);
  });

  it("the certificate says when a figure came from CPU ranks, and not when it came from GPUs", () => {
    const cpu: ComponentValues[] = [0, 1].map((rank) => ({ part: { type: "cpu", host: "vm", rank, name: "AMD EPYC" }, metrics: { gemm_bf16_tflops: 0.005 } }));
    const cpuRun = results([
      test(
        "gemm",
        "gemm",
        [rule],
        [
          {
            unit: "all",
            hosts: ["vm"],
            status: "completed",
            startS: 1,
            durationS: 5,
            measurement: { metrics: { gemm_bf16_tflops_min: 0.005 }, components: cpu },
            tail: "",
            ranks: 2,
          },
        ],
      ),
    ]);
    const view = (r: typeof cpuRun) =>
      certificateView(buildStatement(r, [], { certifiedAt: "2026-01-01T00:00:00Z", gpucheckVersion: "0.1.0" }), { fingerprint: "SHA256:test", algorithm: "ed25519" });
    expect(view(cpuRun).tests[0]!.measured).toEndWith(" — measured on CPU ranks, not GPUs");
    expect(view(run()).tests[0]!.measured).not.toContain("CPU");
  });

  it("results.json with parts and components reads back through its schema", () => {
    const r = ResultsFileSchema.parse(JSON.parse(JSON.stringify(run())));
    expect(r.tests[0]!.units[0]!.measurement!.components).toHaveLength(4);
    expect(r.tests[0]!.units[0]!.verdict.checks[7]).toMatchObject({ part: { index: 3 }, outlier: { median: 800, ratio: 0.640375 } });
  });
});
