// `gpucheck verify <certificate> --key <pub.pem> [--results <dir>]`: exit 0 when the certificate is
// signed by that key (and, with --results, every file still matches it), 1 with the reason when not.
import type { Printer } from "./printer.ts";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { EXIT, SuiteError } from "../core/errors.ts";
import { asFileError } from "../core/fs-error.ts";
import { withUnit } from "../core/quantity.ts";
import { readPublicKeyText } from "../sign/key-file.ts";
import type { Statement } from "../sign/predicate.ts";
import type { PublicKey } from "../sign/public-key.ts";
import { testResultStatement } from "../sign/test-result.ts";
import { verifyCertificate, verifyTestResult } from "../sign/verify.ts";
import { webPublicKey } from "../sign/web-key.ts";

/** verify without --results and without --signature-only: the signature is good but no file was compared */
export const EXIT_NO_FILES_CHECKED = 4;

export interface VerifyFlags {
  key: string;
  results?: string;
  json?: boolean;
  signatureOnly?: boolean;
  expectFingerprint?: string;
  expectCluster?: string;
}

export async function verifyCertificateFile({ cert, flags, print }: { cert: string; flags: VerifyFlags; print: Printer }): Promise<number> {
  const { out, err } = print;
  if (flags.signatureOnly && flags.results !== undefined) throw new SuiteError("gpucheck: verify: --signature-only and --results exclude each other; give one");
  const publicKey = await readKey(flags.key);
  let envelopeText: string;
  try {
    envelopeText = readFileSync(cert, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new SuiteError(`Cannot read certificate "${cert}": no such file`);
    throw asFileError(err, { doing: "read the certificate", path: cert, mode: "read", choose: "another certificate file" });
  }
  const dir = flags.results;
  const result = await verifyCertificate({ envelopeText, publicKey, readSubject: dir === undefined ? undefined : (name) => readOrNull(join(dir, name)) });
  // the second envelope, when the certificate names one: in-toto readers take their verdict from it
  const named = result.ok ? result.statement.predicate.testResult : undefined;
  if (result.ok && named) {
    const path = join(dirname(cert), named.file);
    const text = readOrNull(path);
    const tr =
      text === null
        ? { ok: false as const, reason: "missing-file", message: `missing file: ${named.file} is named in the certificate but is not beside it (${path})` }
        : await verifyTestResult({ envelopeText: text.toString("utf8"), publicKey, acceptance: result.statement });
    if (!tr.ok) {
      err(`gpucheck: certificate "${cert}" is NOT valid: ${tr.message}\n`);
      if (flags.json) out(`${JSON.stringify({ valid: false, certificate: cert, reason: tr.reason, message: tr.message }, null, 2)}\n`);
      return EXIT.failed;
    }
  }
  const pinned = result.ok ? pinMismatch(result.signer, result.statement.predicate.cluster, flags) : null;
  if (pinned) {
    err(`gpucheck: certificate "${cert}" is NOT valid: ${pinned.message}\n`);
    if (flags.json) out(`${JSON.stringify({ valid: false, certificate: cert, reason: pinned.reason, message: pinned.message }, null, 2)}\n`);
    return EXIT.failed;
  }
  if (!result.ok) {
    err(`gpucheck: certificate "${cert}" is NOT valid: ${result.message}\n`);
    if (flags.json)
      out(`${JSON.stringify({ valid: false, certificate: cert, reason: result.reason, message: result.message, ...(result.file && { file: result.file }) }, null, 2)}\n`);
    return EXIT.failed;
  }
  if (flags.json) {
    const files = dir === undefined ? { checked: false } : { checked: true, dir, matched: result.checkedFiles };
    const doc = { valid: true, certificate: cert, signer: { fingerprint: result.signer, algorithm: publicKey.algorithm }, files, predicate: result.statement.predicate };
    out(`${JSON.stringify(doc, null, 2)}\n`);
    return dir === undefined && !flags.signatureOnly ? EXIT_NO_FILES_CHECKED : EXIT.ok;
  }
  const alg = publicKey.algorithm === "ed25519" ? "Ed25519" : "ECDSA P-256";
  const files = dir === undefined ? "not checked (add --results <dir> to compare each file with its sha256)" : `${result.checkedFiles.join(", ")} match their sha256 in ${dir}`;
  out(`${summary(result.statement, `${result.signer} (${alg})`, files)}\n`);
  if (dir !== undefined) return EXIT.ok;
  // the last line: a signature alone says nothing about the files a reader holds
  if (flags.signatureOnly) {
    out("no file was checked: the signature alone is valid (--signature-only)\n");
    return EXIT.ok;
  }
  out(`no file was checked: give --results <dir> to compare the signed files, or --signature-only to accept the signature alone\n`);
  return EXIT_NO_FILES_CHECKED;
}

/** --expect-fingerprint and --expect-cluster: the key and the cluster a reader pinned, against what the certificate carries. */
export function pinMismatch(
  signer: string,
  cluster: string | null,
  flags: Pick<VerifyFlags, "expectFingerprint" | "expectCluster">,
): { reason: "fingerprint-mismatch" | "cluster-mismatch"; message: string } | null {
  const want = flags.expectFingerprint;
  // keygen prints SHA256:<base64>; the bare digest is accepted too
  if (want !== undefined && want !== signer && `SHA256:${want}` !== signer) {
    return { reason: "fingerprint-mismatch", message: `fingerprint mismatch: signed by ${signer}, --expect-fingerprint wants ${want}` };
  }
  if (flags.expectCluster !== undefined && flags.expectCluster !== cluster) {
    return {
      reason: "cluster-mismatch",
      message: `cluster mismatch: the certificate names ${cluster === null ? "no cluster (unnamed cluster)" : `cluster ${cluster}`}, --expect-cluster wants ${flags.expectCluster}`,
    };
  }
  return null;
}

/** --key through WebCrypto when it is a key as keygen writes it; anything else through node:crypto, which names what is wrong with it. */
async function readKey(path: string): Promise<PublicKey> {
  const web = await webPublicKey(readPublicKeyText(path));
  if (web) return web;
  const [{ readPublicKey }, { keyVerifier }] = await Promise.all([import("../sign/keys.ts"), import("../sign/dsse.ts")]);
  return keyVerifier(readPublicKey(path));
}

function summary(st: Statement, signer: string, files: string): string {
  const p = st.predicate;
  const gpus = p.nodes.reduce((n, node) => n + node.gpus.length, 0);
  const lines = [
    `certificate valid: signed by ${signer}`,
    `cluster:  ${p.cluster ?? "(unnamed cluster)"} (${count(p.nodes.length, "node")}, ${count(gpus, "GPU")})`,
    ...(p.hosts ? [`hosts:    ${p.hosts.join(", ")}`] : []),
    `suite:    ${p.suite.name} (sha256 ${p.suite.sha256}) on ${p.platform}`,
    `run:      ${p.startedAt} → ${p.endedAt ?? "not finished"}, signed ${p.certifiedAt}`,
    ...(p.binary ? [`signed with: gpucheck ${p.binary.version} (commit ${p.binary.commit}, workload ${p.binary.workloadHash})`] : []),
    `verdict:  ${
      p.incomplete
        ? `INCOMPLETE: ${p.incomplete.why} (the tests that finished: ${p.outcome.toUpperCase()})`
        : `${p.complete ? p.outcome.toUpperCase() : `INCOMPLETE (the tests that finished: ${p.outcome.toUpperCase()}; the run stopped early: interrupted, or --fail-fast)`}`
    }`,
  ];
  for (const t of p.tests) {
    const values = t.units.map((u) => u.headline).filter((v): v is number => v !== null);
    const shown =
      values.length === 0
        ? "not measured"
        : values.length === 1
          ? withUnit(values[0], t.headline.unit)
          : `${withUnit(Math.min(...values), t.headline.unit)} … ${withUnit(Math.max(...values), t.headline.unit)}`;
    const limits = t.thresholds
      .filter((x) => x.metric === t.headline.metric)
      .map((x) => x.text)
      .join("; ");
    const label = t.outcome === "passed" && t.thresholds.length === 0 ? "recorded (no thresholds)" : t.outcome;
    lines.push(`  ${label.padEnd(7)} ${t.name}: ${t.headline.metric} ${shown}${limits ? ` (threshold ${limits})` : ""}`);
  }
  if (p.testResult) lines.push(`in-toto:  ${p.testResult.file} verified: ${p.testResult.predicateType} result ${testResultStatement(st).predicate.result}`);
  lines.push(`files:    ${files}`);
  return lines.join("\n");
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function readOrNull(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw asFileError(err, { doing: "read a signed file", path, option: "--results", mode: "read" });
  }
}
