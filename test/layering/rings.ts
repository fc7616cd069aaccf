// The layering rings (CONTRIBUTING.md, "Layering") as data, and the check a test keeps:
//   lib/core ← lib/kinds, lib/parsers, lib/isolate (which imports only lib/core) ← stages (load, plan, execute, preflight, assess, report,
//   sign, history, soak, health, evidence, each only the ones before it) ← lib/pipeline ← plugins/_shared ← each platform (alone)
//   ← cli/ and mod.ts. Besides: a platform imports only lib/core from lib/, the cli (its commands
//   included) only lib/pipeline and lib/core, and nothing imports test/ or bench/.
// Type-only imports count: a type pulled from a ring above is the same knot in the design.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

const STAGES = ["load", "plan", "execute", "preflight", "assess", "report", "sign", "history", "soak", "health", "evidence"] as const;

export interface Ring {
  level: number;
  name: string;
  /** stages: the stage's position; platforms: the platform's name */
  within?: number | string;
}

export function ringOf(file: string): Ring | undefined {
  if (file.startsWith("lib/core/")) return { level: 0, name: "lib/core" };
  // lib/baseline: the firmware/software baseline an inventory is compared with, part of the inventory kind
  if (file.startsWith("lib/kinds/") || file.startsWith("lib/parsers/") || file.startsWith("lib/baseline/")) return { level: 1, name: "kinds and parsers" };
  // the isolation planner and judge (issue 16): pure, beside the kinds, knowing none of them
  if (file.startsWith("lib/isolate/")) return { level: 1, name: "lib/isolate", within: "isolate" };
  const stage = STAGES.findIndex((s) => file.startsWith(`lib/${s}/`));
  if (stage >= 0) return { level: 2, name: `stage ${STAGES[stage]}`, within: stage };
  if (file.startsWith("lib/pipeline/")) return { level: 3, name: "lib/pipeline" };
  if (file.startsWith("plugins/_shared/")) return { level: 4, name: "plugins/_shared" };
  const platform = /^plugins\/([^/_][^/]*?)(?:\.ts|\/)/.exec(file)?.[1];
  if (platform) return { level: 5, name: `platform ${platform}`, within: platform };
  if (file.startsWith("cli/") || file === "mod.ts") return { level: 6, name: "cli" };
  return undefined;
}

/** Why `from` may not import `to`, or undefined when it may. */
export function ruleBroken(from: string, to: string): string | undefined {
  const a = ringOf(from);
  // tests and benchmarks sit outside the product: a binary built from lib/ must not carry their fakes
  const outside = /^(test|bench)\//.exec(to)?.[1];
  if (a && outside) return `${a.name} may not import from ${outside}/: the product does not ship tests or benchmarks`;
  // a command turns flags into a request, handles signals and prints: what it composes is a lib/pipeline
  // function (issue 30); the rest of cli/ (dispatch, help, output) composes nothing either
  if ((from.startsWith("cli/") || from === "mod.ts") && to.startsWith("lib/") && !/^lib\/(pipeline|core)\//.test(to))
    return "the cli may import only lib/pipeline and lib/core from lib/: move what it composes into a lib/pipeline function";
  // a platform runs what the plan decided: it needs the plan's data shapes (lib/core), never a stage's code
  if (from.startsWith("plugins/") && to.startsWith("lib/") && !to.startsWith("lib/core/"))
    return "a platform may import only lib/core from lib/: what it needs from a stage goes in lib/core";
  const b = ringOf(to);
  if (!a || !b) return undefined;
  if (b.level > a.level) return `${a.name} may not import from ${b.name}, a ring above it`;
  if (a.within === "isolate" && b.level === 1 && b.within !== "isolate") return `${a.name} may not import from ${b.name}: it knows only lib/core`;
  if (a.level === b.level && a.level === 2 && (b.within as number) > (a.within as number)) return `${a.name} may not import from ${b.name}, a later stage`;
  if (a.level === b.level && a.level === 5 && a.within !== b.within) return `${a.name} may not import from ${b.name}: what two platforms share goes in plugins/_shared`;
  return undefined;
}

// Every way a file names another: `import … from`, `export … from`, a side-effect `import "x"`, `import("x")`
// (type position too), `require("x")` and `declare module "x"`. Package specifiers are not rings and are left out.
const SPEC =
  /(?:^|[\s;])(?:import|export)\s[^;]*?\sfrom\s*["'`]([^"'`]+)["'`]|(?:^|[\s;])import\s*["'`]([^"'`]+)["'`]|\b(?:import|require)\(\s*(?:["']([^"']+)["']|`([^`$]+)`)\s*[,)]|declare\s+module\s+["']([^"']+)["']/g;
/** `import(` or `require(` whose argument is not one string literal: what it loads is known only at run time */
const COMPUTED = /\b(import|require)\(\s*(?!["']|`[^`$]*`\s*[,)])([^)\n]{0,40})/g;

/** What a file's imports resolve to, and what could not be resolved. */
export interface ImportScan {
  /** file → the repository files it imports (packages are not rings) */
  graph: Map<string, string[]>;
  /** each import the rings test cannot follow, as a sentence naming the file */
  problems: string[];
}

/**
 * A relative specifier as Bun resolves it: the file itself, `.js` for its `.ts`, no extension for
 * `.ts` or a folder's index.ts. Undefined when no file answers.
 */
export function resolveSpecifier(root: string, from: string, spec: string): string | undefined {
  const base = normalize(join(dirname(from), spec));
  const tries = [base, base.replace(/\.[mc]?js$/, ".ts"), `${base}.ts`, `${base}.tsx`, join(base, "index.ts")];
  return tries.find((t) => {
    const at = join(root, t);
    return existsSync(at) && statSync(at).isFile();
  });
}

/** Every file under `dirs` (and single files named there) with the files it imports. */
export function scanImports(root: string, dirs: string[]): ImportScan {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(join(root, d)).sort()) {
      const p = join(d, name);
      if (statSync(join(root, p)).isDirectory()) walk(p);
      else if (p.endsWith(".ts") && !p.endsWith(".d.ts")) files.push(p);
    }
  };
  for (const d of dirs) statSync(join(root, d)).isDirectory() ? walk(d) : files.push(d);
  const graph = new Map<string, string[]>();
  const problems: string[] = [];
  for (const f of files) {
    // comments may show an import (`declare module "../core/types.ts"` in a doc comment) without making one
    const text = readFileSync(join(root, f), "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/(^|\s)\/\/.*$/gm, "$1");
    const targets: string[] = [];
    for (const m of text.matchAll(SPEC)) {
      const spec = m.slice(1).find((g) => g !== undefined)!;
      if (!spec.startsWith("./") && !spec.startsWith("../")) continue;
      const to = resolveSpecifier(root, f, spec);
      if (to === undefined) problems.push(`${f} imports "${spec}", which is no file: name the file it means, with its .ts extension`);
      else targets.push(to);
    }
    if (f.startsWith("lib/"))
      for (const m of text.matchAll(COMPUTED))
        problems.push(`${f} has ${m[1]}(${m[2]!.trim()}…) with a computed specifier: lib/ names what it loads with a string literal, so that the rings test can check it`);
    graph.set(f, [...new Set(targets)]);
  }
  return { graph, problems };
}

/** file → the repository files it imports (relative specifiers only: packages are not rings). */
export function importGraph(root: string, dirs: string[]): Map<string, string[]> {
  return scanImports(root, dirs).graph;
}

export function ringViolations(graph: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [f, targets] of graph) {
    if (!ringOf(f)) out.push(`${f} is in no ring: put it in lib/core, lib/kinds, a stage folder, lib/pipeline, plugins/ or cli/`);
    for (const t of targets) {
      if (t.endsWith(".gen.ts")) continue;
      const why = ruleBroken(f, t);
      if (why) out.push(`${f} imports ${t}: ${why}`);
    }
  }
  return out;
}

/** Every import loop, as the files in it (Tarjan's strongly connected components). */
export function importLoops(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const loop: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        loop.push(w);
      } while (w !== v);
      if (loop.length > 1 || (graph.get(v) ?? []).includes(v)) loops.push(loop.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return loops;
}
