// The commands printed on a certificate, run from inside the results directory with the signer's
// public key saved there as gpucheck.pub. A test runs these exact strings, so they stay true.
import { IN_TOTO_PAYLOAD_TYPE } from "./envelope.ts";
import { PUBLIC_KEY_FILE } from "./key-file.ts";
import type { KeyAlgorithm } from "./public-key.ts";
import { PREDICATE_TYPE } from "./predicate.ts";

export const CERTIFICATE_FILE = "certificate.intoto.json";

export interface VerifyCommands {
  gpucheck: string;
  /** a bash script: PAE bytes rebuilt by hand, the signature checked by openssl, then the file digests */
  openssl: string;
  /** cosign 2.x; checks the signature and that the named file is a subject */
  cosign: string;
}

export function verifyCommands(algorithm: KeyAlgorithm, subjects: string[]): VerifyCommands {
  const type = Buffer.from(IN_TOTO_PAYLOAD_TYPE);
  const check =
    algorithm === "ed25519"
      ? `openssl pkeyutl -verify -pubin -inkey ${PUBLIC_KEY_FILE} -rawin -in cert-pae.bin -sigfile cert-sig.bin`
      : `openssl dgst -sha256 -verify ${PUBLIC_KEY_FILE} -signature cert-sig.bin cert-pae.bin`;
  const openssl = [
    `jq -j .payload ${CERTIFICATE_FILE} | base64 -d > cert-payload.json`,
    `jq -j '.signatures[0].sig' ${CERTIFICATE_FILE} | base64 -d > cert-sig.bin`,
    `{ printf 'DSSEv1 ${type.length} ${IN_TOTO_PAYLOAD_TYPE} %d ' $(wc -c < cert-payload.json); cat cert-payload.json; } > cert-pae.bin`,
    check,
    `jq -r '.subject[] | "\\(.digest.sha256)  \\(.name)"' cert-payload.json | sha256sum -c`,
  ].join("\n");
  return {
    gpucheck: `gpucheck verify ${CERTIFICATE_FILE} --key ${PUBLIC_KEY_FILE} --results .`,
    openssl,
    cosign: `cosign verify-blob-attestation --key ${PUBLIC_KEY_FILE} --signature ${CERTIFICATE_FILE} --type ${PREDICATE_TYPE} --insecure-ignore-tlog ${subjects[0] ?? "results.json"}`,
  };
}
