// `gpucheck completion bash|zsh|fish`, loaded by the real shell where one is installed (bash here;
// zsh and fish only when `which` finds them), and the completions a user gets from it.
import { beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gpucheckArgv, gpucheckRun, tempDir } from "./cli.ts";

const SLOW = 60_000;
const quoted = gpucheckArgv()
  .map((a) => `'${a}'`)
  .join(" ");
const has = (shell: string) => spawnSync("which", [shell]).status === 0;

// `gpucheck completion bash` once, for the completions below to source (the first test loads it as a
// user does, from the command)
const bashScript = join(tempDir("completion"), "gpucheck.bash");
beforeAll(async () => {
  const r = await gpucheckRun(["completion", "bash"]);
  expect([r.status, r.stderr]).toEqual([0, ""]);
  writeFileSync(bashScript, r.stdout);
});

/** COMPREPLY for the words typed so far, the last being the word under the cursor */
function complete(...words: string[]): string {
  const script = `source '${bashScript}'
COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _gpucheck; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync("bash", ["-c", script], { encoding: "utf8" });
  expect(r.stderr).toBe("");
  return r.stdout;
}

test(
  "bash: the script registers _gpucheck for gpucheck",
  async () => {
    const r = spawnSync("bash", ["-c", `source <(${quoted} completion bash); complete -p gpucheck`], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("complete -o filenames -F _gpucheck gpucheck\n");
  },
  SLOW,
);

test(
  "bash: commands, options, option values, built-in suites and nested commands",
  async () => {
    expect(complete("gpucheck", "suite", "--pl")).toBe("--platform\n");
    expect(complete("gpucheck", "suite", "h100-8x", "--platform", "s")).toBe("ssh\nslurm\n");
    expect(complete("gpucheck", "va")).toBe("validate\n");
    expect(complete("gpucheck", "sh")).toBe("show\n");
    expect(complete("gpucheck", "validate", "h100")).toBe("h100-8x\nh100-8x-quick\nh100-multinode\n");
    expect(complete("gpucheck", "parse", "n")).toBe("nccl\n");
    expect(complete("gpucheck", "parse", "nccl", "--j")).toBe("--json\n");
    expect(complete("gpucheck", "keygen", "--algorithm", "")).toBe("ed25519\np256\n");
    expect(complete("gpucheck", "suite", "--progress", "")).toBe("auto\ntty\nplain\nnone\n");
    expect(complete("gpucheck", "completion", "")).toBe("bash\nzsh\nfish\n");
    // a test named like a command is an argument, not a command
    expect(complete("gpucheck", "suite", "--only", "validate", "--pro")).toBe("--progress\n");
  },
  SLOW,
);

test(
  "zsh: bashcompinit around the same function; loaded by zsh when installed",
  async () => {
    const r = await gpucheckRun(["completion", "zsh"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toStartWith("#compdef gpucheck\n");
    expect(r.stdout).toContain("\nautoload -U +X bashcompinit && bashcompinit\n_gpucheck() {\n");
    expect(r.stdout).toEndWith("\ncomplete -o filenames -F _gpucheck gpucheck\n");
    if (has("zsh")) {
      const z = spawnSync("zsh", ["-c", `source <(${quoted} completion zsh)`], { encoding: "utf8" });
      expect(z.stderr).toBe("");
      expect(z.status).toBe(0);
    }
  },
  SLOW,
);

test(
  "fish: one complete line per command and option; loaded by fish when installed",
  async () => {
    const r = await gpucheckRun(["completion", "fish"]);
    expect(r.status).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines).toContain("complete -c gpucheck -n '__fish_use_subcommand' -a validate -d 'check a suite file; every problem is reported with its position'");
    expect(lines).toContain(
      "complete -c gpucheck -n '__fish_seen_subcommand_from suite' -s p -l platform -r -a 'local ssh slurm docker k8s' -d 'platform to run on (default: the suite'\\''s platform.type; with --rerun-failed, that run'\\''s)'",
    );
    expect(lines).toContain(
      "complete -c gpucheck -n '__fish_seen_subcommand_from validate' -F -a 'b200-8x b200-8x-quick cpu-smoke gb200-nvl72 gpu-1x h100-8x h100-8x-quick h100-multinode h200-8x h200-8x-quick quick'",
    );
    if (has("fish")) {
      const f = spawnSync("fish", ["-c", `${quoted} completion fish | source; complete -C 'gpucheck suite --pl'`], { encoding: "utf8" });
      expect(f.stdout).toStartWith("--platform");
    }
  },
  SLOW,
);

test(
  "an unknown shell: commander's message, exit 2",
  async () => {
    const r = await gpucheckRun(["completion", "tcsh"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toStartWith("error: command-argument value 'tcsh' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish.\n");
  },
  SLOW,
);
