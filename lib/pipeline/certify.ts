// `gpucheck certify <results-dir> --key <pem>`: sign a finished run after the fact, once: a signed run is never signed again.
import type { Printer } from "./printer.ts";
import { EXIT } from "../core/errors.ts";
import { type Certified, certify } from "../sign/certify.ts";
import { type CertifiedCopy, certifyCopy } from "../sign/certify-copy.ts";
import { UNNAMED_CLUSTER } from "../sign/certificate-view.ts";
import { readPrivateKey } from "../sign/keys.ts";

export interface CertifyFlags {
  key: string;
  /** a new directory linking the run's files, signed there (the run itself, signed or not, stays as it is) */
  out?: string;
  json?: boolean;
  allowIncomplete?: boolean;
  cluster?: string;
}

export async function certifyRun({ dir, flags, print }: { dir: string; flags: CertifyFlags; print: Printer }): Promise<number> {
  const { out } = print;
  const opts = { allowIncomplete: flags.allowIncomplete, cluster: flags.cluster };
  const c: Certified & Partial<CertifiedCopy> = flags.out
    ? await certifyCopy(dir, flags.out, readPrivateKey(flags.key), opts)
    : await certify(dir, readPrivateKey(flags.key), opts);
  const p = c.statement.predicate;
  // a run that never ended is INCOMPLETE, whatever its finished tests say
  const verdict = p.incomplete || !p.complete ? `INCOMPLETE (the tests that finished: ${p.outcome.toUpperCase()})` : p.outcome.toUpperCase();
  if (flags.json) {
    const doc = {
      certificate: c.envelopePath,
      testResult: c.testResultPath,
      html: c.htmlPath,
      md: c.mdPath,
      fingerprint: c.fingerprint,
      algorithm: c.algorithm,
      suite: p.suite.name,
      cluster: p.cluster ?? null,
      outcome: p.outcome,
      verdict: p.incomplete || !p.complete ? "INCOMPLETE" : p.outcome.toUpperCase(),
      complete: p.complete,
    };
    out(`${JSON.stringify(doc, null, 2)}\n`);
    return EXIT.ok;
  }
  out(
    [
      `signed ${p.suite.name} on ${p.cluster ?? `(${UNNAMED_CLUSTER})`}: ${verdict}`,
      `key:         ${c.fingerprint} (${c.algorithm === "ed25519" ? "Ed25519" : "ECDSA P-256"})`,
      ...(c.dir ? [`linked:      ${c.files} files of ${dir} into ${c.dir}${c.copied ? ` (${c.copied} copied, sha256 checked)` : ""}; ${dir} is unchanged`] : []),
      `certificate: ${c.envelopePath}`,
      `in-toto:     ${c.testResultPath} (Test Result statement, same subjects)`,
      `for people:  ${c.htmlPath}  ${c.mdPath}`,
      "",
    ].join("\n"),
  );
  return EXIT.ok;
}
