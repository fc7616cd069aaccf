// Faults against real sshd's: unreachable, unknown and silent hosts, refused logins, a host that
// dies mid-test, a failing rank with hung peers, and the remote watchdog when the client vanishes.
// Every test checks that nothing of the run is left on any host.
import { afterAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { createServer, type Server, type Socket } from "node:net";
import { ssh } from "../../../plugins/ssh.ts";
import { rankArgv } from "../../../plugins/_shared/ssh/argv.ts";
import type { Platform, RunContext } from "../../../lib/core/platform.ts";
import { runScript, scriptTest } from "../../platforms/conformance.ts";
import { localLeftovers } from "../../platforms/leftovers.ts";
import { freezeHost, killHost, remoteLeftovers, reviveHosts, SSH_INFRA, sshInfra } from "./ssh-infra.ts";

const t = SSH_INFRA ? test : test.skip;
const platform = ssh as Platform<unknown>;
const marker = (what: string) => `gpucheck-fault-${what}-${process.pid}-${Date.now()}`;
const hang = (m: string) => `import time\nprint('started', flush=True)\ntime.sleep(3600)  # ${m}`;

function target(hosts: string[], over: Record<string, unknown> = {}) {
  return {
    python: "/usr/bin/python3",
    settings: ssh.settings.parse({ configFile: sshInfra().config, connectTimeout: 2, peerFailureGraceMs: 1000, killGraceMs: 1500, ...over }),
    cli: { hosts },
    leftovers: localLeftovers,
  };
}

/** runScript, with a hook that sees every line (to act once the ranks run). */
function withLines(onLine: (unit: string, rank: number, line: string) => void): Platform<unknown> {
  return { ...platform, run: (ctx: RunContext<unknown>) => platform.run({ ...ctx, onLine: (u, r, l) => (ctx.onLine(u, r, l), onLine(u, r, l)) }) };
}

afterAll(() => {
  if (SSH_INFRA) reviveHosts();
});

describe("ssh: hosts that cannot be used", () => {
  t(
    "an unreachable host (connection refused) is an infra error naming it; ranks already started elsewhere are stopped",
    async () => {
      const [h1] = sshInfra().hosts;
      const m = marker("refused");
      const { units, elapsedMs } = await runScript(
        platform,
        target([h1!, "127.0.0.9"]),
        scriptTest("refused", "/usr/bin/python3", hang(m), { nodes: 2, ranksPerNode: 2, args: [m] }),
      );
      expect(units.map((u) => u.status)).toEqual(["infra"]);
      expect(units[0]!.message).toBe("host 127.0.0.9: unreachable: ssh: connect to host 127.0.0.9 port 2722: Connection refused");
      expect(elapsedMs).toBeLessThan(10_000);
      expect(await localLeftovers(m)).toEqual([]);
    },
    30_000,
  );

  t(
    "an unknown host name, a refused login and a host that never answers are each named with ssh's reason",
    async () => {
      const silent = await silentListener("127.0.0.6", sshInfra().port);
      try {
        const hosts = ["no-such-host.invalid", "nobody-here@127.0.0.3", "127.0.0.6", sshInfra().hosts[0]!];
        const spec = { ...scriptTest("bad-hosts", "/usr/bin/python3", "print('ok')", { nodes: 4, ranksPerNode: 1 }), perNode: true, worldSize: 1 };
        const started = Date.now();
        const { units } = await runScript(platform, target(hosts), spec);
        expect(Date.now() - started).toBeLessThan(8_000); // connectTimeout 2 s bounds the silent host
        expect(units.map((u) => [u.unit, u.status, u.message])).toEqual([
          ["no-such-host.invalid", "infra", "host no-such-host.invalid: unreachable: ssh: Could not resolve hostname no-such-host.invalid: Name or service not known"],
          ["nobody-here@127.0.0.3", "infra", "host nobody-here@127.0.0.3: login refused: nobody-here@127.0.0.3: Permission denied (publickey)"],
          ["127.0.0.6", "infra", "host 127.0.0.6: unreachable: Connection timed out during banner exchange; Connection to 127.0.0.6 port 2722 timed out"],
          [hosts[3], "completed", undefined],
        ]);
      } finally {
        silent.close();
      }
    },
    30_000,
  );

  t(
    "an unknown host key is refused under BatchMode, with the fix in the message (sshOptions reach ssh)",
    async () => {
      const tg = target(sshInfra().hosts.slice(0, 1), { sshOptions: ["UserKnownHostsFile=/dev/null"] });
      const { units } = await runScript(platform, tg, scriptTest("hostkey", "/usr/bin/python3", "print(1)", { nodes: 1, ranksPerNode: 1 }));
      expect(units.map((u) => [u.status, u.message])).toEqual([
        [
          "infra",
          "host 127.0.0.2: login refused: No ED25519 host key is known for [127.0.0.2]:2722 and you have requested strict checking; Host key verification failed (the host's key is not in known_hosts: add it, or set platform.ssh.sshOptions: [StrictHostKeyChecking=accept-new])",
        ],
      ]);
    },
    30_000,
  );

  t(
    "a host without the suite's Python is named before anything launches",
    async () => {
      const tg = { ...target(sshInfra().hosts.slice(0, 2)), python: "/opt/missing/bin/python3" };
      const { units } = await runScript(platform, tg, scriptTest("nopython", "/opt/missing/bin/python3", "print(1)", { nodes: 2, ranksPerNode: 1 }));
      expect(units.map((u) => [u.status, u.message, u.ranks.length])).toEqual([
        ["infra", 'host 127.0.0.2: Python "/opt/missing/bin/python3" not found; host 127.0.0.3: Python "/opt/missing/bin/python3" not found', 0],
      ]);
    },
    30_000,
  );
});

describe("ssh: a host dies mid-test", () => {
  t(
    "whole-cluster test: infra for that host within the timeout, the other hosts' ranks stopped, nothing left",
    async () => {
      const hosts = sshInfra().hosts;
      const m = marker("die");
      let killed = false;
      const started = new Set<number>();
      const p = withLines((_u, rank, line) => {
        if (line === "started") started.add(rank);
        if (started.size === 8 && !killed) {
          killed = true;
          killHost(3);
        }
      });
      const { units, elapsedMs } = await runScript(p, target(hosts), scriptTest("die", "/usr/bin/python3", hang(m), { nodes: 4, ranksPerNode: 2, args: [m], timeoutMs: 60_000 }));
      reviveHosts();
      expect(killed).toBe(true);
      expect(units[0]!.status).toBe("infra");
      expect(units[0]!.message).toMatch(
        /^host 127\.0\.0\.4: connection lost while rank [45] was running \(ssh exited 255\); could not reach host 127\.0\.0\.4 to stop rank \d(, rank \d)?: unreachable: ssh: connect to host 127\.0\.0\.4 port 2722: Connection refused$/,
      );
      expect(elapsedMs).toBeLessThan(15_000);
      expect(await localLeftovers(m)).toEqual([]);
    },
    90_000,
  );

  t(
    "a host that stops answering (no FIN, no RST) is declared lost after aliveInterval × 3; once it answers again its ranks are gone",
    async () => {
      const hosts = sshInfra().hosts.slice(0, 2);
      const m = marker("freeze");
      let frozenAt = 0;
      const started = new Set<number>();
      const p = withLines((_u, rank, line) => {
        if (line === "started") started.add(rank);
        if (started.size === 4 && !frozenAt) {
          frozenAt = Date.now();
          freezeHost(2, true);
        }
      });
      let units: Awaited<ReturnType<typeof runScript>>["units"];
      try {
        ({ units } = await runScript(
          p,
          target(hosts, { aliveInterval: 1 }),
          scriptTest("freeze", "/usr/bin/python3", hang(m), { nodes: 2, ranksPerNode: 2, args: [m], timeoutMs: 60_000 }),
        ));
      } finally {
        freezeHost(2, false);
      }
      const detectedAfter = Date.now() - frozenAt;
      expect(units[0]!.status).toBe("infra");
      expect(units[0]!.message).toMatch(
        /^host 127\.0\.0\.3: connection lost while rank [23] was running \(ssh exited 255\); could not reach host 127\.0\.0\.3 to stop rank \d(, rank \d)?: unreachable: Connection timed out during banner exchange/,
      );
      expect(detectedAfter).toBeLessThan(15_000); // 3 s of silence + a 2 s connect timeout for the kill attempt
      // thawed, its sshd sees the client gone; the ranks' watchdogs see their channel closed
      await Bun.sleep(2000);
      expect(await localLeftovers(m)).toEqual([]);
    },
    90_000,
  );

  t(
    "per-node test: the dead host's unit is infra, every other host keeps its own verdict",
    async () => {
      const hosts = sshInfra().hosts;
      const m = marker("die-pernode");
      const code = `import os, time\nprint('started', flush=True)\ntime.sleep(3 if os.environ['GPUCHECK_NODE'] != '127.0.0.3' else 3600)  # ${m}`;
      let killed = false;
      const p = withLines((unit, _rank, line) => {
        if (unit === "127.0.0.3" && line === "started" && !killed) {
          killed = true;
          killHost(2);
        }
      });
      const spec = { ...scriptTest("die-pernode", "/usr/bin/python3", code, { nodes: 4, ranksPerNode: 1, args: [m], timeoutMs: 60_000 }), perNode: true, worldSize: 1 };
      const { units } = await runScript(p, target(hosts), spec);
      reviveHosts();
      expect(units.map((u) => [u.unit, u.status])).toEqual([
        ["127.0.0.2", "completed"],
        ["127.0.0.3", "infra"],
        ["127.0.0.4", "completed"],
        ["127.0.0.5", "completed"],
      ]);
      expect(units[1]!.message).toStartWith("host 127.0.0.3: connection lost while rank 0 was running (ssh exited 255)");
      expect(await localLeftovers(m)).toEqual([]);
    },
    90_000,
  );
});

describe("ssh: ranks that fail or outlive their client", () => {
  t(
    "a failing rank with a hung peer: failed, naming the rank, and the peer is stopped after the grace",
    async () => {
      const m = marker("peer");
      const code = `import os, sys, time\nif os.environ['RANK'] == '3':\n  print('gpucheck-workload: error: NCCL error: unhandled system error', file=sys.stderr); sys.exit(3)\ntime.sleep(3600)  # ${m}`;
      const { units, elapsedMs } = await runScript(
        platform,
        target(sshInfra().hosts.slice(0, 2)),
        scriptTest("peer", "/usr/bin/python3", code, { nodes: 2, ranksPerNode: 2, args: [m] }),
      );
      expect(units[0]!.status).toBe("failed");
      expect(units[0]!.message).toBe("rank 3 on 127.0.0.3 failed with exit code 3: NCCL error: unhandled system error");
      expect(units[0]!.ranks.map((r) => r.exitCode)).toEqual([143, 143, 143, 3]);
      expect(elapsedMs).toBeLessThan(10_000);
      expect(await localLeftovers(m)).toEqual([]);
    },
    30_000,
  );

  t(
    "watchdog: when the local ssh client vanishes (gpucheck SIGKILLed), the remote rank's session is killed",
    async () => {
      const infra = sshInfra();
      const m = marker("watchdog");
      const settings = ssh.settings.parse({ configFile: infra.config });
      const host = { name: infra.hosts[1]!, host: infra.hosts[1]! };
      const argv = rankArgv(
        { id: 0, hostIndex: 0, host, ranks: [0], argv: ["/usr/bin/python3", "-c", hang(m), m], env: {}, mux: false },
        { configFile: infra.config, options: [], connectTimeoutS: 5, aliveIntervalS: 5, controlDir: "/nonexistent", persistS: 60 },
        { base: settings.stageDir, hash: "watchdog" },
        "watchdogtest",
      );
      const child = spawn(argv[0]!, argv.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
      await new Promise<void>((resolve) => child.stdout.on("data", (d) => String(d).includes("started") && resolve()));
      expect((await localLeftovers(m)).some((l) => l.includes("python3"))).toBe(true);
      child.kill("SIGKILL");
      await Bun.sleep(1500);
      expect(await localLeftovers(m)).toEqual([]);
    },
    30_000,
  );
});

t("after the fault tests, the test user has no process left on any host", async () => {
  expect(await remoteLeftovers(sshInfra().user)).toEqual([]);
});

/** A TCP port that accepts connections and never says a word (a hung sshd, a firewall proxy). */
function silentListener(host: string, port: number): Promise<Server> {
  const sockets: Socket[] = [];
  return new Promise((resolve, reject) => {
    const srv = createServer((s) => void sockets.push(s));
    srv.on("error", reject);
    srv.listen(port, host, () => {
      const close = srv.close.bind(srv);
      srv.close = (cb) => (sockets.forEach((s) => s.destroy()), close(cb));
      resolve(srv);
    });
  });
}
