// A stand-in for the workload (test/standin/python3) says so in a GPUCHECK_SIMULATED line before its
// canned answers. Its verdicts are about canned data, so every unit and run it reached carries the
// mark: an unmarked pass from replayed output would read as evidence about hardware.
import type { ResultsFile } from "../core/types.ts";
import { taggedLines } from "./protocol.ts";

/** "<by>: <note>" of the first GPUCHECK_SIMULATED line in a unit's logs; undefined for the real workload. */
export function simulatedNote(texts: string[]): string | undefined {
  for (const text of texts) {
    const [s] = taggedLines(text, "SIMULATED");
    if (s) return `${typeof s.by === "string" ? s.by : "a stand-in"}: ${typeof s.note === "string" ? s.note : "simulated workload"}`;
  }
  return undefined;
}

export const NOT_EVIDENCE = "simulated workload — not evidence about hardware";

/** The run's mark: the count of units a stand-in answered, or undefined when none did. */
export function runSimulated(r: Pick<ResultsFile, "tests">): string | undefined {
  const units = r.tests.flatMap((t) => t.units);
  const marked = units.filter((u) => u.simulated);
  if (!marked.length) return undefined;
  const by = [...new Set(marked.map((u) => u.simulated!.split(":")[0]))].join(", ");
  return `${NOT_EVIDENCE}: ${marked.length} of ${units.length} units answered by ${by} (canned outputs of real machines replayed, nothing measured on these nodes)`;
}
