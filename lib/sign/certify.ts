// Sign a results directory: certificate.intoto.json (the DSSE envelope), certificate.html and
// certificate.md beside results.json, junit.xml and suite.yaml. Called by `gpucheck certify` and,
// at the end of a run, by `gpucheck suite --sign-key`.
import { createHash, createPublicKey, type KeyObject } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { workloadHash } from "../core/assets.ts";
import { PlatformError, SuiteError } from "../core/errors.ts";
import { asFileError, withFs } from "../core/fs-error.ts";
import type { ResultsFile } from "../core/types.ts";
import { BUILD, VERSION } from "../core/version.ts";
import { parseResults, ResultsWriteError, writeFileAtomic } from "../report/results.ts";
import { renderCertificateHtml } from "./certificate-html.ts";
import { renderCertificateMd } from "./certificate-md.ts";
import { certificateView } from "./certificate-view.ts";
import { keySigner, keyVerifier, serializeEnvelope, signEnvelope } from "./dsse.ts";
import { IN_TOTO_PAYLOAD_TYPE } from "./envelope.ts";
import { fingerprint, keyAlgorithm, readPrivateKey } from "./keys.ts";
import type { KeyAlgorithm } from "./public-key.ts";
import { ECOSYSTEM_SUBJECTS, JUDGED_WITH_FILE, type Statement, SUBJECT_FILES, SUITE_FILE } from "./predicate.ts";
import { buildStatement } from "./statement.ts";
import { CERTIFICATE_FILE } from "./verify-commands.ts";
import { TEST_RESULT_FILE, TEST_RESULT_PREDICATE_TYPE, testResultStatement } from "./test-result.ts";
import { verifyCertificate, verifyTestResult } from "./verify.ts";

export interface Certified {
  envelopePath: string;
  /** the in-toto Test Result statement's envelope, beside the certificate */
  testResultPath: string;
  htmlPath: string;
  mdPath: string;
  fingerprint: string;
  algorithm: KeyAlgorithm;
  statement: Statement;
}

export interface CertifyOptions {
  now?: Date;
  /** sign a run that never ended, as INCOMPLETE, instead of refusing it */
  allowIncomplete?: boolean;
  /** the cluster's name, for a suite that names none */
  cluster?: string;
}

/** A run that never ended, offered to certify without --allow-incomplete: exit 3, as `report` and `judge` say of it. */
export class IncompleteRunError extends PlatformError {
  constructor(message: string) {
    super(message);
    this.name = "IncompleteRunError";
  }
}

/** For the executor: sign dir with the key file; returns the certificate's path. */
export async function certifyResults(dir: string, keyPath: string): Promise<string> {
  return (await certify(dir, readPrivateKey(keyPath))).envelopePath;
}

export async function certify(dir: string, privateKey: KeyObject, opts: CertifyOptions = {}): Promise<Certified> {
  const now = opts.now ?? new Date();
  // a signed run stays signed: a second certify would replace the certificate a reader already holds
  if (existsSync(join(dir, CERTIFICATE_FILE))) {
    throw new SuiteError(
      `Cannot certify "${dir}": it is already signed (${CERTIFICATE_FILE}); nothing was changed; verify it with gpucheck verify ${join(dir, CERTIFICATE_FILE)} --key <pub.pem> --results ${dir}, or sign it again into a new directory with --out <dir>`,
    );
  }
  const files = new Map<string, Buffer>(SUBJECT_FILES.map((name) => [name, readSubject(dir, name)]));
  // the statement is built from a real results file, checked by the one reader of results.json
  const results = parseResults((files.get("results.json") as Buffer).toString("utf8"), join(dir, "results.json"));
  const incomplete = incompleteRun(results);
  if (incomplete && !opts.allowIncomplete) {
    throw new IncompleteRunError(`cannot certify "${dir}": INCOMPLETE run: ${incomplete.why}; nothing was signed; rerun it, or sign it as INCOMPLETE with --allow-incomplete`);
  }
  const suiteCluster = results.suite.cluster;
  if (opts.cluster !== undefined && suiteCluster !== undefined && opts.cluster !== suiteCluster) {
    throw new SuiteError(`Cannot certify "${dir}": --cluster ${opts.cluster} but the suite names the cluster ${suiteCluster}; drop --cluster or give ${suiteCluster}`);
  }
  const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
  const suiteSha = sha256(files.get(SUITE_FILE) as Buffer);
  if (suiteSha !== results.suite.sha256) {
    throw new SuiteError(
      `Cannot certify "${dir}": ${SUITE_FILE} has sha256 ${suiteSha} but results.json says the run used ${results.suite.sha256}: the suite file was changed after the run`,
    );
  }
  if (results.judgedWith) {
    // a re-judged run: the verdicts are the judging suite's, so its bytes are signed too
    const judged = readSubject(dir, JUDGED_WITH_FILE);
    if (sha256(judged) !== results.judgedWith.sha256) {
      throw new SuiteError(
        `Cannot certify "${dir}": ${JUDGED_WITH_FILE} has sha256 ${sha256(judged)} but results.json says the verdicts were judged with ${results.judgedWith.sha256}: the file was changed after judging`,
      );
    }
    files.set(JUDGED_WITH_FILE, judged);
  }
  // the outputs other tools read (CTRF, the CycloneDX hardware inventory, the Prometheus metrics) are
  // signed with the results they were made from, where the run wrote them
  for (const name of ECOSYSTEM_SUBJECTS) if (existsSync(join(dir, name))) files.set(name, readSubject(dir, name));
  const statement = buildStatement(
    results,
    [...files].map(([name, bytes]) => ({ name, sha256: sha256(bytes) })),
    {
      certifiedAt: now.toISOString(),
      gpucheckVersion: VERSION,
      binary: { commit: BUILD.commit, workloadHash: workloadHash() },
      ...(opts.cluster !== undefined && { cluster: opts.cluster }),
      ...(incomplete && { incomplete }),
    },
  );
  statement.predicate.testResult = { file: TEST_RESULT_FILE, predicateType: TEST_RESULT_PREDICATE_TYPE };
  const envelope = serializeEnvelope(await signEnvelope(IN_TOTO_PAYLOAD_TYPE, Buffer.from(JSON.stringify(statement)), keySigner(privateKey)));
  const testResult = serializeEnvelope(await signEnvelope(IN_TOTO_PAYLOAD_TYPE, Buffer.from(JSON.stringify(testResultStatement(statement))), keySigner(privateKey)));

  // what we hand out must pass our own verifier, or nobody else's will either
  const publicKey = createPublicKey(privateKey);
  const self = await verifyCertificate({ envelopeText: envelope, publicKey: keyVerifier(publicKey), readSubject: (n) => files.get(n) ?? null });
  if (!self.ok) throw new Error(`the certificate just written does not verify (${self.message}); nothing was written`);
  const selfTr = await verifyTestResult({ envelopeText: testResult, publicKey: keyVerifier(publicKey), acceptance: self.statement });
  if (!selfTr.ok) throw new Error(`the test-result statement just written does not verify (${selfTr.message}); nothing was written`);

  const signer = { fingerprint: fingerprint(publicKey), algorithm: keyAlgorithm(publicKey) };
  const view = certificateView(statement, signer);
  const out = {
    envelopePath: join(dir, CERTIFICATE_FILE),
    testResultPath: join(dir, TEST_RESULT_FILE),
    htmlPath: join(dir, "certificate.html"),
    mdPath: join(dir, "certificate.md"),
  };
  // the test result first: a directory with certificate.intoto.json has both; each file whole or absent
  // (temp file, fsync, rename: a kill never leaves half a certificate), and a write that fails (a
  // read-only or full disk) takes the ones before it away again: signed whole, or not at all
  const written: string[] = [];
  const ctx = { doing: "write the certificate at", path: dir, mode: "write", choose: "a new directory with --out <dir> (the run linked there and signed)" } as const;
  withFs(ctx, () => {
    try {
      for (const [path, text] of [
        [out.testResultPath, testResult],
        [out.envelopePath, envelope],
        [out.htmlPath, renderCertificateHtml(view)],
        [out.mdPath, renderCertificateMd(view)],
      ] as const) {
        writeAtomically(path, text);
        written.push(path);
      }
    } catch (e) {
      for (const p of written) rmSync(p, { force: true });
      throw e;
    }
  });
  return { ...out, ...signer, statement };
}

/**
 * Why a run is not finished, naming the tests that never ended, or null when it ended: no endedAt
 * (killed, or still running), a test whose outcome is still "unfinished" (written ahead, never
 * replaced), or complete: false (stopped before every planned test ran).
 */
export function incompleteRun(results: ResultsFile): { unfinished: string[]; why: string } | null {
  const unfinished = results.tests.filter((t) => (t.outcome as string) === "unfinished").map((t) => t.name);
  const reasons = [
    unfinished.length > 0 ? `${unfinished.length === 1 ? "test" : "tests"} ${unfinished.join(", ")} never ended` : null,
    results.endedAt ? null : "results.json has no endedAt (the run was killed or is still running)",
    !results.complete && results.endedAt ? `it stopped before every planned test ran${results.stopped ? ` (${results.stopped})` : ""}` : null,
  ].filter((r): r is string => r !== null);
  return reasons.length === 0 ? null : { unfinished, why: reasons.join("; ") };
}

function readSubject(dir: string, name: string): Buffer {
  try {
    return readFileSync(join(dir, name));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const hint =
      name === "results.json"
        ? " (is it a gpucheck results directory?)"
        : name === "junit.xml"
          ? ` (gpucheck report ${dir} writes it again)`
          : name === JUDGED_WITH_FILE
            ? " (gpucheck judge writes the judging suite there)"
            : " (gpucheck suite saves a copy of the suite there)";
    if (code !== "ENOENT") throw asFileError(err, { doing: "read the run to sign", path: join(dir, name), mode: "read", choose: "another results directory" });
    throw new SuiteError(`Cannot certify "${dir}": ${name} is missing${hint}`);
  }
}

/** writeFileAtomic's file-system error, named by the file meant (not its temporary name), for withFs's one line. */
function writeAtomically(path: string, text: string): void {
  try {
    writeFileAtomic(path, text);
  } catch (e) {
    const cause = e instanceof ResultsWriteError ? e.cause : e;
    const { code, syscall } = cause as NodeJS.ErrnoException;
    throw code ? Object.assign(new Error((cause as Error).message), { code, syscall, path }) : e;
  }
}
