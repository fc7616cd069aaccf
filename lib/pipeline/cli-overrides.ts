// Command-line flags shared by `suite` and `plan` → CliOverrides for the platforms.
import { readFileSync } from "node:fs";
import { asFileError, isErrnoError } from "../core/fs-error.ts";
import { SuiteError } from "../core/errors.ts";
import { nodesFlag } from "../plan/placement.ts";
import type { CliOverrides } from "../core/platform.ts";

export interface HostFlags {
  hosts?: string;
  hostfile?: string;
  python?: string;
  image?: string;
  context?: string;
  keep?: boolean;
}

/** How many nodes and where: read by the plan itself, on every platform. */
export interface NodeFlags {
  nodes?: string;
  eachNode?: boolean;
}

export function nodeOptions(flags: NodeFlags): { nodes?: number; eachNode?: boolean } {
  return {
    ...(flags.nodes !== undefined && { nodes: nodesFlag(flags.nodes) }),
    ...(flags.eachNode && { eachNode: true }),
  };
}

/** `--only a,b`: the tests asked for, in the suite's order (buildPlan refuses a name the suite lacks) */
export function onlyTests(only: string | undefined): string[] | undefined {
  return only
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

export function cliOverrides(flags: HostFlags): CliOverrides {
  const hosts = [...splitHosts(flags.hosts ?? ""), ...(flags.hostfile ? readHostfile(flags.hostfile) : [])];
  return {
    ...(hosts.length ? { hosts } : {}),
    ...(flags.python ? { python: flags.python } : {}),
    ...(flags.image ? { image: flags.image } : {}),
    ...(flags.context ? { context: flags.context } : {}),
    ...(flags.keep ? { keep: true } : {}),
  };
}

function splitHosts(s: string): string[] {
  return s.split(/[,\s]+/).filter(Boolean);
}

/** One host per line; `#` starts a comment; extra columns (slots=8) are ignored. */
export function readHostfile(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT" && isErrnoError(e)) throw asFileError(e, { doing: "read the hostfile", path, option: "--hostfile", mode: "read" });
    throw new SuiteError(`gpucheck: cannot read hostfile ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const hosts = text
    .split("\n")
    .map((l) => l.replace(/#.*/, "").trim().split(/\s+/)[0] ?? "")
    .filter(Boolean);
  if (hosts.length === 0) throw new SuiteError(`gpucheck: hostfile ${path} lists no hosts`);
  return hosts;
}
