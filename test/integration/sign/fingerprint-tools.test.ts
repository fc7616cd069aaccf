// gpucheck's key fingerprint (test/sign/keys.test.ts checks it on the spec's vectors) against
// OpenSSH's ssh-keygen and the openssl recipe docs/certificate.md gives, on fresh keys: here
// because the unit tier has neither program.
import { describe, expect, test } from "bun:test";
import { fingerprint, readPublicKey } from "../../../lib/sign/keys.ts";
import { keyFiles } from "../../sign/keys-fixture.ts";

describe("fingerprint", () => {
  test("matches ssh-keygen -lf on a fresh P-256 key", () => {
    const { pub } = keyFiles("p256");
    const ssh = Bun.spawnSync(["sh", "-c", `ssh-keygen -i -m PKCS8 -f '${pub}' | ssh-keygen -lf -`]);
    expect(ssh.exitCode).toBe(0);
    expect(ssh.stdout.toString().split(" ")[1]).toBe(fingerprint(readPublicKey(pub)));
  });

  test("matches the shell recipe in docs/certificate.md on a fresh Ed25519 key (ssh-keygen 9.2 cannot import Ed25519 PKCS#8)", () => {
    const { pub } = keyFiles("ed25519");
    const recipe = `{ printf '\\0\\0\\0\\13ssh-ed25519\\0\\0\\0\\40'; openssl pkey -pubin -in '${pub}' -outform DER | tail -c 32; } | openssl dgst -sha256 -binary | base64 | tr -d '='`;
    const out = Bun.spawnSync(["bash", "-c", recipe]);
    expect(out.exitCode).toBe(0);
    expect(`SHA256:${out.stdout.toString().trim()}`).toBe(fingerprint(readPublicKey(pub)));
  });
});
