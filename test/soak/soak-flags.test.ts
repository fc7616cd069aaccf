// Each way of asking for a soak wrongly, refused in one line before anything runs or is made.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runSoak, type SoakFlags } from "../../lib/pipeline/soak.ts";
import { PLATFORMS } from "../../cli/platforms.ts";
import { tempDir } from "../tmp.ts";

const dir = tempDir("gpucheck-soak-flags-");
const soak = (ref: string | undefined, flags: Partial<SoakFlags>) =>
  runSoak({
    ref,
    flags: { progress: "none", out: join(dir, "never"), ...flags } as SoakFlags,
    platforms: PLATFORMS,
    command: ["gpucheck", "soak"],
    print: { out: () => {}, err: () => {}, stderr: process.stderr, color: false },
    signal: new AbortController().signal,
  });

describe("gpucheck soak refuses", () => {
  const cases: Array<[string, string | undefined, Partial<SoakFlags>, string]> = [
    ["no length", "cpu-smoke", {}, "gpucheck: soak: say how long: --for <duration> (with --every <duration>, default 1h) or --rounds <n>"],
    ["no suite", undefined, { rounds: "3" }, "gpucheck: soak: name the suite to soak (a file or a built-in name, see `gpucheck list`), or --resume <soak-dir>"],
    ["--rounds 0", "cpu-smoke", { rounds: "0" }, 'gpucheck: soak: --rounds: give a whole number of rounds ≥ 1, got "0"'],
    ["--rounds 2.5", "cpu-smoke", { rounds: "2.5" }, 'gpucheck: soak: --rounds: give a whole number of rounds ≥ 1, got "2.5"'],
    ["--for shorter than --every", "cpu-smoke", { for: "30m", every: "1h" }, "gpucheck: soak: --for 30m is shorter than one round every 1h: make --for longer or --every shorter"],
    ["--every 0 with --for", "cpu-smoke", { for: "1h", every: "0s" }, "gpucheck: soak: --every must be positive with --for (or give --rounds)"],
    [
      "--max-drift 150%",
      "cpu-smoke",
      { rounds: "3", maxDrift: "150%" },
      'gpucheck: soak: --max-drift: give a fraction or a percentage between 0 and 100 %, e.g. 10% or 0.1; got "150%"',
    ],
    [
      "--max-drift words",
      "cpu-smoke",
      { rounds: "3", maxDrift: "some" },
      'gpucheck: soak: --max-drift: give a fraction or a percentage between 0 and 100 %, e.g. 10% or 0.1; got "some"',
    ],
  ];
  for (const [what, ref, flags, message] of cases)
    test(what, async () => {
      await expect(soak(ref, flags)).rejects.toThrow(message);
      expect(existsSync(join(dir, "never"))).toBe(false);
    });

  test("--for with a bad duration names the flag", async () => {
    await expect(soak("cpu-smoke", { for: "three days" })).rejects.toThrow(/^gpucheck: soak: --for: /);
  });

  test("--resume of a directory that holds no soak", async () => {
    const empty = join(dir, "empty");
    mkdirSync(empty);
    await expect(soak(undefined, { resume: empty })).rejects.toThrow(
      `gpucheck: soak --resume ${empty}: no soak.json there: not a soak's directory; give the directory a soak wrote (its --out)`,
    );
  });

  test("--resume of a soak.json that is not one", async () => {
    const bad = join(dir, "bad");
    mkdirSync(bad);
    writeFileSync(join(bad, "soak.json"), '{"version": 7}');
    await expect(soak(undefined, { resume: bad })).rejects.toThrow(
      `gpucheck: soak --resume ${bad}: ${join(bad, "soak.json")} is not a soak this gpucheck knows (version 7): start a new soak`,
    );
  });

  test("--resume with another suite than the soak's", async () => {
    const other = join(dir, "other");
    mkdirSync(other);
    writeFileSync(join(other, "soak.json"), JSON.stringify({ version: 1, suite: "cpu-smoke", rounds: 3, history: [] }));
    await expect(soak("gpu-1x", { resume: other })).rejects.toThrow(`gpucheck: soak --resume ${other}: that soak runs cpu-smoke, not gpu-1x: drop the suite argument to resume it`);
  });
});
