// The fake ssh client must fail the way ssh fails, or the ssh platform's tests prove nothing about
// real hosts: killing the client (gpucheck's stop kills the local ssh's process group) ends the
// client and closes its pipes at once, while the remote command lives on and sees EOF on stdin,
// as behind a dropped connection; it is never killed by the client's signal.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runProc } from "../../lib/core/proc.ts";
import { installFakeSsh, type FakeSsh } from "./fake-ssh.ts";

let fake: FakeSsh;
beforeAll(() => {
  fake = installFakeSsh();
});
afterAll(() => fake.uninstall());

test("killing the client closes its pipes at once; the remote command outlives it and reads EOF on stdin", async () => {
  const ctl = new AbortController();
  const said = join(fake.home("node1"), "said");
  // the remote command forwards stdin to a file; a background process of its own holds its output
  const remote = `sleep 30 & while read -r l; do echo "$l" >> said; done; echo eof >> said; kill $!`;
  const t0 = Date.now();
  const run = runProc({
    argv: ["ssh", "node1", remote],
    input: "first line\n",
    holdStdin: true,
    signal: ctl.signal,
    graceMs: 100,
    onLine: () => {},
  });
  // the remote read the first line: it is running
  while (!(existsSync(said) && readFileSync(said, "utf8").includes("first line"))) await Bun.sleep(20);
  ctl.abort();
  const res = await run;
  expect(res.killed).toBe(true);
  expect(Date.now() - t0).toBeLessThan(5000);
  while (!readFileSync(said, "utf8").includes("eof") && Date.now() - t0 < 5000) await Bun.sleep(20);
  expect(readFileSync(said, "utf8")).toBe("first line\neof\n");
});

test("the client ends with the remote command's exit code, once the remote output is closed", async () => {
  const res = await runProc({ argv: ["ssh", "node1", "echo out; echo err >&2; (sleep 0.3; echo late) & exit 7"] });
  expect([res.code, res.stdout, res.stderr]).toEqual([7, "out\nlate\n", "err\n"]);
});
