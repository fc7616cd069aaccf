import { execSync } from "node:child_process";

/** Processes on this machine (containers' included: same kernel) whose command line holds the marker. */
export async function localLeftovers(marker: string): Promise<string[]> {
  await Bun.sleep(300); // SIGKILL delivery is asynchronous
  try {
    return execSync(`pgrep -af -- ${JSON.stringify(marker)}`, { encoding: "utf8" })
      .split("\n")
      .filter((l) => l && !l.includes("pgrep"));
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/** Processes whose environment holds the marker (e.g. a results directory in PYTHONPATH). */
export async function processesWithEnv(marker: string): Promise<string[]> {
  const { readdirSync, readFileSync } = await import("node:fs");
  await Bun.sleep(300);
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, "latin1").includes(marker)) {
        found.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, "latin1").replace(/\0/g, " ")}`);
      }
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}
