// Issue 31: secrets stay secret, through the binary copied alone into an empty directory, on the
// local platform. A suite's env values named like secrets (API_TOKEN) or listed in `redact:`
// (ENDPOINT) are *** in every file of the run directory, in what gpucheck prints, and in `plan`;
// the ranks still get them; the redacted suite copy still certifies; and a run directory's redacted
// suite is refused as a suite to run.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../tmp.ts";

const root = join(import.meta.dir, "..", "..", "..");
const SECRET = `tok-${crypto.randomUUID()}`;
const ENDPOINT = `https://user:${crypto.randomUUID()}@api.example`;
const sha = (v: string | Buffer) => createHash("sha256").update(v).digest("hex");

/** Every file under dir, recursively, with its bytes. */
function filesUnder(dir: string): Array<[string, string]> {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, f))
    .filter((p) => statSync(p).isFile())
    .map((p) => [p, readFileSync(p, "latin1")]);
}

describe("secrets through the binary, local platform", () => {
  const dir = tempDir("gpucheck-secrets-");
  const exe = join(dir, "gpucheck");
  copyFileSync(process.env.GPUCHECK_TEST_BINARY ?? join(root, "compiled", "gpucheck"), exe);
  chmodSync(exe, 0o755);
  const run = (...args: string[]) => spawnSync(exe, args, { cwd: dir, encoding: "utf8", env: { PATH: "/usr/bin:/bin", HOME: dir, NO_COLOR: "1" }, timeout: 120_000 });
  // the interpreter as the ranks start it: it notes the hashes of what it was given, then runs Python
  const seen = join(tempDir("gpucheck-secrets-seen-"), "seen");
  writeFileSync(
    join(dir, "py"),
    `#!/bin/sh\nprintf '%s %s\\n' "$(printf %s "$API_TOKEN" | sha256sum | cut -d' ' -f1)" "$(printf %s "$ENDPOINT" | sha256sum | cut -d' ' -f1)" >> ${seen}\nexec /usr/bin/python3 "$@"\n`,
    { mode: 0o755 },
  );
  const suiteText = `name: secrets
platform: { type: local }
redact: [ENDPOINT]
defaults:
  python: ${join(dir, "py")}
  gpusPerNode: 0
  ranksPerNode: 2
  env:
    API_TOKEN: ${SECRET}
    ENDPOINT: "${ENDPOINT}"
    NCCL_DEBUG: INFO
tests:
  - name: tiny
    kind: collective
    collective: { op: all_reduce, minBytes: 1KiB, maxBytes: 1KiB, backend: gloo }
`;
  writeFileSync(join(dir, "suite.yaml"), suiteText);
  const out = join(dir, "run");

  test("a run: no file, no line printed holds a value; the ranks had them; results.json names both suite hashes", () => {
    const r = run("suite", "suite.yaml", "--out", out, "--progress", "plain");
    expect(r.status, r.stderr).toBe(0);
    for (const text of [r.stdout, r.stderr]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(ENDPOINT);
    }
    const files = filesUnder(out);
    expect(files.map(([p]) => p.slice(out.length + 1))).toEqual(
      expect.arrayContaining(["results.json", "junit.xml", "report.html", "summary.txt", "suite.yaml", "suite.resolved.yaml"]),
    );
    for (const [path, text] of files) {
      expect(text.includes(SECRET), `${path} holds the token`).toBe(false);
      expect(text.includes(ENDPOINT), `${path} holds the endpoint`).toBe(false);
    }
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    expect(results.tests[0].launch.env).toEqual({ API_TOKEN: "***", ENDPOINT: "***", NCCL_DEBUG: "INFO" });
    expect(results.suite.sha256).toBe(sha(readFileSync(join(out, "suite.yaml"))));
    expect(results.suite.sourceSha256).toBe(sha(suiteText));
    expect(readFileSync(join(out, "suite.yaml"), "utf8")).toBe(suiteText.replace(SECRET, '"***"').replace(`"${ENDPOINT}"`, '"***"'));
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain("API_TOKEN=***");
    // both ranks were given the real values
    expect(readFileSync(seen, "utf8").trim().split("\n")).toEqual(expect.arrayContaining([`${sha(SECRET)} ${sha(ENDPOINT)}`]));
    expect(new Set(readFileSync(seen, "utf8").trim().split("\n"))).toEqual(new Set([`${sha(SECRET)} ${sha(ENDPOINT)}`]));
  }, 120_000);

  test("the redacted copy is what the certificate binds: certify and verify --results pass", () => {
    const keys = join(dir, "keys");
    expect(run("keygen", "--out", keys).status).toBe(0);
    const c = run("certify", out, "--key", join(keys, "gpucheck.key"), "--cluster", "lab");
    expect(c.status, c.stderr).toBe(0);
    const v = run("verify", join(out, "certificate.intoto.json"), "--key", join(keys, "gpucheck.pub"), "--results", out);
    expect(v.status, v.stdout + v.stderr).toBe(0);
  });

  test("plan, as text and as JSON: *** where the values are", () => {
    for (const args of [[], ["--json"]]) {
      const p = run("plan", "suite.yaml", ...args);
      expect(p.status, p.stderr).toBe(0);
      expect(p.stdout).not.toContain(SECRET);
      expect(p.stdout).not.toContain(ENDPOINT);
      expect(p.stdout).toContain(args.length ? '"API_TOKEN": "***"' : "env: API_TOKEN=*** ENDPOINT=*** NCCL_DEBUG=INFO");
    }
  });

  test("the run directory as a suite to run: refused, its secrets are *** there", () => {
    const r = run("suite", out, "--out", join(dir, "again"));
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `gpucheck: suite "${out}": env API_TOKEN of test tiny is "***", a secret redacted when a run was saved: run the suite file that has its value (gpucheck suite <file> --rerun-failed <results-dir> reruns a run's failures with it)\n`,
    );
  });
});
