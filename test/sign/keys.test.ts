import { describe, expect, test } from "bun:test";
import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SuiteError } from "../../lib/core/errors.ts";
import { checkSigningKey, fingerprint, readPrivateKey, readPublicKey, writeKeyPair } from "../../lib/sign/keys.ts";
import { dsseFixture, keyFiles, tmp } from "./keys-fixture.ts";

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SuiteError);
    return (err as Error).message;
  }
  throw new Error("expected a SuiteError");
}

describe("writeKeyPair", () => {
  for (const alg of ["ed25519", "p256"] as const) {
    test(`${alg}: PKCS#8 private key with mode 0600, SPKI public key, matching fingerprint`, () => {
      const dir = join(tmp(), "keys");
      const k = writeKeyPair(dir, alg);
      expect(k.privatePath).toBe(join(dir, "gpucheck.key"));
      expect(k.publicPath).toBe(join(dir, "gpucheck.pub"));
      expect(statSync(k.privatePath).mode & 0o777).toBe(0o600);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(readFileSync(k.privatePath, "utf8")).toStartWith("-----BEGIN PRIVATE KEY-----\n");
      expect(readFileSync(k.publicPath, "utf8")).toStartWith("-----BEGIN PUBLIC KEY-----\n");
      const priv = readPrivateKey(k.privatePath);
      expect(priv.asymmetricKeyType).toBe(alg === "ed25519" ? "ed25519" : "ec");
      expect(fingerprint(readPublicKey(k.publicPath))).toBe(k.fingerprint);
      expect(fingerprint(priv)).toBe(k.fingerprint);
      expect(k.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    });
  }

  test("refuses to overwrite an existing key, and leaves it untouched", () => {
    const dir = tmp();
    const first = writeKeyPair(dir, "ed25519");
    const before = readFileSync(first.privatePath);
    expect(message(() => writeKeyPair(dir, "p256"))).toBe(
      `Key file "${join(dir, "gpucheck.key")}" already exists: refusing to overwrite it; choose another --out or move the old key away first`,
    );
    expect(readFileSync(first.privatePath).equals(before)).toBe(true);
  });

  test("a dangling symlink in place of the public key is refused before anything is written: no half key pair", () => {
    const dir = tmp();
    symlinkSync(join(dir, "nowhere"), join(dir, "gpucheck.pub"));
    expect(message(() => writeKeyPair(dir, "ed25519"))).toBe(
      `Key file "${join(dir, "gpucheck.pub")}" already exists: refusing to overwrite it; choose another --out or move the old key away first`,
    );
    expect(existsSync(join(dir, "gpucheck.key"))).toBe(false);
    expect(existsSync(join(dir, "nowhere"))).toBe(false);
  });

  test("a key directory others can write to is refused: they could swap the pair before its first use", () => {
    const dir = tmp();
    chmodSync(dir, 0o777);
    expect(message(() => writeKeyPair(dir, "ed25519"))).toBe(
      `Key directory "${dir}" is writable by group or others (mode 0777): choose a private directory (gpucheck keygen creates a new one 0700), or chmod go-w it`,
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  test("refuses when only the public key is there", () => {
    const dir = tmp();
    writeFileSync(join(dir, "gpucheck.pub"), "old");
    expect(message(() => writeKeyPair(dir, "ed25519"))).toBe(
      `Key file "${join(dir, "gpucheck.pub")}" already exists: refusing to overwrite it; choose another --out or move the old key away first`,
    );
  });
});

describe("readPrivateKey", () => {
  test.each([
    [0o644, "readable"],
    [0o640, "readable"],
    [0o604, "readable"],
    [0o620, "writable"],
    [0o666, "readable and writable"],
    [0o610, "accessible"],
  ])("refuses mode %o with how to fix it", (mode, what) => {
    const { key } = keyFiles("ed25519");
    chmodSync(key, mode);
    expect(message(() => checkSigningKey(key))).toBe(`Private key "${key}" is ${what} by group or others (mode ${mode.toString(8).padStart(4, "0")}): run chmod 600 ${key}`);
  });

  test("the exact message for a 0644 key, with a path that needs quoting", () => {
    const dir = join(tmp(), "my keys");
    mkdirSync(dir);
    const { key } = keyFiles("p256", dir);
    chmodSync(key, 0o644);
    expect(message(() => readPrivateKey(key))).toBe(`Private key "${dir}/key.pem" is readable by group or others (mode 0644): run chmod 600 '${dir}/key.pem'`);
  });

  test("accepts 0400 and 0600", () => {
    const { key } = keyFiles("p256");
    chmodSync(key, 0o400);
    expect(readPrivateKey(key).asymmetricKeyType).toBe("ec");
  });

  test("names what is wrong with other files", () => {
    const dir = tmp();
    const missing = join(dir, "nope.key");
    expect(message(() => readPrivateKey(missing))).toBe(`Cannot read private key "${missing}": no such file`);
    expect(message(() => readPrivateKey(dir))).toBe(`cannot read the private key "${dir}": it is a directory (EISDIR): give the path of a file, or choose another --key`);

    const pub = join(dir, "pub.key");
    writeFileSync(pub, dsseFixture("derived-ed25519-public.pem"), { mode: 0o644 });
    // a public key where the private one belongs: said so, not "chmod 600" (it is rightly 0644)
    expect(message(() => readPrivateKey(pub))).toBe(`"${pub}" is a public key: signing needs the private key (gpucheck.key, beside it when gpucheck keygen wrote both)`);

    const damaged = join(dir, "damaged.key");
    writeFileSync(damaged, "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", { mode: 0o600 });
    expect(message(() => readPrivateKey(damaged))).toBe(`"${damaged}" is not a readable PEM private key: the PEM body is damaged`);

    const encrypted = join(dir, "enc.key");
    writeFileSync(encrypted, "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n", { mode: 0o600 });
    expect(message(() => readPrivateKey(encrypted))).toBe(
      `Private key "${encrypted}" is encrypted: gpucheck needs an unencrypted PKCS#8 key (openssl pkey -in ${encrypted} -out plain.key)`,
    );

    const rsa = join(dir, "rsa.key");
    writeFileSync(rsa, generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
    expect(message(() => readPrivateKey(rsa))).toBe(`Key "${rsa}" is rsa: gpucheck signs with Ed25519 or ECDSA P-256 keys (gpucheck keygen --algorithm ed25519|p256)`);

    const p384 = join(dir, "p384.key");
    writeFileSync(p384, generateKeyPairSync("ec", { namedCurve: "P-384" }).privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
    expect(message(() => readPrivateKey(p384))).toBe(
      `Key "${p384}" is ECDSA secp384r1: gpucheck signs with Ed25519 or ECDSA P-256 keys (gpucheck keygen --algorithm ed25519|p256)`,
    );
  });
});

describe("readPublicKey", () => {
  test("refuses a private key, so nobody is asked to hand one out", () => {
    const { key } = keyFiles("ed25519");
    expect(message(() => readPublicKey(key))).toBe(`"${key}" is a private key: --key takes the signer's public key (gpucheck.pub); the private key should stay with the signer`);
  });

  test("refuses something that is not a key", () => {
    const f = join(tmp(), "x.pem");
    writeFileSync(f, "hello");
    expect(message(() => readPublicKey(f))).toBe(`"${f}" is not a PEM public key: expected "-----BEGIN PUBLIC KEY-----" as gpucheck keygen writes`);
  });
});

describe("fingerprint", () => {
  test("matches the values go-securesystemslib and ssh-keygen compute for the vectors", () => {
    expect(fingerprint(createPublicKey(dsseFixture("derived-ed25519-public.pem")))).toBe("SHA256:bbXpuKG6zhzdmnxq256TlqzFBzRl2f6OOg722cYNbU8");
    expect(fingerprint(createPublicKey(dsseFixture("spec-vector-p256-public.pem")))).toBe("SHA256:f4AuBLdH4Lj/dIuwAUXXebzoI9B/cJ4iSQ3/qByIl4M");
  });
  // against ssh-keygen and openssl themselves: test/integration/sign/fingerprint-tools.test.ts
});
