// The env file a test/infra script writes once its daemons run (KEY=value lines), as the tests that
// use those daemons read it.
import { existsSync, readFileSync } from "node:fs";

/** The file's variables; throws (rather than letting the tests skip) when GPUCHECK_INFRA lists `name` but the script never wrote it. */
export function readInfraEnv(file: string, name: string): Record<string, string> {
  if (!existsSync(file)) throw new Error(`GPUCHECK_INFRA lists ${name} but ${file} is missing: run bash test/infra/${name}.sh start`);
  return Object.fromEntries(
    readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}
