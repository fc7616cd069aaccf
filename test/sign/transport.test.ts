// NCCL's transport account in what people read: report.html per unit, the certificate per fabric test.
import { describe, expect, test } from "bun:test";
import { renderHtml } from "../../lib/report/html.ts";
import { renderCertificateHtml } from "../../lib/sign/certificate-html.ts";
import { renderCertificateMd } from "../../lib/sign/certificate-md.ts";
import { certificateView } from "../../lib/sign/certificate-view.ts";
import { acceptancePredicate } from "../../lib/sign/predicate-schema.ts";
import { buildStatement } from "../../lib/sign/statement.ts";
import { FIXTURES } from "../fixtures/results/fixtures.ts";

const results = FIXTURES.transport();
const IB = "8 × NET/IB, all GDRDMA · Ring and Tree connected · HCAs mlx5_0 · 2 nodes × 1 local ranks · NCCL 2.21.5+cuda12.4";
const SOCKETS = "14 × P2P/IPC · 2 × NET/Socket";

test("report.html: one transport line per collective unit, or why it is not known", () => {
  const html = renderHtml(results);
  expect(html).toContain(`<p class="muted transport">transport: ${IB}</p>`);
  expect(html).toContain(`<p class="muted transport">transport: ${SOCKETS}</p>`);
  expect(html).toContain(`<p class="muted transport">transport: not known: backend gloo: NCCL did not run</p>`);
  // other kinds have no transport line
  expect(renderHtml(FIXTURES.passing())).not.toContain("transport:");
});

describe("certificate", () => {
  const subjects = [{ name: "results.json", sha256: "0".repeat(64) }];
  const st = buildStatement(results, subjects, { certifiedAt: "2025-03-04T09:15:00.000Z", gpucheckVersion: "0.1.0" });
  const unit = (i: number) => st.predicate.tests[0].units[i];

  test("the predicate carries each unit's account and its transport checks apart from the numeric ones", () => {
    expect(acceptancePredicate.safeParse(st.predicate).success).toBe(true);
    expect(unit(0).transport).toBe(IB);
    expect(unit(2).transport).toBe("unmeasured: backend gloo: NCCL did not run");
    expect(unit(1).transportChecks).toEqual([
      {
        expectation: "transport: require NET/IB; forbid NET/Socket",
        used: ["P2P/IPC", "NET/Socket"],
        ok: false,
        message: "transport: P2P/IPC, NET/Socket used, NET/IB required, NET/Socket forbidden (connections: 14 × P2P/IPC, 2 × NET/Socket)",
      },
    ]);
    expect(unit(1).checks.every((c) => typeof c.expected === "number")).toBe(true);
    expect(st.predicate.tests[0].thresholds.at(-1)).toEqual({
      metric: "transport",
      unit: "",
      text: "transport: require NET/IB; forbid NET/Socket",
      transport: { require: ["NET/IB"], forbid: ["NET/Socket"] },
      min: undefined,
      max: undefined,
      at: undefined,
      baselineRatio: undefined,
    });
  });

  test("the views show the rule as a threshold and the account per node under the test", () => {
    const v = certificateView(st, { fingerprint: "SHA256:x", algorithm: "ed25519" });
    expect(v.tests[0].threshold).toBe("busbw >= 40 GB/s; transport: require NET/IB; forbid NET/Socket");
    expect(v.tests[0].transport).toBe(`gpu-01: ${IB}; gpu-02: ${SOCKETS}; gpu-03: unmeasured: backend gloo: NCCL did not run`);
    expect(renderCertificateHtml(v)).toContain(`<tr class="transport"><td></td><td colspan="3">transport: gpu-01: ${IB}; gpu-02:`);
    expect(renderCertificateMd(v)).toContain(`Transport, as NCCL reported it:\n\n- ib-allreduce: gpu-01: ${IB}; gpu-02:`);
  });
});
