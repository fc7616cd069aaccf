// The commands printed on a certificate, run from inside the results directory with the signer's
// public key saved there as gpucheck.pub. A test runs these exact strings, so they stay true.
import { IN_TOTO_PAYLOAD_TYPE } from "./envelope.ts";
import { PUBLIC_KEY_FILE } from "./key-file.ts";
import type { KeyAlgorithm } from "./public-key.ts";
import { PREDICATE_TYPE } from "./predicate.ts";
import { TEST_RESULT_FILE, TEST_RESULT_PREDICATE_TYPE } from "./test-result.ts";

export const CERTIFICATE_FILE = "certificate.intoto.json";

export interface VerifyCommands {
  gpucheck: string;
  /** bash steps joined by &&: PAE bytes rebuilt by hand, the signature checked by openssl, then the file digests (for each envelope) */
  openssl: string;
  /** cosign 2.x; checks the signature and that the named file is a subject */
  cosign: string;
}

/**
 * testResult: the certificate names a second envelope (certificate.test-result.intoto.json, the in-toto
 * Test Result statement over the same files): the openssl steps and cosign check it too, the same way.
 */
export function verifyCommands(algorithm: KeyAlgorithm, subjects: string[], testResult = false): VerifyCommands {
  const type = Buffer.from(IN_TOTO_PAYLOAD_TYPE);
  // one envelope: its payload, its signature, the PAE bytes rebuilt, openssl's check, the files'
  // digests; each step only after the one before it held
  const steps = (file: string, p: string) => [
    `jq -j .payload ${file} | base64 -d > ${p}payload.json`,
    `jq -j '.signatures[0].sig' ${file} | base64 -d > ${p}sig.bin`,
    `{ printf 'DSSEv1 ${type.length} ${IN_TOTO_PAYLOAD_TYPE} %d ' $(wc -c < ${p}payload.json); cat ${p}payload.json; } > ${p}pae.bin`,
    algorithm === "ed25519"
      ? `openssl pkeyutl -verify -pubin -inkey ${PUBLIC_KEY_FILE} -rawin -in ${p}pae.bin -sigfile ${p}sig.bin`
      : `openssl dgst -sha256 -verify ${PUBLIC_KEY_FILE} -signature ${p}sig.bin ${p}pae.bin`,
    `jq -r '.subject[] | "\\(.digest.sha256)  \\(.name)"' ${p}payload.json | sha256sum -c`,
  ];
  // with the Test Result envelope, the same steps for each (a loop: the certificate fits one A4 page)
  const openssl = testResult
    ? [`for f in ${CERTIFICATE_FILE} ${TEST_RESULT_FILE}; do`, `  ${steps("$f", "").join(" &&\n  ")} || { echo "$f: FAILED"; false; }`, "done"].join("\n")
    : steps(CERTIFICATE_FILE, "cert-").join(" &&\n");
  const cosign = (file: string, predicateType: string) =>
    `cosign verify-blob-attestation --key ${PUBLIC_KEY_FILE} --signature ${file} --type ${predicateType} --insecure-ignore-tlog ${subjects[0] ?? "results.json"}`;
  return {
    gpucheck: `gpucheck verify ${CERTIFICATE_FILE} --key ${PUBLIC_KEY_FILE} --results .`,
    openssl,
    cosign: [cosign(CERTIFICATE_FILE, PREDICATE_TYPE), ...(testResult ? [cosign(TEST_RESULT_FILE, TEST_RESULT_PREDICATE_TYPE)] : [])].join("\n"),
  };
}
