// `gpucheck history import <results-dir> [--health] [--history <db>]`: a run's figures into the node history.
import { out } from "../output.ts";
import { EXIT } from "../../lib/core/errors.ts";
import { importLine, importRun } from "../../lib/pipeline/history.ts";

export async function main(dir: string, flags: { history?: string; health?: boolean; json?: boolean }): Promise<number> {
  const r = importRun(dir, { history: flags.history, mode: flags.health ? "health" : "acceptance" });
  out(flags.json ? `${JSON.stringify({ db: r.db, added: r.added, run: r.run, figures: r.figures, nodes: r.nodes }, null, 2)}\n` : importLine(r));
  return EXIT.ok;
}
