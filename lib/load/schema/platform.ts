// `platform:` — the default platform (`type`) and one optional settings block per platform,
// each validated by that plugin's own zod schema so adding a platform needs no change here.
import { getPlatform, type PlatformRegistry, platformNames } from "../../core/platform.ts";
import { show } from "../../core/units.ts";
import { suggest } from "../../core/did-you-mean.ts";
import { type Problem, problemsFromIssues } from "../../core/issues.ts";

export interface PlatformBlock {
  type: string;
  settings: Record<string, unknown>;
}

export const DEFAULT_PLATFORM = "local";

export function checkPlatform(raw: unknown, registry?: PlatformRegistry): { block: PlatformBlock; problems: Problem[] } {
  const block: PlatformBlock = { type: DEFAULT_PLATFORM, settings: {} };
  const problems: Problem[] = [];
  if (raw === undefined) return { block, problems };
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    problems.push({ path: ["platform"], at: "value", message: `"platform" must be a map such as { type: slurm, slurm: { partition: gpu } }, got ${show(raw)}` });
    return { block, problems };
  }
  const names = platformNames(registry);
  for (const [key, value] of Object.entries(raw)) {
    if (key === "type") {
      if (typeof value === "string" && names.includes(value)) block.type = value;
      else problems.push({ path: ["platform", "type"], at: "value", message: suggest(`unknown platform ${show(value)}`, String(value), names) });
      continue;
    }
    const platform = getPlatform(key, registry);
    if (!platform) {
      problems.push({ path: ["platform", key], at: "key", message: suggest(`unknown platform "${key}"`, key, ["type", ...names]) });
      continue;
    }
    const parsed = platform.settings.safeParse(value ?? {}, { reportInput: true });
    if (parsed.success) block.settings[key] = parsed.data;
    else problems.push(...problemsFromIssues(parsed.error.issues, ["platform", key], platform.settings));
  }
  return { block, problems };
}
