// The POSIX sh scripts gpucheck runs on the hosts. Pure: every value in them went through
// shQuote/remotePath, and they are what `gpucheck plan` shows.
import { checkEnvName, remotePath, shJoin, shQuote } from "./quote.ts";

/** Lines the scripts print for gpucheck: `\x1egpucheck-<run> start <pgid>` / `… exit <code>` on stderr. */
export function sentinel(runId: string): string {
  return `\x1egpucheck-${runId} `;
}

export interface StagePaths {
  /** <stageDir>, e.g. ~/.cache/gpucheck */
  base: string;
  /** the workload's content hash: the stage is <base>/<hash> */
  hash: string;
}

export const stageOf = (p: StagePaths) => `${p.base.replace(/\/+$/, "")}/${p.hash}`;
/** where a run's pid files live on a host, `<run>.<id>.pid`: one directory for all runs, made once */
export const runsDirOf = (p: StagePaths) => `${p.base.replace(/\/+$/, "")}/runs`;

const FREE_PORT = `import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])`;

/**
 * Sets $port to a port no TCP socket on the host uses, below the usual ephemeral range (32768-), and
 * prints it: one awk over /proc/net/tcp{,6} rather than starting Python, which would put an
 * interpreter start on the critical path of every launch. Seeded with the shell's pid, so that hosts
 * sharing one kernel (containers, a simulated fleet) draw different ports at the same second. Hosts
 * without /proc fall back to binding port 0 in Python.
 */
export function freePortLines(python: string): string[] {
  return [
    // mawk stops at a file it cannot open, before END: list tcp6 only where it exists
    `f=/proc/net/tcp; [ -r /proc/net/tcp6 ] && f="$f /proc/net/tcp6"`,
    `port=$(awk -v seed=$$ 'FNR > 1 { split($2, a, ":"); used[a[2]] = 1 } END { if (!NR) exit; srand(seed); for (i = 0; i < 50; i++) { c = 20000 + int(rand() * 12000); if (!(sprintf("%04X", c) in used)) { print c; exit } } }' $f 2>/dev/null)`,
    `[ -n "$port" ] || port=$(${shQuote(python)} -c ${shQuote(FREE_PORT)})`,
    `echo "gpucheck-port $port"`,
  ];
}

/**
 * `staged_ok`: the stage may be run from. It is a real directory (not a symlink) of this user, every
 * file and directory in it is this user's and writable by nobody else (so nobody else can change it
 * after this check), and its content hashes to its own name, the binary's workload hash
 * (lib/core/assets.ts workloadHash: the digest of sha256sum's listing of the files, in byte order). A stale,
 * half-written or modified stage fails, and so does one another user planted: stageScript replaces
 * the first kind and refuses the second. __pycache__ is left out of the hash (Python writes it there
 * on import), not out of the owner and mode check.
 */
export function stageCheckLines(stage: StagePaths): string[] {
  const s = remotePath(stageOf(stage));
  return [
    "staged_ok() {",
    `  [ -d ${s} ] && [ ! -L ${s} ] && [ -O ${s} ] && [ -f ${s}/.complete ] || return 1`,
    `  [ -z "$(find ${s} ! -user "$(id -u)" -print -o -perm /022 -print 2>&1 | head -n 1)" ] || return 1`,
    `  h=$(cd ${s} && find . -type f ! -path ./.complete ! -path '*/__pycache__/*' -printf '%P\\0' | LC_ALL=C sort -z | xargs -0 -r sha256sum | sha256sum)`,
    `  case $h in ${shQuote(stage.hash)}*) return 0;; esac; return 1`,
    "}",
  ];
}

/**
 * First command on a host (it also opens the ControlMaster): is the workload staged, is the
 * Python there, which address did ssh reach the host on ($SSH_CONNECTION's third field: the address
 * other hosts can use for MASTER_ADDR, even behind ProxyJump), and, where a rendezvous will live,
 * a free port.
 */
export function prepareScript(stage: StagePaths, python: string, wantPort: boolean): string {
  return [
    ...stageCheckLines(stage),
    `if staged_ok; then echo gpucheck-staged yes; else echo gpucheck-staged no; fi`,
    `command -v ${shQuote(python)} >/dev/null 2>&1 || { echo ${shQuote(`gpucheck-no-python`)}; exit 0; }`,
    `set -- $SSH_CONNECTION; addr=$3; echo "gpucheck-addr $addr"`,
    ...(wantPort ? freePortLines(python) : []),
  ].join("\n");
}

/**
 * A per-node unit's one process in the host's first ssh: the checks of prepareScript and then,
 * where the stage is there, the rank wrapper in the same session, meeting on the address ssh
 * reached the host on and the port just found (or the suite's). One remote session per host, as
 * pdsh. Where the stage is missing it waits after the checks (its connection carrying the copy and
 * the launch, as for any other unit) until its stdin closes.
 */
export function onePassScript(stage: StagePaths, python: string, rank: RankScript, fixedPort?: number): string {
  const fromShell: Record<string, "addr" | "port"> = fixedPort === undefined ? { MASTER_ADDR: "addr", MASTER_PORT: "port" } : { MASTER_ADDR: "addr" };
  return [
    prepareScript(stage, python, fixedPort === undefined),
    // the session holds the connection open while the run copies the stage and launches over it
    `staged_ok || { read -r _; exit 0; }`,
    rankScript({ ...rank, env: { ...rank.env, ...(fixedPort !== undefined && { MASTER_PORT: String(fixedPort) }) }, fromShell }),
  ].join("\n");
}

/**
 * Unpacks the tar stream on stdin into a fresh directory and renames it into place, so that a
 * shared home (NFS) staged from many hosts at once never shows a half-written stage.
 */
export function stageScript(stage: StagePaths): string {
  const s = remotePath(stageOf(stage));
  const b = remotePath(stage.base);
  return [
    "set -e",
    ...stageCheckLines(stage),
    "staged_ok && exit 0",
    // another user's stage, or a symlink: never run, and not ours to remove
    `if [ -L ${s} ] || { [ -e ${s} ] && [ ! -O ${s} ]; }; then echo "gpucheck: the stage "${s}" is not this user's own (owner $(stat -c %U ${s} 2>/dev/null)$([ -L ${s} ] && echo ", a symlink")): gpucheck neither runs from it nor replaces it; remove it" >&2; exit 1; fi`,
    `mkdir -p ${b}`,
    `T=$(mktemp -d ${b}/.stage-${shQuote(stage.hash)}.XXXXXX)`,
    `trap 'rm -rf "$T"' EXIT`,
    `tar -x -o -f - -C "$T"`,
    `chmod -R go-w "$T"`,
    `chmod 755 "$T"`,
    `echo ${shQuote(stage.hash)} > "$T/.complete"`,
    // ours but stale, half-written or modified (staged_ok failed above and again now): replaced
    `if [ -e ${s} ] && ! staged_ok; then rm -rf ${s}; fi`,
    // losing the race to another host's copy of the same content is fine
    `mv -T "$T" ${s} 2>/dev/null || staged_ok`,
  ].join("\n");
}

/** The line that ends the environment block on a rank's stdin (not a `NAME value` line: a name has no '-'). */
export const ENV_END = "gpucheck-env-end";

/**
 * The suite's environment as the rank wrapper reads it from stdin, before the watchdog takes stdin
 * over: one `NAME value` line per variable, then ENV_END. A value is written with every byte outside
 * a plain set as a printf %b octal escape (\0ooo), so a line never holds a newline and the shell
 * restores the bytes exactly. On stdin, not in the ssh command: a command line is public (`ps` on
 * the jump host and on the node, /proc/<pid>/cmdline), a pipe is not.
 */
export function envBlock(env: Readonly<Record<string, string>>): string {
  const enc = (v: string) =>
    [...Buffer.from(v, "utf8")].map((b) => (SAFE_BYTE.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `\\0${b.toString(8).padStart(3, "0")}`)).join("");
  return `${Object.entries(env)
    .map(([k, v]) => `${checkEnvName(k)} ${enc(v)}\n`)
    .join("")}${ENV_END}\n`;
}

const SAFE_BYTE = /^[A-Za-z0-9_@%+:,./=-]$/;

/**
 * Reads envBlock's lines from stdin and exports each; a block cut short (gpucheck gone before it
 * sent the end line) stops the rank rather than run it without its environment. `read` takes one
 * line at a time from a pipe, leaving the rest of stdin for the watchdog.
 */
const READ_ENV = [
  `e=; while IFS= read -r l; do [ "$l" = ${ENV_END} ] && { e=1; break; }; n=\${l%% *}; case $n in ''|[0-9]*|*[!A-Za-z0-9_]*) break;; esac; v=$(printf '%b_' "\${l#* }"); export "$n=\${v%_}"; done`,
  `[ -n "$e" ] || { echo 'gpucheck: the environment did not arrive on stdin' >&2; exit 1; }`,
];

export interface RankScript {
  runId: string;
  stage: StagePaths;
  /** the pid file's name: rank number (or launcher index) */
  id: number;
  argv: readonly string[];
  /** what is exported from the command itself: gpucheck's own variables (rank, rendezvous), never a suite's value */
  env: Readonly<Record<string, string>>;
  /** the suite's env comes as envBlock() on stdin, first thing (PYTHONPATH among it is put after the stage's) */
  envOnStdin?: boolean;
  /** variables set from the script's own shell variables (a rendezvous found on the host), not from env */
  fromShell?: Readonly<Record<string, "addr" | "port">>;
}

/**
 * One rank (or launcher). It runs in its own session, so one `kill -- -<pgid>` reaches everything
 * it started; its pgid goes to <runs>/<run>.<id>.pid for a later kill over a fresh connection.
 * A watchdog reads the ssh channel's stdin: EOF means gpucheck or the connection went away, and
 * the rank is killed rather than left holding GPUs (sshd sends no hangup without a tty).
 */
export function rankScript(r: RankScript): string {
  const runs = remotePath(runsDirOf(r.stage));
  const mark = shQuote(`\\036gpucheck-${r.runId} %s %s\\n`);
  const pythonPath = r.envOnStdin
    ? `${remotePath(stageOf(r.stage))}\${PYTHONPATH:+:"$PYTHONPATH"}`
    : r.env.PYTHONPATH
      ? `${remotePath(stageOf(r.stage))}:${shQuote(r.env.PYTHONPATH)}`
      : remotePath(stageOf(r.stage));
  const shell = r.fromShell ?? {};
  const env = Object.entries(r.env)
    .filter(([k]) => k !== "PYTHONPATH" && !(k in shell))
    .map(([k, v]) => `export ${checkEnvName(k)}=${shQuote(v)}`)
    .concat(Object.entries(shell).map(([k, v]) => `export ${checkEnvName(k)}="$${v}"`));
  const pid = `"$R/${r.runId}.${r.id}.pid"`;
  return [
    `R=${runs}`,
    // a test before mkdir: on every launch after a host's first, no process for it
    `[ -d "$R" ] || mkdir -p "$R"`,
    // the suite's PYTHONPATH, if it gives one, comes on stdin; the login's own is not the suite's
    ...(r.envOnStdin ? ["unset PYTHONPATH", ...READ_ENV] : []),
    `export PYTHONPATH=${pythonPath}`,
    ...env,
    "exec 3<&0",
    `setsid ${shJoin(r.argv)} </dev/null 3<&- & p=$!`,
    `echo $p > ${pid}`,
    // the watchdog before the start line: a client gone by then makes that printf end this shell
    // (a broken pipe), and the rank must not outlive it
    `( while read -r _; do :; done; kill -TERM -$p; i=0; while [ $i -lt 50 ] && kill -0 -$p; do sleep 0.1; i=$((i+1)); done; kill -KILL -$p ) <&3 >/dev/null 2>&1 & w=$!`,
    `printf ${mark} start $p >&2`,
    "exec 3<&-",
    "wait $p; rc=$?",
    "kill $w 2>/dev/null",
    // whatever the rank left in its session must not outlive it
    "kill -KILL -$p 2>/dev/null",
    `rm -f ${pid}`,
    `printf ${mark} exit $rc >&2`,
    "exit $rc",
  ].join("\n");
}

/**
 * Stops the given ranks of a run on one host: SIGTERM to each session, up to `graceMs` for them to
 * go, then SIGKILL. Prints `gpucheck-running <id>` for each one that was still alive.
 */
export function killScript(stage: StagePaths, runId: string, ids: readonly number[], graceMs: number): string {
  const list = ids.join(" ");
  const f = `"$R/${runId}.$i.pid"`;
  // a pid file is trusted only for a live process group of ours that it leads: a number above 1 (a
  // file holding 1 would make "kill -KILL -1" end every process the user has), owned by this user,
  // its group id its own (the rank's setsid), so a pid reused by another program is left alone
  const pgid = `read -r p 2>/dev/null < ${f} && ours`;
  return [
    `R=${remotePath(runsDirOf(stage))}`,
    `[ -d "$R" ] || exit 0`,
    `ours() { case $p in ''|*[!0-9]*) return 1;; esac; [ "$p" -gt 1 ] && [ -O "/proc/$p" ] && [ "$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f3)" = "$p" ]; }`,
    `for i in ${list}; do ${pgid} && kill -0 -"$p" 2>/dev/null && echo "gpucheck-running $i" && kill -TERM -"$p"; done`,
    `n=0; while [ $n -lt ${Math.ceil(graceMs / 100)} ]; do a=0; for i in ${list}; do ${pgid} && kill -0 -"$p" 2>/dev/null && a=1; done; [ $a = 0 ] && break; sleep 0.1; n=$((n+1)); done`,
    `for i in ${list}; do ${pgid} && kill -KILL -"$p" 2>/dev/null; rm -f ${f}; done`,
    `exit 0`,
  ].join("\n");
}
