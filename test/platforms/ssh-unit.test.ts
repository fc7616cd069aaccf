// The ssh platform's pure parts: quoting, host lists, settings, ssh argv, rank placement, the
// remote scripts' syntax and the plan rendering. No sshd needed.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { workloadHash } from "../../lib/core/assets.ts";
import { SuiteError } from "../../lib/core/errors.ts";
import type { Launch } from "../../lib/core/types.ts";
import { ssh } from "../../plugins/ssh.ts";
import { exitArgv, remoteCommand, sshArgv, type SshTarget } from "../../plugins/_shared/ssh/argv.ts";
import { describeSshFailure } from "../../plugins/_shared/ssh/connect.ts";
import { parseHost, parseHostfile, parseHostList } from "../../plugins/_shared/ssh/hosts.ts";
import { procsOf, unitsOf } from "../../plugins/ssh/layout.ts";
import { limiter } from "../../plugins/_shared/limit.ts";
import { checkEnvName, remotePath, shJoin, shQuote } from "../../plugins/_shared/ssh/quote.ts";
import { killScript, onePassScript, prepareScript, rankScript, stageScript } from "../../plugins/_shared/ssh/scripts.ts";
import { tarFiles } from "../../plugins/_shared/tar.ts";
import { sshSettings } from "../../plugins/_shared/ssh/settings.ts";
import { hostsForTest, resolveHosts } from "../../plugins/_shared/ssh/target.ts";
import { fakeSuite, scriptTest } from "./conformance.ts";
import { tempDir } from "../tmp.ts";

const HOSTILE = [
  "",
  "a b",
  "it's",
  `"dq"`,
  "$(touch /tmp/gpucheck-pwned)",
  "`id`",
  "x; rm -rf /",
  "line1\nline2",
  "$HOME",
  "*",
  "\\back",
  "-n",
  "a=b",
  "'",
  "''\\'",
  "~",
  "tab\there",
  "é ✓",
];

const errorOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
  return "no error";
};

describe("quoting", () => {
  test("shQuote leaves plain words alone and single-quotes everything else", () => {
    expect(shQuote("abc/d-e_f.py")).toBe("abc/d-e_f.py");
    expect(shQuote("")).toBe("''");
    expect(shQuote("a b")).toBe("'a b'");
    expect(shQuote("it's")).toBe(`'it'\\''s'`);
    expect(shQuote("a=b")).toBe("'a=b'"); // unquoted it would be an assignment in command position
    expect(shQuote("~")).toBe("'~'");
    expect(shJoin(["printf", "%s", "a b"])).toBe("printf %s 'a b'");
  });

  test("a NUL byte cannot be quoted and says so", () => {
    expect(errorOf(() => shQuote("a\0b"))).toBe('SuiteError: gpucheck: ssh: a NUL byte cannot be passed to a remote command: "a\\u0000b"');
  });

  for (const shell of ["/bin/sh", "/bin/bash"]) {
    test(`hostile values survive one level of ${shell} literally`, () => {
      for (const v of HOSTILE) {
        const r = spawnSync(shell, ["-c", `printf %s ${shQuote(v)}`], { encoding: "utf8" });
        expect(r.stdout).toBe(v);
      }
    });
  }

  test("hostile values survive the remote command's two levels (login shell, then sh -c) literally", () => {
    const script = `for a in ${shJoin(HOSTILE)}; do printf '<%s>' "$a"; done`;
    // what sshd does with the command string: hand it to the login shell with -c
    const r = spawnSync("/bin/bash", ["-c", remoteCommand(script, "gpucheck-test")], { encoding: "utf8" });
    expect(r.stdout).toBe(HOSTILE.map((v) => `<${v}>`).join(""));
  });

  test("remote paths: ~ is the login user's home, the rest is literal", () => {
    expect(remotePath("~")).toBe(`"$HOME"`);
    expect(remotePath("~/.cache/gpu check")).toBe(`"$HOME"/'.cache/gpu check'`);
    expect(remotePath("/scratch/x")).toBe("/scratch/x");
    expect(remotePath("~user/x")).toBe("'~user/x'");
    const r = spawnSync("/bin/sh", ["-c", `printf %s ${remotePath("~/a $(b)")}`], { encoding: "utf8", env: { HOME: "/h o" } });
    expect(r.stdout).toBe("/h o/a $(b)");
  });

  test("environment names must be portable", () => {
    expect(checkEnvName("NCCL_DEBUG")).toBe("NCCL_DEBUG");
    expect(errorOf(() => checkEnvName("A;B"))).toBe(
      'SuiteError: gpucheck: ssh: environment variable name "A;B" is not valid: expected letters, digits and _, not starting with a digit',
    );
    expect(errorOf(() => checkEnvName("1X"))).toStartWith('SuiteError: gpucheck: ssh: environment variable name "1X" is not valid');
  });
});

describe("host lists", () => {
  test("[user@]host[:port] and IPv6 forms", () => {
    expect(parseHost("gpu01")).toEqual({ name: "gpu01", host: "gpu01" });
    expect(parseHost("root@gpu01.example.com:2222")).toEqual({ name: "root@gpu01.example.com:2222", host: "gpu01.example.com", user: "root", port: 2222 });
    expect(parseHost("[fe80::1%eth0]:22")).toEqual({ name: "[fe80::1%eth0]:22", host: "fe80::1%eth0", port: 22 });
    expect(parseHost("ops@[::1]")).toEqual({ name: "ops@[::1]", host: "::1", user: "ops" });
    expect(parseHost("::1")).toEqual({ name: "::1", host: "::1" });
  });

  test("entries that ssh could read as options, or that are not hosts, are refused with the reason", () => {
    const cases: Array<[string, string]> = [
      ["-oProxyCommand=touch /tmp/x", 'host "-oProxyCommand=touch /tmp/x" is not valid: expected [user@]host[:port] with a host of letters, digits, . _ - (not starting with -)'],
      ["a b", 'host "a b" is not valid: expected [user@]host[:port] with a host of letters, digits, . _ - (not starting with -)'],
      ["gpu01:0", 'host "gpu01:0" is not valid: port "0" is not a number from 1 to 65535'],
      ["gpu01:ssh", 'host "gpu01:ssh" is not valid: port "ssh" is not a number from 1 to 65535'],
      ["gpu01:", 'host "gpu01:" is not valid: port "" is not a number from 1 to 65535'],
      ["-l@gpu01", 'host "-l@gpu01" is not valid: expected [user@]host[:port] with a user of letters, digits, . _ -'],
      ["[zz$]:22", 'host "[zz$]:22" is not valid: expected an IPv6 address inside [ ]'],
    ];
    for (const [entry, message] of cases) expect(errorOf(() => parseHost(entry))).toBe(`SuiteError: gpucheck: ssh: ${message}`);
  });

  test("hostfile: comments, blank lines and MPI slots columns; errors point at the line", () => {
    expect(parseHostfile("# rack 3\ngpu01 slots=8\n\n  gpu02   # spare PSU\nroot@gpu03:2222\n", "hosts.txt")).toEqual(["gpu01", "gpu02", "root@gpu03:2222"]);
    expect(errorOf(() => parseHostfile("gpu01\n-oX\n", "hosts.txt"))).toBe(
      'SuiteError: hosts.txt:2: host "-oX" is not valid: expected [user@]host[:port] with a host of letters, digits, . _ - (not starting with -)',
    );
    expect(errorOf(() => parseHostfile("# nothing\n\n", "hosts.txt"))).toBe("SuiteError: gpucheck: ssh: hostfile hosts.txt lists no hosts");
  });

  test("a host listed twice is refused (it would run two nodes' ranks)", () => {
    expect(errorOf(() => parseHostList(["gpu01", "gpu02", "gpu01"]))).toBe('SuiteError: gpucheck: ssh: host "gpu01" is listed twice');
    expect(parseHostList(["gpu01", "gpu01:2222"]).map((h) => h.port)).toEqual([undefined, 2222]);
  });

  test("--hosts wins over hosts:, a relative hostfile is read next to the suite, and no hosts at all is a usage error", () => {
    const dir = tempDir("gpucheck-ssh-unit-");
    writeFileSync(join(dir, "nodes.txt"), "gpu07\ngpu08\n");
    const suite = { ...fakeSuite(), source: { path: join(dir, "suite.yaml"), sha256: "0", builtin: false } };
    const s = (o: object) => sshSettings.parse(o);
    expect(resolveHosts(s({ hosts: ["a"] }), { hosts: ["b", "c"] }, suite).map((h) => h.name)).toEqual(["b", "c"]);
    expect(resolveHosts(s({ hosts: ["a"] }), {}, suite).map((h) => h.name)).toEqual(["a"]);
    expect(resolveHosts(s({ hostfile: "nodes.txt" }), {}, suite).map((h) => h.name)).toEqual(["gpu07", "gpu08"]);
    expect(errorOf(() => resolveHosts(s({ hostfile: "missing.txt" }), {}, suite))).toBe(`SuiteError: gpucheck: ssh: cannot read hostfile ${join(dir, "missing.txt")}: ENOENT`);
    expect(errorOf(() => resolveHosts(s({}), {}, suite))).toBe(
      "SuiteError: gpucheck: ssh: no hosts: set platform.ssh.hosts or platform.ssh.hostfile in the suite, or pass --hosts or --hostfile",
    );
    expect(errorOf(() => hostsForTest({ name: "allreduce", nodes: 4 }, parseHostList(["a", "b"])))).toBe(
      'SuiteError: gpucheck: ssh: test "allreduce" needs 4 nodes but 2 hosts were given: a, b; give 4 with --hosts or --hostfile',
    );
  });
});

describe("settings", () => {
  test("defaults, unknown keys, and hosts with hostfile", () => {
    expect(sshSettings.parse({})).toMatchObject({ stageDir: "~/.cache/gpucheck", maxParallel: 32, launcher: "direct", connectTimeout: 10, sshOptions: [] });
    expect(sshSettings.safeParse({ hots: ["a"] }).error?.issues.map((i) => i.message)).toEqual(['Unrecognized key: "hots"']);
    expect(sshSettings.safeParse({ hosts: ["a"], hostfile: "h" }).error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["hostfile", "set hosts or hostfile, not both"],
    ]);
    expect(sshSettings.safeParse({ sshOptions: ["-oProxyCommand=x"] }).error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["sshOptions.0", "must look like Name=value"],
    ]);
    expect(sshSettings.safeParse({ launcher: "srun" }).success).toBe(false);
  });
});

const target: SshTarget = {
  configFile: "/etc/gpucheck/ssh_config",
  user: "ops",
  port: 22,
  options: ["ProxyJump=bastion"],
  connectTimeoutS: 7,
  aliveIntervalS: 5,
  controlDir: "/tmp/gpucheck-ssh-x",
  persistS: 60,
};

describe("ssh argv", () => {
  const common = [
    "-F",
    "/etc/gpucheck/ssh_config",
    "-l",
    "ops",
    "-p",
    "22",
    "-T",
    "-o",
    "BatchMode=yes",
    "-o",
    "ProxyJump=bastion",
    "-o",
    "ConnectTimeout=7",
    "-o",
    "ServerAliveInterval=5",
    "-o",
    "ServerAliveCountMax=3",
  ];
  test("master, mux and direct channels; the suite's options come before gpucheck's defaults; -- before the host", () => {
    expect(sshArgv(target, { name: "gpu01", host: "gpu01" }, "master", "true")).toEqual([
      "ssh",
      "-o",
      "ControlMaster=auto",
      "-o",
      "ControlPath=/tmp/gpucheck-ssh-x/%C",
      "-o",
      "ControlPersist=60",
      ...common,
      "--",
      "gpu01",
      "true",
    ]);
    expect(sshArgv(target, { name: "gpu01", host: "gpu01" }, "mux", "true").slice(0, 5)).toEqual(["ssh", "-o", "ControlMaster=no", "-o", "ControlPath=/tmp/gpucheck-ssh-x/%C"]);
    expect(sshArgv(target, { name: "gpu01", host: "gpu01" }, "direct", "true").slice(0, 5)).toEqual(["ssh", "-o", "ControlMaster=no", "-o", "ControlPath=none"]);
    expect(exitArgv(target, { name: "gpu01", host: "gpu01" }).slice(-4)).toEqual(["-O", "exit", "--", "gpu01"]);
  });

  test("a host's own user and port win over the settings'", () => {
    const argv = sshArgv(target, parseHost("root@gpu02:2222"), "mux", "true");
    expect(argv.slice(argv.indexOf("-l"), argv.indexOf("-l") + 4)).toEqual(["-l", "root", "-p", "2222"]);
    expect(argv.slice(-2)).toEqual(["gpu02", "true"]);
  });
});

describe("rank placement", () => {
  const launch: Launch = { python: "python3", args: ["-m", "gpucheck_workload", "collective"], env: { NCCL_DEBUG: "WARN" }, files: [] };
  const hosts = parseHostList(["gpu01", "gpu02", "gpu03"]);
  const master = { addr: "10.0.0.1", port: "29500" };

  test("whole-cluster: the first `nodes` hosts, ranks host-major, every rank with its environment", () => {
    const [u] = unitsOf({ nodes: 2, ranksPerNode: 2, perNode: false }, hosts);
    expect(u).toMatchObject({ unit: "all", worldSize: 4, ranksPerNode: 2 });
    expect(u!.hosts.map((h) => h.name)).toEqual(["gpu01", "gpu02"]);
    const procs = procsOf(u!, launch, "/opt/py/bin/python", "direct", master, { GPUCHECK_RUN_ID: "r1" });
    expect(procs.map((p) => [p.id, p.host.name, p.env.RANK, p.env.LOCAL_RANK, p.env.GPUCHECK_NODE])).toEqual([
      [0, "gpu01", "0", "0", "gpu01"],
      [1, "gpu01", "1", "1", "gpu01"],
      [2, "gpu02", "2", "0", "gpu02"],
      [3, "gpu02", "3", "1", "gpu02"],
    ]);
    // GPUCHECK_CPU_BIND: ranks side by side on a host each bind to their own CPUs (workload affinity.py)
    expect(procs[3]!.env).toEqual({
      GPUCHECK_CPU_BIND: "split",
      NCCL_DEBUG: "WARN",
      GPUCHECK_RUN_ID: "r1",
      RANK: "3",
      WORLD_SIZE: "4",
      LOCAL_RANK: "1",
      LOCAL_WORLD_SIZE: "2",
      MASTER_ADDR: "10.0.0.1",
      MASTER_PORT: "29500",
      GPUCHECK_NODE: "gpu02",
    });
    expect(procs[0]!.argv).toEqual(["/opt/py/bin/python", "-m", "gpucheck_workload", "collective"]);
  });

  test("per-node: one unit per host, each its own world", () => {
    expect(unitsOf({ nodes: 1, ranksPerNode: 8, perNode: true }, hosts).map((u) => [u.unit, u.worldSize, u.hosts.length])).toEqual([
      ["gpu01", 8, 1],
      ["gpu02", 8, 1],
      ["gpu03", 8, 1],
    ]);
  });

  test("the gpucheck launcher on a host with one rank: the rank itself, with the environment the launcher would give it", () => {
    const [u] = unitsOf({ nodes: 2, ranksPerNode: 1, perNode: false }, hosts);
    const own = procsOf(u!, launch, "python3", "gpucheck", master, { GPUCHECK_RUN_ID: "r1" });
    expect(own.map((p) => [p.id, p.host.name, p.ranks])).toEqual([
      [0, "gpu01", [0]],
      [1, "gpu02", [1]],
    ]);
    expect(own[1]!.argv).toEqual(["python3", "-m", "gpucheck_workload", "collective"]);
    expect(own[1]!.env).toEqual({
      GPUCHECK_CPU_BIND: "split",
      NCCL_DEBUG: "WARN",
      GPUCHECK_RUN_ID: "r1",
      RANK: "1",
      WORLD_SIZE: "2",
      LOCAL_RANK: "0",
      LOCAL_WORLD_SIZE: "1",
      MASTER_ADDR: "10.0.0.1",
      MASTER_PORT: "29500",
      GPUCHECK_NODE: "gpu02",
    });
  });

  test("ranks beyond 8 on a host get their own connection (sshd's MaxSessions defaults to 10)", () => {
    const [u] = unitsOf({ nodes: 1, ranksPerNode: 10, perNode: false }, hosts);
    expect(procsOf(u!, launch, "python3", "direct", master, {}).map((p) => p.mux)).toEqual([true, true, true, true, true, true, true, true, false, false]);
  });

  test("gpucheck and torchrun: one launcher per host with its node rank; mpirun: one launch on the first host", () => {
    const [u] = unitsOf({ nodes: 2, ranksPerNode: 8, perNode: false }, hosts);
    const tr = procsOf(u!, launch, "python3", "torchrun", master, {});
    expect(tr.map((p) => [p.id, p.host.name, p.ranks.length])).toEqual([
      [0, "gpu01", 8],
      [8, "gpu02", 8],
    ]);
    expect(tr[1]!.argv).toEqual([
      "python3",
      "-m",
      "torch.distributed.run",
      "--nnodes=2",
      "--nproc_per_node=8",
      "--master_addr=10.0.0.1",
      "--master_port=29500",
      "--node_rank=1",
      "-m",
      "gpucheck_workload",
      "collective",
    ]);
    expect(tr[1]!.env).toEqual({ GPUCHECK_CPU_BIND: "split", NCCL_DEBUG: "WARN", GPUCHECK_NODE: "gpu02" });
    // a suite's env wins: GPUCHECK_CPU_BIND=none leaves the ranks where the scheduler puts them
    const keep = procsOf(u!, { ...launch, env: { GPUCHECK_CPU_BIND: "none" } }, "python3", "direct", master, {});
    expect(keep[0]!.env.GPUCHECK_CPU_BIND).toBe("none");
    const own = procsOf(u!, launch, "python3", "gpucheck", master, {});
    expect(own[1]!.argv).toEqual(["python3", "-m", "gpucheck_workload.launch", "--nprocs", "8", "--node-rank", "1", "--", "-m", "gpucheck_workload", "collective"]);
    expect(own[1]!.env).toEqual({ NCCL_DEBUG: "WARN", WORLD_SIZE: "16", MASTER_ADDR: "10.0.0.1", MASTER_PORT: "29500", GPUCHECK_NODE: "gpu02" });
    expect(own[1]!.ranks).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);
    const mpi = procsOf(u!, launch, "python3", "mpirun", master, {});
    expect(mpi).toHaveLength(1);
    expect(mpi[0]!.argv).toEqual([
      "mpirun",
      "-np",
      "16",
      "--host",
      "gpu01:8,gpu02:8",
      "--map-by",
      "ppr:8:node",
      "-x",
      "NCCL_DEBUG",
      "-x",
      "MASTER_ADDR",
      "-x",
      "MASTER_PORT",
      "-x",
      "PYTHONPATH",
      "python3",
      "-m",
      "gpucheck_workload",
      "collective",
    ]);
  });
});

describe("remote scripts", () => {
  const stage = { base: "~/.cache/gpu check's", hash: "0123abcd" };
  const scripts = {
    prepare: prepareScript(stage, "/usr/bin/python3", true),
    stage: stageScript(stage),
    rank: rankScript({ runId: "r1", stage, id: 3, argv: ["python3", "-c", "print(1)", ...HOSTILE], env: Object.fromEntries(HOSTILE.map((v, i) => [`V${i}`, v])) }),
    "one-pass": onePassScript(stage, "/usr/bin/python3", { runId: "r1", stage, id: 0, argv: ["python3", "-c", "print(1)", ...HOSTILE], env: { MASTER_ADDR: "x", V: HOSTILE[3]! } }),
    kill: killScript(stage, "r1", [0, 1, 2], 3000),
  };
  for (const [name, script] of Object.entries(scripts)) {
    for (const shell of ["/bin/sh", "/bin/bash"]) {
      test(`the ${name} script parses under ${shell}, hostile values included`, () => {
        const r = spawnSync(shell, ["-n", "-c", script], { encoding: "utf8" });
        expect(r.stderr).toBe("");
        expect(r.status).toBe(0);
      });
    }
  }

  test("prepare: the staged flag, the address ssh reached, and a port no TCP socket uses", async () => {
    const busy = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const run = (python: string) =>
      spawnSync("/bin/sh", ["-c", prepareScript({ base: "/nonexistent", hash: "h" }, python, true)], {
        encoding: "utf8",
        env: { ...process.env, SSH_CONNECTION: "10.0.0.5 50000 10.0.0.7 22" },
      }).stdout;
    const out = run("/bin/true");
    expect(out).toMatch(/^gpucheck-staged no\ngpucheck-addr 10\.0\.0\.7\ngpucheck-port \d+\n$/);
    const inUse = new Set(
      readFileSync("/proc/net/tcp", "utf8")
        .split("\n")
        .slice(1)
        .map((l) => parseInt(l.trim().split(/\s+/)[1]?.split(":")[1] ?? "", 16)),
    );
    for (let i = 0; i < 20; i++) {
      const port = Number(/gpucheck-port (\d+)/.exec(run("/bin/true"))![1]);
      expect(port).toBeGreaterThanOrEqual(20000);
      expect(port).toBeLessThan(32000);
      expect(inUse.has(port)).toBe(false);
    }
    expect(run("/nonexistent/python3")).toBe("gpucheck-staged no\ngpucheck-no-python\n");
    busy.stop(true);
  });

  test("prepare on a host where awk cannot read /proc/net/tcp: the port comes from Python binding port 0", () => {
    const bin = tempDir("gpucheck-noawk-");
    // an awk that fails as mawk does on a file it cannot open
    writeFileSync(join(bin, "awk"), "#!/bin/sh\necho 'awk: cannot open /proc/net/tcp' >&2\nexit 2\n", { mode: 0o755 });
    const r = spawnSync("/bin/sh", ["-c", prepareScript({ base: "/nonexistent", hash: "h" }, "/usr/bin/python3", true)], {
      encoding: "utf8",
      env: { PATH: `${bin}:/usr/bin:/bin`, SSH_CONNECTION: "10.0.0.5 50000 10.0.0.7 22" },
    });
    expect(r.stderr).toBe("");
    const port = Number(/^gpucheck-port (\d+)$/m.exec(r.stdout)?.[1]);
    expect(port).toBeGreaterThan(0);
    expect(port).toBeLessThan(65536);
  });

  test("one-pass: where the stage is there the checks' lines, then the process with the address and port they found", async () => {
    const home = tempDir("gpucheck-onepass-");
    // a real stage: the checks recompute its hash from its files
    const files = new Map([["m.py", "x = 1\n"]]);
    const st = { base: `${home}/cache`, hash: workloadHash(files) };
    const code = "import os; print('GOT', os.environ['MASTER_ADDR'], os.environ['MASTER_PORT'], os.environ['V'])";
    const script = (fixedPort?: number) =>
      onePassScript(
        st,
        "/usr/bin/python3",
        { runId: "r1", stage: st, id: 0, argv: ["/usr/bin/python3", "-c", code], env: { MASTER_ADDR: "never", MASTER_PORT: "1", V: "$HOME" } },
        fixedPort,
      );
    // stdin held open as ssh's channel is: its EOF is the wrapper's signal to kill the process
    const run = async (fixedPort?: number) => {
      const p = Bun.spawn(["/bin/sh", "-c", script(fixedPort)], {
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
        env: { ...process.env, SSH_CONNECTION: "10.0.0.5 50000 10.0.0.7 22" },
      });
      const [stdout, stderr] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
      await p.stdin.end();
      return { stdout, stderr, status: await p.exited };
    };
    // no stage: the checks, then it waits for its stdin to close (the run copies the stage meanwhile), exit 0
    const missing = spawnSync("/bin/sh", ["-c", script()], { encoding: "utf8", input: "", env: { ...process.env, SSH_CONNECTION: "10.0.0.5 50000 10.0.0.7 22" } });
    expect(missing.stdout).toMatch(/^gpucheck-staged no\ngpucheck-addr 10\.0\.0\.7\ngpucheck-port \d+\n$/);
    expect(missing.status).toBe(0);
    expect(spawnSync("/bin/sh", ["-c", stageScript(st)], { input: tarFiles(files) }).status).toBe(0);
    const ran = await run();
    const port = /^gpucheck-port (\d+)$/m.exec(ran.stdout)![1];
    expect(ran.stdout).toBe(`gpucheck-staged yes\ngpucheck-addr 10.0.0.7\ngpucheck-port ${port}\nGOT 10.0.0.7 ${port} $HOME\n`);
    expect(ran.stderr).toMatch(/^\x1egpucheck-r1 start \d+\n\x1egpucheck-r1 exit 0\n$/);
    expect(readdirSync(`${home}/cache/runs`)).toEqual([]);
    // the suite's masterPort: no search, that port
    expect((await run(29400)).stdout).toBe("gpucheck-staged yes\ngpucheck-addr 10.0.0.7\nGOT 10.0.0.7 29400 $HOME\n");
  });

  test("the rank wrapper: own session, pid file, sentinels, watchdog on stdin, PYTHONPATH prepended", () => {
    const s = rankScript({ runId: "r1", stage, id: 3, argv: ["python3", "x.py"], env: { PYTHONPATH: "/opt/extra", A: "1" } });
    expect(s).toContain(`export PYTHONPATH="$HOME"/'.cache/gpu check'\\''s/0123abcd':/opt/extra`);
    expect(s).toContain("setsid python3 x.py </dev/null 3<&- & p=$!");
    expect(s).toContain(`echo $p > "$R/r1.3.pid"`);
    expect(s).toContain("<&3 >/dev/null 2>&1 & w=$!");
  });
});

describe("plan rendering", () => {
  test("gpucheck plan --platform ssh: every host's prepare/stage argv and every rank's exact ssh argv", () => {
    const t = scriptTest("allreduce", "python3", "print(1)", { nodes: 2, ranksPerNode: 2 });
    const rendered = ssh.render({
      suite: fakeSuite(),
      settings: sshSettings.parse({ user: "ops" }),
      cli: { hosts: ["gpu01", "gpu02"] },
      test: t,
      launch: t.launch,
      workloadHash: "abc123",
    }) as {
      hosts: Array<{ host: string; prepare: string[] }>;
      units: Array<{ unit: string; ranks: Array<{ rank: number; host: string; argv: string[] }> }>;
      text: string;
    };
    expect(rendered.hosts.map((h) => h.host)).toEqual(["gpu01", "gpu02"]);
    expect(rendered.units[0]!.ranks.map((r) => [r.rank, r.host])).toEqual([
      [0, "gpu01"],
      [1, "gpu01"],
      [2, "gpu02"],
      [3, "gpu02"],
    ]);
    const argv = rendered.units[0]!.ranks[2]!.argv;
    expect(argv.slice(0, 5)).toEqual(["ssh", "-o", "ControlMaster=no", "-o", "ControlPath={{controlDir}}/%C"]);
    expect(argv.slice(-3, -1)).toEqual(["--", "gpu02"]);
    expect(argv.at(-1)).toStartWith("exec /bin/sh -c ");
    expect(argv.at(-1)).toContain("export RANK=2");
    expect(rendered.text).toContain("rank 2 on gpu02: RANK=2 LOCAL_RANK=0 GPUCHECK_NODE=gpu02 python3 -c 'print(1)'");
    expect(rendered.text).toContain("unit all: MASTER_ADDR={{masterAddr:gpu01}} MASTER_PORT={{masterPort:gpu01}}");
  });

  test("a per-node unit with one process per host: its process in the host's first ssh; torchrun and whole-cluster units keep two", () => {
    const render = (launcher: string, perNode: boolean) => {
      const t = { ...scriptTest("inv", "python3", "print(1)", { nodes: perNode ? 1 : 2, ranksPerNode: 1 }), perNode };
      return ssh.render({
        suite: fakeSuite(),
        settings: sshSettings.parse({ launcher }),
        cli: { hosts: ["gpu01", "gpu02"] },
        test: t,
        launch: t.launch,
        workloadHash: "abc123",
      }) as {
        units: Array<{ unit: string; onePass?: string[] }>;
        text: string;
      };
    };
    const each = render("gpucheck", true);
    expect(each.units.map((u) => [u.unit, u.onePass !== undefined])).toEqual([
      ["gpu01", true],
      ["gpu02", true],
    ]);
    const argv = each.units[1]!.onePass!;
    // a master that ends with its own session: no ControlPersist, no `ssh -O exit`
    expect(argv.slice(0, 6)).toEqual(["ssh", "-o", "ControlMaster=auto", "-o", "ControlPath={{controlDir}}/%C", "-T"]);
    expect(argv.slice(-3, -1)).toEqual(["--", "gpu02"]);
    expect(argv.at(-1)).toContain(`export MASTER_ADDR="$addr"`);
    expect(argv.at(-1)).toContain(`export MASTER_PORT="$port"`);
    expect(argv.at(-1)).not.toContain("gpucheck_workload.launch");
    expect(each.text).toContain("each host's one process of its per-node unit runs in that first ssh itself");
    expect(render("torchrun", true).units.map((u) => u.onePass)).toEqual([undefined, undefined]);
    const all = render("gpucheck", false);
    expect(all.units.map((u) => [u.unit, u.onePass])).toEqual([["all", undefined]]);
    expect(all.text).not.toContain("first ssh itself");
  });

  test("render refuses a plan without hosts", () => {
    const t = scriptTest("x", "python3", "print(1)");
    expect(() => ssh.render({ suite: fakeSuite(), settings: sshSettings.parse({}), cli: {}, test: t, launch: t.launch, workloadHash: "h" })).toThrow(SuiteError);
  });
});

describe("ssh failures and parallelism", () => {
  test("ssh's own words, classified", () => {
    expect(describeSshFailure("ssh: connect to host 10.0.0.9 port 22: Connection refused\n")).toBe("unreachable: ssh: connect to host 10.0.0.9 port 22: Connection refused");
    expect(describeSshFailure("Warning: Permanently added 'x' (ED25519) to the list of known hosts.\nops@x: Permission denied (publickey).\n")).toBe(
      "login refused: ops@x: Permission denied (publickey)",
    );
    expect(describeSshFailure("Host key verification failed.\n")).toBe(
      "login refused: Host key verification failed (the host's key is not in known_hosts: add it, or set platform.ssh.sshOptions: [StrictHostKeyChecking=accept-new])",
    );
    expect(describeSshFailure("")).toBe("ssh failed: no message from ssh");
  });

  test("the limiter never runs more than its slots, and an early release frees a slot before the work ends", async () => {
    const lim = limiter(3);
    let running = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 20 }, () =>
        lim.run(async () => {
          peak = Math.max(peak, ++running);
          await Bun.sleep(2);
          running--;
        }),
      ),
    );
    expect(peak).toBe(3);
    const one = limiter(1);
    const release = await one.acquire();
    let second = false;
    const waiting = one.acquire().then((r) => ((second = true), r));
    await Bun.sleep(5);
    expect(second).toBe(false);
    release();
    release(); // a second call must not free a second slot
    (await waiting)();
    expect(second).toBe(true);
  });
});
