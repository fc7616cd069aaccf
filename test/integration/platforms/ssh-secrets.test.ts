// Issue 31: a suite's env values never stand on a command line on the ssh platform. Against the real
// sshd's of test/infra/ssh.sh (both sides are this machine): while the ranks run, `ps` shows every
// process's arguments (the local ssh clients, as on a jump host, and the remote `sh -c` wrappers and
// ranks, as on a node), and the secret is in none of them; the ranks did get it.
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { ssh } from "../../../plugins/ssh.ts";
import type { TestToRender } from "../../../lib/core/platform.ts";
import { runContextFor, scriptTest } from "../../platforms/conformance.ts";
import { tempDir } from "../../tmp.ts";
import { SSH_INFRA, sshInfra } from "./ssh-infra.ts";

const t = SSH_INFRA ? test : test.skip;
const SECRET = `ssh-secret-${crypto.randomUUID()}`;
const OTHER = `plain-but-private-${crypto.randomUUID()}`;
const sha = (v: string) => createHash("sha256").update(v).digest("hex");
// each rank says it has the values (by their hashes: its log is not the place for them either), then stays up to be seen
const RANK =
  "import hashlib, os, time; e = os.environ; print('SEEN', hashlib.sha256(e['API_TOKEN'].encode()).hexdigest(), hashlib.sha256(e['ENDPOINT'].encode()).hexdigest(), flush=True); time.sleep(4)";

/** `ps` over every process, full width, while the ranks run: once the ranks (their code is on their command lines) and the local ssh clients are both there. */
async function psWhileRunning(until: Promise<unknown>, clientsWanted: number): Promise<string> {
  let done = false;
  void until.then(() => (done = true));
  while (!done) {
    const ps = execFileSync("ps", ["-eww", "-o", "args"], { encoding: "utf8" });
    const ranks = ps.split("\n").filter((l) => l.startsWith("/usr/bin/python3 -c import hashlib")).length;
    const clients = ps.split("\n").filter((l) => /^ssh .* -- /.test(l)).length;
    if (ranks >= 2 && clients >= clientsWanted) return ps;
    await Bun.sleep(100);
  }
  throw new Error("the run ended before ps saw its ranks and their ssh clients");
}

async function runWithSecret(test_: TestToRender, hosts: string[], launcher: string) {
  const infra = sshInfra();
  const settings = ssh.settings.parse({ configFile: infra.config, launcher });
  const ctx = runContextFor(test_, { settings, cli: { hosts }, outDir: tempDir("gpucheck-ssh-secrets-"), signal: new AbortController().signal });
  const run = ssh.run(ctx);
  // mpirun: one local ssh for it, its own ssh (Open MPI's plm_rsh) for the other host's ranks
  const ps = await psWhileRunning(run, launcher === "mpirun" ? 1 : 2);
  return { ps, units: await run };
}

describe("ssh: the suite's env reaches the ranks on stdin, never on a command line", () => {
  const env = { API_TOKEN: SECRET, ENDPOINT: OTHER, NCCL_DEBUG: "INFO" };
  const cases: Array<[string, string, TestToRender]> = [
    ["2 hosts, a rank each, launcher direct", "direct", scriptTest("sec", "/usr/bin/python3", RANK, { nodes: 2, ranksPerNode: 1, env })],
    // mpirun's command line names the variables (-x NAME); Open MPI carries their values to the other host's ranks itself
    ["2 hosts, a rank each, launcher mpirun", "mpirun", scriptTest("sec", "/usr/bin/python3", RANK, { nodes: 2, ranksPerNode: 1, env })],
    // a per-node unit's one process runs in its host's first ssh (the one-pass script)
    [
      "per node on 2 hosts, launcher gpucheck (the process in the host's first ssh)",
      "gpucheck",
      { ...scriptTest("sec", "/usr/bin/python3", RANK, { ranksPerNode: 1, env }), perNode: true, worldSize: 1 },
    ],
  ];
  for (const [name, launcher, test_] of cases) {
    t(name, async () => {
      const hosts = sshInfra().hosts.slice(0, 2);
      const { ps, units } = await runWithSecret(test_, hosts, launcher);
      // the wrappers' scripts are on command lines, in plain sight: a value there would be seen
      expect(ps).toContain("exec /bin/sh -c");
      expect(ps).toContain("export GPUCHECK_RUN_ID=");
      // the lines that hold a value, if any: an empty list, or the processes that showed it
      expect(ps.split("\n").filter((l) => l.includes(SECRET) || l.includes(OTHER))).toEqual([]);
      for (const u of units) {
        expect(u.status, `${u.unit}: ${u.message ?? ""}\n${u.tail}`).toBe("completed");
        expect(u.output).toContain(`SEEN ${sha(SECRET)} ${sha(OTHER)}`);
      }
    });
  }
});
