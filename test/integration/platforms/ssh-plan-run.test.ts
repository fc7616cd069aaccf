// Plan equals run, ssh platform, against the sshd's of test/infra/ssh.sh: every local ssh command the
// run starts is recorded by an `ssh` first on PATH (it writes its argv as invoked, then execs the real client),
// and the rank launches must be exactly the rendered manifest's with {{runId}}, {{controlDir}} and
// each unit's {{masterAddr:<host>}}/{{masterPort:<host>}} bound to what the run used.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bindSlots, slotsIn } from "../../../lib/core/slots.ts";
import { ssh } from "../../../plugins/ssh.ts";
import type { TestToRender } from "../../../lib/core/platform.ts";
import { runContextFor, scriptTest } from "../../platforms/conformance.ts";
import { tempDir } from "../../tmp.ts";
import { SSH_INFRA, sshInfra } from "./ssh-infra.ts";

const t = SSH_INFRA ? test : test.skip;
const DUMP = "import os, json; print('ENV', json.dumps({k: os.environ[k] for k in ('MASTER_ADDR','MASTER_PORT','GPUCHECK_NODE')}), flush=True)";

let recorded = "";
const path = process.env.PATH;
beforeAll(() => {
  const bin = tempDir("gpucheck-ssh-record-");
  recorded = tempDir("gpucheck-ssh-argv-");
  const wrapper = join(bin, "ssh");
  writeFileSync(
    wrapper,
    `#!/bin/sh\nf=$(mktemp ${recorded}/XXXXXX)\n/usr/bin/python3 -c 'import json, sys; open(sys.argv[1], "w").write(json.dumps(["ssh"] + sys.argv[2:]))' "$f" "$@"\nexec /usr/bin/ssh "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  process.env.PATH = `${bin}:${path}`;
});
afterAll(() => {
  process.env.PATH = path;
});

async function planAndRun(test_: TestToRender, hosts: string[], over: Record<string, unknown> = {}) {
  for (const f of readdirSync(recorded)) rmSync(join(recorded, f));
  const infra = sshInfra();
  const settings = ssh.settings.parse({ configFile: infra.config, peerFailureGraceMs: 2000, killGraceMs: 2000, ...over });
  const ctx = runContextFor(test_, { settings, cli: { hosts }, outDir: tempDir("gpucheck-ssh-plan-run-"), signal: new AbortController().signal });
  const rendered = ssh.render(ctx);
  const units = await ssh.run(ctx);
  const argvs = readdirSync(recorded).map((f) => JSON.parse(readFileSync(join(recorded, f), "utf8")) as string[]);
  return { rendered, units, argvs };
}

/** The values the run used, read back from what it launched and what its ranks were given. */
function usedValues(argvs: string[][], units: Awaited<ReturnType<typeof ssh.run>>) {
  const runId = argvs.flatMap((a) => [...(a.at(-1) ?? "").matchAll(/gpucheck-([0-9a-f]{12})-/g)].map((m) => m[1]!))[0]!;
  const controlDir = argvs.flatMap((a) => a.filter((x) => x.startsWith("ControlPath=")).map((x) => x.slice("ControlPath=".length, -"/%C".length)))[0]!;
  const values: Record<string, string> = { runId, controlDir };
  for (const u of units) {
    const env = JSON.parse(
      u.output
        .split("\n")
        .find((l) => l.includes("ENV {"))!
        .replace(/^.*?ENV /, ""),
    ) as Record<string, string>;
    values[`masterAddr:${u.hosts[0]}`] = env.MASTER_ADDR!;
    values[`masterPort:${u.hosts[0]}`] = env.MASTER_PORT!;
  }
  return values;
}

const sorted = (xs: string[][]) => xs.map((x) => JSON.stringify(x)).sort();

describe("plan equals run: ssh", () => {
  for (const launcher of ["direct", "gpucheck"] as const) {
    t(`2 hosts × 2 ranks, launcher ${launcher}: every rank launch is the rendered ssh argv with the run's values in its slots`, async () => {
      const hosts = sshInfra().hosts.slice(0, 2);
      const { rendered, units, argvs } = await planAndRun(scriptTest("pr", "/usr/bin/python3", DUMP, { nodes: 2, ranksPerNode: 2 }), hosts, { launcher });
      expect(units.map((u) => u.status)).toEqual(["completed"]);
      expect(Object.keys(rendered.slots).sort()).toEqual(["controlDir", `masterAddr:${hosts[0]}`, `masterPort:${hosts[0]}`, "runId"].sort());
      const bound = bindSlots(rendered, usedValues(argvs, units));
      expect(slotsIn(bound.units)).toEqual([]);
      const launches = argvs.filter((a) => (a.at(-1) ?? "").includes("export GPUCHECK_RUN_ID="));
      expect(sorted(launches)).toEqual(sorted(bound.units.flatMap((u) => u.ranks.map((r) => r.argv))));
      // each host's first ssh is the rendered one too
      for (const h of bound.hosts) expect(sorted(argvs)).toContain(JSON.stringify(h.prepare));
    });
  }

  t("per-node on 2 hosts: one unit per host, each with its own rendezvous slots, launched as rendered", async () => {
    const hosts = sshInfra().hosts.slice(0, 2);
    const { rendered, units, argvs } = await planAndRun({ ...scriptTest("pn", "/usr/bin/python3", DUMP, { ranksPerNode: 2 }), perNode: true, worldSize: 2 }, hosts);
    expect(rendered.units.map((u) => u.unit)).toEqual(hosts);
    expect(units.map((u) => u.status)).toEqual(["completed", "completed"]);
    const bound = bindSlots(rendered, usedValues(argvs, units));
    expect(slotsIn(bound.units)).toEqual([]);
    const launches = argvs.filter((a) => (a.at(-1) ?? "").includes("export GPUCHECK_RUN_ID="));
    expect(sorted(launches)).toEqual(sorted(bound.units.flatMap((u) => u.ranks.map((r) => r.argv))));
  });
});
