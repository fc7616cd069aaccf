import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "../tmp.ts";
import { importGraph, importLoops, ringViolations, scanImports } from "./rings.ts";

const root = join(import.meta.dir, "..", "..");

/** A throwaway tree of the given files (path → text), scanned as the rings test scans the repository. */
function scanTree(files: Record<string, string>): { problems: string[]; violations: string[] } {
  const dir = tempDir("gpucheck-rings-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const scan = scanImports(
    dir,
    ["lib", "plugins", "cli"].filter((d) => Object.keys(files).some((f) => f.startsWith(`${d}/`))),
  );
  return { problems: scan.problems, violations: ringViolations(scan.graph) };
}

describe("layering", () => {
  test("every file of lib/, plugins/ and cli/ keeps its ring, and no imports close a loop", () => {
    const scan = scanImports(root, ["lib", "plugins", "cli", "mod.ts"]);
    expect(scan.graph.size).toBeGreaterThan(200);
    expect(scan.problems).toEqual([]);
    expect(ringViolations(scan.graph)).toEqual([]);
    expect(importLoops(scan.graph)).toEqual([]);
  });

  test("an import up a ring, into a later stage, across platforms or from nowhere is named with its rule", () => {
    const graph = new Map([
      ["lib/core/types.ts", ["lib/kinds/mod.ts"]],
      ["lib/plan/plan.ts", ["cli/platforms.ts", "lib/report/write.ts", "lib/load/mod.ts"]],
      ["plugins/docker/remote.ts", ["plugins/ssh/run.ts", "plugins/_shared/ssh/argv.ts"]],
      ["lib/stray.ts", []],
      ["lib/isolate/judge.ts", ["lib/core/quantity.ts", "lib/kinds/mod.ts"]],
    ]);
    expect(ringViolations(graph)).toEqual([
      "lib/core/types.ts imports lib/kinds/mod.ts: lib/core may not import from kinds and parsers, a ring above it",
      "lib/plan/plan.ts imports cli/platforms.ts: stage plan may not import from cli, a ring above it",
      "lib/plan/plan.ts imports lib/report/write.ts: stage plan may not import from stage report, a later stage",
      "plugins/docker/remote.ts imports plugins/ssh/run.ts: platform docker may not import from platform ssh: what two platforms share goes in plugins/_shared",
      "lib/stray.ts is in no ring: put it in lib/core, lib/kinds, a stage folder, lib/pipeline, plugins/ or cli/",
      "lib/isolate/judge.ts imports lib/kinds/mod.ts: lib/isolate may not import from kinds and parsers: it knows only lib/core",
    ]);
  });

  test("a loop is found even inside one ring", () => {
    const graph = new Map([
      ["plugins/k8s.ts", ["plugins/k8s/lifecycle.ts"]],
      ["plugins/k8s/lifecycle.ts", ["plugins/k8s.ts", "plugins/k8s/names.ts"]],
      ["plugins/k8s/names.ts", []],
    ]);
    expect(importLoops(graph)).toEqual([["plugins/k8s.ts", "plugins/k8s/lifecycle.ts"]]);
  });
});

// Each way an import once slipped past the rings test (issue 30: 5 of 12 injected violations passed),
// injected into a small tree of real files.
describe("layering: imports the scan once missed", () => {
  const CORE = { "lib/core/types.ts": "export type X = number;\n" };
  const up = "lib/core/types.ts imports lib/plan/plan.ts: lib/core may not import from stage plan, a ring above it";
  const plan = { "lib/plan/plan.ts": "export const plan = 1;\n" };

  test('a side-effect import (`import "x"`)', () => {
    expect(scanTree({ ...plan, "lib/core/types.ts": 'import "../plan/plan.ts";\nexport type X = number;\n' }).violations).toEqual([up]);
  });

  test("an extensionless import, and a folder's index.ts", () => {
    expect(scanTree({ ...plan, "lib/core/types.ts": 'import { plan } from "../plan/plan";\nexport const x = plan;\n' }).violations).toEqual([up]);
    const index = scanTree({ "lib/plan/index.ts": "export const plan = 1;\n", "lib/core/types.ts": 'export { plan } from "../plan";\n' });
    expect(index.violations).toEqual(["lib/core/types.ts imports lib/plan/index.ts: lib/core may not import from stage plan, a ring above it"]);
  });

  test("a `.js` import of a .ts file", () => {
    expect(scanTree({ ...plan, "lib/core/types.ts": 'import { plan } from "../plan/plan.js";\nexport const x = plan;\n' }).violations).toEqual([up]);
  });

  test("a dynamic import() with a literal is followed; a computed one in lib/ is refused", () => {
    expect(scanTree({ ...plan, "lib/core/types.ts": 'export const x = () => import("../plan/plan.ts");\n' }).violations).toEqual([up]);
    expect(scanTree({ ...plan, "lib/core/types.ts": "export const x = () => import(`../plan/plan.ts`);\n" }).violations).toEqual([up]);
    // the files' text holds template literals with placeholders: they are the subject here, not a slip
    // biome-ignore lint/suspicious/noTemplateCurlyInString: source text of a computed import()
    const computed = scanTree({ ...plan, "lib/core/types.ts": 'const stage = "plan";\nexport const x = () => import(`../${stage}/plan.ts`);\n' });
    expect(computed.problems).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the computed import() as the message quotes it
      "lib/core/types.ts has import(`../${stage}/plan.ts`…) with a computed specifier: lib/ names what it loads with a string literal, so that the rings test can check it",
    ]);
    const named = scanTree({ ...plan, "lib/core/types.ts": 'const at = "../plan/plan.ts";\nexport const x = () => import(at);\n' });
    expect(named.problems).toEqual([
      "lib/core/types.ts has import(at…) with a computed specifier: lib/ names what it loads with a string literal, so that the rings test can check it",
    ]);
    // cli/ may pick a module at run time (a command table); its literal imports are still checked
    // biome-ignore lint/suspicious/noTemplateCurlyInString: source text of a computed import()
    expect(scanTree({ "cli/table.ts": "export const load = (c: string) => import(`./commands/${c}.ts`);\n" }).problems).toEqual([]);
  });

  test("require() with a literal is followed; a computed one in lib/ is refused", () => {
    expect(scanTree({ ...plan, "lib/core/types.ts": 'export const x = require("../plan/plan.ts");\n' }).violations).toEqual([up]);
    expect(scanTree({ ...plan, "lib/core/types.ts": 'const at = "../plan/plan.ts";\nexport const x = require(at);\n' }).problems).toEqual([
      "lib/core/types.ts has require(at…) with a computed specifier: lib/ names what it loads with a string literal, so that the rings test can check it",
    ]);
  });

  test("lib/ and every other ring may not import test/ or bench/", () => {
    const found = scanTree({
      ...CORE,
      "test/fakes/hosts.ts": "export const hosts = [];\n",
      "bench/cold.ts": "export const cold = 1;\n",
      "lib/execute/run.ts": 'import { hosts } from "../../test/fakes/hosts.ts";\nexport const h = hosts;\n',
      "plugins/local.ts": 'import "../bench/cold.ts";\n',
    });
    expect(found.violations).toEqual([
      "lib/execute/run.ts imports test/fakes/hosts.ts: stage execute may not import from test/: the product does not ship tests or benchmarks",
      "plugins/local.ts imports bench/cold.ts: platform local may not import from bench/: the product does not ship tests or benchmarks",
    ]);
  });

  test("a command, and the rest of cli/, imports only lib/pipeline and lib/core from lib/", () => {
    const found = scanTree({
      ...CORE,
      ...plan,
      "lib/pipeline/run-suite.ts": "export const run = 1;\n",
      "cli/output.ts": "export const out = 1;\n",
      "cli/commands/plan.ts": [
        'import { plan } from "../../lib/plan/plan.ts";',
        'import { run } from "../../lib/pipeline/run-suite.ts";',
        'import type { X } from "../../lib/core/types.ts";',
        'import { out } from "../output.ts";',
        "",
      ].join("\n"),
      "lib/load/mod.ts": "export const load = 1;\n",
      "cli/help.ts": 'export const help = () => import("../lib/load/mod.ts");\n',
    });
    expect(found.violations).toEqual([
      "cli/commands/plan.ts imports lib/plan/plan.ts: the cli may import only lib/pipeline and lib/core from lib/: move what it composes into a lib/pipeline function",
      "cli/help.ts imports lib/load/mod.ts: the cli may import only lib/pipeline and lib/core from lib/: move what it composes into a lib/pipeline function",
    ]);
  });

  test("a platform imports only lib/core from lib/", () => {
    const found = scanTree({
      ...CORE,
      ...plan,
      "plugins/local.ts": 'import { plan } from "../lib/plan/plan.ts";\nimport type { X } from "../lib/core/types.ts";\nexport const p: X = plan;\n',
    });
    expect(found.violations).toEqual(["plugins/local.ts imports lib/plan/plan.ts: a platform may import only lib/core from lib/: what it needs from a stage goes in lib/core"]);
  });

  test("an import of no file is named, not skipped", () => {
    expect(scanTree({ "lib/core/types.ts": 'import { y } from "../core/gone.ts";\nexport const x = y;\n' }).problems).toEqual([
      'lib/core/types.ts imports "../core/gone.ts", which is no file: name the file it means, with its .ts extension',
    ]);
  });

  test("the injected files' own good imports pass", () => {
    expect(scanTree({ ...CORE, ...plan, "lib/plan/use.ts": 'import "./plan.ts";\nimport type { X } from "../core/types.ts";\nexport type Y = X;\n' })).toEqual({
      problems: [],
      violations: [],
    });
    expect(importGraph(root, ["mod.ts"]).size).toBe(1);
  });
});
