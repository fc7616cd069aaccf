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
export const runDirOf = (p: StagePaths, runId: string) => `${p.base.replace(/\/+$/, "")}/runs/${runId}`;

const FREE_PORT = `import socket; s = socket.socket(); s.bind(("", 0)); print("gpucheck-port", s.getsockname()[1])`;

/**
 * A port no TCP socket on the host uses, below the usual ephemeral range (32768-): read from
 * /proc/net/tcp{,6} rather than by starting Python, which would put an interpreter start on the
 * critical path of every launch. Hosts without /proc fall back to binding port 0 in Python.
 */
export function freePortLines(python: string): string[] {
  return [
    `used=" $(awk 'FNR > 1 { split($2, a, ":"); printf "%s ", a[2] }' /proc/net/tcp /proc/net/tcp6 2>/dev/null) "`,
    `port=; i=0`,
    `while [ "$used" != "  " ] && [ -z "$port" ] && [ $i -lt 50 ]; do`,
    `  n=$(od -An -N2 -tu2 /dev/urandom | tr -d ' '); c=$((20000 + n % 12000)); i=$((i + 1))`,
    `  case "$used" in *" $(printf %04X $c) "*) ;; *) port=$c ;; esac`,
    `done`,
    `if [ -n "$port" ]; then echo "gpucheck-port $port"; else exec ${shQuote(python)} -c ${shQuote(FREE_PORT)}; fi`,
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
    `if [ -f ${remotePath(stageOf(stage))}/.complete ]; then echo gpucheck-staged yes; else echo gpucheck-staged no; fi`,
    `command -v ${shQuote(python)} >/dev/null 2>&1 || { echo ${shQuote(`gpucheck-no-python`)}; exit 0; }`,
    `set -- $SSH_CONNECTION; echo "gpucheck-addr $3"`,
    ...(wantPort ? freePortLines(python) : []),
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
    `[ -f ${s}/.complete ] && exit 0`,
    `mkdir -p ${b}`,
    `T=$(mktemp -d ${b}/.stage-${shQuote(stage.hash)}.XXXXXX)`,
    `trap 'rm -rf "$T"' EXIT`,
    `tar -x -o -f - -C "$T"`,
    `chmod 755 "$T"`,
    `echo ${shQuote(stage.hash)} > "$T/.complete"`,
    // a stage without .complete is left from an interrupted copy by something else: replace it
    `if [ -e ${s} ] && [ ! -f ${s}/.complete ]; then rm -rf ${s}; fi`,
    // losing the race to another host's copy of the same content is fine
    `mv -T "$T" ${s} 2>/dev/null || [ -f ${s}/.complete ]`,
  ].join("\n");
}

export interface RankScript {
  runId: string;
  stage: StagePaths;
  /** the pid file's name: rank number (or launcher index) */
  id: number;
  argv: readonly string[];
  env: Readonly<Record<string, string>>;
}

/**
 * One rank (or launcher). It runs in its own session, so one `kill -- -<pgid>` reaches everything
 * it started; its pgid goes to <runs>/<run>/<id>.pid for a later kill over a fresh connection.
 * A watchdog reads the ssh channel's stdin: EOF means gpucheck or the connection went away, and
 * the rank is killed rather than left holding GPUs (sshd sends no hangup without a tty).
 */
export function rankScript(r: RankScript): string {
  const run = remotePath(runDirOf(r.stage, r.runId));
  const mark = shQuote(`\\036gpucheck-${r.runId} %s %s\\n`);
  const pythonPath = r.env.PYTHONPATH ? `${remotePath(stageOf(r.stage))}:${shQuote(r.env.PYTHONPATH)}` : remotePath(stageOf(r.stage));
  const env = Object.entries(r.env)
    .filter(([k]) => k !== "PYTHONPATH")
    .map(([k, v]) => `export ${checkEnvName(k)}=${shQuote(v)}`);
  return [
    `R=${run}`,
    `mkdir -p "$R"`,
    `export PYTHONPATH=${pythonPath}`,
    ...env,
    "exec 3<&0",
    `setsid ${shJoin(r.argv)} </dev/null 3<&- & p=$!`,
    `echo $p > "$R/${r.id}.pid"`,
    `printf ${mark} start $p >&2`,
    `( while read -r _; do :; done; kill -TERM -$p; i=0; while [ $i -lt 50 ] && kill -0 -$p; do sleep 0.1; i=$((i+1)); done; kill -KILL -$p ) <&3 >/dev/null 2>&1 & w=$!`,
    "exec 3<&-",
    "wait $p; rc=$?",
    "kill $w 2>/dev/null",
    // whatever the rank left in its session must not outlive it
    "kill -KILL -$p 2>/dev/null",
    `rm -f "$R/${r.id}.pid"; rmdir "$R" 2>/dev/null`,
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
  const pgid = `p=$(cat "$R/$i.pid" 2>/dev/null)`;
  return [
    `R=${remotePath(runDirOf(stage, runId))}`,
    `[ -d "$R" ] || exit 0`,
    `for i in ${list}; do ${pgid} && kill -0 -"$p" 2>/dev/null && echo "gpucheck-running $i" && kill -TERM -"$p"; done`,
    `n=0; while [ $n -lt ${Math.ceil(graceMs / 100)} ]; do a=0; for i in ${list}; do ${pgid} && kill -0 -"$p" 2>/dev/null && a=1; done; [ $a = 0 ] && break; sleep 0.1; n=$((n+1)); done`,
    `for i in ${list}; do ${pgid} && kill -KILL -"$p" 2>/dev/null; rm -f "$R/$i.pid"; done`,
    `rmdir "$R" 2>/dev/null; exit 0`,
  ].join("\n");
}
