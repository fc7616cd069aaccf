// TEST-ONLY. A way for test/integration/e2e/kill-matrix.test.ts to SIGKILL gpucheck at an exact
// point that would otherwise be a race of milliseconds (half-way through writing results.json, a
// certificate, report.html; at a test's start). Inert unless GPUCHECK_TEST_PAUSE is set; not a
// user setting, and not in the user docs.
//
//   GPUCHECK_TEST_PAUSE=<point>[@<n>]
//
// The n-th time (default the first) the process reaches <point>, it writes the line
// "gpucheck-test-pause: <point>@<n>" to stderr and stops itself with SIGSTOP: nothing of it runs
// any more (no timer, no write, no signal handler), while what it started (ranks, ssh) goes on as it
// would in a real kill. The test then SIGKILLs it. The points are the calls of testPause().
import { writeSync } from "node:fs";

const wanted = parseWanted(process.env.GPUCHECK_TEST_PAUSE);
const reached = new Map<string, number>();

function parseWanted(text: string | undefined): { point: string; nth: number } | undefined {
  if (!text) return undefined;
  const m = /^(.+?)(?:@(\d+))?$/.exec(text);
  return m ? { point: m[1]!, nth: Number(m[2] ?? 1) } : undefined;
}

/** Stops this process here when GPUCHECK_TEST_PAUSE names this point (and this is its n-th time). */
export function testPause(point: string): void {
  if (!wanted || wanted.point !== point) return;
  const n = (reached.get(point) ?? 0) + 1;
  reached.set(point, n);
  if (n !== wanted.nth) return;
  writeSync(2, `gpucheck-test-pause: ${point}@${n}\n`);
  process.kill(process.pid, "SIGSTOP");
}
