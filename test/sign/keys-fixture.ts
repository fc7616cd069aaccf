// Published test keys (never for real use) as KeyObjects, and throwaway copies of the results fixtures.
import { createPrivateKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { chmodSync, cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../tmp.ts";

export const DSSE = join(import.meta.dir, "../fixtures/dsse");
export const SIGN = join(import.meta.dir, "../fixtures/sign");

export function dsseFixture(name: string): Buffer {
  return readFileSync(join(DSSE, name));
}

/** RFC 8032 §7.1 TEST 1 secret key, the key behind derived-ed25519-envelope.json. */
export function rfc8032Test1(): KeyObject {
  const seed = Buffer.from("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60", "hex");
  const pkcs8Prefix = Buffer.from("302e020100300506032b657004220420", "hex");
  return createPrivateKey({ key: Buffer.concat([pkcs8Prefix, seed]), format: "der", type: "pkcs8" });
}

/** The DSSE spec's P-256 key, given there as decimal integers. */
export function dsseSpecP256(): KeyObject {
  const spec = JSON.parse(dsseFixture("official-dsse-spec-vector.json").toString()).key;
  const b64 = (dec: string) => Buffer.from(BigInt(dec).toString(16).padStart(64, "0"), "hex").toString("base64url");
  return createPrivateKey({ key: { kty: "EC", crv: "P-256", x: b64(spec.X), y: b64(spec.Y), d: b64(spec.d) }, format: "jwk" });
}

export function tmp(prefix = "gpucheck-sign-"): string {
  return tempDir(prefix);
}

/** A writable copy of a results fixture directory. */
export function resultsCopy(name: string): string {
  const dir = join(tmp(), name);
  cpSync(join(SIGN, name), dir, { recursive: true });
  return dir;
}

/** A fresh key pair written as gpucheck keygen would: key.pem (0600) and pub.pem. */
export function keyFiles(algorithm: "ed25519" | "p256", dir = tmp()): { key: string; pub: string; privateKey: KeyObject } {
  const pair = algorithm === "ed25519" ? generateKeyPairSync("ed25519") : generateKeyPairSync("ec", { namedCurve: "P-256" });
  const key = join(dir, "key.pem");
  const pub = join(dir, "pub.pem");
  writeFileSync(key, pair.privateKey.export({ type: "pkcs8", format: "pem" }));
  chmodSync(key, 0o600);
  writeFileSync(pub, pair.publicKey.export({ type: "spki", format: "pem" }));
  return { key, pub, privateKey: pair.privateKey };
}
