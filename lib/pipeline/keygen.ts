// `gpucheck keygen --out <dir> [--algorithm ed25519|p256]`: a signing key pair for certificates.
import type { Printer } from "./printer.ts";
import { EXIT } from "../core/errors.ts";
import { writeKeyPair } from "../sign/keys.ts";
import type { KeyAlgorithm } from "../sign/public-key.ts";

export type { KeyAlgorithm };

export async function keygen({ flags, print }: { flags: { out: string; algorithm: KeyAlgorithm; json?: boolean }; print: Printer }): Promise<number> {
  const { out } = print;
  const k = writeKeyPair(flags.out, flags.algorithm);
  if (flags.json) {
    out(`${JSON.stringify({ privateKey: k.privatePath, publicKey: k.publicPath, fingerprint: k.fingerprint, algorithm: flags.algorithm }, null, 2)}\n`);
    return EXIT.ok;
  }
  out(
    [
      `private key: ${k.privatePath} (mode 0600; keep it on this machine, never attach it anywhere)`,
      `public key:  ${k.publicPath} (give it to whoever verifies certificates)`,
      `fingerprint: ${k.fingerprint} (${flags.algorithm === "ed25519" ? "Ed25519" : "ECDSA P-256"})`,
      `sign a run:  gpucheck suite <suite> --sign-key ${k.privatePath}   or later: gpucheck certify <results-dir> --key ${k.privatePath}`,
      "",
    ].join("\n"),
  );
  return EXIT.ok;
}
