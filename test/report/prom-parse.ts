// A reader of the Prometheus text format written from its grammar, strict where OpenMetrics is
// (the closing # EOF, no blank line), for test/report/metrics-prom.test.ts and its integration twin.
import { expect } from "bun:test";

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format (exposition 0.0.4): HELP and TYPE before each family's samples, nothing else. */
export function parse(text: string): { samples: Sample[]; types: Record<string, string> } {
  const samples: Sample[] = [];
  const types: Record<string, string> = {};
  const lines = text.split("\n");
  expect(lines.at(-1)).toBe("");
  expect(lines.at(-2)).toBe("# EOF");
  for (const line of lines.slice(0, -2)) {
    expect(line).not.toBe(""); // OpenMetrics allows no blank line
    const meta = line.match(/^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/);
    if (meta) {
      if (meta[1] === "TYPE") types[meta[2]!] = meta[3]!;
      continue;
    }
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    const body = m[2] ?? "";
    const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/gy;
    let l: RegExpExecArray | null;
    let at = 0;
    while ((l = re.exec(body))) {
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
      at = re.lastIndex;
    }
    expect(at).toBe(body.length);
    expect(types[m[1]!]).toBe("gauge"); // TYPE before its samples
    samples.push({ name: m[1]!, labels, value: m[3] === "NaN" ? NaN : Number(m[3]) });
  }
  return { samples, types };
}
