// The suite's env reaches an ssh rank on the ssh's stdin, not in its command line: `ps` on the jump
// host (the local ssh's argv) and on the node (sh -c '<script>') is public. The wrapper reads the
// block, then stdin is the watchdog's as before.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ssh } from "../../plugins/ssh.ts";
import { envBlock, ENV_END, onePassScript, rankScript } from "../../plugins/_shared/ssh/scripts.ts";
import { sshSettings } from "../../plugins/_shared/ssh/settings.ts";
import { fakeSuite, scriptTest } from "./conformance.ts";
import { tempDir } from "../tmp.ts";
import type { SshManifest } from "../../plugins/ssh/manifest.ts";

const SECRET = "supersecret-token-123";
// every byte class the encoding meets: quotes, $, backslashes, newlines, %b escapes, UTF-8, a trailing newline
const VALUES: Record<string, string> = {
  API_TOKEN: SECRET,
  QUOTES: `it's "dq" \`id\` $(id) $HOME`,
  BACKSLASH: "\\back \\n \\0101 \\c %b %s",
  LINES: "line1\nline2\n\n",
  UTF8: "é ✓ \u0001 tab\there",
  EMPTY: "",
  EQUALS: "a=b c",
  DASHES: "-n -e",
};
const PRINT_ENV = `import json, os; print(json.dumps({k: os.environ.get(k) for k in ${JSON.stringify([...Object.keys(VALUES), "PYTHONPATH"])}}))`;

async function runWrapper(shell: string, script: string, stdin: string, keepOpen = true) {
  const p = Bun.spawn([shell, "-c", script], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  p.stdin.write(stdin);
  p.stdin.flush();
  if (!keepOpen) p.stdin.end();
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (keepOpen) p.stdin.end();
  return { out, err, code: p.exitCode };
}

describe("the env block", () => {
  test("one NAME value line per variable, no raw newline or quote in a line, ended by its own line", () => {
    const block = envBlock({ A: "x y", B: "l1\nl2", C: "it's" });
    expect(block).toBe(`A x\\0040y\nB l1\\0012l2\nC it\\0047s\n${ENV_END}\n`);
  });

  for (const shell of ["/bin/sh", "/bin/bash"]) {
    test(`${shell}: every value arrives byte for byte, PYTHONPATH after the stage, and the rank still has its watchdog`, async () => {
      const home = tempDir("gpucheck-envstdin-");
      const stage = { base: join(home, "cache"), hash: "h1" };
      const env = { ...VALUES, PYTHONPATH: "/opt/extra" };
      const script = rankScript({ runId: "r1", stage, id: 0, argv: ["/usr/bin/python3", "-c", PRINT_ENV], env: { RANK: "0" }, envOnStdin: true });
      expect(script).not.toContain(SECRET);
      const r = await runWrapper(shell, script, envBlock(env));
      expect(r.err.replace(/\x1egpucheck-r1 (start|exit) \d+\n/g, "")).toBe("");
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out)).toEqual({ ...VALUES, PYTHONPATH: `${stage.base}/h1:/opt/extra` });
    });

    test(`${shell}: a block cut short (gpucheck gone before its end line) stops the rank before it starts`, async () => {
      const home = tempDir("gpucheck-envstdin-");
      const stage = { base: join(home, "cache"), hash: "h1" };
      const script = rankScript({ runId: "r1", stage, id: 0, argv: ["/usr/bin/python3", "-c", "print('ran')"], env: {}, envOnStdin: true });
      const r = await runWrapper(shell, script, "API_TOKEN abc\n", false);
      expect(r.out).toBe("");
      expect(r.err).toBe("gpucheck: the environment did not arrive on stdin\n");
      expect(r.code).toBe(1);
    });
  }

  test("the one-pass script reads the block too, before its checks' wait on stdin", () => {
    const stage = { base: "/nonexistent", hash: "h1" };
    const script = onePassScript(stage, "/usr/bin/python3", { runId: "r1", stage, id: 0, argv: ["python3"], env: { MASTER_ADDR: "x" }, envOnStdin: true });
    expect(script).toContain("the environment did not arrive on stdin");
    expect(script.indexOf("gpucheck-env-end")).toBeGreaterThan(script.indexOf("read -r _; exit 0"));
  });
});

describe("the rendered manifest", () => {
  const render = (launcher: string, opts: { perNode?: boolean } = {}) => {
    const t = {
      ...scriptTest("t", "python3", "print(1)", { nodes: opts.perNode ? 1 : 2, ranksPerNode: 2, env: { API_TOKEN: SECRET, NCCL_DEBUG: "INFO", RANK: "99" } }),
      perNode: !!opts.perNode,
    };
    return ssh.render({
      suite: fakeSuite(),
      settings: sshSettings.parse({ launcher }),
      cli: { hosts: ["gpu01", "gpu02"] },
      test: t,
      launch: t.launch,
      workloadHash: "abc",
    }) as SshManifest;
  };

  for (const launcher of ["direct", "gpucheck", "torchrun", "mpirun"]) {
    test(`launcher ${launcher}: no command line holds a value of the suite's env; the manifest's envOnStdin does`, () => {
      const m = render(launcher);
      const argvs = [...m.hosts.flatMap((h) => [h.prepare, h.stageIfMissing]), ...m.units.flatMap((u) => [...u.ranks.map((r) => r.argv), ...(u.onePass ? [u.onePass] : [])])];
      for (const a of argvs) expect(a.join(" ")).not.toContain(SECRET);
      expect(m.text).not.toContain(SECRET);
      // a rank variable of gpucheck's wins over the suite's and stays on the command line, as before
      expect(m.envOnStdin).toEqual(launcher === "direct" ? { API_TOKEN: SECRET, NCCL_DEBUG: "INFO" } : { API_TOKEN: SECRET, NCCL_DEBUG: "INFO", RANK: "99" });
      expect(m.text).toContain(`its stdin carries the suite's env first (${Object.keys(m.envOnStdin).join(", ")})`);
    });
  }

  test("per node, one process per host in its first ssh: that ssh's command holds no value either", () => {
    const m = render("gpucheck", { perNode: true });
    expect(m.units.map((u) => u.unit)).toEqual(["gpu01", "gpu02"]);
    for (const u of m.units) {
      expect(u.onePass).toBeDefined();
      expect(u.onePass!.join(" ")).not.toContain(SECRET);
      expect(u.onePass!.at(-1)).toContain("the environment did not arrive on stdin");
    }
  });

  test("a test without env: no block, the scripts as before", () => {
    const t = scriptTest("t", "python3", "print(1)", { nodes: 1 });
    const m = ssh.render({ suite: fakeSuite(), settings: sshSettings.parse({}), cli: { hosts: ["gpu01"] }, test: t, launch: t.launch, workloadHash: "abc" }) as SshManifest;
    expect(m.envOnStdin).toEqual({});
    expect(m.units[0]!.ranks[0]!.argv.at(-1)).not.toContain(ENV_END);
  });
});
