// The platform conformance suite (success, failure, timeout, Ctrl-C, hostile values) through the
// ssh platform's own entry point, with a fake ssh client on PATH (test/fakes/ssh.sh) whose "hosts"
// are scratch directories on this machine: staging, the rank wrapper, the remote kill and the
// watchdog all run as on a real host. What the fake replays rather than produces (a refused
// connection, an unknown host key) is checked below; dead and frozen hosts, ssh config aliases
// and the mpirun launcher need the real sshd's (test/integration/platforms/ssh*.test.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ssh } from "../../../plugins/ssh.ts";
import type { Platform } from "../../../lib/core/platform.ts";
import { installFakeSsh, SSH_STDERR, type FakeSsh } from "../../fakes/fake-ssh.ts";
import { conformance, expectCompleted, runScript, scriptTest, type ConformanceTarget } from "../../platforms/conformance.ts";
import { localLeftovers } from "../../platforms/leftovers.ts";

const platform = ssh as Platform<unknown>;
const PY = "/usr/bin/python3";
let fake: FakeSsh;
beforeAll(() => {
  fake = installFakeSsh();
});
afterAll(() => fake.uninstall());

function target(over: Record<string, unknown> = {}, hosts = ["node1", "node2"], ranksPerNode = 2): ConformanceTarget {
  return {
    python: PY,
    settings: ssh.settings.parse({ peerFailureGraceMs: 1000, killGraceMs: 1000, ...over }),
    cli: { hosts },
    nodes: hosts.length,
    ranksPerNode,
    leftovers: localLeftovers,
    slackS: 1,
    settleMs: 1500,
  };
}

conformance(platform, () => target());
conformance({ ...platform, name: "ssh (launcher gpucheck)" }, () => target({ launcher: "gpucheck" }));

describe("ssh (fake client): what the run leaves on the hosts", () => {
  test("the workload is staged once per host and content; a run's pid files are gone after it", async () => {
    const tg = target();
    const code = "import os, gpucheck_workload; print('PP', os.environ['GPUCHECK_NODE'], os.path.dirname(gpucheck_workload.__file__), flush=True)";
    const { units, lines } = await runScript(platform, tg, scriptTest("stage", PY, code, { nodes: 2, ranksPerNode: 1 }));
    expectCompleted(units[0]!);
    for (const h of ["node1", "node2"]) {
      const base = join(fake.home(h), ".cache", "gpucheck");
      const stages = readdirSync(base).filter((d) => d !== "runs");
      expect(stages).toHaveLength(1);
      expect(existsSync(join(base, stages[0]!, ".complete"))).toBe(true);
      expect(lines.some((l) => l.endsWith(`PP ${h} ${join(base, stages[0]!, "gpucheck_workload")}`))).toBe(true);
      expect(existsSync(join(base, "runs")) ? readdirSync(join(base, "runs")) : []).toEqual([]);
    }
  }, 60_000);
});

describe("ssh (fake client): replayed faults", () => {
  test("a host that refuses the connection is infra naming it, with ssh's words; the other host's ranks do not outlive the run", async () => {
    fake.fail("127.0.0.9", SSH_STDERR.refused("127.0.0.9"));
    const m = `gpucheck-fake-refused-${process.pid}-${Date.now()}`;
    const code = `import time\nprint('started', flush=True)\ntime.sleep(3600)  # ${m}`;
    const { units, elapsedMs } = await runScript(platform, target({}, ["node1", "127.0.0.9"]), scriptTest("refused", PY, code, { nodes: 2, ranksPerNode: 2, args: [m] }));
    expect(units.map((u) => [u.status, u.message])).toEqual([["infra", "host 127.0.0.9: unreachable: ssh: connect to host 127.0.0.9 port 2722: Connection refused"]]);
    expect(elapsedMs).toBeLessThan(10_000);
    expect(await localLeftovers(m)).toEqual([]);
  }, 30_000);

  test("an unknown host key and a refused login are named with the fix; a host without the Python before anything launches", async () => {
    fake.fail("127.0.0.2", SSH_STDERR.unknownHostKey("127.0.0.2"));
    fake.fail("nobody-here@127.0.0.3", SSH_STDERR.permissionDenied("nobody-here@127.0.0.3"));
    const hosts = ["127.0.0.2", "nobody-here@127.0.0.3", "node1"];
    const spec = { ...scriptTest("bad-hosts", PY, "print('ok')", { nodes: 3, ranksPerNode: 1 }), perNode: true, worldSize: 1 };
    const { units } = await runScript(platform, target({}, hosts, 1), spec);
    expect(units.map((u) => [u.unit, u.status, u.message])).toEqual([
      [
        "127.0.0.2",
        "infra",
        "host 127.0.0.2: login refused: No ED25519 host key is known for [127.0.0.2]:2722 and you have requested strict checking; Host key verification failed (the host's key is not in known_hosts: add it, or set platform.ssh.sshOptions: [StrictHostKeyChecking=accept-new])",
      ],
      ["nobody-here@127.0.0.3", "infra", "host nobody-here@127.0.0.3: login refused: nobody-here@127.0.0.3: Permission denied (publickey)"],
      ["node1", "completed", undefined],
    ]);
    const noPython = { ...target({ python: "/opt/missing/bin/python3" }), python: "/opt/missing/bin/python3" };
    const { units: none } = await runScript(platform, noPython, scriptTest("nopython", "/opt/missing/bin/python3", "print(1)", { nodes: 2, ranksPerNode: 1 }));
    expect(none.map((u) => [u.status, u.message, u.ranks.length])).toEqual([
      ["infra", 'host node1: Python "/opt/missing/bin/python3" not found; host node2: Python "/opt/missing/bin/python3" not found', 0],
    ]);
  }, 30_000);

  test("a failing rank with a hung peer: failed, naming the rank and its reason, and the peer is stopped after the grace", async () => {
    const m = `gpucheck-fake-peer-${process.pid}-${Date.now()}`;
    const code = `import os, sys, time\nif os.environ['RANK'] == '3':\n  print('gpucheck-workload: error: NCCL error: unhandled system error', file=sys.stderr); sys.exit(3)\ntime.sleep(3600)  # ${m}`;
    const { units, elapsedMs } = await runScript(platform, target(), scriptTest("peer", PY, code, { nodes: 2, ranksPerNode: 2, args: [m] }));
    expect(units[0]!.status).toBe("failed");
    expect(units[0]!.message).toBe("rank 3 on node2 failed with exit code 3: NCCL error: unhandled system error");
    expect(elapsedMs).toBeLessThan(10_000);
    expect(await localLeftovers(m)).toEqual([]);
  }, 30_000);
});

describe("ssh (fake client): a per-node unit runs in its host's first ssh", () => {
  const perNode = (name: string, code: string, hosts: number, args: string[] = []) => ({
    ...scriptTest(name, PY, code, { nodes: hosts, ranksPerNode: 1, args }),
    perNode: true,
    worldSize: 1,
  });
  // the remote command's name without its quotes, per host: gpucheck-<run>-<what>
  const sessions = () =>
    fake
      .takeCalls()
      .map((l) => l.replace(/'/g, "").replace(/ gpucheck-[0-9a-f]+-/, " "))
      .sort();

  for (const launcher of ["gpucheck", "direct"]) {
    test(`launcher ${launcher}: a cold host is checked, staged, then launched; a warm one gets one session, its process in it`, async () => {
      const homes = [`${launcher}1`, `${launcher}2`];
      const tg = target({ launcher }, homes, 1);
      const code =
        "import os; print('ENV', os.environ['GPUCHECK_NODE'], os.environ['RANK'], os.environ['WORLD_SIZE'], os.environ['MASTER_ADDR'], int(os.environ['MASTER_PORT']) > 0)";
      fake.takeCalls();
      const cold = await runScript(platform, tg, perNode("first", code, 2));
      expect(cold.units.map((u) => [u.unit, u.status])).toEqual([
        [homes[0], "completed"],
        [homes[1], "completed"],
      ]);
      // the first ssh found no stage and waited: the copy and the process came after, then -O exit ended it
      expect(sessions()).toEqual(homes.flatMap((h) => [`${h} -O exit`, `${h} 0`, `${h} 0`, `${h} stage`]));
      const warm = await runScript(platform, tg, perNode("again", code, 2));
      expect(warm.units.map((u) => [u.unit, u.status])).toEqual([
        [homes[0], "completed"],
        [homes[1], "completed"],
      ]);
      // its master ended with that session: nothing to close
      expect(sessions()).toEqual(homes.map((h) => `${h} 0`));
      for (const h of homes) {
        // one rank, no launcher around it; the rendezvous is the host's own address and a port found there
        expect(warm.lines).toContain(`${h}/0: ENV ${h} 0 1 127.0.0.1 True`);
        expect(warm.units.find((u) => u.unit === h)!.ranks.map((r) => [r.rank, r.exitCode])).toEqual([[0, 0]]);
        expect(readdirSync(join(fake.home(h), ".cache", "gpucheck", "runs"))).toEqual([]);
      }
    }, 60_000);
  }

  test("in the first session: a failing process is failed on its host, and a cancelled one leaves nothing running", async () => {
    const tg = target({ launcher: "gpucheck" }, ["node1", "node2"], 1);
    await runScript(platform, tg, perNode("warm-up", "print(1)", 2));
    const fails =
      "import os, sys\nif os.environ['GPUCHECK_NODE'] == 'node2':\n  print('gpucheck-workload: error: CUDA error: an illegal memory access', file=sys.stderr); sys.exit(3)\nprint('fine')";
    fake.takeCalls();
    const failed = await runScript(platform, tg, perNode("fails", fails, 2));
    expect(sessions()).toEqual(["node1 0", "node2 0"]);
    expect(failed.units.map((u) => [u.unit, u.status, u.message])).toEqual([
      ["node1", "completed", undefined],
      ["node2", "failed", "rank 0 on node2 failed with exit code 3: CUDA error: an illegal memory access"],
    ]);
    const m = `gpucheck-fake-onepass-${process.pid}-${Date.now()}`;
    const hangs = `import time\nprint('started', flush=True)\ntime.sleep(3600)  # ${m}`;
    const cancelled = await runScript(platform, tg, perNode("hangs", hangs, 2, [m]), { started: 2 });
    expect(cancelled.units.map((u) => [u.unit, u.status])).toEqual([
      ["node1", "cancelled"],
      ["node2", "cancelled"],
    ]);
    // found by its pid file over a fresh channel, as any rank
    expect(cancelled.units.map((u) => u.message)).toEqual(["cancelled: killed rank 0 on node1", "cancelled: killed rank 0 on node2"]);
    expect(await localLeftovers(m)).toEqual([]);
  }, 60_000);

  test("in the first session: cancelled while launching (before or after the processes start), the run ends and nothing is left", async () => {
    const tg = target({ launcher: "gpucheck" }, ["node1", "node2"], 1);
    await runScript(platform, tg, perNode("warm-up", "print(1)", 2));
    // a process that started after the stop's kill went out was left to run, and the run waited on it forever
    for (const ms of [0, 150, 500]) {
      const m = `gpucheck-fake-onepass-early-${process.pid}-${Date.now()}`;
      const r = await runScript(platform, tg, perNode("hangs", `import time\nprint('started', flush=True)\ntime.sleep(3600)  # ${m}`, 2, [m]), ms);
      expect([ms, r.units.map((u) => u.status)]).toEqual([ms, ["cancelled", "cancelled"]]);
      expect(r.elapsedMs).toBeLessThan(20_000);
      expect(await localLeftovers(m)).toEqual([]);
    }
  }, 90_000);
});
