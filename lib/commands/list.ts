// `gpucheck list`: what is built in.
import { out } from "../output.ts";
import { builtinSuites } from "../assets.ts";
import { loadSuite } from "../load.ts";
import { METRICS, TRANSPORT_TOKENS } from "../metrics.ts";
import { PLATFORMS } from "../../plugins/mod.ts";

export async function main(flags: { json?: boolean }): Promise<number> {
  const suites = await Promise.all(
    [...builtinSuites().keys()].sort().map(async (name) => {
      const s = await loadSuite(name);
      return { name, description: s.description, tests: s.tests.map((t) => t.name), platform: s.platform.type };
    }),
  );
  const kinds = Object.entries(METRICS).map(([kind, metrics]) => ({ kind, metrics: Object.keys(metrics) }));
  const platforms = Object.values(PLATFORMS).map((p) => ({ name: p.name, summary: p.summary }));
  if (flags.json) {
    out(`${JSON.stringify({ suites, kinds, transports: TRANSPORT_TOKENS, platforms }, null, 2)}\n`);
    return 0;
  }
  const lines = ["Built-in suites:"];
  for (const s of suites) lines.push(`  ${s.name.padEnd(16)} ${s.description} (${s.tests.length} tests: ${s.tests.join(", ")})`);
  lines.push("", "Test kinds and their metrics:");
  for (const k of kinds) lines.push(`  ${k.kind.padEnd(16)} ${k.metrics.join(", ")}`);
  lines.push("", "Transports a collective's expect: may name (transport: { require: [...], forbid: [...] }):");
  for (const [name, what] of Object.entries(TRANSPORT_TOKENS)) lines.push(`  ${name.padEnd(16)} ${what}`);
  lines.push("", "Platforms:");
  for (const p of platforms) lines.push(`  ${p.name.padEnd(16)} ${p.summary}`);
  out(`${lines.join("\n")}\n`);
  return 0;
}
