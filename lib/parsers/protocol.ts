// The workload's tagged output lines: `GPUCHECK_<TAG> {json}`, possibly behind a launcher prefix
// (srun --label " 0: ", mpirun "[1,0]<stdout>:", our own "[host rank N] ").

export type Tag = "RESULT" | "PROGRESS" | "INVENTORY" | "TELEMETRY" | "NCCL" | "P2P" | "RAIL" | "SIMULATED" | "EVIDENCE";

const LINE = /GPUCHECK_(RESULT|PROGRESS|INVENTORY|TELEMETRY|NCCL|P2P|RAIL|SIMULATED|EVIDENCE) (\{.*\})\s*$/;

export function parseTagged(line: string): { tag: Tag; value: Record<string, unknown> } | null {
  const m = LINE.exec(line);
  if (!m) return null;
  try {
    return { tag: m[1] as Tag, value: JSON.parse(m[2]!) as Record<string, unknown> };
  } catch {
    return null; // a line cut by a crash is not data
  }
}

export function taggedLines(text: string, tag: Tag): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split("\n")) {
    if (!line.includes("GPUCHECK_")) continue;
    const t = parseTagged(line);
    if (t?.tag === tag) out.push(t.value);
  }
  return out;
}
