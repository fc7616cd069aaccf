// `gpucheck plan` on every platform, as text and as JSON: a secret env value is printed nowhere
// (the env line, each platform's rendering: ssh scripts, the sbatch script, container bodies,
// Kubernetes manifests and their YAML), a short one included; the other values are printed as before.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gpucheckRun, tempDir } from "./cli.ts";

const LONG = "tok-LONGVALUE-31";
// shorter than what is hunted for in free text: only where its name stands beside it
const SHORT = "q9z";
const dir = tempDir("plan-redact");
writeFileSync(
  join(dir, "s.yaml"),
  `name: s
redact: [SHORTY]
defaults:
  gpusPerNode: 0
  ranksPerNode: 1
  env: { API_TOKEN: "${LONG}", SHORTY: "${SHORT}", NCCL_DEBUG: INFO }
tests:
  - { name: a, kind: collective, collective: { backend: gloo } }
`,
);

const PLATFORMS: Array<[string, string[]]> = [
  ["local", []],
  ["ssh", ["--hosts", "h1,h2"]],
  ["slurm", []],
  ["docker", []],
  ["k8s", ["--image", "img:1"]],
];

describe("plan prints *** for secrets", () => {
  for (const [platform, flags] of PLATFORMS) {
    test(platform, async () => {
      for (const json of [false, true]) {
        const r = await gpucheckRun(["plan", "s.yaml", "--platform", platform, ...flags, ...(json ? ["--json"] : [])], { cwd: dir });
        expect(r.stderr).toBe("");
        expect(r.status).toBe(0);
        const lines = r.stdout.split("\n").filter((l) => l.includes(LONG) || l.includes(SHORT));
        expect(lines).toEqual([]);
        if (json) {
          expect(JSON.parse(r.stdout).tests[0].launch.env).toEqual({ API_TOKEN: "***", SHORTY: "***", NCCL_DEBUG: "INFO" });
        } else expect(r.stdout).toContain("   env: API_TOKEN=*** SHORTY=*** NCCL_DEBUG=INFO\n");
      }
    }, 120_000);
  }
});
