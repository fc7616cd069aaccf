// The commands as data: commander's program (cli/program.ts), the root --help (cli/help.ts) and the
// direct dispatch that skips commander for a plain command line (cli/direct.ts) are all built from
// this one table, so they cannot disagree. Loading it costs nothing: each command's module is an
// import() that runs only when that command does.

export type Main = (...args: never[]) => Promise<number>;

export interface OptionSpec {
  /** as commander writes them: "-p, --platform <name>" takes a value, "--json" does not */
  flags: string;
  description: string;
  choices?: readonly string[];
  default?: string;
  /** commander's requiredOption */
  required?: boolean;
}

export interface ArgSpec {
  /** "<suite>" is required, "[suite]" optional */
  name: string;
  description?: string;
  choices?: readonly string[];
}

export interface CommandSpec {
  name: string;
  description: string;
  args?: ArgSpec[];
  options?: OptionSpec[];
  /** the command's module; absent for a group of subcommands (parse) */
  load?: () => Promise<{ main: Main }>;
  subcommands?: CommandSpec[];
  /**
   * parses nothing with zod, so zod is not loaded to configure it (cli/run-command.ts): a suite is
   * checked by lib/core/schema.ts, zod's API without zod; only workload results, results.json and
   * certificates are zod's
   */
  noZod?: boolean;
  /** main's last argument is commander's Command (completion reads the program): only commander runs it */
  needsProgram?: boolean;
  /**
   * reads, prints or checks one thing and ends: it keeps the JIT policy the executable starts with
   * (scripts/compile-flags.ts), where its run-once code stays in the interpreter; every other command
   * puts the normal policy back before it starts (cli/run-command.ts)
   */
  brief?: boolean;
}

export const PROGRAM = {
  name: "gpucheck",
  description: "Acceptance tests for GPU clusters: collectives, training, inventory; JUnit, HTML and signed certificates",
  version: { flags: "-V, --version", description: "output the version number" },
  help: { flags: "-h, --help", description: "display help for command" },
  afterHelp:
    "\nExit codes: 0 every test passed · 1 a test failed its thresholds · 2 usage or suite error (nothing ran)\n" +
    "            3 infrastructure error (could not launch, timed out, unmeasured, output unusable, the run never ended)\n" +
    "            4 verify without --results: only the signature was checked · 130 interrupted\n",
};

const PLATFORM = { flags: "-p, --platform <name>" };
const PYTHON = { flags: "--python <path>", description: "Python interpreter on the nodes" };
const HOSTFILE = { flags: "--hostfile <file>", description: "file with one host per line" };
const IMAGE = { flags: "--image <ref>", description: "container image for docker and k8s" };
const NODES = { flags: "--nodes <n>", description: "nodes for every test whose suite entry does not set nodes: itself (overrides defaults.nodes)" };
const EACH_NODE = { flags: "--each-node", description: "run every one-node test on each host of the run, a verdict per host" };
const SUITE_ARG = { name: "<suite>", description: "suite file or built-in name" };

export const COMMANDS: CommandSpec[] = [
  {
    name: "suite",
    description: "run a suite (a file or a built-in name) through a platform",
    args: [
      {
        name: "[suite]",
        description: "suite file or built-in name (see `gpucheck list`), or auto: the built-in suite for this node's GPUs; with --rerun-failed, default: that run's own suite",
      },
    ],
    options: [
      { flags: "--budget <duration>", description: "refuse to start a run whose expected total (gpucheck plan shows it) exceeds this, e.g. 30m, naming the tests to drop" },
      { ...PLATFORM, description: "platform to run on (default: the suite's platform.type; with --rerun-failed, that run's)" },
      PYTHON,
      { flags: "--hosts <h1,h2,...>", description: "hosts for the ssh platform (or node list for slurm)" },
      HOSTFILE,
      { flags: "-o, --out <dir>", description: "results directory (default ./gpucheck-results/<suite>-<UTC timestamp>)" },
      { flags: "-t, --timeout <duration>", description: "override every test's timeout, e.g. 90s, 10m" },
      { flags: "--only <names>", description: "run only these tests (comma-separated)" },
      NODES,
      EACH_NODE,
      { flags: "--fail-fast", description: "stop after the first failed or errored test; the rest are skipped, with the reason" },
      { flags: "--rerun-failed <results-dir>", description: "rerun only the failed, errored and skipped tests of an earlier run, into a new directory" },
      IMAGE,
      { flags: "--context <name>", description: "kubeconfig context for k8s" },
      { flags: "--keep", description: "keep containers/pods after the run for debugging" },
      { flags: "--baseline <results.json>", description: "judge relative thresholds against an earlier run" },
      { flags: "--sign-key <pem>", description: "sign the results: writes certificate.intoto.json" },
      { flags: "--preflight-only", description: "check every node for the interpreter, torch, GPUs, NCCL and tools the tests need; run no test" },
      { flags: "--force", description: "with --out: move a run already in that directory aside (<dir>.replaced-<time>) instead of refusing" },
      { flags: "--group-readable", description: "make the results directory readable by your group (0750, files 0640); by default it is yours alone (0700, files 0600)" },
      { flags: "--progress <mode>", description: "progress display", choices: ["auto", "tty", "plain", "none"], default: "auto" },
    ],
    load: () => import("./commands/suite.ts"),
  },
  {
    name: "soak",
    description: "run a suite again and again over hours (rounds), judging each part's trend across them; --resume goes on after an interruption",
    args: [{ name: "[suite]", description: "suite file or built-in name (see `gpucheck list`); not with --resume" }],
    options: [
      { flags: "--for <duration>", description: "how long the soak lasts, e.g. 72h: one round every --every (default 1h)" },
      { flags: "--every <duration>", description: "from one round's start to the next's (default 1h with --for; back to back with --rounds alone)" },
      { flags: "--rounds <n>", description: "how many complete rounds (instead of --for ÷ --every)" },
      { flags: "--max-drift <fraction>", description: "how far a part may get worse over the soak, first rounds to last, e.g. 10% (the default) or 0.05" },
      { flags: "--resume <soak-dir>", description: "go on with the soak in that directory from its next round (after Ctrl-C or a reboot)" },
      { ...PLATFORM, description: "platform to run on (default: the suite's platform.type)" },
      PYTHON,
      { flags: "--hosts <h1,h2,...>", description: "hosts for the ssh platform (or node list for slurm)" },
      HOSTFILE,
      { flags: "-o, --out <dir>", description: "the soak's directory (default ./gpucheck-results/soak-<suite>-<UTC timestamp>); each round in <dir>/rounds/NNN" },
      { flags: "-t, --timeout <duration>", description: "override every test's timeout, e.g. 90s, 10m" },
      { flags: "--only <names>", description: "soak only these tests (comma-separated)" },
      NODES,
      EACH_NODE,
      IMAGE,
      { flags: "--context <name>", description: "kubeconfig context for k8s" },
      { flags: "--sign-key <pem>", description: "sign the finished soak: one certificate over every round and trend" },
      { flags: "--force", description: "with --out: move a run already in that directory aside instead of refusing" },
      { flags: "--group-readable", description: "make the soak's directory readable by your group (0750, files 0640)" },
      { flags: "--progress <mode>", description: "progress display", choices: ["auto", "tty", "plain", "none"], default: "auto" },
    ],
    load: () => import("./commands/soak.ts"),
  },
  {
    name: "validate",
    description: "check a suite file; every problem is reported with its position",
    args: [SUITE_ARG],
    options: [{ flags: "--json", description: "print JSON: the suite, its tests and any warnings" }],
    load: () => import("./commands/validate.ts"),
    brief: true,
    noZod: true,
  },
  {
    name: "show",
    description: "print a suite (built-in or a file) as it runs: extends merged, each value's file:line, each threshold's source",
    args: [SUITE_ARG],
    load: () => import("./commands/show.ts"),
    brief: true,
    noZod: true,
  },
  {
    name: "plan",
    description: "print the fully resolved plan: per test the platform, nodes, ranks, commands, env and files; runs nothing",
    args: [SUITE_ARG],
    options: [
      { ...PLATFORM, description: "platform to plan for" },
      PYTHON,
      { flags: "--hosts <h1,h2,...>", description: "hosts for the ssh platform" },
      HOSTFILE,
      IMAGE,
      NODES,
      EACH_NODE,
      { flags: "--only <names>", description: "plan only these tests (comma-separated), as suite --only runs them" },
      { flags: "--json", description: "print JSON" },
      { flags: "--budget <duration>", description: "refuse a plan whose expected total (shown in the plan) exceeds this, e.g. 30m, naming the tests to drop" },
      {
        flags: "--health",
        description: "with --platform k8s: the DaemonSet (and its RBAC) that runs `gpucheck health --suite <suite>` on every GPU node and sets the Node condition GPUCheckHealthy",
      },
      { flags: "--baseline <dir>", description: "with --health: each node's acceptance results directory, an absolute path on the node, mounted into the pod" },
    ],
    load: () => import("./commands/plan.ts"),
    brief: true,
    noZod: true,
  },
  {
    name: "list",
    description: "list built-in suites, test kinds and platforms",
    options: [{ flags: "--json", description: "print JSON" }],
    load: () => import("./commands/list.ts"),
    brief: true,
    // prints what the build rendered (scripts/gen-list.ts): no suite is loaded
    noZod: true,
  },
  {
    name: "parse",
    description: "parse tool output into JSON",
    subcommands: [
      {
        name: "nccl",
        description: "parse nccl-tests output (any collective, any era, or a -J JSON file)",
        args: [{ name: "<log>", description: "log file, or - for standard input" }],
        options: [{ flags: "--json", description: "print JSON (the default when stdout is not a TTY)" }],
        load: () => import("./commands/parse-nccl.ts"),
      },
    ],
  },
  {
    name: "fabric",
    description: "the InfiniBand fabric against its design: cabling, link width and speed, port state, error counters (docs/fabric.md)",
    subcommands: [
      {
        name: "snapshot",
        description: "write the topology of a fabric known to be good (iblinkinfo), one cable a line",
        options: [
          { flags: "-o, --out <file>", description: "the topology file to write (default: standard output)" },
          { flags: "--via <command>", description: 'run the diagnostics under this command, split on spaces ("ssh sm-node"; the tests use ibsim-run)' },
        ],
        load: async () => ({ main: (await import("./commands/fabric.ts")).snapshot }),
        noZod: true,
      },
      {
        name: "counters",
        description: "save the fabric's error counters (ibqueryerrors) to compare after a test",
        options: [
          { flags: "-o, --out <file>", description: "where to write them (required)", required: true },
          { flags: "--via <command>", description: 'run the diagnostics under this command, split on spaces ("ssh sm-node"; the tests use ibsim-run)' },
        ],
        load: async () => ({ main: (await import("./commands/fabric.ts")).counters }),
        noZod: true,
      },
      {
        name: "check",
        description: "compare the fabric with a topology file and name every difference; exit 1 when there is one",
        options: [
          { flags: "--topology <file>", description: "the declared topology (gpucheck fabric snapshot writes one; required)", required: true },
          { flags: "--counters-before <file>", description: "counters saved by gpucheck fabric counters before the test: name the ones that moved since" },
          {
            flags: "--pkeys <list>",
            description: 'also read every compute HCA port\'s PKey table (smpquery pkeys) and name the ports that differ: "majority", or the expected PKeys ("0x7fff,0x8001")',
          },
          { flags: "--via <command>", description: 'run the diagnostics under this command, split on spaces ("ssh sm-node"; the tests use ibsim-run)' },
          { flags: "--json", description: "print JSON: the findings" },
        ],
        load: async () => ({ main: (await import("./commands/fabric.ts")).check }),
        noZod: true,
      },
    ],
  },
  {
    name: "history",
    description: "the node history: every imported run's figures per node and part (serial, UUID), their drift and swaps",
    subcommands: [
      {
        name: "import",
        description: "add a run's figures to the history (a run already there is not added twice)",
        args: [{ name: "<results-dir>" }],
        options: [
          { flags: "--health", description: "record it as a health run (the default: an acceptance run, whose figures are each part's accepted ones)" },
          { flags: "--history <db>", description: "the history file (default $XDG_DATA_HOME/gpucheck/history.db, else ~/.local/share/gpucheck/history.db)" },
          { flags: "--json", description: "print JSON" },
        ],
        load: () => import("./commands/history-import.ts"),
      },
      {
        name: "show",
        description: "a node's or a part's figures from acceptance onward, their drift from the accepted figure, swaps and failures",
        args: [{ name: "<node-or-part>", description: "a node's name, or a GPU's serial or UUID" }],
        options: [
          { flags: "--history <db>", description: "the history file (default $XDG_DATA_HOME/gpucheck/history.db, else ~/.local/share/gpucheck/history.db)" },
          { flags: "--json", description: "print JSON" },
        ],
        load: () => import("./commands/history-show.ts"),
      },
    ],
  },
  {
    name: "health",
    description:
      "a quick health check of this node (the quick suite, ≈1 min): one line per failure, exit 0 healthy, else not (NHC's convention); can drain it in Slurm or mark it in Kubernetes",
    options: [
      { flags: "--suite <suite>", description: "suite file or built-in name", default: "quick" },
      { flags: "--baseline <results-dir>", description: "this node's acceptance run, whose figures the relative thresholds compare with" },
      {
        flags: "--drain",
        description: "on Slurm: drain this node when it fails, with the first failure as the reason (a node already drained or down for another reason keeps it)",
      },
      {
        flags: "--k8s-condition",
        description: "in a pod: set this node's condition GPUCheckHealthy through the API server (the DaemonSet of `gpucheck plan quick --platform k8s --health`)",
      },
      { flags: "--node <name>", description: "this node's name in Slurm or Kubernetes (default: $SLURMD_NODENAME, with --k8s-condition $NODE_NAME, else the short host name)" },
      { flags: "--history <db>", description: "append this run to a node history file (unsigned)" },
      { flags: "-o, --out <dir>", description: "keep the run's results directory here (default: a temporary one, removed)" },
      PYTHON,
      { flags: "-t, --timeout <duration>", description: "override every test's timeout, e.g. 90s" },
      { flags: "--json", description: "print JSON: the node, healthy or not, the failures and what was done" },
    ],
    load: () => import("./commands/health.ts"),
  },
  {
    name: "baseline",
    description: "the firmware and software baseline every node is compared with",
    subcommands: [
      {
        name: "capture",
        description:
          "a golden node's versions (kernel, driver, CUDA, VBIOS, HCA firmware and PSID, OFED, NCCL, Fabric Manager, DCGM) from a run's inventory, as an inventory test's baseline: block",
        args: [{ name: "<results-dir>" }],
        options: [
          { flags: "--node <name>", description: "the golden node, when the run has several" },
          { flags: "--out <file>", description: "write the block to this file instead of printing it" },
          { flags: "--json", description: "print JSON: the node, the baseline and each field left out with why" },
        ],
        load: () => import("./commands/baseline-capture.ts"),
      },
    ],
  },
  {
    name: "report",
    description: "regenerate junit.xml, the summary and report.html from a results directory",
    args: [{ name: "<results-dir>" }],
    load: () => import("./commands/report.ts"),
  },
  {
    name: "judge",
    description: "judge a saved run against a suite's thresholds into a new run directory, without rerunning anything",
    args: [{ name: "<results-dir>" }],
    options: [
      { flags: "--suite <file>", description: "suite whose thresholds to apply (required)", required: true },
      { flags: "-o, --out <dir>", description: "the new run directory (default <results-dir>-judged-<UTC timestamp>); the judged run is never changed" },
      { flags: "--force", description: "with --out: move a run already in that directory aside instead of refusing" },
      { flags: "--group-readable", description: "make the results directory readable by your group (0750, files 0640); by default it is yours alone (0700, files 0600)" },
      { flags: "--baseline <results.json>", description: "baseline for relative thresholds" },
      { flags: "--exclude-bad", description: "judge the cluster without the nodes its isolating tests found bad: their other units are skipped, with why" },
      { flags: "--json", description: "print JSON: the new directory, the outcome and each test's outcome" },
    ],
    load: () => import("./commands/judge.ts"),
  },
  {
    name: "keygen",
    description: "create a signing key pair (private key mode 0600)",
    options: [
      { flags: "--out <dir>", description: "directory for gpucheck.key and gpucheck.pub (required)", required: true },
      { flags: "--algorithm <alg>", description: "key algorithm", choices: ["ed25519", "p256"], default: "ed25519" },
      { flags: "--json", description: "print JSON: the key paths and the fingerprint" },
    ],
    load: () => import("./commands/keygen.ts"),
    brief: true,
  },
  {
    name: "certify",
    description: "sign a results directory: writes certificate.intoto.json, certificate.html and certificate.md",
    args: [{ name: "<results-dir>" }],
    options: [
      { flags: "--key <pem>", description: "the private key, PKCS#8 PEM (required)", required: true },
      {
        flags: "-o, --out <dir>",
        description: "sign a new directory that links the run's files (hard links, else copies checked by sha256): a run already signed stays untouched",
      },
      { flags: "--cluster <name>", description: "the cluster's name, signed in the statement, when the suite names none (else the certificate says unnamed cluster)" },
      { flags: "--allow-incomplete", description: "sign a run that never ended (killed, a test unfinished) as INCOMPLETE instead of refusing it" },
      { flags: "--json", description: "print JSON: the files written, the key and the signed verdict" },
    ],
    load: () => import("./commands/certify.ts"),
  },
  {
    name: "verify",
    description: "verify a signed certificate, and with --results that every subject matches its file",
    args: [{ name: "<certificate>" }],
    options: [
      { flags: "--key <pub.pem>", description: "the public key, SPKI PEM (required)", required: true },
      { flags: "--results <dir>", description: "results directory whose files the certificate names" },
      { flags: "--signature-only", description: "check the signature alone, without --results: exit 0 though no file was compared" },
      { flags: "--expect-fingerprint <sha256>", description: "fail unless the signer's key has this fingerprint (SHA256:… as keygen prints it)" },
      { flags: "--expect-cluster <name>", description: "fail unless the certificate names this cluster" },
      { flags: "--json", description: "print JSON: valid or not (and why), the signer, the files checked, the signed statement" },
    ],
    load: () => import("./commands/verify.ts"),
    brief: true,
    // a statement is checked against its generated shape; zod loads only to say what is wrong with one
    noZod: true,
  },
  {
    name: "completion",
    description: "print a completion script: source <(gpucheck completion bash), or zsh, or gpucheck completion fish | source",
    args: [{ name: "<shell>", description: "bash, zsh or fish", choices: ["bash", "zsh", "fish"] }],
    load: () => import("./commands/completion.ts"),
    brief: true,
    needsProgram: true,
  },
];
