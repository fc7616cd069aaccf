// `gpucheck certify <results-dir> --key <pem>`: sign a finished run after the fact, once (lib/pipeline/certify.ts).
import { type CertifyFlags, certifyRun } from "../../lib/pipeline/certify.ts";
import { printer } from "./print.ts";

export async function main(dir: string, flags: CertifyFlags): Promise<number> {
  return certifyRun({ dir, flags, print: printer() });
}
