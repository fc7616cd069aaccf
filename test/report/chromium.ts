// Headless Chromium (Debian's chromium) as a test tool: the DOM after scripts ran, and screenshots.
// Flags keep it offline and quiet: no first-run, no background networking, a throwaway profile.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { tempDir } from "../tmp.ts";

const CHROMIUM = "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

function run(args: string[]): string {
  const profile = tempDir("gpucheck-chromium-");
  try {
    const r = spawnSync(CHROMIUM, [...FLAGS, `--user-data-dir=${profile}`, ...args], { encoding: "utf8", timeout: 90_000, maxBuffer: 64 * 1024 * 1024 });
    if (r.error) throw new Error(`${CHROMIUM} could not run (install Debian's chromium): ${r.error.message}`);
    if (r.status !== 0) throw new Error(`${CHROMIUM} exited ${r.status}: ${r.stderr.slice(-2000)}`);
    return r.stdout;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

/** The page's DOM serialised after load (its scripts have run). */
export function dumpDom(file: string): string {
  return run(["--dump-dom", `file://${file}`]);
}

export function screenshot(file: string, png: string, size = "1200,2400"): void {
  run(["--hide-scrollbars", `--window-size=${size}`, `--screenshot=${png}`, `file://${file}`]);
}
