// `gpucheck verify <certificate> --key <pub.pem> [--results <dir>]`: exit 0 when the certificate is
// signed by that key (and, with --results, every file still matches it), 1 with the reason when not
// (lib/pipeline/verify.ts).
import { type VerifyFlags, verifyCertificateFile } from "../../lib/pipeline/verify.ts";
import { printer } from "./print.ts";

export async function main(cert: string, flags: VerifyFlags): Promise<number> {
  return verifyCertificateFile({ cert, flags, print: printer() });
}
