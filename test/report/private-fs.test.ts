// Inside a run directory gpucheck never follows a symlink: files are opened with O_NOFOLLOW (or
// written under a fresh name and renamed over), directories are made private or lstat'd as this
// user's own. A planted symlink is refused in one line and what it points at stays untouched.
// Modes are explicit: 0700/0600, 0750/0640 with --group-readable, whatever the umask.
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claimRunDir } from "../../lib/report/run-dir.ts";
import { ensureOwnDir, ensurePrivateDir, openPrivate, setGroupReadable, writePrivateFile, writePrivateFileAtomic } from "../../lib/core/private-fs.ts";
import { writeFileAtomic } from "../../lib/report/results.ts";
import { UnitLog } from "../../plugins/_shared/unit-log.ts";
import { tempDir } from "../tmp.ts";

let release: (() => void) | undefined;
afterEach(() => {
  release?.();
  release = undefined;
  setGroupReadable(false);
});

/** A claimed run directory and a file outside it that a symlink would point at. */
function run(groupReadable = false): { out: string; victim: string } {
  const base = tempDir("gpucheck-privfs-");
  const out = join(base, "run");
  release = claimRunDir(out, { groupReadable }).release;
  const victim = join(base, "victim.txt");
  writeFileSync(victim, "untouched\n");
  return { out, victim };
}

const mode = (p: string) => lstatSync(p).mode & 0o777;
const refusal = (path: string, to: string, doing = "writes") =>
  `${path} is a symbolic link (to ${to}) inside the run directory: gpucheck never ${doing} through one there; remove it, or run into a new --out`;

describe("private files and directories in a run directory", () => {
  test("0700 directories and 0600 files, whatever the umask", () => {
    const old = process.umask(0);
    try {
      const { out } = run();
      writePrivateFile(join(out, "logs", "t", "all", "rank-0.log"), "x");
      writeFileAtomic(join(out, "results.json"), "{}");
      expect([mode(out), mode(join(out, "logs")), mode(join(out, "logs", "t", "all"))]).toEqual([0o700, 0o700, 0o700]);
      expect([mode(join(out, "logs", "t", "all", "rank-0.log")), mode(join(out, "results.json"))]).toEqual([0o600, 0o600]);
    } finally {
      process.umask(old);
    }
  });

  test("--group-readable: 0750 and 0640, the group never writes", () => {
    const old = process.umask(0o077);
    try {
      // claiming the run directory sets the modes for the whole run (the flag reaches it as the claim's option)
      const { out } = run(true);
      writePrivateFile(join(out, "logs", "suite.yaml"), "x");
      writePrivateFileAtomic(join(out, "junit.xml"), "<x/>");
      expect([mode(out), mode(join(out, "logs")), mode(join(out, "logs", "suite.yaml")), mode(join(out, "junit.xml"))]).toEqual([0o750, 0o750, 0o640, 0o640]);
    } finally {
      process.umask(old);
    }
  });

  test("a symlink planted as a file is refused, its target untouched", () => {
    const { out, victim } = run();
    symlinkSync(victim, join(out, "suite.yaml"));
    expect(() => writePrivateFile(join(out, "suite.yaml"), "evil")).toThrow(refusal(join(out, "suite.yaml"), victim));
    expect(() => openPrivate(join(out, "suite.yaml"), "append")).toThrow(refusal(join(out, "suite.yaml"), victim));
    expect(readFileSync(victim, "utf8")).toBe("untouched\n");
  });

  test("a symlink planted as a directory is refused, nothing written where it points", () => {
    const { out, victim } = run();
    const elsewhere = join(victim, "..", "elsewhere");
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(out, "logs"));
    expect(() => ensurePrivateDir(join(out, "logs", "t"))).toThrow(refusal(join(out, "logs"), elsewhere));
    expect(() => writePrivateFile(join(out, "logs", "t", "x.json"), "{}")).toThrow(refusal(join(out, "logs"), elsewhere));
    expect(() => new UnitLog({ dir: join(out, "logs", "t", "all"), unit: "all", onLine: () => {} })).toThrow(refusal(join(out, "logs"), elsewhere));
  });

  test("a rank log planted as a symlink is refused when the unit opens it", () => {
    const { out, victim } = run();
    mkdirSync(join(out, "logs", "t", "all"), { recursive: true, mode: 0o700 });
    symlinkSync(victim, join(out, "logs", "t", "all", "rank-0.log"));
    const log = new UnitLog({ dir: join(out, "logs", "t", "all"), unit: "all", onLine: () => {} });
    expect(() => log.open(0)).toThrow(refusal(join(out, "logs", "t", "all", "rank-0.log"), victim));
    expect(readFileSync(victim, "utf8")).toBe("untouched\n");
  });

  test("results.json written atomically replaces a symlink at its name, never writing through it", () => {
    const { out, victim } = run();
    symlinkSync(victim, join(out, "results.json"));
    symlinkSync(victim, join(out, `.results.json.${process.pid}.tmp`));
    writeFileAtomic(join(out, "results.json"), "{}");
    expect(lstatSync(join(out, "results.json")).isFile()).toBe(true);
    expect(readFileSync(join(out, "results.json"), "utf8")).toBe("{}");
    expect(readFileSync(victim, "utf8")).toBe("untouched\n");
  });

  test("a directory inside the run that others can write is refused", () => {
    const { out } = run();
    mkdirSync(join(out, "logs"));
    chmodSync(join(out, "logs"), 0o777);
    expect(() => ensurePrivateDir(join(out, "logs", "t"))).toThrow(
      `${join(out, "logs")} inside the run directory is writable by group or others (mode 777): gpucheck writes and runs code only in directories it can trust; remove it, or run into a new --out`,
    );
  });

  test("the local stage: made private, or refused when a symlink or writable by others", () => {
    const { out, victim } = run();
    ensureOwnDir(join(out, "workload"), "the workload stage");
    expect(mode(join(out, "workload"))).toBe(0o700);
    const elsewhere = join(victim, "..", "stage-elsewhere");
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(out, "w2"));
    expect(() => ensureOwnDir(join(out, "w2"), "the workload stage")).toThrow(refusal(join(out, "w2"), elsewhere, "runs code"));
    mkdirSync(join(out, "w3"));
    chmodSync(join(out, "w3"), 0o775);
    expect(() => ensureOwnDir(join(out, "w3"), "the workload stage")).toThrow(
      `the workload stage ${join(out, "w3")} is writable by group or others (mode 775): gpucheck runs code only from a directory it can trust; remove it, or choose another`,
    );
  });
});
