// A dcgm run whose GPU fails DCGM's diagnostic, through every output: the GPU's own verdict carries
// DCGM's DCGM_FR code and text (not only a count) in the summary, its JUnit testcase, report.html's
// per-component table and the certificate's "Parts that failed". The measurement is the real DCGM
// 4.2.3 capture test/fixtures/dcgm/dcgm-4.2.3-gb10-level1-persistence-fail.json read by the parser.
import { describe, expect, test as it } from "bun:test";
import { readFileSync } from "node:fs";
import type { Expectation } from "../../lib/core/types.ts";
import { dcgmMeasurement } from "../../lib/kinds/dcgm/parse.ts";
import { renderHtml } from "../../lib/report/html.ts";
import { renderJunit } from "../../lib/report/junit.ts";
import { renderSummary } from "../../lib/report/summary.ts";
import { certificateView } from "../../lib/sign/certificate-view.ts";
import { renderCertificateMd } from "../../lib/sign/certificate-md.ts";
import { buildStatement } from "../../lib/sign/statement.ts";
import { results, test } from "../fixtures/results/build.ts";
import { assertJunitTextValid } from "./junit-check.ts";

const text = readFileSync(new URL("../fixtures/dcgm/dcgm-4.2.3-gb10-level1-persistence-fail.json", import.meta.url), "utf8");
const doc = JSON.parse(text.slice(text.indexOf("{")));
const measurement = dcgmMeasurement(
  `GPUCHECK_RESULT ${JSON.stringify({ host: "gpu01", level: 1, exit_code: 226, stderr: "", document: doc, gpus: [{ index: 0, uuid: "GPU-5d2a0c1e-0000-1111-2222-333344445555", pci_bus_id: "0000000F:01:00.0" }] })}\n`,
);
const rule: Expectation = { metric: "dcgm_gpu_failures", unit: "count", max: 0, perComponent: true, text: "dcgm_gpu_failures: { max: 0 }" };
const run = () =>
  results([test("dcgm-diag", "dcgm", [rule], [{ unit: "gpu01", hosts: ["gpu01"], status: "completed", startS: 1, durationS: 30, measurement, tail: "", ranks: 1 }])]);
const GPU0 = "gpu01 GPU 0 (GPU-5d2a0c1e-0000-1111-2222-333344445555, 0000000F:01:00.0)";
const DCGM_TEXT =
  'software Fail — DCGM_FR_PERSISTENCE_MODE (29): Persistence Mode: Persistence mode for GPU 0 is disabled. Enable persistence mode by running "nvidia-smi -i <gpuId> -pm 1 " as root.';
const MESSAGE = `${GPU0}: dcgm_gpu_failures 1 > 0 expected (+1): ${DCGM_TEXT}`;

describe("dcgm: DCGM's own text on each failing GPU's verdict", () => {
  it("the GPU's check quotes DCGM_FR and DCGM's message", () => {
    const checks = run().tests[0]!.units[0]!.verdict.checks;
    expect(checks.map((c) => [c.ok, c.message])).toEqual([[false, MESSAGE]]);
  });

  it("the summary's failing components", () => {
    const s = renderSummary(run(), { color: false });
    expect(s.slice(s.indexOf("Failing components:")).split("\n").slice(0, 2)).toEqual(["Failing components:", `  dcgm-diag: failed: ${MESSAGE}`]);
  });

  it("JUnit: the GPU's own testcase fails with DCGM's text; valid against junit-10.xsd", () => {
    const xml = renderJunit(run());
    assertJunitTextValid(xml, "dcgm-parts.xml");
    const gpu = xml.slice(xml.indexOf('<testcase name="dcgm-diag [gpu01] GPU 0 0000000F:01:00.0"'));
    expect(gpu).toContain(
      `<failure message="${GPU0}: dcgm_gpu_failures 1 &gt; 0 expected (+1): software Fail — DCGM_FR_PERSISTENCE_MODE (29): Persistence Mode: Persistence mode for GPU 0 is disabled. Enable persistence mode by running &quot;nvidia-smi -i &lt;gpuId&gt; -pm 1 &quot; as root." type="threshold">`,
    );
  });

  it("report.html: the GPU's row says why under its verdict", () => {
    const html = renderHtml(run());
    const table = html.slice(html.indexOf('<table class="verdicts components">'), html.indexOf("</table>", html.indexOf('<table class="verdicts components">')));
    expect(table).toContain(
      `<td><span class="badge failed">FAILED</span><div class="part-why">software Fail — DCGM_FR_PERSISTENCE_MODE (29): Persistence Mode: Persistence mode for GPU 0 is disabled. Enable persistence mode by running "nvidia-smi -i &lt;gpuId&gt; -pm 1 " as root.</div></td>`,
    );
  });

  it("the certificate's parts that failed", () => {
    const s = buildStatement(run(), [], { certifiedAt: "2026-01-01T00:00:00Z", gpucheckVersion: "0.1.0" });
    const v = certificateView(s, { fingerprint: "SHA256:test", algorithm: "ed25519" });
    expect(v.parts).toEqual([expect.objectContaining({ part: GPU0, outcome: "FAILED", why: `dcgm_gpu_failures 1 > 0 expected (+1): ${DCGM_TEXT}` })]);
    expect(renderCertificateMd(v)).toContain(`| ${v.tests[0]!.name} | ${GPU0} | FAILED | dcgm_gpu_failures 1 > 0 expected (+1): software Fail — DCGM_FR_PERSISTENCE_MODE (29)`);
  });
});
