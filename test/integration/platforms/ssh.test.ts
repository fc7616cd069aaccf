// The ssh platform against real sshd's on loopback (test/infra/ssh.sh): the shared conformance
// suite across two hosts, rank placement, per-node mode, staging once, hostile paths.
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { ssh } from "../../../plugins/ssh.ts";
import type { Platform } from "../../../lib/core/platform.ts";
import { conformance, expectCompleted, runScript, scriptTest, type ConformanceTarget } from "../../platforms/conformance.ts";
import { localLeftovers } from "../../platforms/leftovers.ts";
import { remoteLeftovers, SSH_INFRA, sshInfra } from "./ssh-infra.ts";

const t = SSH_INFRA ? test : test.skip;
const platform = ssh as Platform<unknown>;

function target(over: Record<string, unknown> = {}, hosts = 2, ranksPerNode = 2): ConformanceTarget & { cli: { hosts: string[] } } {
  const infra = sshInfra();
  return {
    python: "/usr/bin/python3",
    settings: ssh.settings.parse({ configFile: infra.config, peerFailureGraceMs: 2000, killGraceMs: 2000, ...over }),
    cli: { hosts: infra.hosts.slice(0, hosts) },
    nodes: hosts,
    ranksPerNode,
    leftovers: localLeftovers,
    slackS: 3,
  };
}

t("ssh infra: every test host accepts a key login (GPUCHECK_INFRA lists ssh) and has a temporary directory of its own", () => {
  const infra = sshInfra();
  expect(infra.hosts).toHaveLength(4);
  const tmp = new Set<string>();
  for (const h of infra.hosts) {
    const [conn, dir] = execFileSync("ssh", ["-F", infra.config, h, 'echo $SSH_CONNECTION; echo "$TMPDIR"; test -w "$TMPDIR"'], { encoding: "utf8" }).split("\n");
    expect(conn!.split(" ")[2]).toBe(h);
    tmp.add(dir!);
  }
  // one kernel, one hostname: a shared /tmp made Open MPI's daemons of two hosts race on one session directory
  expect(tmp.size).toBe(4);
});

conformance(platform, () => target(), SSH_INFRA);
// the same behaviours with one launcher per host (gpucheck_workload.launch) instead of one ssh per rank
conformance({ ...platform, name: "ssh (launcher gpucheck)" }, () => target({ launcher: "gpucheck" }), SSH_INFRA);

describe("ssh: placement and rendezvous", () => {
  const dump =
    "import os, json; print('ENV', json.dumps({k: os.environ[k] for k in ('RANK','WORLD_SIZE','LOCAL_RANK','LOCAL_WORLD_SIZE','MASTER_ADDR','MASTER_PORT','GPUCHECK_NODE')}), flush=True)";
  const envs = (lines: string[]) => lines.filter((l) => l.includes("ENV {")).map((l) => JSON.parse(l.slice(l.indexOf("ENV ") + 4)) as Record<string, string>);

  t(
    "4 hosts × 3 ranks: host-major ranks, rank 0's host and one free port for every rank",
    async () => {
      const tg = target({}, 4, 3);
      const { units, lines } = await runScript(platform, tg, scriptTest("place", tg.python, dump, { nodes: 4, ranksPerNode: 3 }));
      expectCompleted(units[0]!);
      const seen = envs(lines).sort((a, b) => Number(a.RANK) - Number(b.RANK));
      expect(seen.map((e) => [e.RANK, e.LOCAL_RANK, e.GPUCHECK_NODE])).toEqual([...Array(12).keys()].map((r) => [String(r), String(r % 3), tg.cli.hosts[Math.floor(r / 3)]]));
      expect(new Set(seen.map((e) => `${e.MASTER_ADDR}:${e.MASTER_PORT}`)).size).toBe(1);
      expect(seen[0]!.MASTER_ADDR).toBe(tg.cli.hosts[0]);
      expect(Number(seen[0]!.MASTER_PORT)).toBeGreaterThan(1024);
      expect(units[0]!.ranks.map((r) => [r.rank, r.host, r.exitCode])).toEqual([...Array(12).keys()].map((r) => [r, tg.cli.hosts[Math.floor(r / 3)], 0]));
    },
    60_000,
  );

  t(
    "ssh config aliases: MASTER_ADDR is the address ssh reached rank 0's host on, not the alias",
    async () => {
      const tg = { ...target(), cli: { hosts: ["node1", "node2"] } };
      const { units, lines } = await runScript(platform, tg, scriptTest("alias", tg.python, dump, { nodes: 2, ranksPerNode: 1 }));
      expectCompleted(units[0]!);
      expect(
        envs(lines)
          .map((e) => [e.GPUCHECK_NODE, e.MASTER_ADDR])
          .sort(),
      ).toEqual([
        ["node1", "127.0.0.2"],
        ["node2", "127.0.0.2"],
      ]);
    },
    60_000,
  );

  t(
    "more ranks per host than sshd's MaxSessions-safe 8: the extra ranks get their own connection",
    async () => {
      const tg = target({}, 1, 10);
      const { units, lines } = await runScript(platform, tg, scriptTest("wide", tg.python, dump, { nodes: 1, ranksPerNode: 10 }));
      expectCompleted(units[0]!);
      expect(
        envs(lines)
          .map((e) => Number(e.RANK))
          .sort((a, b) => a - b),
      ).toEqual([...Array(10).keys()]);
    },
    60_000,
  );

  t(
    "per-node mode: one unit per host, each with its own rendezvous on that host",
    async () => {
      const tg = target({}, 4, 2);
      const spec = { ...scriptTest("pernode", tg.python, dump, { nodes: 4, ranksPerNode: 2 }), perNode: true, worldSize: 2 };
      const { units, lines } = await runScript(platform, tg, spec);
      expect(units.map((u) => [u.unit, u.status, u.hosts])).toEqual(tg.cli.hosts.map((h) => [h, "completed", [h]]));
      const seen = envs(lines);
      expect(seen).toHaveLength(8);
      for (const h of tg.cli.hosts) {
        const mine = seen.filter((e) => e.GPUCHECK_NODE === h);
        expect(mine.map((e) => [e.RANK, e.WORLD_SIZE, e.MASTER_ADDR]).sort()).toEqual([
          ["0", "2", h],
          ["1", "2", h],
        ]);
      }
      for (const u of units) expect(u.output).toContain(`"GPUCHECK_NODE": "${u.unit}"`);
    },
    60_000,
  );
});

describe("ssh: one launcher per host (launcher: gpucheck)", () => {
  t(
    "2 hosts × 3 ranks through gpucheck_workload.launch: rank environment, per-rank logs, rank 0's output",
    async () => {
      const tg = target({ launcher: "gpucheck" }, 2, 3);
      const code =
        "import os; print('R', os.environ['RANK'], os.environ['WORLD_SIZE'], os.environ['LOCAL_RANK'], os.environ['MASTER_ADDR'], os.environ['GPUCHECK_NODE'], flush=True)";
      const { units, lines } = await runScript(platform, tg, scriptTest("launcher", tg.python, code, { nodes: 2, ranksPerNode: 3 }));
      expectCompleted(units[0]!);
      expect(units[0]!.ranks.map((r) => [r.rank, r.host])).toEqual([0, 1, 2, 3, 4, 5].map((r) => [r, tg.cli.hosts[Math.floor(r / 3)]]));
      for (const r of units[0]!.ranks) expect(readFileSync(r.path, "utf8")).toBe(`R ${r.rank} 6 ${r.rank % 3} ${tg.cli.hosts[0]} ${r.host}\n`);
      expect(
        lines
          .filter((l) => l.includes(": R "))
          .map((l) => l.split(":")[0])
          .sort(),
      ).toEqual(["all/0", "all/1", "all/2", "all/3", "all/4", "all/5"]);
      expect(units[0]!.output).toBe(`R 0 6 0 ${tg.cli.hosts[0]} ${tg.cli.hosts[0]}\n`);
    },
    60_000,
  );

  t(
    "a failing rank behind the launcher is named with its own exit code and reason",
    async () => {
      const tg = target({ launcher: "gpucheck" }, 2, 2);
      const code = "import os, sys\nif os.environ['RANK'] == '2':\n  print('gpucheck-workload: error: out of memory on cuda:0', file=sys.stderr); sys.exit(4)";
      const { units } = await runScript(platform, tg, scriptTest("launcher-fail", tg.python, code, { nodes: 2, ranksPerNode: 2 }));
      expect(units[0]!.status).toBe("failed");
      expect(units[0]!.message).toBe(`rank 2 on ${tg.cli.hosts[1]} failed with exit code 4: out of memory on cuda:0`);
    },
    60_000,
  );
});

describe("ssh: one mpirun for the cluster (launcher: mpirun)", () => {
  t(
    "the workload's all-reduce across 2 hosts × 2 ranks under Open MPI's mpirun, which starts host 2's ranks over its own ssh",
    async () => {
      const tg = target({ launcher: "mpirun" }, 2, 2);
      const spec = scriptTest("mpi", tg.python, "", { nodes: 2, ranksPerNode: 2 });
      spec.launch.args = [
        "-m",
        "gpucheck_workload",
        "collective",
        "--op",
        "all_reduce",
        "--min-bytes",
        "1024",
        "--max-bytes",
        "65536",
        "--iters",
        "5",
        "--warmup",
        "1",
        "--backend",
        "gloo",
      ];
      const { units } = await runScript(platform, tg, spec);
      expectCompleted(units[0]!);
      expect(units[0]!.output).toContain("# Collective test concluded: all_reduce_perf");
      expect(units[0]!.output).toMatch(/^\s+65536\s+16384\s+float\s+sum/m);
    },
    120_000,
  );

  t(
    "a hung mpirun job is stopped at the timeout on every host",
    async () => {
      const tg = target({ launcher: "mpirun" }, 2, 2);
      const m = `gpucheck-mpi-hang-${process.pid}-${Date.now()}`;
      const code = `import time\nprint('started', flush=True)\ntime.sleep(3600)  # ${m}`;
      const { units } = await runScript(platform, tg, scriptTest("mpi-hang", tg.python, code, { nodes: 2, ranksPerNode: 2, args: [m], timeoutMs: 8000 }));
      // the pair, so that a failure shows the unit's own words
      expect([units[0]!.status, units[0]!.message]).toEqual(["timeout", "timed out after 8s: killed mpirun on 127.0.0.2"]);
      expect(await localLeftovers(m)).toEqual([]);
    },
    60_000,
  );
});

describe("ssh: staging", () => {
  t(
    "the workload is staged once per content: a repeat run copies nothing; hostile stage paths arrive literally",
    async () => {
      const stageDir = `~/.cache/gpucheck-test it's $(touch /tmp/gpucheck-pwned) \`id\`;x/${Date.now()}`;
      const tg = target({ stageDir }, 2, 1);
      const code = "import os, gpucheck_workload; print('PP', os.environ['PYTHONPATH'], os.path.dirname(gpucheck_workload.__file__))";
      const notes: string[][] = [];
      for (let i = 0; i < 2; i++) {
        const seen: string[] = [];
        const { units, lines } = await runScriptWithNotes(tg, scriptTest("stage", tg.python, code, { nodes: 2, ranksPerNode: 1 }), seen);
        expectCompleted(units[0]!);
        const pp = lines.find((l) => l.includes("PP "))!;
        expect(pp).toContain(`${stageDir.replace("~", `/home/${sshInfra().user}`)}/`);
        notes.push(seen);
      }
      expect(notes[0]!.join("\n")).toMatch(/staged the workload \(\w+\) on [12] of 2 hosts/);
      expect(notes[1]!.join("\n")).toMatch(/workload \w+ already staged on all 2 hosts/);
      expect(execFileSync("bash", ["-c", "ls /tmp/gpucheck-pwned 2>/dev/null || true"], { encoding: "utf8" })).toBe("");
    },
    60_000,
  );
});

async function runScriptWithNotes(tg: ConformanceTarget, spec: ReturnType<typeof scriptTest>, notes: string[]) {
  const wrapped: Platform<unknown> = { ...platform, run: (ctx) => platform.run({ ...ctx, note: (m) => notes.push(m) }) };
  return runScript(wrapped, tg, spec);
}

t("after all of the above, the test user has no process left on any host", async () => {
  expect(await remoteLeftovers(sshInfra().user)).toEqual([]);
});
