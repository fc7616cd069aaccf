import { execSync } from "node:child_process";

/** Processes on this machine (containers' included: same kernel) whose command line holds the marker. */
export async function localLeftovers(marker: string): Promise<string[]> {
  await Bun.sleep(300); // SIGKILL delivery is asynchronous
  try {
    return execSync(`pgrep -af -- ${JSON.stringify(marker)}`, { encoding: "utf8" }).split("\n").filter((l) => l && !l.includes("pgrep"));
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}
