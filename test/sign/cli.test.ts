// The three commands end to end, as a user runs them.
import { describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gpucheckRun } from "../e2e/cli.ts";
import { resultsCopy, tmp } from "./keys-fixture.ts";

/** Through test/e2e/cli.ts: the sources (in this process) in the unit tier, the built binary in the integration tier. */
async function gpucheck(...args: string[]) {
  const p = await gpucheckRun(args, { cwd: tmp() });
  return { code: p.status, out: p.stdout, err: p.stderr };
}

/** The base64 body lines of a PEM private key: none of them may ever reach a terminal. */
function secretLines(pemPath: string): string[] {
  return readFileSync(pemPath, "utf8")
    .split("\n")
    .filter((l) => l && !l.startsWith("-----"));
}

describe("gpucheck keygen / certify / verify", () => {
  for (const alg of ["ed25519", "p256"] as const) {
    test(`${alg}: keygen, certify, verify; the private key is never printed`, async () => {
      const keys = join(tmp(), "keys");
      const kg = await gpucheck("keygen", "--out", keys, "--algorithm", alg);
      expect(kg.err).toBe("");
      expect(kg.code).toBe(0);
      const key = join(keys, "gpucheck.key");
      const pub = join(keys, "gpucheck.pub");
      expect(statSync(key).mode & 0o777).toBe(0o600);
      const fp = /^fingerprint: (SHA256:\S+) \((Ed25519|ECDSA P-256)\)$/m.exec(kg.out);
      expect(fp?.[2]).toBe(alg === "ed25519" ? "Ed25519" : "ECDSA P-256");
      expect(kg.out).toContain(`private key: ${key} (mode 0600;`);
      expect(kg.out).toContain(`public key:  ${pub} (`);

      const dir = resultsCopy("h100-2node-failing");
      const cf = await gpucheck("certify", dir, "--key", key);
      expect(cf.err).toBe("");
      expect(cf.code).toBe(0);
      expect(cf.out).toContain("signed h100-2node on acme-h100-a: ERROR\n");
      expect(cf.out).toContain(`key:         ${fp?.[1]}`);
      expect(cf.out).toContain(`certificate: ${join(dir, "certificate.intoto.json")}`);

      const cert = join(dir, "certificate.intoto.json");
      const ok = await gpucheck("verify", cert, "--key", pub, "--results", dir);
      expect(ok.err).toBe("");
      expect(ok.code).toBe(0);
      const lines = ok.out.split("\n");
      expect(lines[0]).toBe(`certificate valid: signed by ${fp?.[1]} (${fp?.[2]})`);
      expect(lines[1]).toBe("cluster:  acme-h100-a (2 nodes, 16 GPUs)");
      expect(ok.out).toContain("verdict:  ERROR\n");
      expect(ok.out).toContain("  failed  nccl-allreduce-node: busbw 402.7 GB/s … 478.2 GB/s (threshold busbw >= 450 GB/s)\n");
      expect(ok.out).toContain("  error   train-resnet50: samples_per_s not measured (threshold samples_per_s >= 20000)\n");
      expect(ok.out).toContain(`files:    results.json, junit.xml, suite.yaml match their sha256 in ${dir}\n`);

      const noFiles = await gpucheck("verify", cert, "--key", pub);
      expect(noFiles.code).toBe(4);
      expect(noFiles.out).toContain("files:    not checked (add --results <dir> to compare each file with its sha256)");
      expect(noFiles.out.trimEnd().split("\n").at(-1)).toBe(
        "no file was checked: give --results <dir> to compare the signed files, or --signature-only to accept the signature alone",
      );
      const sigOnly = await gpucheck("verify", cert, "--key", pub, "--signature-only");
      expect(sigOnly.code).toBe(0);
      expect(sigOnly.out.trimEnd().split("\n").at(-1)).toBe("no file was checked: the signature alone is valid (--signature-only)");

      for (const r of [kg, cf, ok]) for (const line of secretLines(key)) expect(r.out + r.err).not.toContain(line);
    }, 60_000);
  }

  test("verify exits 1 with the reason when a file changed after signing", async () => {
    const keys = join(tmp(), "keys");
    await gpucheck("keygen", "--out", keys);
    const dir = resultsCopy("h100-2node");
    expect((await gpucheck("certify", dir, "--key", join(keys, "gpucheck.key"))).code).toBe(0);
    const results = readFileSync(join(dir, "results.json"), "utf8");
    writeFileSync(join(dir, "results.json"), results.replace('"busbw": 371.4', '"busbw": 971.4'));
    const cert = join(dir, "certificate.intoto.json");
    const r = await gpucheck("verify", cert, "--key", join(keys, "gpucheck.pub"), "--results", dir);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toMatch(
      new RegExp(`^gpucheck: certificate "${cert}" is NOT valid: digest mismatch: results\\.json has sha256 [0-9a-f]{64}, the certificate says [0-9a-f]{64}\\n$`),
    );
  }, 60_000);

  test("verify exits 1 for a key that did not sign", async () => {
    const a = join(tmp(), "a");
    const b = join(tmp(), "b");
    await gpucheck("keygen", "--out", a);
    await gpucheck("keygen", "--out", b);
    const dir = resultsCopy("h100-2node");
    await gpucheck("certify", dir, "--key", join(a, "gpucheck.key"));
    const r = await gpucheck("verify", join(dir, "certificate.intoto.json"), "--key", join(b, "gpucheck.pub"));
    expect(r.code).toBe(1);
    expect(r.err).toContain("is NOT valid: bad signature: it does not verify with --key (SHA256:");
  }, 60_000);

  test("keygen refuses to overwrite; certify refuses an exposed key; verify refuses a private key: exit 2 with the message", async () => {
    const keys = join(tmp(), "keys");
    expect((await gpucheck("keygen", "--out", keys)).code).toBe(0);
    const key = join(keys, "gpucheck.key");
    const before = readFileSync(key, "utf8");
    const again = await gpucheck("keygen", "--out", keys);
    expect(again).toEqual({ code: 2, out: "", err: `Key file "${key}" already exists: refusing to overwrite it; choose another --out or move the old key away first\n` });
    expect(readFileSync(key, "utf8")).toBe(before);

    chmodSync(key, 0o644);
    const dir = resultsCopy("h100-2node");
    const exposed = await gpucheck("certify", dir, "--key", key);
    expect(exposed).toEqual({ code: 2, out: "", err: `Private key "${key}" is readable by group or others (mode 0644): run chmod 600 ${key}\n` });

    chmodSync(key, 0o600);
    expect((await gpucheck("certify", dir, "--key", key)).code).toBe(0);
    const priv = await gpucheck("verify", join(dir, "certificate.intoto.json"), "--key", key);
    expect(priv.code).toBe(2);
    expect(priv.err).toBe(`"${key}" is a private key: --key takes the signer's public key (gpucheck.pub); the private key should stay with the signer\n`);
    for (const line of secretLines(key)) expect(again.err + exposed.err + priv.err).not.toContain(line);
  }, 60_000);

  test("certify names what is missing from a results directory", async () => {
    const keys = join(tmp(), "keys");
    await gpucheck("keygen", "--out", keys);
    const empty = tmp();
    expect(await gpucheck("certify", empty, "--key", join(keys, "gpucheck.key"))).toEqual({
      code: 2,
      out: "",
      err: `Cannot certify "${empty}": results.json is missing (is it a gpucheck results directory?)\n`,
    });
    const dir = resultsCopy("h100-2node");
    writeFileSync(join(dir, "suite.yaml"), readFileSync(join(dir, "suite.yaml"), "utf8").replace("450 GB/s", "400 GB/s"));
    const r = await gpucheck("certify", dir, "--key", join(keys, "gpucheck.key"));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /^Cannot certify ".*": suite\.yaml has sha256 [0-9a-f]{64} but results\.json says the run used [0-9a-f]{64}: the suite file was changed after the run\n$/,
    );
  }, 60_000);

  test("verify of a missing certificate is a usage error", async () => {
    const keys = join(tmp(), "keys");
    await gpucheck("keygen", "--out", keys);
    const r = await gpucheck("verify", "/nonexistent/certificate.intoto.json", "--key", join(keys, "gpucheck.pub"));
    expect(r).toEqual({ code: 2, out: "", err: `Cannot read certificate "/nonexistent/certificate.intoto.json": no such file\n` });
  }, 60_000);
});
