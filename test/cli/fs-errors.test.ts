// Every command meets a path it cannot use, each in one line: the path, what gpucheck was doing, why
// and what to do; exit 2, no stack trace, nothing left behind. Table-driven: errno × command × path,
// with real file-system states (a path under a regular file, a directory where a file belongs, --out
// on a regular file). The states that need a mount or a second user (EROFS, ENOSPC, EACCES) run
// through the compiled binary in test/integration/e2e/errno-matrix.test.ts.
import { beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gpucheckRun } from "../e2e/cli.ts";
import { tempDir } from "../tmp.ts";

const root = join(import.meta.dir, "..", "..");
const dir = tempDir("gpucheck-fs-errors-");

beforeAll(async () => {
  cpSync(join(root, "test", "fixtures", "sign", "h100-2node"), join(dir, "run"), { recursive: true });
  cpSync(join(root, "test", "fixtures", "e2e", "inventory-only.yaml"), join(dir, "suite.yaml"));
  writeFileSync(join(dir, "f"), "a regular file\n");
  mkdirSync(join(dir, "d"));
  expect((await cli("keygen", "--out", "keys")).status).toBe(0);
  cpSync(join(dir, "run"), join(dir, "signed"), { recursive: true });
  expect((await cli("certify", "signed", "--key", "keys/gpucheck.key")).status).toBe(0);
  // a run whose page and certificate have a directory where the file belongs
  cpSync(join(dir, "signed"), join(dir, "signed-page-dir"), { recursive: true });
  mkdirSync(join(dir, "signed-page-dir", "report.html"));
  cpSync(join(dir, "run"), join(dir, "cert-dir"), { recursive: true });
  mkdirSync(join(dir, "cert-dir", "certificate.html"));
}, 60_000);

/** The command as a user runs it in dir (in this process: test/e2e/cli.ts's gpucheckRun). */
function cli(...args: string[]) {
  return gpucheckRun(args, { cwd: dir });
}

/** Every path under dir with its size: what a failed command must leave exactly as it was. */
function tree(d = dir): string[] {
  return readdirSync(d, { recursive: true })
    .map(String)
    .sort()
    .map((p) => `${p} ${statSync(join(d, p)).isDirectory() ? "dir" : statSync(join(d, p)).size}`);
}

const CERT = "signed/certificate.intoto.json";
const PUB = "keys/gpucheck.pub";
const KEY = "keys/gpucheck.key";

// the line for each errno; what and path come from the row, `under` is the regular file a path runs through
const notDir = (doing: string, path: string, choose: string) =>
  `gpucheck: cannot ${doing} "${path}": "${join(dir, "f")}" is a file, not a directory (ENOTDIR): choose ${choose} whose parents are directories`;
const isDirRead = (doing: string, path: string, choose: string) => `gpucheck: cannot ${doing} "${path}": it is a directory (EISDIR): give the path of a file, or choose ${choose}`;
const exists = (doing: string, path: string) =>
  `gpucheck: cannot ${doing} "${path}": something that is not a directory is already there (EEXIST): choose another --out, or move that file away`;

interface Row {
  command: string;
  path: string;
  argv: string[];
  line: string;
}

const S = "suite.yaml";
const ENOTDIR: Row[] = [
  { command: "suite", path: "<suite>", argv: ["suite", "f/x.yaml"], line: notDir("read the suite file", "./f/x.yaml", "another suite file") },
  { command: "suite", path: "--out", argv: ["suite", S, "--out", "f/x"], line: notDir("set up the results directory at", "f/x", "another --out") },
  { command: "suite", path: "--hostfile", argv: ["suite", S, "--hostfile", "f/x"], line: notDir("read the hostfile", "f/x", "another --hostfile") },
  { command: "suite", path: "--baseline", argv: ["suite", S, "--baseline", "f/x"], line: notDir("read the baseline", "f/x", "another --baseline") },
  { command: "suite", path: "--sign-key", argv: ["suite", S, "--sign-key", "f/x"], line: notDir("read the private key", "f/x", "another --key") },
  { command: "judge", path: "<results-dir>", argv: ["judge", "f/x", "--suite", S], line: notDir("read the results", "f/x", "another results directory") },
  { command: "judge", path: "--suite", argv: ["judge", "run", "--suite", "f/x.yaml"], line: notDir("read the suite file", "./f/x.yaml", "another suite file") },
  { command: "judge", path: "--out", argv: ["judge", "run", "--suite", S, "--out", "f/x"], line: notDir("set up the results directory at", "f/x", "another --out") },
  { command: "judge", path: "--baseline", argv: ["judge", "run", "--suite", S, "--baseline", "f/x"], line: notDir("read the results", "f/x", "another results directory") },
  { command: "certify", path: "<results-dir>", argv: ["certify", "f/x", "--key", KEY], line: notDir("read the run to sign", "f/x/results.json", "another results directory") },
  { command: "certify", path: "--key", argv: ["certify", "run", "--key", "f/x"], line: notDir("read the private key", "f/x", "another --key") },
  { command: "certify", path: "--out", argv: ["certify", "run", "--key", KEY, "--out", "f/x"], line: notDir("set up the results directory at", "f/x", "another --out") },
  { command: "keygen", path: "--out", argv: ["keygen", "--out", "f/x"], line: notDir("write the key pair at", "f/x", "another --out") },
  { command: "report", path: "<results-dir>", argv: ["report", "f/x"], line: notDir("read the results", "f/x", "another results directory") },
  { command: "verify", path: "<certificate>", argv: ["verify", "f/x", "--key", PUB], line: notDir("read the certificate", "f/x", "another certificate file") },
  { command: "verify", path: "--key", argv: ["verify", CERT, "--key", "f/x"], line: notDir("read the public key", "f/x", "another --key") },
  { command: "verify", path: "--results", argv: ["verify", CERT, "--key", PUB, "--results", "f/x"], line: notDir("read a signed file", "f/x/results.json", "another --results") },
  { command: "parse nccl", path: "<log>", argv: ["parse", "nccl", "f/x"], line: notDir("read the nccl-tests log", "f/x", "another log") },
];

const EISDIR: Row[] = [
  { command: "suite", path: "<suite>", argv: ["suite", "d"], line: isDirRead("read the suite file", "./d", "another suite file") },
  { command: "suite", path: "--hostfile", argv: ["suite", S, "--hostfile", "d"], line: isDirRead("read the hostfile", "d", "another --hostfile") },
  { command: "suite", path: "--sign-key", argv: ["suite", S, "--sign-key", "d"], line: isDirRead("read the private key", "d", "another --key") },
  { command: "judge", path: "--suite", argv: ["judge", "run", "--suite", "d"], line: isDirRead("read the suite file", "./d", "another suite file") },
  { command: "certify", path: "--key", argv: ["certify", "run", "--key", "d"], line: isDirRead("read the private key", "d", "another --key") },
  {
    command: "certify",
    path: "<results-dir>/certificate.html",
    argv: ["certify", "cert-dir", "--key", KEY],
    line: 'gpucheck: cannot write the certificate at "cert-dir/certificate.html": a directory is in the way of the file (EISDIR): move that directory away, or choose a new directory with --out <dir> (the run linked there and signed)',
  },
  { command: "verify", path: "<certificate>", argv: ["verify", "d", "--key", PUB], line: isDirRead("read the certificate", "d", "another certificate file") },
  { command: "verify", path: "--key", argv: ["verify", CERT, "--key", "d"], line: isDirRead("read the public key", "d", "another --key") },
  { command: "parse nccl", path: "<log>", argv: ["parse", "nccl", "d"], line: isDirRead("read the nccl-tests log", "d", "another log") },
];

const EEXIST: Row[] = [
  { command: "suite", path: "--out", argv: ["suite", S, "--out", "f"], line: exists("set up the results directory at", "f") },
  { command: "judge", path: "--out", argv: ["judge", "run", "--suite", S, "--out", "f"], line: exists("set up the results directory at", "f") },
  { command: "certify", path: "--out", argv: ["certify", "signed", "--key", KEY, "--out", "f"], line: exists("set up the results directory at", "f") },
  { command: "keygen", path: "--out", argv: ["keygen", "--out", "f"], line: exists("write the key pair at", "f") },
];

describe.each([
  ["ENOTDIR: a path under a regular file", ENOTDIR],
  ["EISDIR: a directory where a file belongs", EISDIR],
  ["EEXIST: --out on a regular file", EEXIST],
] as const)("%s", (_, rows) => {
  test(`${rows.map((r) => `${r.command} ${r.path}`).join(", ")}: one line each, exit 2, nothing left behind`, async () => {
    const before = tree();
    const got = await Promise.all(rows.map(async (row) => ({ row: `${row.command} ${row.path}`, ...(await cli(...row.argv)) })));
    expect(got).toEqual(rows.map((row) => ({ row: `${row.command} ${row.path}`, status: 2, stdout: "", stderr: `${row.line}\n` })));
    expect(tree()).toEqual(before);
  }, 120_000);
});

test("report on a signed run whose page is a directory: exit 3, one line, no page and no temporary file written", async () => {
  const before = tree();
  const r = await cli("report", "signed-page-dir");
  expect(r.status).toBe(3);
  expect(r.stderr).toMatch(
    /^gpucheck: cannot write signed-page-dir\/report\.html: a directory is in the way of the file \(EISDIR\), after \d+ of \d+ bytes; no report\.html was written: move that directory away and run gpucheck again\n$/,
  );
  expect(tree()).toEqual(before);
});
