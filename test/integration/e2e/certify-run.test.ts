// A run signed and checked through the compiled binary, as a user would: keygen, a cheap suite
// answered by the workload's stand-in, certify, a second certify refused, verify pinned, a tampered
// file caught. Cheap: one inventory-only run (see standin.test.ts for what the stand-in is).
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixture, gpucheck, tempDir } from "../../e2e/cli.ts";

const standin = join(import.meta.dir, "..", "..", "standin", "python3");

describe("certify and verify a run through the binary", () => {
  test("signed once, pinned, tamper caught", () => {
    const dir = join(tempDir("certify-run"), "run");
    const run = gpucheck(["suite", fixture("inventory-only.yaml"), "--python", standin, "--out", dir], { timeoutMs: 120_000 });
    expect(run.status).toBe(0);
    const keys = join(tempDir("certify-run-keys"), "keys");
    const kg = gpucheck(["keygen", "--out", keys]);
    expect(kg.status).toBe(0);
    const fingerprint = /^fingerprint: (SHA256:\S+)/m.exec(kg.stdout)![1]!;
    const key = join(keys, "gpucheck.key");
    const pub = join(keys, "gpucheck.pub");

    const cf = gpucheck(["certify", dir, "--key", key, "--cluster", "lab-1"]);
    expect(cf.stderr).toBe("");
    expect(cf.status).toBe(0);
    const cert = join(dir, "certificate.intoto.json");
    const signed = readFileSync(cert, "utf8");
    const statement = JSON.parse(Buffer.from(JSON.parse(signed).payload, "base64").toString("utf8"));
    // the compiled binary carries its commit and the hash of the workload it embeds
    expect(statement.predicate.binary.commit).not.toBe("none (run from the sources)");
    expect(statement.predicate.binary.workloadHash).toMatch(/^[0-9a-f]{16}$/);
    expect(statement.predicate.hosts.length).toBeGreaterThan(0);

    const again = gpucheck(["certify", dir, "--key", key]);
    expect(again.status).toBe(2);
    expect(again.stderr).toStartWith(`Cannot certify "${dir}": it is already signed (certificate.intoto.json); nothing was changed;`);
    expect(readFileSync(cert, "utf8")).toBe(signed);

    const ok = gpucheck(["verify", cert, "--key", pub, "--results", dir, "--expect-fingerprint", fingerprint, "--expect-cluster", "lab-1"]);
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain("in-toto:  certificate.test-result.intoto.json verified: https://in-toto.io/attestation/test-result/v0.1 result PASSED\n");
    const wrongCluster = gpucheck(["verify", cert, "--key", pub, "--results", dir, "--expect-cluster", "lab-2"]);
    expect(wrongCluster.status).toBe(1);
    expect(wrongCluster.stderr).toBe(`gpucheck: certificate "${cert}" is NOT valid: cluster mismatch: the certificate names cluster lab-1, --expect-cluster wants lab-2\n`);
    expect(gpucheck(["verify", cert, "--key", pub]).status).toBe(4);
    expect(gpucheck(["verify", cert, "--key", pub, "--signature-only"]).status).toBe(0);

    const junit = join(dir, "junit.xml");
    writeFileSync(junit, readFileSync(junit, "utf8").replace('failures="0"', 'failures="1"'));
    const tampered = gpucheck(["verify", cert, "--key", pub, "--results", dir]);
    expect(tampered.status).toBe(1);
    expect(tampered.stderr).toMatch(/is NOT valid: digest mismatch: junit\.xml has sha256 [0-9a-f]{64}, the certificate says [0-9a-f]{64}\n$/);
  }, 120_000);
});
