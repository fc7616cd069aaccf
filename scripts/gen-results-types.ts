// Generates lib/core/results.gen.ts: the TypeScript types of results.json, from its zod schema
// (lib/report/results-schema.ts), with the schema's .describe() texts as doc comments, so the shape is
// written once. lib/core/types.ts re-exports them (a type-only import: nothing loads at start-up), the
// core never imports lib/report. A schema with a JSON Schema id, or a name in `resultsTypes`, becomes a
// named type; any other object is written inline. Run by the build; test/report/results-schema.test.ts
// fails when the committed file is stale.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ResultsFileSchema, resultsTypes } from "../lib/report/results-schema.ts";

export const RESULTS_TYPES_GEN = join(import.meta.dir, "..", "lib", "core", "results.gen.ts");

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  entries?: Record<string, string>;
  values?: unknown[];
  options?: z.ZodType[];
  items?: z.ZodType[];
}

/** A named type as declared: `text` is set once its body is rendered; `params` the type parameters it needs. */
interface Declared {
  name: string;
  text?: string;
  params: string[];
}

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
const describedAs = (s: z.ZodType): string | undefined => z.globalRegistry.get(s)?.description;

/** A schema's TypeScript name, when it has one: its `resultsTypes` entry, else its own JSON Schema id. */
function nameOf(s: z.ZodType): string | undefined {
  const name = resultsTypes.get(s)?.type ?? (z.globalRegistry.get(s)?.id as string | undefined);
  if (name !== undefined) return name;
  // a copy zod made of a named schema (.describe() on it) keeps no id: written inline, it would be the
  // type written twice
  for (let p = parentOf(s); p !== undefined; p = parentOf(p)) {
    const id = z.globalRegistry.get(p)?.id;
    if (id !== undefined)
      throw new Error(`gen-results-types: a copy of ${id} (.describe() on it) has no name: describe the field's .optional() instead, or name the copy in resultsTypes`);
  }
  return undefined;
}

const parentOf = (s: z.ZodType): z.ZodType | undefined => (s as unknown as { _zod: { parent?: z.ZodType } })._zod.parent;

/** `/** text *\/` at the indentation given, or nothing. */
function doc(text: string | undefined, indent: string): string {
  return text === undefined ? "" : `${indent}/** ${text.replaceAll("*/", "*\\/")} */\n`;
}

/** The module declaring `top` as `name` and every named type it reaches (tests give small schemas). */
export function renderResultsTypes(top: z.ZodType = ResultsFileSchema, name = "ResultsFile"): string {
  // named schema → its declaration, in the order first met (top-down: ResultsFile first)
  const declared = new Map<z.ZodType, Declared>();

  /** The type expression of `s`; records in `used` the parameters it needs. */
  function typeOf(s: z.ZodType, indent: string, used: Set<string>): string {
    const name = nameOf(s);
    if (name !== undefined) {
      if (resultsTypes.get(s)?.param) {
        used.add(name);
        return name;
      }
      const d = declare(s, name);
      for (const p of d.params) used.add(p);
      return d.params.length > 0 ? `${name}<${d.params.join(", ")}>` : name;
    }
    return shapeOf(s, indent, used);
  }

  function shapeOf(s: z.ZodType, indent: string, used: Set<string>): string {
    const def = defOf(s);
    switch (def.type) {
      case "string":
      case "number":
      case "boolean":
      case "unknown":
        return def.type;
      case "literal":
        return def.values!.map((v) => JSON.stringify(v)).join(" | ");
      case "enum":
        return Object.values(def.entries!)
          .map((v) => JSON.stringify(v))
          .join(" | ");
      case "nullable":
        return `${typeOf(def.innerType!, indent, used)} | null`;
      case "optional":
        return `${typeOf(def.innerType!, indent, used)} | undefined`;
      case "array": {
        const of = typeOf(def.element!, indent, used);
        return /^[\w<>]+$/.test(of) ? `${of}[]` : `Array<${of}>`;
      }
      case "tuple":
        return `[${def.items!.map((i) => typeOf(i, indent, used)).join(", ")}]`;
      case "record":
        return `Record<string, ${typeOf(def.valueType!, indent, used)}>`;
      case "union":
        return def.options!.map((o) => typeOf(o, indent, used)).join(" | ");
      case "object": {
        const inner = `${indent}  `;
        const lines = Object.entries(def.shape!).map(([key, field]) => {
          // the field's text: the outermost one on its optional/nullable wrappers and its type, up to
          // a named type (whose text is that type's own)
          let text: string | undefined;
          for (let w = field; nameOf(w) === undefined; w = defOf(w).innerType!) {
            text ??= describedAs(w);
            if (!["optional", "nullable"].includes(defOf(w).type)) break;
          }
          const optional = nameOf(field) === undefined && defOf(field).type === "optional";
          const type = typeOf(optional ? defOf(field).innerType! : field, inner, used);
          return `${doc(text, inner)}${inner}${key}${optional ? "?" : ""}: ${type};\n`;
        });
        // z.looseObject: keys the schema does not name pass through
        if (def.catchall !== undefined && defOf(def.catchall).type === "unknown") lines.push(`${inner}[k: string]: unknown;\n`);
        return `{\n${lines.join("")}${indent}}`;
      }
      default:
        throw new Error(`gen-results-types: zod ${def.type} is not rendered as a TypeScript type: add it to scripts/gen-results-types.ts`);
    }
  }

  function declare(s: z.ZodType, name: string): Declared {
    const known = declared.get(s);
    if (known) {
      if (known.text === undefined) throw new Error(`gen-results-types: ${name} refers to itself`);
      return known;
    }
    for (const other of declared.values()) if (other.name === name) throw new Error(`gen-results-types: two schemas are named ${name}: give one another name in resultsTypes`);
    const entry: Declared = { name, params: [] };
    declared.set(s, entry);
    const used = new Set<string>();
    const body = shapeOf(s, "", used);
    entry.params = [...used];
    const head = doc(resultsTypes.get(s)?.doc ?? describedAs(s), "");
    const typeParams = entry.params.length > 0 ? `<${entry.params.map((p) => `${p} extends string`).join(", ")}>` : "";
    entry.text = defOf(s).type === "object" ? `${head}export interface ${name}${typeParams} ${body}\n` : `${head}export type ${name}${typeParams} = ${body};\n`;
    return entry;
  }

  declare(top, name);
  return [
    "// GENERATED by scripts/gen-results-types.ts from lib/report/results-schema.ts: do not edit.",
    "// The types of results.json, re-exported by lib/core/types.ts; a type parameter Kind is the kinds'",
    "// names, which lib/core/types.ts fills in with its own Kind.",
    "",
    [...declared.values()].map((d) => d.text).join("\n"),
  ].join("\n");
}

if (import.meta.main) writeFileSync(RESULTS_TYPES_GEN, renderResultsTypes());
