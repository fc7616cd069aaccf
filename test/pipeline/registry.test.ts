// The platform registry reaches the stages only as the flows pass it (issue 30): in a process without
// the unit tests' preload, importing cli/platforms.ts registers nothing, a flow given the registry
// plans a suite, and a stage called without one says what it lacks.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../tmp.ts";

const root = join(import.meta.dir, "..", "..");

test("a flow plans with the registry it is given, and no import sets one", () => {
  const dir = tempDir("gpucheck-registry-");
  const script = join(dir, "probe.ts");
  writeFileSync(
    script,
    `import { PLATFORMS } from ${JSON.stringify(join(root, "cli/platforms.ts"))};
import { showPlan } from ${JSON.stringify(join(root, "lib/pipeline/plan.ts"))};
import { loadSuite } from ${JSON.stringify(join(root, "lib/load/mod.ts"))};
const printed: string[] = [];
const print = { out: (t: string) => printed.push(t), err: () => {}, stderr: process.stderr, color: false };
const code = await showPlan({ ref: "cpu-smoke", flags: { json: true }, platforms: PLATFORMS, print });
let refused = "";
try {
  await loadSuite("cpu-smoke");
} catch (e) {
  refused = (e as Error).message;
}
console.log(JSON.stringify({ code, platform: JSON.parse(printed.join("")).platform, refused }));
`,
  );
  // run from the temporary directory: no bunfig.toml there, so no preload registers anything
  const p = Bun.spawnSync([process.execPath, script], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  expect(p.stderr.toString()).toBe("");
  expect(JSON.parse(p.stdout.toString())).toEqual({
    code: 0,
    platform: "local",
    refused: "gpucheck: no platform registry was given: pass cli/platforms.ts PLATFORMS as `platforms` when loading or planning a suite (each lib/pipeline flow does)",
  });
});
