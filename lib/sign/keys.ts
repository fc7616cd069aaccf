// Key files: create, read, and name them. Ed25519 or ECDSA P-256, PKCS#8 / SPKI PEM, so that
// openssl, cosign and ssh-keygen read the same files. The private key never leaves this file's
// functions as text: callers get a KeyObject, which prints as "[object KeyObject]".
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { closeSync, fchmodSync, lstatSync, mkdirSync, openSync, type Stats, rmSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { SuiteError } from "../core/errors.ts";
import { withFs } from "../core/fs-error.ts";
import { PRIVATE_KEY_FILE, PUBLIC_KEY_FILE, readKeyFile, readPublicKeyText } from "./key-file.ts";
import { type KeyAlgorithm, rawFingerprint } from "./public-key.ts";

export interface KeyPairFiles {
  privatePath: string;
  publicPath: string;
  fingerprint: string;
}

/** Writes gpucheck.key (0600) and gpucheck.pub into dir; never replaces an existing key. A file-system error is one line naming --out. */
export function writeKeyPair(dir: string, algorithm: KeyAlgorithm): KeyPairFiles {
  return withFs({ doing: "write the key pair at", path: dir, option: "--out", mode: "write" }, () => writePair(dir, algorithm));
}

function writePair(dir: string, algorithm: KeyAlgorithm): KeyPairFiles {
  const privatePath = join(dir, PRIVATE_KEY_FILE);
  const publicPath = join(dir, PUBLIC_KEY_FILE);
  // lstat, not exists: a dangling symlink in place of a key file is there too (writing through it
  // would put the key where another user chose, or leave half a pair)
  for (const p of [privatePath, publicPath]) {
    if (lstatOrNull(p)) throw new SuiteError(`Key file "${p}" already exists: refusing to overwrite it; choose another --out or move the old key away first`);
  }
  // the first directory this keygen made, if any: taken away again when the pair cannot be written
  const madeDir = mkdirSync(dir, { recursive: true, mode: 0o700 });
  const d = lstatSync(dir);
  const mode = (d.mode & 0o7777).toString(8).padStart(4, "0");
  if (d.isSymbolicLink()) throw new SuiteError(`Key directory "${dir}" is a symbolic link (mode ${mode}): give the real path, or a new directory`);
  // another user who can write there can swap the key pair between keygen and its first use
  if (d.mode & 0o022)
    throw new SuiteError(
      `Key directory "${dir}" is writable by group or others (mode ${mode}): choose a private directory (gpucheck keygen creates a new one 0700), or chmod go-w it`,
    );
  const pair = algorithm === "ed25519" ? generateKeyPairSync("ed25519") : generateKeyPairSync("ec", { namedCurve: "P-256" });
  // "wx": fail rather than follow a file or link that appeared since the check above
  const made: string[] = [];
  try {
    writeNew(privatePath, pair.privateKey.export({ type: "pkcs8", format: "pem" }) as string, 0o600, made);
    writeNew(publicPath, pair.publicKey.export({ type: "spki", format: "pem" }) as string, 0o644, made);
  } catch (e) {
    // never half a pair (or an empty key file) left behind: a full disk must not look like a key
    for (const p of made) unlinkSync(p);
    if (madeDir) rmSync(madeDir, { recursive: true, force: true });
    throw e;
  }
  return { privatePath, publicPath, fingerprint: fingerprint(pair.publicKey) };
}

/** `made`: the files this keygen created, the only ones it may remove again. */
function writeNew(path: string, text: string, mode: number, made: string[]): void {
  const fd = openSync(path, "wx", mode);
  made.push(path);
  try {
    fchmodSync(fd, mode); // the umask may have taken bits away; never adds any
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** Throws the error a user can act on when path is not a usable signing key. */
export function checkSigningKey(path: string): void {
  readPrivateKey(path);
}

export function readPrivateKey(path: string): KeyObject {
  const text = readKeyFile(path, "private key");
  // checked before the mode: a public key is rightly world-readable, and chmod would not help
  if (text.includes("-----BEGIN PUBLIC KEY-----")) {
    throw new SuiteError(`"${path}" is a public key: signing needs the private key (${PRIVATE_KEY_FILE}, beside it when gpucheck keygen wrote both)`);
  }
  const mode = statSync(path).mode & 0o777;
  if (mode & 0o077) {
    throw new SuiteError(`Private key "${path}" is ${exposure(mode)} by group or others (mode ${mode.toString(8).padStart(4, "0")}): run chmod 600 ${shellQuote(path)}`);
  }
  if (text.includes("ENCRYPTED PRIVATE KEY")) {
    throw new SuiteError(`Private key "${path}" is encrypted: gpucheck needs an unencrypted PKCS#8 key (openssl pkey -in ${shellQuote(path)} -out plain.key)`);
  }
  if (!text.includes("PRIVATE KEY-----")) {
    throw new SuiteError(`"${path}" is not a PEM private key: expected "-----BEGIN PRIVATE KEY-----" as gpucheck keygen writes`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(text);
  } catch {
    throw new SuiteError(`"${path}" is not a readable PEM private key: the PEM body is damaged`);
  }
  keyAlgorithm(key, path);
  return key;
}

export function readPublicKey(path: string): KeyObject {
  const text = readPublicKeyText(path);
  let key: KeyObject;
  try {
    key = createPublicKey(text);
  } catch {
    throw new SuiteError(`"${path}" is not a PEM public key: expected "-----BEGIN PUBLIC KEY-----" as gpucheck keygen writes`);
  }
  keyAlgorithm(key, path);
  return key;
}

/** The algorithm of a key gpucheck can sign with; anything else is refused by name. */
export function keyAlgorithm(key: KeyObject, path = "the key"): KeyAlgorithm {
  if (key.asymmetricKeyType === "ed25519") return "ed25519";
  if (key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1") return "p256";
  const what = key.asymmetricKeyType === "ec" ? `ECDSA ${key.asymmetricKeyDetails?.namedCurve}` : String(key.asymmetricKeyType);
  throw new SuiteError(`Key "${path}" is ${what}: gpucheck signs with Ed25519 or ECDSA P-256 keys (gpucheck keygen --algorithm ed25519|p256)`);
}

/** The key's OpenSSH SHA256 fingerprint (public-key.ts rawFingerprint); a private key is named by its public half. */
export function fingerprint(key: KeyObject): string {
  const pub = key.type === "private" ? createPublicKey(key) : key;
  const jwk = pub.export({ format: "jwk" });
  const b = (s: string | undefined) => Buffer.from(s ?? "", "base64url");
  const algorithm = keyAlgorithm(pub);
  return rawFingerprint(algorithm, algorithm === "ed25519" ? b(jwk.x) : Buffer.concat([Buffer.from([0x04]), b(jwk.x), b(jwk.y)]));
}

function exposure(mode: number): string {
  const readable = (mode & 0o044) !== 0;
  const writable = (mode & 0o022) !== 0;
  if (readable && writable) return "readable and writable";
  if (readable) return "readable";
  if (writable) return "writable";
  return "accessible";
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}
