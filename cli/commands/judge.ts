// `gpucheck judge <results-dir> --suite <file> [--out <dir>] [--baseline <results.json>]`: the saved
// rank logs parsed again and judged against another suite's thresholds, without rerunning anything. The judged run is
// never changed (its certificate must keep verifying): the verdicts go into a new run directory that
// records the run and the suite it was judged from; exits as a run would (0, 1 or 3). The flow is
// lib/pipeline/judge.ts.
import { type JudgeRequest, judgeRun } from "../../lib/pipeline/judge.ts";
import { err, out, syncStderr } from "../output.ts";
import { PLATFORMS } from "../platforms.ts";
import { useColor } from "./color.ts";

export async function main(dir: string, flags: JudgeRequest["flags"]): Promise<number> {
  return judgeRun({ dir, flags, platforms: PLATFORMS, print: { out, err, stderr: syncStderr(), color: useColor(process.stdout) } });
}
