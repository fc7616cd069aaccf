// gpucheck as a user runs it (the compiled binary when built, else the sources) with
// `--platform ssh --hosts …` against the loopback sshd's of test/infra/ssh.sh: the built-in
// cpu-smoke suite across 2 and 4 hosts, a per-node test losing a host, and Ctrl-C.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gpucheck, gpucheckAsync, tempDir } from "../../e2e/cli.ts";
import { killHost, remoteLeftovers, remoteProcesses, reviveHosts, SSH_INFRA, sshInfra } from "./ssh-infra.ts";

const t = SSH_INFRA ? test : test.skip;

/** A suite over a built-in one, pointing the ssh platform at the test hosts' client config. */
function suiteFile(dir: string, body: string): string {
  const path = join(dir, "suite.yaml");
  writeFileSync(path, `${body}\nplatform:\n  type: ssh\n  ssh:\n    configFile: ${sshInfra().config}\n    killGraceMs: 2000\n`);
  return path;
}

const results = (out: string): any => JSON.parse(readFileSync(join(out, "results.json"), "utf8"));

test("gpucheck plan --platform ssh --hosts: every rank's exact ssh argv as JSON, no sshd needed", () => {
  const r = gpucheck(["plan", "cpu-smoke", "--platform", "ssh", "--hosts", "gpu01,ops@gpu02:2222", "--python", "/opt/py/bin/python3", "--json"]);
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  const plan = JSON.parse(r.stdout);
  const inventory = plan.tests.find((x: { name: string }) => x.name === "inventory").rendered;
  expect(inventory.units.map((u: { unit: string }) => u.unit)).toEqual(["gpu01", "ops@gpu02:2222"]);
  const second = inventory.units[1].ranks[0];
  expect(second.host).toBe("ops@gpu02:2222");
  expect(second.argv.slice(-3, -1)).toEqual(["--", "gpu02"]);
  expect(second.argv.join(" ")).toContain("-l ops -p 2222");
  expect(second.argv.at(-1)).toContain("setsid /opt/py/bin/python3 -m gpucheck_workload inventory");
  const allreduce = plan.tests.find((x: { name: string }) => x.name === "allreduce-gloo").rendered;
  expect(allreduce.units[0].ranks.map((x: { rank: number; host: string }) => [x.rank, x.host])).toEqual([
    [0, "gpu01"],
    [1, "gpu01"],
  ]);
  // a one-node test connects to the one host it runs on, as the run does, and the plan names the idle one
  expect(allreduce.hosts.map((h: { host: string }) => h.host)).toEqual(["gpu01"]);
  expect(allreduce.text).toStartWith("ssh to 1 of the 2 hosts (gpu01), launcher direct");
  expect(plan.tests.find((x: { name: string }) => x.name === "allreduce-gloo").placement).toEqual({
    hosts: ["gpu01"],
    unused: ["ops@gpu02:2222"],
    warning: 'test "allreduce-gloo" runs on gpu01; ops@gpu02:2222 unused: pass --each-node to run it on every host',
  });
});

describe("gpucheck suite --platform ssh", () => {
  // ResNet-18 DDP across hosts runs here once (2 × 2; Slurm runs only the inventory and all-reduce): at 4 × 1 it added about 100 s of CI
  // and nothing the all-reduce across the 4 hosts does not already prove of the launch
  for (const [hosts, ranks, only] of [
    [2, 2, []],
    [4, 1, ["--only", "inventory,allreduce-gloo"]],
  ] as const) {
    t(
      `cpu-smoke across ${hosts} hosts × ${ranks} rank(s)${only.length ? " (inventory, all-reduce)" : ""}: every test passes, inventory per host`,
      async () => {
        const dir = tempDir(`ssh-smoke-${hosts}`);
        const list = sshInfra().hosts.slice(0, hosts);
        const suite = suiteFile(dir, `extends: cpu-smoke\nname: cpu-smoke-ssh\ndefaults:\n  nodes: ${hosts}\n  ranksPerNode: ${ranks}`);
        const r = gpucheck(
          ["suite", suite, ...only, "--platform", "ssh", "--hosts", list.join(","), "--python", "/usr/bin/python3", "--out", join(dir, "out"), "--progress", "none"],
          {
            timeoutMs: 900_000,
          },
        );
        const res = results(join(dir, "out"));
        const units = res.tests.flatMap((x: { name: string; units: Array<{ unit: string; status: string; message?: string }> }) =>
          x.units.map((u) => [x.name, u.unit, u.status, u.message]),
        );
        expect(units).toEqual([
          ...list.map((h) => ["inventory", h, "completed", undefined]),
          ["allreduce-gloo", "all", "completed", undefined],
          ...(only.length ? [] : [["resnet18-fashionmnist", "all", "completed", undefined]]),
        ]);
        expect(r.status).toBe(0);
        expect(res.outcome).toBe("passed");
        // every fake host is this machine, but each reports itself under the name gpucheck reached it by
        expect(res.inventory.map((i: { hostname: string }) => i.hostname).sort()).toEqual([...list].sort());
        expect(await remoteLeftovers(sshInfra().user)).toEqual([]);
      },
      900_000,
    );
  }

  t(
    "per-node: one host dies mid-test; junit has a verdict per host and the summary names the dead one",
    async () => {
      const dir = tempDir("ssh-pernode");
      const hosts = sshInfra().hosts;
      const suite = suiteFile(
        dir,
        [
          "name: ssh-pernode",
          "description: per-node all-reduce, one host dies",
          "tests:",
          "  - name: allreduce-node",
          "    kind: collective",
          "    perNode: true",
          "    nodes: 4",
          "    ranksPerNode: 2",
          "    gpusPerNode: 0",
          "    timeout: 120s",
          "    collective: { op: all_reduce, minBytes: 1KiB, maxBytes: 1MiB, factor: 2, iters: 200, warmup: 2, backend: gloo }",
        ].join("\n"),
      );
      const out = join(dir, "out");
      const run = gpucheckAsync(["suite", suite, "--hosts", hosts.join(","), "--python", "/usr/bin/python3", "--out", out, "--progress", "plain"]);
      const deadline = Date.now() + 60_000;
      while (!run.output().includes("127.0.0.4") && Date.now() < deadline) await Bun.sleep(100);
      await Bun.sleep(1000);
      killHost(3);
      const code = await run.exited;
      reviveHosts();
      expect(code).toBe(3);
      const units = results(out).tests[0].units as Array<{ unit: string; status: string; message?: string }>;
      expect(units.map((u) => [u.unit, u.status])).toEqual([
        ["127.0.0.2", "completed"],
        ["127.0.0.3", "completed"],
        ["127.0.0.4", "infra"],
        ["127.0.0.5", "completed"],
      ]);
      expect(units[2]!.message).toMatch(/^host 127\.0\.0\.4: connection lost while rank \d was running \(ssh exited 255\)/);
      const junit = readFileSync(join(out, "junit.xml"), "utf8");
      expect(junit.match(/<testcase /g)).toHaveLength(4);
      expect(junit).toMatch(/<error [^>]*message="[^"]*host 127\.0\.0\.4: connection lost/);
      expect(run.output()).toMatch(/Failing hosts:\n\s+127\.0\.0\.4\b/);
      // the dead host's evidence: its state could not be had (said with why), its rank logs from here are packed
      const evidence = results(out).evidence as Array<{ node: string; file: string; collected: string[]; missing: Array<{ item: string; why: string }> }>;
      expect(evidence.map((e) => e.node)).toEqual(["127.0.0.4"]);
      expect(evidence[0]!.missing[0]!.item).toBe("the node's state");
      expect(evidence[0]!.missing[0]!.why).toStartWith("the evidence command on 127.0.0.4 ended infra: host 127.0.0.4: unreachable");
      expect(evidence[0]!.collected.filter((f) => f.startsWith("logs/"))).toHaveLength(2);
      expect(await remoteLeftovers(sshInfra().user)).toEqual([]);
    },
    180_000,
  );

  t(
    "a failed test's hosts: each one's evidence bundle collected on it over ssh, bounded, listed in results.json",
    () => {
      const dir = tempDir("ssh-evidence");
      const hosts = sshInfra().hosts.slice(0, 2);
      const suite = suiteFile(
        dir,
        [
          "name: ssh-evidence",
          "tests:",
          "  - name: allreduce-node",
          "    kind: collective",
          "    perNode: true",
          "    nodes: 2",
          "    ranksPerNode: 1",
          "    gpusPerNode: 0",
          "    collective: { op: all_reduce, minBytes: 1KiB, maxBytes: 4KiB, iters: 2, warmup: 1, backend: gloo }",
          "    expect:",
          "      busbw: { min: 1000 GB/s } # no CPU moves this: both hosts fail",
          "evidence: { maxBytes: 1MiB, timeout: 60s }",
        ].join("\n"),
      );
      const out = join(dir, "out");
      const r = gpucheck(["suite", suite, "--hosts", hosts.join(","), "--python", "/usr/bin/python3", "--out", out, "--progress", "plain"], { timeoutMs: 180_000 });
      expect(r.status).toBe(1);
      expect(r.stdout + r.stderr).toContain(`evidence: collecting the state of 2 failed node(s) (${hosts.join(", ")})`);
      const evidence = results(out).evidence as Array<{ node: string; file: string; bytes: number; collected: string[]; missing: Array<{ item: string; why: string }> }>;
      expect(evidence.map((e) => [e.node, e.file])).toEqual(hosts.map((h) => [h, `evidence/${h}.tar.gz`]));
      for (const [i, e] of evidence.entries()) {
        // the workload ran on that host (GPUCHECK_NODE is the name gpucheck reached it by): no GPU tool there, each said
        expect(e.missing).toContainEqual({ item: "nvidia-smi-q.txt", why: `nvidia-smi is not installed on ${hosts[i]}` });
        expect(e.collected).toContain("MANIFEST.txt");
        expect(e.collected).toContain(`logs/allreduce-node/${hosts[i]}/rank-0.log`);
        // every item is either in the archive or listed with why
        const items = ["kernel-log.txt", "nvidia-smi-q.txt", "nvidia-smi-topo-m.txt", "ibstat.txt", "iblinkinfo.txt", "dcgmi-discovery.txt", "nvidia-bug-report.txt"];
        for (const it of items) expect(e.collected.includes(it) || e.missing.some((m) => m.item === it)).toBe(true);
        expect(statSync(join(out, e.file)).size).toBe(e.bytes);
        expect(e.bytes).toBeLessThan(1024 * 1024);
      }
      // the evidence processes' own output (base64) is not kept beside the bundles
      expect(existsSync(join(out, "evidence-logs"))).toBe(false);
    },
    180_000,
  );

  t(
    "Ctrl-C mid-test stops every remote rank and keeps the results",
    async () => {
      const dir = tempDir("ssh-sigint");
      const suite = suiteFile(dir, "extends: cpu-smoke\nname: cpu-smoke-ssh\ndefaults:\n  nodes: 2\n  ranksPerNode: 2");
      const out = join(dir, "out");
      const run = gpucheckAsync([
        "suite",
        suite,
        "--only",
        "allreduce-gloo",
        "--hosts",
        sshInfra().hosts.slice(0, 2).join(","),
        "--python",
        "/usr/bin/python3",
        "--out",
        out,
        "--progress",
        "plain",
      ]);
      const deadline = Date.now() + 60_000;
      // rank 0 prints the nccl-tests table once every rank has joined the rendezvous
      while (!/\[rank 0\]\s+1024\s/.test(run.output()) && Date.now() < deadline) await Bun.sleep(100);
      expect(remoteProcesses(sshInfra().user).some((p) => p.includes("gpucheck_workload"))).toBe(true);
      run.child.kill("SIGINT");
      expect(await run.exited).toBe(130);
      const res = results(out);
      expect(res.complete).toBe(false);
      expect(res.tests[0].units[0].status).toBe("cancelled");
      expect(res.tests[0].units[0].message).toMatch(/^cancelled: killed rank \d on 127\.0\.0\.[23]/);
      expect(await remoteLeftovers(sshInfra().user)).toEqual([]);
    },
    120_000,
  );
});
