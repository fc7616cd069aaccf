// `gpucheck verify <certificate> --key <pub.pem> [--results <dir>]`: exit 0 when the certificate is
// signed by that key (and, with --results, every file still matches it), 1 with the reason when not.
import { err, out } from "../output.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EXIT, SuiteError } from "../../lib/core/errors.ts";
import { withUnit } from "../../lib/core/quantity.ts";
import { readPublicKeyText } from "../../lib/sign/key-file.ts";
import type { Statement } from "../../lib/sign/predicate.ts";
import type { PublicKey } from "../../lib/sign/public-key.ts";
import { verifyCertificate } from "../../lib/sign/verify.ts";
import { webPublicKey } from "../../lib/sign/web-key.ts";

export async function main(cert: string, flags: { key: string; results?: string; json?: boolean }): Promise<number> {
  const publicKey = await readKey(flags.key);
  let envelopeText: string;
  try {
    envelopeText = readFileSync(cert, "utf8");
  } catch (err) {
    throw new SuiteError(`Cannot read certificate "${cert}": ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (err as Error).message}`);
  }
  const dir = flags.results;
  const result = await verifyCertificate({ envelopeText, publicKey, readSubject: dir === undefined ? undefined : (name) => readOrNull(join(dir, name)) });
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
    return EXIT.ok;
  }
  const alg = publicKey.algorithm === "ed25519" ? "Ed25519" : "ECDSA P-256";
  const files = dir === undefined ? "not checked (add --results <dir> to compare each file with its sha256)" : `${result.checkedFiles.join(", ")} match their sha256 in ${dir}`;
  out(`${summary(result.statement, `${result.signer} (${alg})`, files)}\n`);
  return EXIT.ok;
}

/** --key through WebCrypto when it is a key as keygen writes it; anything else through node:crypto, which names what is wrong with it. */
async function readKey(path: string): Promise<PublicKey> {
  const web = await webPublicKey(readPublicKeyText(path));
  if (web) return web;
  const [{ readPublicKey }, { keyVerifier }] = await Promise.all([import("../../lib/sign/keys.ts"), import("../../lib/sign/dsse.ts")]);
  return keyVerifier(readPublicKey(path));
}

function summary(st: Statement, signer: string, files: string): string {
  const p = st.predicate;
  const gpus = p.nodes.reduce((n, node) => n + node.gpus.length, 0);
  const lines = [
    `certificate valid: signed by ${signer}`,
    `cluster:  ${p.cluster ?? "(unnamed cluster)"} (${count(p.nodes.length, "node")}, ${count(gpus, "GPU")})`,
    `suite:    ${p.suite.name} (sha256 ${p.suite.sha256}) on ${p.platform}`,
    `run:      ${p.startedAt} → ${p.endedAt ?? "not finished"}, signed ${p.certifiedAt}`,
    `verdict:  ${p.outcome.toUpperCase()}${p.complete ? "" : " (INCOMPLETE: the run stopped early: interrupted, or --fail-fast)"}`,
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
    lines.push(`  ${t.outcome.padEnd(7)} ${t.name}: ${t.headline.metric} ${shown}${limits ? ` (threshold ${limits})` : ""}`);
  }
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
    throw new SuiteError(`Cannot read "${path}": ${(err as Error).message}`);
  }
}
