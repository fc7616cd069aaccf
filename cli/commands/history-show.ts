// `gpucheck history show <node|serial|uuid> [--history <db>] [--json]`: a node's or a part's figures from
// acceptance onward, each with its drift from the accepted figure, the swaps and every failure.
import { out } from "../output.ts";
import { EXIT } from "../../lib/core/errors.ts";
import { showHistory } from "../../lib/pipeline/history.ts";

export async function main(query: string, flags: { history?: string; json?: boolean }): Promise<number> {
  const { history, text, db } = showHistory(query, { history: flags.history });
  out(flags.json ? `${JSON.stringify({ db, ...history }, null, 2)}\n` : text);
  // nothing recorded is not an error of the command, but a script asking after a node must be able to tell
  return history.runs.length === 0 ? EXIT.failed : EXIT.ok;
}
