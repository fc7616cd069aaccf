// After the tests: a bundle for each node a failed or errored unit ran on, written privately into the
// run directory (evidence/<node>.tar.gz) and listed in results.json.
import { join } from "node:path";
import { ensurePrivateDir, writePrivateFile } from "../core/private-fs.ts";
import type { ResultsFile } from "../core/types.ts";
import { collectLocal, DEFAULT_EVIDENCE_BYTES, type EvidenceBundle } from "./collect.ts";

export function collectEvidence(results: ResultsFile, outDir: string, maxBytes = DEFAULT_EVIDENCE_BYTES): EvidenceBundle[] {
  const byNode = new Map<string, { since: string; until: string; logs: string[] }>();
  for (const t of results.tests)
    for (const u of t.units) {
      if (u.verdict.outcome !== "failed" && u.verdict.outcome !== "error") continue;
      for (const host of u.hosts) {
        const n = byNode.get(host) ?? { since: u.startedAt, until: u.endedAt, logs: [] };
        if (u.startedAt < n.since) n.since = u.startedAt;
        if (u.endedAt > n.until) n.until = u.endedAt;
        n.logs.push(...u.logs);
        byNode.set(host, n);
      }
    }
  const bundles: EvidenceBundle[] = [];
  for (const [node, n] of byNode) {
    if (results.platform !== "local") {
      bundles.push({
        node,
        bytes: 0,
        collected: [],
        missing: [{ item: "everything", why: `the ${results.platform} platform does not collect evidence on the node yet (only local does)` }],
      });
      continue;
    }
    const { bundle, archive } = collectLocal({ node, outDir, since: n.since, until: n.until, logs: [...new Set(n.logs)], maxBytes });
    if (archive) {
      ensurePrivateDir(join(outDir, "evidence"));
      writePrivateFile(join(outDir, bundle.file!), archive);
    }
    bundles.push(bundle);
  }
  return bundles;
}
