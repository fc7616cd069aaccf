// report.html's per-component table of a unit: each part (GPU, CPU rank) with its own values, its
// ratio to the median where an outlier rule judged it, and its verdict, so the part to replace is
// one row, not a line in a details string.
import type { Check, ComponentValues, UnitResult } from "../core/types.ts";
import { partChecks, partOutcome } from "../assess/part-checks.ts";
import { partKey, partName } from "../core/parts.ts";
import { escapeText as h } from "../core/xml.ts";
import { partAmount } from "../assess/components.ts";

/** "" when the unit measured no part on its own. `units`: each per-component metric's unit (the kind's componentMetrics). */
export function componentTable(u: UnitResult, units: Record<string, string>): string {
  const parts = u.measurement?.components ?? [];
  if (parts.length === 0) return "";
  const metrics = [...new Set(parts.flatMap((c) => Object.keys(c.metrics)))];
  const judged = new Map(partChecks(u).map((p) => [partKey(p.part), p.checks]));
  // the ratio column only for metrics an outlier rule compared
  const ratioOf = (checks: Check[] | undefined, metric: string) => {
    const c = checks?.find((k) => k.metric === metric && "outlier" in k && k.outlier);
    return c && "outlier" in c ? c.outlier?.ratio : undefined;
  };
  const compared = metrics.filter((m) => parts.some((c) => ratioOf(judged.get(partKey(c.part)), m) !== undefined));
  const head = ["part", ...metrics, ...compared.map((m) => `${m} / median`), "verdict"].map((x) => `<th>${h(x)}</th>`).join("");
  const rows = parts.map((c) => {
    const checks = judged.get(partKey(c.part));
    const outcome = checks ? partOutcome(checks) : undefined;
    const value = (m: string) => {
      const v = c.metrics[m];
      return typeof v === "number" ? partAmount(v, units[m] ?? "") : `unmeasured: ${c.unmeasured?.[m] ?? "not reported"}`;
    };
    const ratio = (m: string) => {
      const r = ratioOf(checks, m);
      return r === undefined ? "—" : r.toFixed(3);
    };
    const cells = [
      `<td>${h(partName(c.part))}</td>`,
      ...metrics.map((m) => `<td class="num">${h(value(m))}</td>`),
      ...compared.map((m) => `<td class="num">${h(ratio(m))}</td>`),
      `<td>${outcome ? `<span class="badge ${outcome}">${outcome.toUpperCase()}</span>${why(c, checks)}` : "not judged"}</td>`,
    ];
    return `<tr${outcome ? ` data-outcome="${outcome}"` : ""}>${cells.join("")}</tr>`;
  });
  return `<table class="verdicts components"><tr>${head}</tr>${rows.join("")}</table>`;
}

/** What the part's failed checks rest on (DCGM's code and text for that GPU), under its verdict. */
function why(c: ComponentValues, checks: Check[] | undefined): string {
  const failed = new Set((checks ?? []).filter((k) => !k.ok).map((k) => k.metric));
  const lines = Object.entries(c.details ?? {}).filter(([m]) => failed.has(m));
  return lines.map(([, text]) => `<div class="part-why">${h(text)}</div>`).join("");
}
