// `gpucheck keygen --out <dir> [--algorithm ed25519|p256]`: a signing key pair for certificates (lib/pipeline/keygen.ts).
import { type KeyAlgorithm, keygen } from "../../lib/pipeline/keygen.ts";
import { printer } from "./print.ts";

export async function main(flags: { out: string; algorithm: KeyAlgorithm; json?: boolean }): Promise<number> {
  return keygen({ flags, print: printer() });
}
