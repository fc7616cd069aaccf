// Is this certificate what the key signed, and do the files still match it? Pure apart from the
// injected readSubject, so every way a certificate can be wrong is tested without touching disk.
// Checks run from the outside in, and the first failure is the answer: one precise reason beats a list.
// No node:crypto here: the key checks its own signatures (public-key.ts), so `gpucheck verify`
// can run on WebCrypto (web-key.ts); and zod only says what is wrong with a statement that does not
// have the schema's shape (predicate-shape.gen.ts): both were most of verify's start-up.
import type { z } from "zod";
import { conform, MISMATCH, type Shape } from "../core/shape.ts";
import { sha256 } from "../core/sha256.ts";
import { IN_TOTO_PAYLOAD_TYPE, parseEnvelope } from "./envelope.ts";
import { pae } from "./pae.ts";
import { TEST_RESULT_FILE, TEST_RESULT_PREDICATE_TYPE, testResultStatement } from "./test-result.ts";
import type { PublicKey } from "./public-key.ts";
import { type AcceptancePredicate, PREDICATE_TYPE, STATEMENT_TYPE, type Statement, SUBJECT_FILES } from "./predicate.ts";
import type { statementShape } from "./predicate-schema.ts";
import { PREDICATE_SHAPE, STATEMENT_SHAPE } from "./predicate-shape.gen.ts";

export type VerifyReason =
  | "malformed-envelope"
  | "no-signature"
  | "several-signatures"
  | "wrong-payload-type"
  | "bad-signature"
  | "keyid-mismatch"
  | "malformed-statement"
  | "wrong-predicate-type"
  | "missing-file"
  | "digest-mismatch"
  | "test-result-mismatch";

export type VerifyResult = { ok: true; statement: Statement; signer: string; checkedFiles: string[] } | { ok: false; reason: VerifyReason; message: string; file?: string };

export interface VerifyInput {
  envelopeText: string;
  publicKey: PublicKey;
  /** a subject file's bytes, or null when it does not exist; absent: subjects are not checked */
  readSubject?: (name: string) => Buffer | null;
}

export async function verifyCertificate({ envelopeText, publicKey, readSubject }: VerifyInput): Promise<VerifyResult> {
  const fail = (reason: VerifyReason, message: string, file?: string): VerifyResult => ({ ok: false, reason, message, ...(file ? { file } : {}) });
  const parsed = parseEnvelope(envelopeText);
  if (!parsed.ok) return fail("malformed-envelope", `malformed envelope: ${parsed.message}`);
  const env = parsed.envelope;
  if (env.signatures.length === 0) return fail("no-signature", `no signature: the envelope's "signatures" is empty`);
  if (env.signatures.length > 1) {
    return fail("several-signatures", `several signatures: the envelope has ${env.signatures.length}, a gpucheck certificate has exactly one`);
  }
  const [{ keyid, sig }] = env.signatures;
  // gpucheck always writes keyid; securesystemslib requires it; without it an edit to the field's name would pass
  if (keyid === undefined) return fail("malformed-envelope", `malformed envelope: signatures[0] has no "keyid"`);
  if (env.payloadType !== IN_TOTO_PAYLOAD_TYPE) {
    return fail("wrong-payload-type", `wrong payloadType: "${env.payloadType}", expected "${IN_TOTO_PAYLOAD_TYPE}"`);
  }
  const signer = publicKey.fingerprint;
  if (!(await publicKey.verify(pae(env.payloadType, env.payload), sig))) {
    const named = keyid !== "" && keyid !== signer ? `; the envelope names key ${keyid}` : "";
    return fail("bad-signature", `bad signature: it does not verify with --key (${signer})${named}`);
  }
  // the keyid is unauthenticated, but cosign and go-securesystemslib skip a signature whose keyid names
  // another key; accepting it here would make gpucheck the only verifier that says yes
  if (keyid !== "" && keyid !== signer) {
    return fail("keyid-mismatch", `keyid mismatch: the signature verifies with --key (${signer}) but the envelope names ${keyid}`);
  }

  const statement = await readStatement(env.payload);
  if (typeof statement === "string") return fail(statement.startsWith("wrong predicateType") ? "wrong-predicate-type" : "malformed-statement", statement);

  const checkedFiles: string[] = [];
  if (readSubject) {
    for (const s of statement.subject) {
      const bytes = readSubject(s.name);
      if (bytes === null) return fail("missing-file", `missing file: ${s.name} is named in the certificate but is not in the results directory`, s.name);
      const actual = sha256(bytes);
      if (actual !== s.digest.sha256) {
        return fail("digest-mismatch", `digest mismatch: ${s.name} has sha256 ${actual}, the certificate says ${s.digest.sha256}`, s.name);
      }
      checkedFiles.push(s.name);
    }
  }
  return { ok: true, statement, signer, checkedFiles };
}

/** The payload as a gpucheck Statement, or the sentence saying why it is not one. */
async function readStatement(payload: Buffer): Promise<Statement | string> {
  let raw: unknown;
  try {
    raw = JSON.parse(payload.toString("utf8"));
  } catch {
    return "malformed statement: the payload is not JSON";
  }
  const shape = await parse<StatementShape>(raw, STATEMENT_SHAPE, "statementShape");
  if (!shape.success) return `malformed statement: ${issueText(shape.issues)}`;
  const st = shape.data;
  if (st._type !== STATEMENT_TYPE) return `malformed statement: "_type" is "${st._type}", expected "${STATEMENT_TYPE}"`;
  if (st.predicateType !== PREDICATE_TYPE) return `wrong predicateType: "${st.predicateType}", expected "${PREDICATE_TYPE}"`;
  const names = new Set<string>();
  for (const [i, s] of st.subject.entries()) {
    // names are opened relative to --results: never let a certificate point elsewhere
    if (!/^[\w][\w.-]*$/.test(s.name)) return `malformed statement: subject[${i}].name "${s.name}" is not a file name in the results directory`;
    if (names.has(s.name)) return `malformed statement: subject "${s.name}" appears twice`;
    names.add(s.name);
    if (!/^[0-9a-f]{64}$/.test(s.digest.sha256 ?? "")) return `malformed statement: subject[${i}].digest.sha256 is not 64 lowercase hex digits`;
  }
  const missing = SUBJECT_FILES.filter((f) => !names.has(f));
  if (missing.length > 0) return `malformed statement: no subject for ${missing.join(", ")}`;
  const predicate = await parse<AcceptancePredicate>(st.predicate, PREDICATE_SHAPE, "acceptancePredicate");
  if (!predicate.success) return `malformed statement: ${issueText(predicate.issues, "predicate")}`;
  // the judging suite gave the verdicts: a certificate that names it must also cover its bytes
  const judged = predicate.data.judged;
  if (judged) {
    const covered = st.subject.find((s) => s.name === judged.suite.file);
    if (!covered) return `malformed statement: the verdicts were judged with ${judged.suite.file} but it is not a subject`;
    if (covered.digest.sha256 !== judged.suite.sha256)
      return `malformed statement: subject ${judged.suite.file} has sha256 ${covered.digest.sha256} but predicate.judged.suite says ${judged.suite.sha256}`;
  }
  return { ...st, predicate: predicate.data } as Statement;
}

type StatementShape = z.infer<typeof statementShape>;
type Issues = ReadonlyArray<{ path: PropertyKey[]; message: string }>;

/** zod's parse of value against a schema of predicate-schema.ts: from its shape when the value has it, else from zod, with zod's issues. */
async function parse<T>(value: unknown, shape: Shape, schema: "statementShape" | "acceptancePredicate"): Promise<{ success: true; data: T } | { success: false; issues: Issues }> {
  const data = conform(value, shape);
  if (data !== MISMATCH) return { success: true, data: data as T };
  const r = (await import("./predicate-schema.ts"))[schema].safeParse(value);
  return r.success ? { success: true, data: r.data as T } : { success: false, issues: r.error.issues };
}

function issueText(issues: Issues, root?: string): string {
  const i = issues[0];
  const path = [root, ...i.path.map(String)].filter(Boolean).join(".");
  return path ? `${path}: ${i.message}` : i.message;
}

/**
 * The second envelope (lib/sign/test-result.ts): signed by the same key, an in-toto Test Result
 * statement, and exactly what certify builds from the verified acceptance statement: same subjects,
 * same result and test lists. Anything else would let an in-toto reader see another verdict.
 */
export async function verifyTestResult({
  envelopeText,
  publicKey,
  acceptance,
}: {
  envelopeText: string;
  publicKey: PublicKey;
  acceptance: Statement;
}): Promise<{ ok: true } | { ok: false; reason: VerifyReason; message: string }> {
  const file = acceptance.predicate.testResult?.file ?? TEST_RESULT_FILE;
  const fail = (reason: VerifyReason, message: string) => ({ ok: false as const, reason, message: `${file}: ${message}` });
  const parsed = parseEnvelope(envelopeText);
  if (!parsed.ok) return fail("malformed-envelope", `malformed envelope: ${parsed.message}`);
  const env = parsed.envelope;
  if (env.signatures.length !== 1) return fail("several-signatures", `it has ${env.signatures.length} signatures, a gpucheck test result has exactly one`);
  if (env.payloadType !== IN_TOTO_PAYLOAD_TYPE) return fail("wrong-payload-type", `wrong payloadType: "${env.payloadType}", expected "${IN_TOTO_PAYLOAD_TYPE}"`);
  if (!(await publicKey.verify(pae(env.payloadType, env.payload), env.signatures[0]!.sig))) {
    return fail("bad-signature", `bad signature: it does not verify with --key (${publicKey.fingerprint})`);
  }
  let st: unknown;
  try {
    st = JSON.parse(env.payload.toString("utf8"));
  } catch {
    return fail("malformed-statement", "malformed statement: the payload is not JSON");
  }
  const expected = testResultStatement(acceptance);
  if ((st as { predicateType?: unknown }).predicateType !== TEST_RESULT_PREDICATE_TYPE) {
    return fail("wrong-predicate-type", `wrong predicateType: ${JSON.stringify((st as { predicateType?: unknown }).predicateType)}, expected "${TEST_RESULT_PREDICATE_TYPE}"`);
  }
  if (JSON.stringify(st) !== JSON.stringify(expected)) {
    return fail("test-result-mismatch", "test-result mismatch: its subjects or results are not those of the certificate it sits beside");
  }
  return { ok: true };
}
