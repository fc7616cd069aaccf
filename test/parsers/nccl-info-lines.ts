// Test helper: NCCL INFO lines of a real capture as a process of the workload prints them.
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** A file of test/fixtures/<dir>/. */
export const fixtureText = (dir: string, name: string) => readFileSync(join(import.meta.dir, "../fixtures", dir, name), "utf8");

/** The capture's lines (one node's when `host` is given, as that node's own process printed them) behind the workload's GPUCHECK_NCCL_INFO tag. */
export function infoLines(text: string, host?: string): string {
  return text
    .split("\n")
    .filter((l) => l && (host === undefined || l.startsWith(`${host}:`)))
    .map((l) => `GPUCHECK_NCCL_INFO ${l}`)
    .join("\n");
}
