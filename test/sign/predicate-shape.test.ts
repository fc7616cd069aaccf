// `gpucheck verify` checks a statement against shapes generated from the zod schemas
// (lib/sign/predicate-shape.gen.ts, lib/core/shape.ts) and asks zod only about one that does not
// fit. Here: the generated file is current, and conform() gives zod's answer, the parsed value
// included, for a certificate as certify writes it and for every single change to a statement that
// fills every field of the schema.
import { describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { conform, MISMATCH, type Shape, shapeOf } from "../../lib/core/shape.ts";
import { certify } from "../../lib/sign/certify.ts";
import { acceptancePredicate, statementShape } from "../../lib/sign/predicate-schema.ts";
import { PREDICATE_SHAPE, STATEMENT_SHAPE } from "../../lib/sign/predicate-shape.gen.ts";
import { renderShapesModule, SHAPES_GEN } from "../../scripts/gen-shapes.ts";
import { resultsCopy } from "./keys-fixture.ts";

/** zod's and conform's answers side by side: success and, when both succeed, the parsed value as JSON (key order included) */
function answers(value: unknown, schema: z.ZodType, shape: Shape) {
  const z4 = schema.safeParse(value);
  const mine = conform(value, shape);
  return {
    zod: z4.success ? JSON.stringify(z4.data) : "rejected",
    conform: mine === MISMATCH ? "rejected" : JSON.stringify(mine),
  };
}

/** a value with every field of the shape present, optional ones too */
function sample(shape: Shape): unknown {
  switch (shape.t) {
    case "object":
      return Object.fromEntries(Object.entries(shape.shape).map(([k, s]) => [k, sample(s)]));
    case "string":
      return shape.pattern ? "0".repeat(64) : "text";
    case "number":
      return 1.5;
    case "boolean":
      return true;
    case "unknown":
      return { any: "thing" };
    case "nullable":
    case "optional":
      return sample(shape.of);
    case "enum":
      return shape.values.at(-1);
    case "array":
      return [sample(shape.of), sample(shape.of)];
    case "record":
      return { sha256: sample(shape.of) };
  }
}

/** every value that differs from v in one place: a value replaced, a key removed or added, an order reversed, a list emptied */
function* changes(v: unknown): Generator<unknown> {
  // Infinity: what JSON.parse makes of 1e400, which zod refuses as a number
  const others = [null, 0, Number.POSITIVE_INFINITY, "x", "passed", "0".repeat(64), true, [], {}];
  for (const o of others) yield o;
  if (Array.isArray(v)) {
    yield [];
    yield [...v].reverse();
    for (const [i, item] of v.entries()) for (const c of changes(item)) yield v.map((x, j) => (j === i ? c : x));
  } else if (typeof v === "object" && v !== null) {
    const entries = Object.entries(v);
    yield { ...v, unknownKey: 1 };
    yield Object.fromEntries([...entries].reverse());
    for (const [k, item] of entries) {
      yield Object.fromEntries(entries.filter(([key]) => key !== k));
      for (const c of changes(item)) yield Object.fromEntries(entries.map(([key, x]) => [key, key === k ? c : x]));
    }
  }
}

describe("the shapes verify checks without zod", () => {
  test("lib/sign/predicate-shape.gen.ts is what the schemas give now (regenerate: bun run scripts/gen-shapes.ts)", () => {
    expect(readFileSync(SHAPES_GEN, "utf8")).toBe(renderShapesModule());
  });

  test("a certificate as certify writes it fits, and conform gives zod's value", async () => {
    for (const fixture of ["h100-2node", "h100-2node-failing"]) {
      const dir = resultsCopy(fixture);
      await certify(dir, generateKeyPairSync("ed25519").privateKey);
      const envelope = JSON.parse(readFileSync(join(dir, "certificate.intoto.json"), "utf8"));
      const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString());
      const a = answers(statement, statementShape, STATEMENT_SHAPE);
      expect(a.conform).not.toBe("rejected");
      expect(a.conform).toBe(a.zod);
      const p = answers(statement.predicate, acceptancePredicate, PREDICATE_SHAPE);
      expect(p.conform).not.toBe("rejected");
      expect(p.conform).toBe(p.zod);
    }
  });

  for (const [name, schema, shape] of [
    ["statement", statementShape, STATEMENT_SHAPE],
    ["predicate", acceptancePredicate, PREDICATE_SHAPE],
  ] as const) {
    test(`${name}: zod's answer for every single change to a statement that fills every field`, () => {
      const full = sample(shape);
      expect(answers(full, schema, shape)).toEqual({ zod: JSON.stringify(full), conform: JSON.stringify(full) });
      let n = 0;
      const differ: string[] = [];
      for (const changed of changes(full)) {
        n++;
        const a = answers(changed, schema, shape);
        if (a.zod !== a.conform) differ.push(`${JSON.stringify(changed).slice(0, 300)}: zod ${a.zod.slice(0, 80)}, conform ${a.conform.slice(0, 80)}`);
      }
      expect(differ).toEqual([]);
      expect(n).toBeGreaterThan(name === "statement" ? 100 : 1000);
    });
  }

  test("stricter than zod only where it says so: a __proto__ key goes to zod", () => {
    const value = JSON.parse(`{"__proto__": {"a": 1}, "sha256": "${"0".repeat(64)}"}`);
    expect(conform(value, { t: "record", of: { t: "string" } })).toBe(MISMATCH);
  });

  test("a schema construct conform does not read is refused when the shape is generated", () => {
    expect(() => shapeOf(z.union([z.string(), z.number()]))).toThrow("shapeOf: zod union [] is not read by conform()");
    expect(() => shapeOf(z.object({ a: z.string() }).strict())).toThrow("shapeOf: zod object [] is not read by conform()");
    expect(() => shapeOf(z.string().min(1))).toThrow('shapeOf: zod string [{"check":"min_length","minimum":1}] is not read by conform()');
  });
});
