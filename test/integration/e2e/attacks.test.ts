// Issue 31's attacks on a shared host, each made by an unprivileged second user (nobody) against the
// compiled binary copied alone into an empty directory, run once as root and once as a throwaway
// normal user made here (useradd, removed after): a pre-made --out, a symlink inside the run
// directory, a planted data-set cache, a planted Slurm stage (real slurmd's, test/infra/slurm.sh).
// Each is refused with its exact line, and the code planted never runs: the marker file it would
// write stays absent. Needs root (CI runs the integration tier as root): it makes users and chowns.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, copyFileSync, existsSync, lchownSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { workloadFiles, workloadHash } from "../../../lib/core/assets.ts";
import { ssh } from "../../../plugins/ssh.ts";
import { gpucheckArgv } from "../../e2e/cli.ts";
import { runContextFor, scriptTest } from "../../platforms/conformance.ts";
import { SSH_INFRA, sshInfra } from "../platforms/ssh-infra.ts";

const NOBODY = 65534;
const WORKLOAD = join(import.meta.dir, "..", "..", "..", "workload");
const slurmUp = (process.env.GPUCHECK_INFRA ?? "").split(",").includes("slurm");
const RUNUSER = existsSync("/usr/sbin/runuser") ? "/usr/sbin/runuser" : "/sbin/runuser";
const user = `gcattack${process.pid % 100000}`;
let uid = -1;
let gid = -1;
/** world-traversable scratch: the binary alone in bin/, one directory per scene */
let base = "";

beforeAll(() => {
  if (process.getuid?.() !== 0) throw new Error("attacks.test.ts runs as root (it makes a user and plants another user's files); CI's integration tier does");
  base = mkdtempSync("/tmp/gpucheck-attacks-");
  chmodSync(base, 0o755);
  mkdirSync(join(base, "bin"), { mode: 0o755 });
  const [cmd, ...pre] = gpucheckArgv();
  if (pre.length) throw new Error("attacks.test.ts needs the compiled binary (GPUCHECK_TEST_BINARY, set by scripts/test-integration.sh)");
  copyFileSync(cmd!, join(base, "bin", "gpucheck"));
  chmodSync(join(base, "bin", "gpucheck"), 0o755);
  const add = spawnSync("useradd", ["-M", "-d", join(base, "home"), "-s", "/bin/sh", user], { encoding: "utf8" });
  if (add.status !== 0) throw new Error(`useradd ${user}: ${add.stderr}`);
  uid = Number(spawnSync("id", ["-u", user], { encoding: "utf8" }).stdout);
  gid = Number(spawnSync("id", ["-g", user], { encoding: "utf8" }).stdout);
});

afterAll(() => {
  spawnSync("userdel", [user]);
  if (base) rmSync(base, { recursive: true, force: true });
});

type As = "root" | "user";
const operators: As[] = ["root", "user"];

/** A directory of the operator's own for one scene (mode 0755: nobody can read in, not write). */
function scene(as: As, name: string): string {
  const d = join(base, `${name}-${as}`);
  mkdirSync(d, { mode: 0o755 });
  if (as === "user") chownSync(d, uid, gid);
  return d;
}

/** A file of nobody's: what the second user leaves for the operator. */
function plant(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o666 });
  chownSync(path, NOBODY, NOBODY);
}

/** Python that, imported, leaves `marker` behind: the proof that planted code ran. */
const payload = (marker: string) => `open(${JSON.stringify(marker)}, "w").write("ran")\n`;

function gpucheck(as: As, cwd: string, args: string[], env: Record<string, string> = {}) {
  const home = as === "root" ? "/root" : join(cwd, "home");
  if (as === "user" && !existsSync(home)) {
    mkdirSync(home, { mode: 0o700 });
    chownSync(home, uid, gid);
  }
  const argv = [RUNUSER, "-u", as === "root" ? "root" : user, "--", "env", "-i", `PATH=/usr/bin:/bin:/usr/sbin:/sbin`, `HOME=${home}`, "NO_COLOR=1"];
  for (const [k, v] of Object.entries(env)) argv.push(`${k}=${v}`);
  argv.push(join(base, "bin", "gpucheck"), ...args);
  return spawnSync(argv[0]!, argv.slice(1), { cwd, encoding: "utf8", timeout: 180_000 });
}

function suiteFile(dir: string, text: string): string {
  const p = join(dir, "suite.yaml");
  writeFileSync(p, text, { mode: 0o644 });
  return p;
}

const INVENTORY =
  "name: attack\nplatform: { type: local }\ndefaults: { python: /usr/bin/python3, gpusPerNode: 0, ranksPerNode: 1 }\ntests:\n  - name: inventory\n    kind: inventory\n";

describe.each(operators)("gpucheck run as %s", (as) => {
  test("a pre-made --out of nobody's, mode 0777, holding a workload/sitecustomize.py: refused in one line, nothing runs", () => {
    const dir = scene(as, "premade");
    const out = join(dir, "out");
    mkdirSync(join(out, "workload"), { recursive: true });
    chmodSync(out, 0o777);
    const marker = join(dir, "PWNED");
    plant(join(out, "workload", "sitecustomize.py"), payload(marker));
    chownSync(out, NOBODY, NOBODY);
    chownSync(join(out, "workload"), NOBODY, NOBODY);
    const r = gpucheck(as, dir, ["suite", suiteFile(dir, INVENTORY), "--out", out, "--progress", "none"]);
    expect(r.stderr).toBe(
      `--out "${out}" belongs to another user (owner nobody (uid ${NOBODY}), mode 0777): its contents could run as you; choose a new --out, which gpucheck creates itself\n`,
    );
    expect(r.status).toBe(2);
    expect(existsSync(marker)).toBe(false);
  });

  test("a symlink inside the operator's own --out (workload -> nobody's code): refused in one line, nothing runs", () => {
    const dir = scene(as, "inside");
    const out = join(dir, "out");
    mkdirSync(out, { mode: 0o755 });
    if (as === "user") chownSync(out, uid, gid);
    // nobody's directory, open to the operator to read, with code that Python would import first
    const theirs = join(base, `theirs-${as}`);
    mkdirSync(theirs, { mode: 0o777 });
    chownSync(theirs, NOBODY, NOBODY);
    const marker = join(dir, "PWNED");
    plant(join(theirs, "sitecustomize.py"), payload(marker));
    symlinkSync(theirs, join(out, "workload"));
    lchownSync(join(out, "workload"), NOBODY, NOBODY);
    const r = gpucheck(as, dir, ["suite", suiteFile(dir, INVENTORY), "--out", out, "--progress", "none"]);
    expect(r.stderr + r.stdout).toContain(
      `${join(out, "workload")} is a symbolic link (to ${theirs}) inside the run directory: gpucheck never runs code through one there; remove it, or run into a new --out`,
    );
    expect(r.status).not.toBe(0);
    expect(existsSync(marker)).toBe(false);
    // nothing of the operator's was written where the link points
    expect(readdirSync(theirs)).toEqual(["sitecustomize.py"]);
  });

  // the cache is the workload's (fakedata.generated_dir, what a train test with dataDir "@generated"
  // calls on each node): run here as the operator, without torch's start-up or a training run
  test("a planted data-set cache (nobody's, mode 0777, with a bogus set): refused in one line, a fresh set made, the planted one never read", () => {
    const dir = scene(as, "cache");
    const xdg = join(dir, "xdg");
    mkdirSync(join(xdg, "gpucheck", "fashionmnist-v1-2048-512-0"), { recursive: true });
    if (as === "user") chownSync(xdg, uid, gid);
    for (const f of ["train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"])
      plant(join(xdg, "gpucheck", "fashionmnist-v1-2048-512-0", f), "planted, not a data set\n");
    chmodSync(join(xdg, "gpucheck"), 0o777);
    chownSync(join(xdg, "gpucheck"), NOBODY, NOBODY);
    chownSync(join(xdg, "gpucheck", "fashionmnist-v1-2048-512-0"), NOBODY, NOBODY);
    const tmp = join(dir, "tmp");
    mkdirSync(tmp, { mode: 0o700 });
    if (as === "user") chownSync(tmp, uid, gid);
    const code = "from gpucheck_workload import data, fakedata; d = fakedata.generated_dir('fashionmnist'); print(d); print(sorted(data.locate('fashionmnist', d)))";
    const r = spawnSync(
      RUNUSER,
      ["-u", as === "root" ? "root" : user, "--", "env", "-i", `PYTHONPATH=${WORKLOAD}`, `XDG_CACHE_HOME=${xdg}`, `TMPDIR=${tmp}`, "/usr/bin/python3", "-c", code],
      {
        cwd: dir,
        encoding: "utf8",
      },
    );
    expect(r.stderr).toBe(
      `gpucheck: the generated data set cache ${join(xdg, "gpucheck")} belongs to uid ${NOBODY}, not to this user (uid ${as === "root" ? 0 : uid}): not read; making the set in a private temporary directory (remove it, or set XDG_CACHE_HOME to a directory of your own)\n`,
    );
    expect(r.status).toBe(0);
    const made = r.stdout.split("\n")[0]!;
    expect(made.startsWith(join(tmp, "gpucheck-fashionmnist-v1-"))).toBe(true);
    // a real set, which the IDX reader reads: the planted files are not in it
    expect(readFileSync(join(made, "train-labels-idx1-ubyte.gz")).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  });

  (slurmUp ? test : test.skip)("a planted Slurm stage (/tmp/gpucheck-<next job ids>, nobody's, mode 0777): the job refuses it, nothing runs", () => {
    const dir = scene(as, "slurm");
    const marker = join(dir, "PWNED");
    // the next job ids: one job now, then the ones after it, each planted with code on PYTHONPATH
    const probe = spawnSync("sbatch", ["--parsable", "--wrap", "true", "--output", "/dev/null"], { encoding: "utf8" });
    expect(probe.status).toBe(0);
    const next = Number(probe.stdout.trim().split(";")[0]);
    const planted: string[] = [];
    for (let id = next + 1; id <= next + 6; id++) {
      const stage = `/tmp/gpucheck-${id}`;
      rmSync(stage, { recursive: true, force: true });
      for (const node of ["node1", "node2"]) {
        mkdirSync(join(stage, node, "gpucheck_workload"), { recursive: true, mode: 0o777 });
        plant(join(stage, node, "sitecustomize.py"), payload(marker));
        plant(join(stage, node, "gpucheck_workload", "__init__.py"), payload(marker));
      }
      spawnSync("chown", ["-R", `${NOBODY}:${NOBODY}`, stage]);
      spawnSync("chmod", ["-R", "a+rwx", stage]);
      planted.push(stage);
    }
    try {
      const suite = suiteFile(
        dir,
        "name: attack-slurm\nplatform: { type: slurm, slurm: { pollMaxS: 1 } }\ndefaults: { python: /usr/bin/python3, nodes: 1, gpusPerNode: 0, ranksPerNode: 1 }\ntests:\n  - name: inventory\n    kind: inventory\n",
      );
      const out = join(dir, "out");
      const r = gpucheck(as, dir, ["suite", suite, "--out", out, "--progress", "none"]);
      const said = r.stdout + r.stderr + (existsSync(join(out, "results.json")) ? readFileSync(join(out, "results.json"), "utf8") : "");
      expect(said).toMatch(
        /node\d: \/tmp\/gpucheck-\d+ is not private to this user \(owner nobody, mode 777\): gpucheck unpacks and runs nothing from it; remove it \(or ask the admin of the node to\)/,
      );
      expect(r.status).not.toBe(0);
      expect(existsSync(marker)).toBe(false);
    } finally {
      for (const p of planted) rmSync(p, { recursive: true, force: true });
    }
  });
});

// The ssh hosts of test/infra/ssh.sh log in as a normal user (the node side of the run); the stage is
// on a stageDir every user can write into, as a shared scratch directory is, and nobody got there first.
describe("a tampered ssh stage (real sshd's)", () => {
  const scenes = () => {
    const infra = sshInfra();
    const dir = mkdtempSync(join(base, "ssh-stage-"));
    chmodSync(dir, 0o1777);
    const stage = join(dir, workloadHash());
    // in the sticky, world-writable stageDir: the login user could write it, were the code to run
    const marker = join(dir, "PWNED");
    // the binary's own files, one of them with code added: what an old stage's .complete vouched for
    for (const [rel, text] of workloadFiles()) {
      mkdirSync(join(stage, rel, ".."), { recursive: true, mode: 0o755 });
      writeFileSync(join(stage, rel), rel === "gpucheck_workload/__init__.py" ? `${text}\n${payload(marker)}` : text, { mode: 0o644 });
    }
    writeFileSync(join(stage, ".complete"), `${workloadHash()}\n`);
    const t = scriptTest("stage", "/usr/bin/python3", "import gpucheck_workload; print('RAN', flush=True)", { nodes: 1, ranksPerNode: 1 });
    const ctx = runContextFor(t, {
      settings: ssh.settings.parse({ configFile: infra.config, stageDir: dir }),
      cli: { hosts: [infra.hosts[0]!] },
      outDir: mkdtempSync(join(base, "ssh-out-")),
      signal: AbortSignal.timeout(60_000),
    });
    return { infra, stage, marker, ctx };
  };

  (SSH_INFRA ? test : test.skip)(
    "nobody's stage with the binary's hash as its name: refused in one line, never run",
    async () => {
      const { infra, stage, marker, ctx } = scenes();
      spawnSync("chown", ["-R", `${NOBODY}:${NOBODY}`, stage]);
      const [unit] = await ssh.run(ctx);
      expect(unit!.status).toBe("infra");
      expect(unit!.message).toContain(
        `host ${infra.hosts[0]}: staging the workload into ${stage} failed: exit 1: gpucheck: the stage ${stage} is not this user's own (owner nobody): gpucheck neither runs from it nor replaces it; remove it`,
      );
      expect(existsSync(marker)).toBe(false);
    },
    90_000,
  );

  (SSH_INFRA ? test : test.skip)(
    "the login user's own stage, modified: replaced by the binary's copy, the added code never runs",
    async () => {
      const { infra, stage, marker, ctx } = scenes();
      spawnSync("chown", ["-R", `${infra.user}:`, stage]);
      const [unit] = await ssh.run(ctx);
      expect([unit!.status, unit!.message ?? ""]).toEqual(["completed", ""]);
      expect(existsSync(marker)).toBe(false);
      expect(readFileSync(join(stage, "gpucheck_workload/__init__.py"), "utf8")).toBe(workloadFiles().get("gpucheck_workload/__init__.py")!);
    },
    90_000,
  );
});
