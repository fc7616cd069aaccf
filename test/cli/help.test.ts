// `gpucheck --help` without commander (cli/help.ts) is commander's help, byte for byte, at every width.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { rootHelp } from "../../cli/help.ts";
import { HELP_GEN, renderHelpModule } from "../../scripts/gen-help.ts";
import { commanderHelp } from "./commander.ts";

const root = join(import.meta.dir, "..", "..");

describe("gpucheck --help from the command table", () => {
  test.each([10, 39, 40, 60, 79, 80, 81, 100, 120, 200, 1000])("equals commander's help %p columns wide", async (width) => {
    expect(rootHelp(width)).toBe(await commanderHelp(width));
  });

  test("cli/help.gen.ts, what a pipe gets without the table loading, is the 80-column help now (regenerate: bun run scripts/gen-help.ts)", () => {
    expect(readFileSync(HELP_GEN, "utf8")).toBe(renderHelpModule());
  });

  test("into a pipe: commander's layout for 80 columns, from -h and --help alike", () => {
    for (const flag of ["--help", "-h"]) {
      const r = spawnSync(join(root, "node_modules", ".bin", "bun"), [join(root, "mod.ts"), flag], { encoding: "utf8" });
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(rootHelp(80));
    }
  });

  test("into a full disk: one line saying so, exit 3, as every command's output (commander's write threw an internal error)", () => {
    const r = spawnSync("bash", ["-c", `'${join(root, "node_modules", ".bin", "bun")}' '${join(root, "mod.ts")}' --help > /dev/full`], { encoding: "utf8" });
    expect(r.status).toBe(3);
    expect(r.stderr).toBe("gpucheck: could not write to standard output: ENOSPC (no space left on the device)\n");
  });
});
