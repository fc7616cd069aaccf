// gpucheck itself killed with SIGKILL (an OOM kill, a CI runner's timeout, a reboot of the jump host's
// session) at several points of a run, through the binary on the local platform: whatever it leaves
// must parse, must not read green to any CI or command, and no rank may outlive it.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { processesWithEnv } from "../../platforms/leftovers.ts";
import { assertJunitValid } from "../../report/xsd.ts";
import { fixture, gpucheck, gpucheckAsync, tempDir } from "../../e2e/cli.ts";

/** How long a rank may outlive a gpucheck killed by SIGKILL: its stdin pipe closes at once (hangup.py). */
const KILL_BOUND_MS = 5_000;

/** Each point: when to kill, watching only what the run writes (no hook in the binary). */
const POINTS: Array<[string, (out: string, output: string) => boolean]> = [
  // results.json is written ahead before the preflight starts; the preflight's probe takes seconds
  ["in the preflight", (out) => existsSync(join(out, "results.json")) && !JSON.parse(readFileSync(join(out, "results.json"), "utf8")).preflight],
  // rank 0's first line: every rank of the first test is up and measuring
  ["mid-test", (_out, output) => /rank 0\]|latest /.test(output)],
];

describe("gpucheck killed by SIGKILL: never green, no rank left", () => {
  for (const [point, now] of POINTS) {
    test(point, async () => {
      const out = tempDir("kill9-gpucheck");
      const run = gpucheckAsync(["suite", fixture("interrupted.yaml"), "--out", out, "--progress", "plain"]);
      const deadline = Date.now() + 60_000;
      while (!now(out, run.output()) && Date.now() < deadline) await Bun.sleep(50);
      expect(now(out, run.output())).toBe(true);
      run.child.kill("SIGKILL");
      await run.exited;

      // junit.xml parses and validates, and counts errors: Jenkins reads red
      assertJunitValid(join(out, "junit.xml"));
      const junit = readFileSync(join(out, "junit.xml"), "utf8");
      expect(junit).toMatch(/<testsuite name="e2e-interrupted" tests="3" failures="0" errors="3" skipped="0"/);
      expect(junit.match(/<error message="not finished: the run stopped before this test ended" type="unfinished"\/>/g)).toHaveLength(3);
      // results.json: no end, nothing passed
      const res = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
      expect(res.endedAt).toBeNull();
      expect(res.outcome).toBe("unfinished");
      expect(res.tests.map((t: { name: string; outcome: string }) => `${t.name} ${t.outcome}`)).toEqual(["too-big unfinished", "never-started unfinished", "nor-this unfinished"]);
      // every command that reads the run says so and exits 3
      const report = gpucheck(["report", out]);
      expect(report.status).toBe(3);
      expect(report.stdout).toContain("INCOMPLETE: the run never ended (killed, or still going): 3 tests never ended: too-big, never-started, nor-this.");
      const judge = gpucheck(["judge", out, "--suite", fixture("interrupted.yaml"), "--out", tempDir("kill9-judged")]);
      expect(judge.status).toBe(3);
      expect(judge.stdout.split("\n")[0]).toContain(": INCOMPLETE: ");
      // nor is it signed: certify refuses it, naming the tests, and writes nothing
      const keys = tempDir("kill9-keys");
      expect(gpucheck(["keygen", "--out", keys]).status).toBe(0);
      const certify = gpucheck(["certify", out, "--key", join(keys, "gpucheck.key"), "--cluster", "lab"]);
      expect(certify.status).toBe(3);
      expect(certify.stderr).toBe(
        `gpucheck: cannot certify "${out}": INCOMPLETE run: tests too-big, never-started, nor-this never ended; results.json has no endedAt (the run was killed or is still running); nothing was signed; rerun it, or sign it as INCOMPLETE with --allow-incomplete\n`,
      );
      expect(existsSync(join(out, "certificate.intoto.json"))).toBe(false);
      // no rank outlives it beyond the bound
      const gone = Date.now() + KILL_BOUND_MS;
      while ((await processesWithEnv(out)).length && Date.now() < gone) await Bun.sleep(100);
      expect(await processesWithEnv(out)).toEqual([]);
    }, 120_000);
  }
});
