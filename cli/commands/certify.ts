// `gpucheck certify <results-dir> --key <pem>`: sign a finished run after the fact.
import { out } from "../output.ts";
import { EXIT } from "../../lib/core/errors.ts";
import { certify } from "../../lib/sign/certify.ts";
import { readPrivateKey } from "../../lib/sign/keys.ts";

export { certifyResults } from "../../lib/sign/certify.ts";

export async function main(dir: string, flags: { key: string; json?: boolean }): Promise<number> {
  const c = await certify(dir, readPrivateKey(flags.key));
  const p = c.statement.predicate;
  if (flags.json) {
    const doc = {
      certificate: c.envelopePath,
      html: c.htmlPath,
      md: c.mdPath,
      fingerprint: c.fingerprint,
      algorithm: c.algorithm,
      suite: p.suite.name,
      cluster: p.cluster ?? null,
      outcome: p.outcome,
      complete: p.complete,
    };
    out(`${JSON.stringify(doc, null, 2)}\n`);
    return EXIT.ok;
  }
  out(
    [
      `signed ${p.suite.name} on ${p.cluster ?? "(unnamed cluster)"}: ${p.outcome.toUpperCase()}${p.complete ? "" : " (incomplete run)"}`,
      `key:         ${c.fingerprint} (${c.algorithm === "ed25519" ? "Ed25519" : "ECDSA P-256"})`,
      `certificate: ${c.envelopePath}`,
      `for people:  ${c.htmlPath}  ${c.mdPath}`,
      "",
    ].join("\n"),
  );
  return EXIT.ok;
}
