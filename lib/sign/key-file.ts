// Key files by name, and reading one with the message a user can act on. Apart from keys.ts so that
// `gpucheck verify` reads --key without loading node:crypto (web-key.ts).
import { readFileSync } from "node:fs";
import { SuiteError } from "../core/errors.ts";
import { FileError, fsErrorLine, isErrnoError } from "../core/fs-error.ts";

export const PRIVATE_KEY_FILE = "gpucheck.key";
export const PUBLIC_KEY_FILE = "gpucheck.pub";

export function readKeyFile(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new SuiteError(`Cannot read ${what} "${path}": no such file`);
    if (isErrnoError(err)) throw new FileError(fsErrorLine(err, { doing: `read the ${what}`, path, option: "--key", mode: "read" }));
    throw err;
  }
}

/** The text of the public key file --key names, refusing a private key before anything parses it. */
export function readPublicKeyText(path: string): string {
  const text = readKeyFile(path, "public key");
  if (text.includes("PRIVATE KEY-----")) {
    throw new SuiteError(`"${path}" is a private key: --key takes the signer's public key (${PUBLIC_KEY_FILE}); the private key should stay with the signer`);
  }
  return text;
}
