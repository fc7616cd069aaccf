// `gpucheck certify <run> --out <new dir>`: a run already signed stays signed (certify refuses to
// sign it again), yet another party may need to sign the same evidence with its own key. The new
// directory gets the run's files as hard links (a copy, checked by sha256, where the file system
// cannot link), without the old certificate, and is signed there; the run itself is never written.
import { createHash } from "node:crypto";
import { copyFileSync, linkSync, lstatSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import type { KeyObject } from "node:crypto";
import { join, resolve } from "node:path";
import { SuiteError } from "../core/errors.ts";
import { ensurePrivateDir } from "../core/private-fs.ts";
import { claimRunDir, fillRunDir, LOCK_FILE } from "../report/run-dir.ts";
import { RESULT_FILES } from "../report/results.ts";
import { type Certified, type CertifyOptions, certify } from "./certify.ts";
import { CERTIFICATE_FILE } from "./verify-commands.ts";
import { TEST_RESULT_FILE } from "./test-result.ts";

/** What a signature adds to a run: never carried into the new directory, which gets its own. */
const SIGNATURE_FILES = new Set([CERTIFICATE_FILE, TEST_RESULT_FILE, "certificate.html", "certificate.md", LOCK_FILE]);

export interface CertifiedCopy extends Certified {
  /** the directory signed: the new one */
  dir: string;
  /** files linked (or copied and checked) from the run */
  files: number;
  /** of those, copied because the file system would not link them */
  copied: number;
}

export async function certifyCopy(src: string, out: string, privateKey: KeyObject, opts: CertifyOptions = {}): Promise<CertifiedCopy> {
  if (!statDir(src)) throw new SuiteError(`Cannot certify "${src}": not a results directory`);
  if (resolve(out) === resolve(src)) {
    throw new SuiteError(`--out "${out}" is the run being certified: --out names a new directory, where the run is linked and signed; the run itself is never changed`);
  }
  // the run must at least be one before anything is made
  for (const f of [RESULT_FILES.results, RESULT_FILES.junit]) {
    if (!lstatOrNull(join(src, f))) throw new SuiteError(`Cannot certify "${src}": ${f} is missing (is it a gpucheck results directory?)`);
  }
  // certify has no --force: a run there is never moved aside for a copy
  if (lstatOrNull(join(out, RESULT_FILES.results))) throw new SuiteError(`--out "${out}" already holds a run: nothing was touched; choose a new --out`);
  const claim = claimRunDir(out);
  const counts = fillRunDir(out, claim, "link the run at", () => linkRun(src, out));
  try {
    return { ...(await certify(out, privateKey, opts)), dir: out, ...counts };
  } catch (e) {
    // a copy that could not be signed (an incomplete run, a suite changed since) is no use: it goes
    if (claim.created) rmSync(out, { recursive: true, force: true });
    throw e;
  }
}

function linkRun(src: string, dst: string, top = true): { files: number; copied: number } {
  let files = 0;
  let copied = 0;
  // inside the claimed directory: private, and never through a symlink (private-fs.ts)
  ensurePrivateDir(dst);
  for (const name of readdirSync(src)) {
    if (top && SIGNATURE_FILES.has(name)) continue;
    const from = join(src, name);
    const to = join(dst, name);
    const st = lstatSync(from);
    if (st.isDirectory()) {
      const sub = linkRun(from, to, false);
      files += sub.files;
      copied += sub.copied;
    } else if (st.isFile()) {
      files += 1;
      if (!link(from, to)) copied += 1;
    }
    // symlinks and the rest are no part of a run gpucheck wrote: left out
  }
  return { files, copied };
}

/** true when hard-linked; else copied, and the copy checked byte for byte by sha256. */
function link(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // another file system, or one without hard links: copy; any other error is the disk's, said by the caller
    if (code !== "EXDEV" && code !== "EPERM" && code !== "EMLINK" && code !== "ENOTSUP") throw e;
  }
  copyFileSync(from, to);
  const hash = (p: string) => createHash("sha256").update(readFileSync(p)).digest("hex");
  if (hash(from) !== hash(to)) throw new SuiteError(`the copy "${to}" of "${from}" does not match it (sha256): nothing was signed; check the disk and try again`);
  return false;
}

function statDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function lstatOrNull(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}
