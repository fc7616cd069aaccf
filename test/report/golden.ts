// Golden files: compared byte for byte; GPUCHECK_UPDATE_GOLDEN=1 rewrites them (review the diff).
import { expect } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export const UPDATE = process.env.GPUCHECK_UPDATE_GOLDEN === "1";

export function expectGolden(path: string, actual: string): void {
  if (UPDATE) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  if (!existsSync(path)) throw new Error(`golden file ${path} is missing: run with GPUCHECK_UPDATE_GOLDEN=1 to create it`);
  expect(actual).toBe(readFileSync(path, "utf8"));
}

/** JUnit with its run-dependent parts (timestamps) blanked, so a golden file survives a rerun. */
export function blankTimestamps(xml: string): string {
  return xml.replace(/ timestamp="[^"]*"/g, ' timestamp=""');
}
