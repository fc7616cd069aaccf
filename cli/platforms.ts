// The platform registry: adding a platform is one file and one line here. The suite schema's
// platform names and `--platform`'s choices come from these keys; a command passes it to its flow in
// lib/pipeline, which passes it on to the load and plan stages and to execution (their `platforms`).
import type { AnyPlatform } from "../lib/core/platform.ts";
import { docker } from "../plugins/docker.ts";
import { k8s } from "../plugins/k8s.ts";
import { local } from "../plugins/local.ts";
import { slurm } from "../plugins/slurm.ts";
import { ssh } from "../plugins/ssh.ts";

export const PLATFORMS = { local, ssh, slurm, docker, k8s } satisfies Record<string, AnyPlatform>;

export type PlatformName = keyof typeof PLATFORMS;

export const PLATFORM_NAMES = Object.keys(PLATFORMS) as PlatformName[];
