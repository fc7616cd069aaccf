import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { importGraph, importLoops, ringViolations } from "./rings.ts";

const root = join(import.meta.dir, "..", "..");

describe("layering", () => {
  test("every file of lib/, plugins/ and cli/ keeps its ring, and no imports close a loop", () => {
    const graph = importGraph(root, ["lib", "plugins", "cli", "mod.ts"]);
    expect(graph.size).toBeGreaterThan(200);
    expect(ringViolations(graph)).toEqual([]);
    expect(importLoops(graph)).toEqual([]);
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
