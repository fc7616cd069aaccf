// `expect:` entries → Expectations in the metric's canonical unit. The metric must be one the
// test's kind produces, and a `@size` must be a size the sweep actually measures. The `transport`
// entry names transports instead of numbers (resolveTransport).
import type { AnyKind, Sound } from "../core/kind.ts";
import { findComponentMetric, findMetric, KIND_NAMES, KINDS, type KindName, metricsFor } from "../kinds/mod.ts";
import { toCanonical, TRANSPORT_TOKENS } from "../core/metrics.ts";
import type { PathKey, Problem, ThresholdInput } from "./schema.ts";
import { suggest } from "../core/did-you-mean.ts";
import type { Expectation, FleetRule, OutlierRule } from "../core/types.ts";
import { resolveOutlier } from "./outlier.ts";
import { resolveFleetRule } from "./fleet-rule.ts";
import { parseSize } from "../core/units.ts";

export function resolveExpect(
  entries: Record<string, ThresholdInput>,
  kindName: KindName,
  /** the test's resolved block (CollectiveParams …), undefined when it has none */
  params: unknown,
  at: PathKey[],
  problems: Problem[],
  sound: Sound,
  gpus: { perNode: number; at: PathKey[][] } = { perNode: 1, at: [] },
): Expectation[] {
  const out: Expectation[] = [];
  const report = (path: PathKey[], message: string, where: Problem["at"] = "value", also: PathKey[][] = []) =>
    problems.push({ path, message, at: where, ...(also.length && { also }) });
  const kind: AnyKind = KINDS[kindName];
  // the test's own block, for problems that a child suite may cause by changing it
  const blockAt = (key: string) => [[...at.slice(0, -1), kindName, key]];
  for (const [key, th] of Object.entries(entries)) {
    const here = [...at, key];
    const [metric, sizeText] = splitKey(key);
    if (metric === TRANSPORT) {
      const e = resolveTransport(th, sizeText, kind, params, here, report, sound, gpus);
      if (e) out.push(e);
      continue;
    }
    const perPart = findComponentMetric(kindName, metric);
    const info = findMetric(kindName, metric) ?? perPart;
    if (!info) {
      report(here, unknownMetric(metric, kindName), "key");
      continue;
    }
    let outlier: OutlierRule | undefined;
    let fleet: FleetRule | undefined;
    if (th.outlier !== undefined) {
      if (perPart) outlier = resolveOutlier(th.outlier, metric, info, [...here, "outlier"], report);
      else fleet = resolveFleetRule(th.outlier, metric, info, [...here, "outlier"], report);
    }
    if (perPart && th.baseline !== undefined)
      report([...here, "baseline"], `"baseline" does not apply to "${metric}": it is measured per component; compare the parts with "outlier"`, "key");
    const wrong = kind.metricProblem?.(metric, info, params, sound);
    if (wrong) report(here, wrong.message, "key", blockAt(wrong.key));
    let atBytes: number | undefined;
    if (sizeText !== undefined) {
      const size = parseSize(sizeText);
      if (!info.perSize) report(here, `metric "${metric}" is not measured per message size: remove "@${sizeText}"`, "key");
      else if (!size.ok)
        report(
          here,
          size.reason.replace(/^invalid size (".*?"|\S+)/, (m) => `${m} in "${key}"`),
          "key",
        );
      else {
        const unmeasured = kind.sizeProblem?.(size.value, sizeText, key, params, sound);
        if (unmeasured) report(here, unmeasured, "key");
        else atBytes = size.value;
      }
    }
    for (const which of ["require", "forbid"] as const) {
      if (th[which] !== undefined) report([...here, which], `"${which}" applies to "${TRANSPORT}" only: a metric takes "min", "max" or "baseline"`, "key");
    }
    if (th.min === undefined && th.max === undefined && th.baseline === undefined && th.outlier === undefined) {
      report(here, `threshold on "${key}" needs ${perPart ? `"min", "max" or "outlier"` : `"min", "max" or "baseline"`}`, "key");
      continue;
    }
    const bound = (which: "min" | "max") => {
      if (th[which] === undefined) return undefined;
      const r = toCanonical(metric, info, th[which]);
      // no metric gpucheck measures goes below 0: a negative bound is always met or never met
      if (r.ok && r.value < 0) {
        report([...here, which], `"${which}" must not be negative: ${metric} is never below 0, got ${th[which]}`);
        return undefined;
      }
      if (r.ok) return r.value;
      report([...here, which], r.reason);
      return undefined;
    };
    const min = bound("min");
    const max = bound("max");
    if (min !== undefined && max !== undefined && min > max) report([...here, "max"], `"max" (${th.max}) must not be below "min" (${th.min})`);
    // a time, a bandwidth, a rate, a clock, a power or a temperature is above 0 whenever it is measured:
    // "max: 0" on one fails every run, healthy or not (counts, fractions and losses can be 0)
    if (max === 0 && NEVER_ZERO_UNITS.has(info.unit))
      report(
        [...here, "max"],
        `"max: 0" can never be met: ${metric} (${info.unit}) is above 0 whenever it is measured, so every run would fail; give the largest value you accept`,
      );
    if (min === 0 && max === undefined && th.baseline === undefined && th.outlier === undefined)
      report([...here, "min"], `"min: 0" is always met: ${metric} is never below 0; give a positive floor, or "max: 0" for a count that must stay 0`);
    out.push({
      metric,
      unit: info.unit,
      ...(min !== undefined && { min }),
      ...(max !== undefined && { max }),
      ...(atBytes !== undefined && { at: atBytes }),
      ...(th.baseline !== undefined && { baselineRatio: th.baseline }),
      ...(perPart && { perComponent: true as const }),
      ...(outlier && { outlier }),
      ...(fleet && { fleet }),
      text: `${key}: ${describe(th)}`,
    });
  }
  return out;
}

const TRANSPORT = "transport";

/** `transport: { require: [...], forbid: [...] }`: only where NCCL runs, names from TRANSPORT_TOKENS. */
function resolveTransport(
  th: ThresholdInput,
  sizeText: string | undefined,
  kind: AnyKind,
  params: unknown,
  here: PathKey[],
  report: (path: PathKey[], message: string, where?: Problem["at"], also?: PathKey[][]) => void,
  sound: Sound,
  gpus: { perNode: number; at: PathKey[][] },
): Expectation | undefined {
  const testAt = here.slice(0, -2);
  if (!kind.transport) {
    const which = KIND_NAMES.filter((k) => (KINDS[k] as AnyKind).transport)
      .map((k) => `"${k}"`)
      .join(", ");
    report(here, `"${TRANSPORT}" applies to kind ${which} only: it is NCCL's account of a collective's connections`, "key", [[...testAt, "kind"]]);
    return undefined;
  }
  if (sizeText !== undefined) report(here, `"${TRANSPORT}" is not measured per message size: remove "@${sizeText}"`, "key");
  for (const which of ["min", "max", "baseline"] as const) {
    if (th[which] !== undefined) report([...here, which], `"${which}" does not apply to "${TRANSPORT}": it takes "require" and "forbid"`, "key");
  }
  if (th.require === undefined && th.forbid === undefined) {
    report(here, `"${TRANSPORT}" needs "require" or "forbid", e.g. { require: [NET/IB], forbid: [NET/Socket] }`, "key");
    return undefined;
  }
  const known = Object.keys(TRANSPORT_TOKENS);
  const rule = { require: th.require ?? [], forbid: th.forbid ?? [] };
  let ok = true;
  for (const which of ["require", "forbid"] as const) {
    rule[which].forEach((token, i) => {
      if (known.includes(token)) return;
      ok = false;
      report([...here, which, i], suggest(`unknown transport "${token}" in "${which}"`, token, known));
    });
  }
  rule.forbid.forEach((token, i) => {
    if (!rule.require.includes(token)) return;
    ok = false;
    report([...here, "forbid", i], `transport "${token}" is both required and forbidden`, "value", [[...here, "require", rule.require.indexOf(token)]]);
  });
  const unknowable = kind.transport(params, { testAt, gpusPerNode: gpus.perNode, gpusAt: gpus.at, sound });
  if (unknowable) report(here, `"${TRANSPORT}" ${unknowable.message}`, "key", unknowable.also);
  if (!ok) return undefined;
  const text = [rule.require.length ? `require ${rule.require.join(", ")}` : "", rule.forbid.length ? `forbid ${rule.forbid.join(", ")}` : ""].filter(Boolean).join("; ");
  return { metric: TRANSPORT, unit: "", transport: rule, text: `${TRANSPORT}: ${text}` };
}

/** "busbw@1GiB" → ["busbw", "1GiB"] */
function splitKey(key: string): [string, string | undefined] {
  const i = key.indexOf("@");
  return i === -1 ? [key.trim(), undefined] : [key.slice(0, i).trim(), key.slice(i + 1).trim()];
}

function unknownMetric(metric: string, kind: KindName): string {
  const own = [...Object.keys(metricsFor(kind)), ...Object.keys((KINDS[kind] as AnyKind).componentMetrics ?? {}), ...((KINDS[kind] as AnyKind).transport ? [TRANSPORT] : [])];
  const other = KIND_NAMES.find((k) => k !== kind && Object.hasOwn(KINDS[k].metrics, metric));
  if (other) return `metric "${metric}" is not produced by kind "${kind}": expected one of ${own.join(", ")}`;
  return suggest(`unknown metric "${metric}" for kind "${kind}"`, metric, own);
}

function describe(th: ThresholdInput): string {
  const parts: string[] = [];
  if (th.min !== undefined) parts.push(`min ${th.min}`);
  if (th.max !== undefined) parts.push(`max ${th.max}`);
  if (th.baseline !== undefined) parts.push(`baseline ${Number((th.baseline * 100).toPrecision(6))}%`);
  const o = th.outlier;
  if (o)
    parts.push(
      `outlier ${[o.below !== undefined && `below ${o.below}`, o.above !== undefined && `above ${o.above}`, o.mad !== undefined && `mad ${o.mad}`, o.over && `over ${o.over}`].filter(Boolean).join(" ")}`,
    );
  return parts.join(", ");
}

/** Units whose measured values are never 0 (see the "max: 0" check above). */
const NEVER_ZERO_UNITS = new Set(["us", "ms", "s", "GB/s", "Gb/s", "TFLOP/s", "samples/s", "tokens/s", "MHz", "W", "C"]);
