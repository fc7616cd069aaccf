// What a person sees while a suite runs. On a terminal: rank output scrolls above a status block
// (test n of m, phase, elapsed, ranks heard from, latest busbw or samples/s) that is redrawn in place.
// Elsewhere (the Jenkins console, a pipe): plain timestamped lines, nothing redrawn.
import type { Progress } from "../core/progress.ts";

export type { Progress };
import { headlineFor } from "./headline.ts";
import { formatBytes, formatDuration, withUnit } from "../core/quantity.ts";
import { parseTagged } from "../parsers/protocol.ts";
import { xmlSafe } from "../core/xml.ts";
import { TtyBlock } from "./progress-tty.ts";
import { NodeTally, slowestUnits } from "./progress-nodes.ts";
import { FLEET_UNITS } from "./fleet.ts";
import type { UnitRun } from "../core/types.ts";

export type ProgressMode = "tty" | "plain" | "none";

export interface ProgressOptions {
  mode: ProgressMode;
  total: number;
  stream?: NodeJS.WriteStream;
  /** default: on a TTY unless NO_COLOR is set (https://no-color.org) */
  color?: boolean;
  /** clock, for tests */
  now?: () => number;
  /** plain mode: how often a per-node test's counts and slowest nodes are printed while it runs */
  statusEveryMs?: number;
}

/** What a unit's status says before judging, in the line a per-node test prints as each node ends. */
const ENDED: Record<UnitRun["status"], string> = {
  completed: "done",
  failed: "failed",
  timeout: "timed out",
  unfinished: "not finished",
  infra: "infra error",
  cancelled: "cancelled",
  skipped: "skipped",
};

/** `--progress auto`: redraw only on a real terminal that can take cursor movements. */
export function progressMode(requested: string, stream: NodeJS.WriteStream = process.stderr, env = process.env): ProgressMode {
  if (requested === "tty" || requested === "plain" || requested === "none") return requested;
  return stream.isTTY && env.TERM !== "dumb" ? "tty" : "plain";
}

export function createProgress(opts: ProgressOptions): Progress {
  const stream = opts.stream ?? process.stderr;
  const now = opts.now ?? Date.now;
  const color = opts.color ?? (opts.mode === "tty" && !process.env.NO_COLOR);
  const started = now();
  const s = { test: "", index: -1, kind: "" as string, perNode: false, phase: "", testStart: started, alive: 0, metric: "", lastMetricPrint: 0 };
  let tally: NodeTally | null = null;
  let ticker: ReturnType<typeof setInterval> | undefined;
  const stopTicker = () => {
    if (ticker) clearInterval(ticker);
    ticker = undefined;
  };
  const paint = (code: string, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const markOf = (o: string) => paint(o === "passed" ? "32" : o === "skipped" ? "33" : "31", o.toUpperCase());
  const stamp = () => new Date(now()).toTimeString().slice(0, 8);

  const tty = opts.mode === "tty" ? new TtyBlock(stream, () => statusLines()) : null;
  const emit = (text: string) => {
    if (opts.mode === "none") return;
    if (tty) tty.print(text);
    else stream.write(`${stamp()} ${text}\n`);
  };

  function statusLines(): string[] {
    const total = formatDuration((now() - started) / 1000);
    if (s.index < 0) return [`${paint("1", "gpucheck")}  starting  elapsed ${total}`];
    const head = `${paint("1", "gpucheck")}  test ${s.index + 1} of ${opts.total}: ${s.test} (${s.kind}${s.perNode ? ", per node" : ""})`;
    // the number people watch comes before the counts: a narrow terminal cuts the end of the line
    const detail = [s.phase || "running", `${formatDuration((now() - s.testStart) / 1000)} (total ${total})`];
    if (s.metric) detail.push(s.metric);
    if (tally) detail.push(`nodes ${tally.counts()}`);
    detail.push(ranksWithOutput(s.alive));
    const slowest = tally?.slowest(now());
    return slowest ? [head, `  ${detail.join(" · ")}`, `  running longest: ${slowest}`] : [head, `  ${detail.join(" · ")}`];
  }

  const api: Progress = {
    testStarted(name, index, kind, perNode, units) {
      Object.assign(s, { test: name, index, kind, perNode, phase: "", testStart: now(), alive: 0, metric: "", lastMetricPrint: 0 });
      tally = perNode ? new NodeTally(units) : null;
      stopTicker();
      // the Jenkins console has no redrawn block: the counts and the longest-running nodes come as a line
      if (tally && opts.mode === "plain") {
        ticker = setInterval(() => {
          if (!tally?.anyRunning) return;
          emit(`[${s.test}] nodes ${tally.counts()}; running longest: ${tally.slowest(now())}`);
        }, opts.statusEveryMs ?? 30_000);
        ticker.unref?.();
      }
      emit(`[${index + 1}/${opts.total}] ${name} (${kind}${perNode ? ", per node" : ""}): started`);
    },
    phase(text) {
      s.phase = clean(text);
      if (!tty) emit(`[${s.test}] ${s.phase}`);
      tty?.redraw();
    },
    line(unit, rank, text) {
      if (tally?.started(unit, now())) tty?.redraw();
      // protocol lines are for gpucheck, not for people (telemetry alone is one per node every
      // 500 ms); they stay in the logs. A progress line still moves the status display.
      if (text.includes("GPUCHECK_NCCL_INFO ")) return; // NCCL's INFO account: hundreds of lines per rank
      const tagged = text.includes("GPUCHECK_") ? parseTagged(text) : null;
      if (tagged) {
        const m = tagged.tag === "PROGRESS" ? progressMetric(tagged.value) : null;
        if (m) api.metric(m.name, m.value, m.unit);
        return;
      }
      const who = unit === "all" ? `rank ${rank}` : `${unit} rank ${rank}`;
      emit(`[${s.test}] [${who}] ${clean(text)}`);
    },
    metric(name, value, unit) {
      s.metric = `${name} ${withUnit(value, unit)}`;
      // the Jenkins console gets at most one such line every 10 s; rank output already has them all
      if (!tty && now() - s.lastMetricPrint >= 10_000) {
        s.lastMetricPrint = now();
        emit(`[${s.test}] latest ${s.metric}, ${ranksWithOutput(s.alive)}`);
      }
      tty?.redraw();
    },
    ranksReporting(n) {
      s.alive = n;
      tty?.redraw();
    },
    unitStarted(unit) {
      if (tally?.started(unit, now())) tty?.redraw();
    },
    unitEnded(run) {
      if (!tally?.end(run)) return;
      const took = formatDuration(Math.max(0, Date.parse(run.endedAt) - Date.parse(run.startedAt)) / 1000);
      const why = run.status !== "completed" && run.message ? `: ${clean(run.message)}` : "";
      emit(`[${s.test}] node ${run.unit} ${ENDED[run.status]}${why} in ${took} · ${tally.counts()}`);
    },
    testFinished(result) {
      stopTicker();
      tally = null;
      // a fleet's nodes were each shown as they ended: the verdicts list the exceptions, then one count
      const fleet = result.perNode && result.units.length > FLEET_UNITS;
      for (const u of result.units) {
        if (fleet && u.verdict.outcome === "passed") continue;
        const o = u.verdict.outcome;
        const mark = markOf(o);
        const h = headlineFor(result, u);
        const name = result.perNode || result.units.length > 1 ? `${result.name} [${u.unit}]` : result.name;
        const why = o === "passed" ? `${h.value}${h.threshold ? ` (${h.threshold})` : ""}` : clean(u.verdict.reason);
        emit(`${mark} ${name}: ${why} in ${formatDuration(u.durationS)}`);
      }
      if (fleet) {
        const passed = result.units.filter((u) => u.verdict.outcome === "passed").length;
        emit(`${markOf(result.outcome)} ${result.name}: ${passed} of ${result.units.length} nodes passed; longest: ${slowestUnits(result.units)}`);
      }
    },
    note(text) {
      emit(`note: ${clean(text)}`);
    },
    close() {
      stopTicker();
      tty?.close();
    },
  };
  return api;
}

/** The number worth showing from a GPUCHECK_PROGRESS line: bandwidth for sweeps, throughput for training. */
function progressMetric(v: Record<string, unknown>): { name: string; value: number; unit: string } | null {
  if (typeof v.busbw === "number") return { name: "busbw", value: v.busbw, unit: typeof v.size === "number" ? `GB/s at ${formatBytes(v.size)}` : "GB/s" };
  if (typeof v.samples_per_s === "number") {
    const step = typeof v.step === "number" ? ` (step ${v.step}${typeof v.steps === "number" ? ` of ${v.steps}` : ""})` : "";
    return { name: "throughput", value: v.samples_per_s, unit: `samples/s${step}` };
  }
  return null;
}

/** Rank output can carry colour codes, carriage returns and cursor moves that would corrupt the display. */
function clean(text: string): string {
  return xmlSafe(text)
    .replace(/[\r\n\t]+/g, " ")
    .trimEnd();
}

/** What the count is: the ranks that have printed at least one line so far, not those alive or done. */
function ranksWithOutput(n: number): string {
  return `${n} rank${n === 1 ? "" : "s"} with output`;
}
