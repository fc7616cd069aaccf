// The platform registry: adding a platform is one file and one line here.
// The suite schema's platform names are derived from these keys.
import type { Platform } from "../lib/core/platform.ts";
import { local } from "../plugins/local.ts";
import { ssh } from "../plugins/ssh.ts";
import { slurm } from "../plugins/slurm.ts";
import { docker } from "../plugins/docker.ts";
import { k8s } from "../plugins/k8s.ts";

// each plugin has its own settings type; the registry only needs the interface
// biome-ignore lint/suspicious/noExplicitAny: Platform<S> uses S in both directions, so no narrower type admits every plugin
export const PLATFORMS = { local, ssh, slurm, docker, k8s } satisfies Record<string, Platform<any>>;

export type PlatformName = keyof typeof PLATFORMS;

export const PLATFORM_NAMES = Object.keys(PLATFORMS) as PlatformName[];

export function getPlatform(name: string): Platform<unknown> | undefined {
  return (PLATFORMS as Record<string, Platform<unknown>>)[name];
}
