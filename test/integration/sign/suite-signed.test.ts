// The "done when", on a real run: `gpucheck suite … --sign-key` on the local platform (2 CPU
// ranks) writes a certificate that `gpucheck verify` and openssl accept, and any single-byte change
// to the certificate or to a file it covers makes verify exit 1 with the reason. In the integration
// tier: the all-reduce needs torch (Debian's python3-torch), which the unit tier must not (issue 30).
import { beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gpucheck, gpucheckRun } from "../../e2e/cli.ts";
import { SIGN, tmp } from "../../sign/keys-fixture.ts";

let out: string;
let keys: string;
const cert = () => join(out, "certificate.intoto.json");
// verify and keygen in this process (test/e2e/cli.ts's gpucheckRun); the run itself as a user starts it
const verify = () => gpucheckRun(["verify", cert(), "--key", join(keys, "gpucheck.pub"), "--results", out]);

beforeAll(async () => {
  keys = join(tmp(), "keys");
  out = join(tmp(), "run");
  expect((await gpucheckRun(["keygen", "--out", keys])).status).toBe(0);
  const r = gpucheck(["suite", join(SIGN, "e2e", "signed.yaml"), "--sign-key", join(keys, "gpucheck.key"), "--out", out, "--progress", "none"]);
  if (r.status !== 0) throw new Error(`gpucheck suite exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  expect(r.stdout).toContain(`signed: ${cert()}`);
}, 300_000);

describe("a signed local run", () => {
  test("gpucheck verify accepts it and shows what it certifies", async () => {
    const r = await verify();
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("cluster:  loopback (1 node, 0 GPUs)\n");
    expect(r.stdout).toContain("verdict:  PASSED\n");
    expect(r.stdout).toMatch(/^ {2}passed {2}allreduce-small: busbw [\d.]+ GB\/s/m);
    expect(r.stdout).toContain(`files:    results.json, junit.xml, suite.yaml, ctrf.json, inventory.cdx.json, metrics.prom match their sha256 in ${out}\n`);
  });

  test("openssl accepts it, following the steps printed on certificate.md", async () => {
    copyFileSync(join(keys, "gpucheck.pub"), join(out, "gpucheck.pub"));
    const md = readFileSync(join(out, "certificate.md"), "utf8");
    const steps = [...md.matchAll(/^```sh\n([\s\S]*?)\n```$/gm)].map((m) => m[1])[1];
    const r = Bun.spawnSync(["bash", "-euo", "pipefail", "-c", steps], { cwd: out });
    // the acceptance certificate, then the in-toto Test Result envelope over the same files
    const once = "Signature Verified Successfully\nresults.json: OK\njunit.xml: OK\nsuite.yaml: OK\nctrf.json: OK\ninventory.cdx.json: OK\nmetrics.prom: OK\n";
    expect(r.stdout.toString()).toBe(once + once);
    expect(r.exitCode).toBe(0);
  });

  test("the statement records the run's real inventory and verdicts, and none of its paths", async () => {
    const env = JSON.parse(readFileSync(cert(), "utf8"));
    const statement = Buffer.from(env.payload, "base64").toString();
    const p = JSON.parse(statement).predicate;
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    expect(p.nodes.map((n: { hostname: string }) => n.hostname)).toEqual(results.inventory.map((n: { hostname: string }) => n.hostname));
    expect(p.tests.map((t: { name: string; outcome: string }) => `${t.name}:${t.outcome}`)).toEqual(["inventory:passed", "allreduce-small:passed"]);
    expect(statement).not.toContain(out);
    expect(statement).not.toContain(keys);
    expect(statement).not.toContain(SIGN);
  });

  for (const name of ["results.json", "junit.xml", "suite.yaml", "ctrf.json", "inventory.cdx.json", "metrics.prom", "certificate.intoto.json"]) {
    test(`one changed byte in ${name}: verify exits 1 with the reason`, async () => {
      const path = join(out, name);
      const original = readFileSync(path);
      const changed = Buffer.from(original);
      const at = name === "certificate.intoto.json" ? original.indexOf('"payload":"') + 40 : Math.floor(original.length / 2);
      changed[at] = changed[at] === 0x41 ? 0x42 : 0x41;
      writeFileSync(path, changed);
      try {
        const r = await verify();
        expect(r.status).toBe(1);
        expect(r.stdout).toBe("");
        expect(r.stderr).toStartWith(`gpucheck: certificate "${cert()}" is NOT valid: `);
        expect(r.stderr).toContain(name === "certificate.intoto.json" ? "bad signature: it does not verify with --key" : `digest mismatch: ${name} has sha256 `);
      } finally {
        writeFileSync(path, original);
      }
      expect((await verify()).status).toBe(0);
    }, 60_000);
  }
});
