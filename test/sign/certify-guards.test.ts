// certify and verify as a user meets their refusals: a run that never ended, a run already signed,
// a certificate pinned to another key or cluster. Each message is asserted whole.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gpucheckRun } from "../e2e/cli.ts";
import { resultsCopy, tmp } from "./keys-fixture.ts";

/** Through test/e2e/cli.ts: the sources (in this process) in the unit tier, the built binary in the integration tier. */
async function gpucheck(...args: string[]) {
  const p = await gpucheckRun(args, { cwd: tmp() });
  return { code: p.status, out: p.stdout, err: p.stderr };
}

type Keys = { key: string; pub: string; fingerprint: string };
/** key pairs made by `gpucheck keygen`, shared across this file's tests (none writes to them): a CLI start each is time */
const made: Keys[] = [];
/** The `which`th key pair: a test that needs two different keys asks for 0 and 1. */
async function keys(which = 0): Promise<Keys> {
  const known = made[which];
  if (known) return known;
  const dir = join(tmp(), "keys");
  const kg = await gpucheck("keygen", "--out", dir);
  expect(kg.code).toBe(0);
  made[which] = { key: join(dir, "gpucheck.key"), pub: join(dir, "gpucheck.pub"), fingerprint: /^fingerprint: (SHA256:\S+)/m.exec(kg.out)![1]! };
  return made[which];
}

/** results.json edited as a killed run leaves it: no endedAt, the third test still unfinished. */
function killedRun(): string {
  const dir = resultsCopy("h100-2node");
  const path = join(dir, "results.json");
  const r = JSON.parse(readFileSync(path, "utf8"));
  r.endedAt = null;
  r.complete = false;
  r.tests[2].outcome = "unfinished";
  r.tests[3].outcome = "unfinished";
  writeFileSync(path, JSON.stringify(r, null, 2));
  return dir;
}

function payload(dir: string) {
  const env = JSON.parse(readFileSync(join(dir, "certificate.intoto.json"), "utf8")) as { payload: string };
  return JSON.parse(Buffer.from(env.payload, "base64").toString("utf8"));
}

describe("certify refuses what it must not sign", () => {
  test("a run that never ended: exit 3, one line naming the tests, nothing written", async () => {
    const k = await keys();
    const dir = killedRun();
    const before = readdirSync(dir).sort();
    const r = await gpucheck("certify", dir, "--key", k.key);
    expect(r).toEqual({
      code: 3,
      out: "",
      err: `gpucheck: cannot certify "${dir}": INCOMPLETE run: tests nccl-allreduce, train-resnet50 never ended; results.json has no endedAt (the run was killed or is still running); nothing was signed; rerun it, or sign it as INCOMPLETE with --allow-incomplete\n`,
    });
    expect(readdirSync(dir).sort()).toEqual(before);
  }, 60_000);

  test("--allow-incomplete signs it as INCOMPLETE: the statement, certificate.md, certificate.html and verify all say so", async () => {
    const k = await keys();
    const dir = killedRun();
    const r = await gpucheck("certify", dir, "--key", k.key, "--allow-incomplete");
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out.split("\n")[0]).toBe("signed h100-2node on acme-h100-a: INCOMPLETE (the tests that finished: PASSED)");
    const why = "tests nccl-allreduce, train-resnet50 never ended; results.json has no endedAt (the run was killed or is still running)";
    expect(payload(dir).predicate.incomplete).toEqual({ verdict: "INCOMPLETE", unfinished: ["nccl-allreduce", "train-resnet50"], why });
    expect(readFileSync(join(dir, "certificate.md"), "utf8").split("\n")[0]).toBe("# GPU cluster acceptance certificate: INCOMPLETE");
    const html = readFileSync(join(dir, "certificate.html"), "utf8");
    expect(html).toContain('<div class="verdict INCOMPLETE">INCOMPLETE</div>');
    const v = await gpucheck("verify", join(dir, "certificate.intoto.json"), "--key", k.pub, "--results", dir);
    expect(v.code).toBe(0);
    expect(v.out).toContain(`verdict:  INCOMPLETE: ${why} (the tests that finished: PASSED)\n`);
  }, 60_000);

  test("a signed run stays signed: a second certify, even with another key, exits 2 and changes nothing", async () => {
    const a = await keys();
    const b = await keys(1);
    const dir = resultsCopy("h100-2node");
    expect((await gpucheck("certify", dir, "--key", a.key)).code).toBe(0);
    const names = ["certificate.intoto.json", "certificate.html", "certificate.md"];
    const before = names.map((n) => readFileSync(join(dir, n), "utf8"));
    const cert = join(dir, "certificate.intoto.json");
    const again = await gpucheck("certify", dir, "--key", b.key);
    expect(again).toEqual({
      code: 2,
      out: "",
      err: `Cannot certify "${dir}": it is already signed (certificate.intoto.json); nothing was changed; verify it with gpucheck verify ${cert} --key <pub.pem> --results ${dir}, or sign it again into a new directory with --out <dir>\n`,
    });
    expect(names.map((n) => readFileSync(join(dir, n), "utf8"))).toEqual(before);
    expect((await gpucheck("verify", cert, "--key", a.pub, "--results", dir)).code).toBe(0);
  }, 60_000);

  test("certify --out signs a new directory linking the same evidence: every file of the signed run keeps its bytes, both certificates verify", async () => {
    const a = await keys();
    const b = await keys(1);
    const dir = resultsCopy("h100-2node");
    expect((await gpucheck("certify", dir, "--key", a.key)).code).toBe(0);
    const hashes = (d: string) =>
      Object.fromEntries(
        readdirSync(d).map((n) => [
          n,
          createHash("sha256")
            .update(readFileSync(join(d, n)))
            .digest("hex"),
        ]),
      );
    const before = hashes(dir);
    const out = join(tmp(), "countersigned");
    const r = await gpucheck("certify", dir, "--key", b.key, "--out", out);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out.split("\n")[2]).toBe(`linked:      3 files of ${dir} into ${out}; ${dir} is unchanged`);
    expect(hashes(dir)).toEqual(before);
    // the evidence is the same files (hard links on one file system), the signature files its own
    for (const f of ["results.json", "junit.xml", "suite.yaml"]) {
      expect(statSync(join(out, f)).ino).toBe(statSync(join(dir, f)).ino);
    }
    expect(hashes(out)["certificate.intoto.json"]).not.toBe(before["certificate.intoto.json"]);
    expect((await gpucheck("verify", join(dir, "certificate.intoto.json"), "--key", a.pub, "--results", dir)).code).toBe(0);
    const v = await gpucheck("verify", join(out, "certificate.intoto.json"), "--key", b.pub, "--results", out);
    expect(v.code).toBe(0);
    expect(v.out.split("\n")[0]).toBe(`certificate valid: signed by ${b.fingerprint} (Ed25519)`);
    // the old key does not verify the new certificate: it is b's alone
    expect((await gpucheck("verify", join(out, "certificate.intoto.json"), "--key", a.pub, "--results", out)).code).not.toBe(0);
  }, 60_000);

  test("certify --out on the run itself, or on a directory holding a run, is refused and nothing is written", async () => {
    const k = await keys();
    const dir = resultsCopy("h100-2node");
    const before = readdirSync(dir).sort();
    expect(await gpucheck("certify", dir, "--key", k.key, "--out", dir)).toEqual({
      code: 2,
      out: "",
      err: `--out "${dir}" is the run being certified: --out names a new directory, where the run is linked and signed; the run itself is never changed\n`,
    });
    const other = resultsCopy("h100-2node");
    const r = await gpucheck("certify", dir, "--key", k.key, "--out", other);
    expect(r).toEqual({ code: 2, out: "", err: `--out "${other}" already holds a run: nothing was touched; choose a new --out\n` });
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(readdirSync(other).some((f) => f.startsWith("certificate"))).toBe(false);
  }, 60_000);

  test("certify --out of a run that cannot be signed (never ended) leaves no directory behind", async () => {
    const k = await keys();
    const dir = killedRun();
    const out = join(tmp(), "never");
    const r = await gpucheck("certify", dir, "--key", k.key, "--out", out);
    expect(r.code).toBe(3);
    expect(r.err).toStartWith(`gpucheck: cannot certify "${out}": INCOMPLETE run:`);
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  test("report on a signed run writes the pages again and keeps junit.xml byte for byte", async () => {
    const k = await keys();
    const dir = resultsCopy("h100-2node");
    expect((await gpucheck("certify", dir, "--key", k.key)).code).toBe(0);
    const junit = join(dir, "junit.xml");
    const before = readFileSync(junit);
    const r = await gpucheck("report", dir);
    expect(r.code).toBe(0);
    expect(r.out.trimEnd().split("\n").at(-1)).toBe(`junit: ${junit} kept as signed (certificate.intoto.json covers it)  report: ${join(dir, "report.html")}`);
    expect(readFileSync(junit).equals(before)).toBe(true);
    expect((await gpucheck("verify", join(dir, "certificate.intoto.json"), "--key", k.pub, "--results", dir)).code).toBe(0);
  }, 60_000);

  test("--cluster names an unnamed cluster, and may not rename a named one", async () => {
    const k = await keys();
    const named = resultsCopy("h100-2node");
    expect(await gpucheck("certify", named, "--key", k.key, "--cluster", "other")).toEqual({
      code: 2,
      out: "",
      err: `Cannot certify "${named}": --cluster other but the suite names the cluster acme-h100-a; drop --cluster or give acme-h100-a\n`,
    });
    const unnamed = async (cluster: string[]) => {
      const dir = resultsCopy("h100-2node");
      const path = join(dir, "results.json");
      const r = JSON.parse(readFileSync(path, "utf8"));
      delete r.suite.cluster;
      writeFileSync(path, JSON.stringify(r, null, 2));
      expect((await gpucheck("certify", dir, "--key", k.key, ...cluster)).code).toBe(0);
      return dir;
    };
    const none = await unnamed([]);
    expect(readFileSync(join(none, "certificate.md"), "utf8").split("\n")[0]).toBe("# GPU cluster acceptance certificate: PASSED (unnamed cluster)");
    expect(payload(none).predicate.cluster).toBeNull();
    const given = await unnamed(["--cluster", "lab-7"]);
    expect(payload(given).predicate.cluster).toBe("lab-7");
  }, 60_000);
});

describe("the statement binds the hosts and the signing binary", () => {
  test("hosts sorted, version, commit and workload hash", async () => {
    const k = await keys();
    const dir = resultsCopy("h100-2node");
    expect((await gpucheck("certify", dir, "--key", k.key)).code).toBe(0);
    const p = payload(dir).predicate;
    expect(p.hosts).toEqual(["gpu-a01", "gpu-a02"]);
    expect(p.binary.version).toBe(p.gpucheck.certified);
    expect(p.binary.commit).toMatch(/^([0-9a-f]{7,40}|none \(run from the sources\))/);
    expect(p.binary.workloadHash).toMatch(/^[0-9a-f]{16}$/);
    const v = await gpucheck("verify", join(dir, "certificate.intoto.json"), "--key", k.pub, "--results", dir);
    expect(v.out).toContain("hosts:    gpu-a01, gpu-a02\n");
    expect(v.out).toContain(`signed with: gpucheck ${p.binary.version} (commit ${p.binary.commit}, workload ${p.binary.workloadHash})\n`);
  }, 60_000);
});

describe("verify pins the key and the cluster", () => {
  test("--expect-fingerprint and --expect-cluster: exit 0 when they match, 1 with one line when not", async () => {
    const k = await keys();
    const dir = resultsCopy("h100-2node");
    expect((await gpucheck("certify", dir, "--key", k.key)).code).toBe(0);
    const cert = join(dir, "certificate.intoto.json");
    const verify = (...more: string[]) => gpucheck("verify", cert, "--key", k.pub, "--results", dir, ...more);
    expect((await verify("--expect-fingerprint", k.fingerprint, "--expect-cluster", "acme-h100-a")).code).toBe(0);
    expect((await verify("--expect-fingerprint", k.fingerprint.slice("SHA256:".length))).code).toBe(0);
    const other = (await keys(1)).fingerprint;
    expect(await verify("--expect-fingerprint", other)).toEqual({
      code: 1,
      out: "",
      err: `gpucheck: certificate "${cert}" is NOT valid: fingerprint mismatch: signed by ${k.fingerprint}, --expect-fingerprint wants ${other}\n`,
    });
    expect(await verify("--expect-cluster", "acme-h100-b")).toEqual({
      code: 1,
      out: "",
      err: `gpucheck: certificate "${cert}" is NOT valid: cluster mismatch: the certificate names cluster acme-h100-a, --expect-cluster wants acme-h100-b\n`,
    });
    expect(await gpucheck("verify", cert, "--key", k.pub, "--results", dir, "--signature-only")).toEqual({
      code: 2,
      out: "",
      err: "gpucheck: verify: --signature-only and --results exclude each other; give one\n",
    });
  }, 60_000);
});
