// The merged suite data → a Suite (less its source) and every problem in it. Defaults and each
// test are parsed field by field (schema/partial.ts) so one bad value hides nothing else.
import { isKindName } from "../kinds/mod.ts";
import { checkPlatform, defaultsSchema, type DefaultsInput, type Problem, problemsFromIssues, SUITE_DEFAULTS, suiteSchema, type TestInput, testSchema } from "./schema.ts";
import { parseFields } from "./schema/partial.ts";
import type { Suite, TestSpec } from "../core/types.ts";
import { show } from "../core/units.ts";
import { isMap } from "./merge.ts";
import { resolveTest } from "./resolve.ts";
import { groupsRefused } from "./pattern.ts";
import type { PlatformRegistry } from "../core/platform.ts";

export function checkSuite(data: Record<string, unknown>, registry?: PlatformRegistry): { suite: Omit<Suite, "source">; problems: Problem[] } {
  const problems: Problem[] = [];
  // top-level x-… keys hold YAML anchors for reuse (as in docker compose) and mean nothing else
  const top = suiteSchema.safeParse(Object.fromEntries(Object.entries(data).filter(([k]) => !k.startsWith("x-"))), { reportInput: true });
  if (!top.success) problems.push(...problemsFromIssues(top.error.issues));

  const defaults = data.defaults === undefined ? undefined : parseFields(defaultsSchema, data.defaults, ["defaults"]);
  if (defaults) problems.push(...defaults.problems);
  const brokenDefaults = [...(defaults?.broken ?? [])].map((b) => `defaults.${b}`);

  const platform = checkPlatform(data.platform, registry);
  problems.push(...platform.problems);

  const tests: TestSpec[] = [];
  const list = Array.isArray(data.tests) ? data.tests : [];
  list.forEach((raw, i) => {
    if (!isMap(raw)) {
      problems.push({ path: ["tests", i], at: "value", message: `item ${i + 1} of "tests" must be a map with at least "name" and "kind", got ${show(raw)}` });
      return;
    }
    const t = parseFields(testSchema, raw, ["tests", i]);
    problems.push(...t.problems);
    // without a name and a valid kind there is nothing to resolve against
    if (t.broken.has("name") || t.broken.has("kind") || !isKindName(raw.kind)) return;
    const r = resolveTest(t.data as TestInput, (defaults?.data ?? {}) as DefaultsInput, ["tests", i], new Set([...t.broken, ...brokenDefaults]));
    problems.push(...r.problems);
    tests.push(r.spec);
    const refused = groupsRefused(r.spec, ["tests", i], platform.block, registry);
    if (refused) problems.push(refused);
  });

  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  const suite: Omit<Suite, "source"> = {
    name: str(data.name) ?? "",
    description: str(data.description) ?? "",
    ...(str(data.cluster) !== undefined && { cluster: str(data.cluster) }),
    ...(top.success && top.data.redact?.length && { redact: top.data.redact }),
    ...(top.success && top.data.evidence && { evidence: top.data.evidence }),
    platform: platform.block,
    queueTimeoutMs: (defaults?.data.queueTimeout as number | undefined) ?? SUITE_DEFAULTS.queueTimeoutMs,
    ...(defaults?.data.eachNode === true && { eachNode: true }),
    tests,
  };
  return { suite, problems };
}
