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

  test("a command's help says which options it cannot run without", () => {
    const help = (cmd: string) => spawnSync(join(root, "node_modules", ".bin", "bun"), [join(root, "mod.ts"), cmd, "--help"], { encoding: "utf8" }).stdout;
    expect(help("judge")).toContain("  --suite <file>             suite whose thresholds to apply (required)\n");
    expect(help("judge")).toContain("  --json                     print JSON: the new directory, the outcome and each\n                             test's outcome\n");
    expect(help("keygen")).toContain("directory for gpucheck.key and gpucheck.pub (required)");
    expect(help("certify")).toContain("the private key, PKCS#8 PEM (required)");
    expect(help("verify")).toContain("the public key, SPKI PEM (required)");
  });

  test("into a full disk: one line saying so, exit 3, as every command's output (commander's write threw an internal error)", () => {
    const r = spawnSync("bash", ["-c", `'${join(root, "node_modules", ".bin", "bun")}' '${join(root, "mod.ts")}' --help > /dev/full`], { encoding: "utf8" });
    expect(r.status).toBe(3);
    expect(r.stderr).toBe("gpucheck: could not write to standard output: ENOSPC (no space left on the device)\n");
  });
});
