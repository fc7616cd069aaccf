// argv → command, through commander. With mod.ts the only place that calls process.exit. Each
// command's module is imported only when that command runs (a chunk of its own in the binary:
// scripts/build.ts splits the bundle), so `--help` loads commander and nothing heavy.
import { Argument, Command, Option } from "commander";
import { writeSync } from "node:fs";
import { VERSION_LINE } from "../lib/core/version.ts";
import { EXIT } from "../lib/core/errors.ts";

type Main = (...args: never[]) => Promise<number>;

function lazy(load: () => Promise<{ main: Main }>) {
  return async (...args: unknown[]) => {
    // A command parses each schema once or twice: zod's JIT (a `new Function` per object schema, built
    // on first parse) costs more than it saves there; jitless halved the first suite parse
    // (BENCHMARKS.md, start-up). Long runs parse no more often, so they lose nothing.
    (await import("zod")).config({ jitless: true });
    const { main } = await load();
    process.exitCode = await (main as (...a: unknown[]) => Promise<number>)(...args);
  };
}

/** For the commands that load or plan a suite: the platform registry is handed to those stages first (cli/platforms.ts). */
function withPlatforms(load: () => Promise<{ main: Main }>) {
  return async () => {
    await import("./platforms.ts");
    return load();
  };
}

const program = new Command()
  .name("gpucheck")
  .description("Acceptance tests for GPU clusters: collectives, training, inventory; JUnit, HTML and signed certificates")
  .version(VERSION_LINE, "-V, --version")
  .showHelpAfterError()
  // synchronous, as every command's output (cli/output.ts): --help into a pipe arrives whole
  .configureOutput({ writeOut: (s) => writeSync(1, s), writeErr: (s) => writeSync(2, s) })
  .exitOverride()
  .addHelpText(
    "after",
    "\nExit codes: 0 every test passed · 1 a test failed its thresholds · 2 usage or suite error (nothing ran)\n" +
      "            3 infrastructure error (could not launch, timed out, unmeasured, output unusable) · 130 interrupted\n",
  );

program
  .command("suite")
  .description("run a suite (a file or a built-in name) through a platform")
  .argument("[suite]", "suite file or built-in name (see `gpucheck list`); with --rerun-failed, default: that run's own suite")
  .option("-p, --platform <name>", "platform to run on (default: the suite's platform.type; with --rerun-failed, that run's)")
  .option("--python <path>", "Python interpreter on the nodes")
  .option("--hosts <h1,h2,...>", "hosts for the ssh platform (or node list for slurm)")
  .option("--hostfile <file>", "file with one host per line")
  .option("-o, --out <dir>", "results directory (default ./gpucheck-results/<suite>-<UTC timestamp>)")
  .option("-t, --timeout <duration>", "override every test's timeout, e.g. 90s, 10m")
  .option("--only <names>", "run only these tests (comma-separated)")
  .option("--nodes <n>", "nodes for every test whose suite entry does not set nodes: itself (overrides defaults.nodes)")
  .option("--each-node", "run every one-node test on each host of the run, a verdict per host")
  .option("--fail-fast", "stop after the first failed or errored test; the rest are skipped, with the reason")
  .option("--rerun-failed <results-dir>", "rerun only the failed, errored and skipped tests of an earlier run, into a new directory")
  .option("--image <ref>", "container image for docker and k8s")
  .option("--context <name>", "kubeconfig context for k8s")
  .option("--keep", "keep containers/pods after the run for debugging")
  .option("--baseline <results.json>", "judge relative thresholds against an earlier run")
  .option("--sign-key <pem>", "sign the results: writes certificate.intoto.json")
  .option("--preflight-only", "check every node for the interpreter, torch, GPUs, NCCL and tools the tests need; run no test")
  .option("--force", "with --out: move a run already in that directory aside (<dir>.replaced-<time>) instead of refusing")
  .addOption(new Option("--progress <mode>", "progress display").choices(["auto", "tty", "plain", "none"]).default("auto"))
  .action(lazy(withPlatforms(() => import("./commands/suite.ts"))));

program
  .command("validate")
  .description("check a suite file; every problem is reported with its position")
  .argument("<suite>", "suite file or built-in name")
  .option("--json", "print JSON: the suite, its tests and any warnings")
  .action(lazy(withPlatforms(() => import("./commands/validate.ts"))));

program
  .command("show")
  .description("print a suite (built-in or a file) as it runs: extends merged, each value's file:line, each threshold's source")
  .argument("<suite>", "suite file or built-in name")
  .action(lazy(withPlatforms(() => import("./commands/show.ts"))));

program
  .command("plan")
  .description("print the fully resolved plan: per test the platform, nodes, ranks, commands, env and files; runs nothing")
  .argument("<suite>", "suite file or built-in name")
  .option("-p, --platform <name>", "platform to plan for")
  .option("--python <path>", "Python interpreter on the nodes")
  .option("--hosts <h1,h2,...>", "hosts for the ssh platform")
  .option("--hostfile <file>", "file with one host per line")
  .option("--image <ref>", "container image for docker and k8s")
  .option("--nodes <n>", "nodes for every test whose suite entry does not set nodes: itself (overrides defaults.nodes)")
  .option("--each-node", "run every one-node test on each host of the run, a verdict per host")
  .option("--json", "print JSON")
  .action(lazy(withPlatforms(() => import("./commands/plan.ts"))));

program
  .command("list")
  .description("list built-in suites, test kinds and platforms")
  .option("--json", "print JSON")
  .action(lazy(withPlatforms(() => import("./commands/list.ts"))));

const parse = program.command("parse").description("parse tool output into JSON");
parse
  .command("nccl")
  .description("parse nccl-tests output (any collective, any era, or a -J JSON file)")
  .argument("<log>", "log file, or - for standard input")
  .option("--json", "print JSON (the default when stdout is not a TTY)")
  .action(lazy(() => import("./commands/parse-nccl.ts")));

program
  .command("report")
  .description("regenerate junit.xml, the summary and report.html from a results directory")
  .argument("<results-dir>")
  .action(lazy(() => import("./commands/report.ts")));

program
  .command("judge")
  .description("judge a saved run against a suite's thresholds into a new run directory, without rerunning anything")
  .argument("<results-dir>")
  .requiredOption("--suite <file>", "suite whose thresholds to apply")
  .option("-o, --out <dir>", "the new run directory (default <results-dir>-judged-<UTC timestamp>); the judged run is never changed")
  .option("--force", "with --out: move a run already in that directory aside instead of refusing")
  .option("--baseline <results.json>", "baseline for relative thresholds")
  .option("--exclude-bad", "judge the cluster without the nodes its isolating tests found bad: their other units are skipped, with why")
  .option("--json", "print JSON: the new directory, the outcome and each test's")
  .action(lazy(withPlatforms(() => import("./commands/judge.ts"))));

program
  .command("keygen")
  .description("create a signing key pair (private key mode 0600)")
  .requiredOption("--out <dir>", "directory for gpucheck.key and gpucheck.pub")
  .addOption(new Option("--algorithm <alg>", "key algorithm").choices(["ed25519", "p256"]).default("ed25519"))
  .option("--json", "print JSON: the key paths and the fingerprint")
  .action(lazy(() => import("./commands/keygen.ts")));

program
  .command("certify")
  .description("sign a results directory: writes certificate.intoto.json, certificate.html and certificate.md")
  .argument("<results-dir>")
  .requiredOption("--key <pem>", "private key (PKCS#8 PEM)")
  .option("--json", "print JSON: the files written, the key and the signed verdict")
  .action(lazy(() => import("./commands/certify.ts")));

program
  .command("verify")
  .description("verify a signed certificate, and with --results that every subject matches its file")
  .argument("<certificate>")
  .requiredOption("--key <pub.pem>", "public key (SPKI PEM)")
  .option("--results <dir>", "results directory whose files the certificate names")
  .option("--json", "print JSON: valid or not (and why), the signer, the files checked, the signed statement")
  .action(lazy(() => import("./commands/verify.ts")));

program
  .command("completion")
  .description("print a completion script: source <(gpucheck completion bash), or zsh, or gpucheck completion fish | source")
  .addArgument(new Argument("<shell>", "bash, zsh or fish").choices(["bash", "zsh", "fish"]))
  .action(lazy(withPlatforms(() => import("./commands/completion.ts"))));

// no top-level await: `bun build --compile --bytecode` rejects it
program.parseAsync(process.argv).then(
  () => process.exit(process.exitCode ?? EXIT.ok),
  async (err: unknown) => {
    const { reportFatal } = await import("./commands/fatal.ts");
    process.exit(reportFatal(err));
  },
);
