import { execSync } from "node:child_process";
import { local } from "../../plugins/local.ts";
import type { Platform } from "../../plugins/types.ts";
import { conformance } from "./conformance.ts";

/** processes of this machine whose command line holds the marker */
export async function localLeftovers(marker: string): Promise<string[]> {
  await Bun.sleep(300); // SIGKILL delivery is asynchronous
  try {
    return execSync(`pgrep -af -- ${JSON.stringify(marker)}`, { encoding: "utf8" }).split("\n").filter((l) => l && !l.includes("pgrep"));
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

conformance(local as Platform<unknown>, () => ({
  python: "/usr/bin/python3",
  settings: { peerFailureGraceMs: 2000 },
  leftovers: localLeftovers,
  slackS: 2,
}));
