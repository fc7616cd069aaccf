// The "python" a pattern conformance case gives every platform: each rank answers at once, the
// preflight with a node that has torch, a collective with the real nccl-tests log on rank 0. No
// Python start, no torch import and no rendezvous: a pattern's dozens of launches on every platform
// take seconds, not minutes. Where a platform starts a node's ranks through the launcher
// (`-m gpucheck_workload.launch`: docker, k8s) it is stood in for too, for one rank per node: the
// rank's output prefixed `[rank N] ` as the real one does, its exit code the launcher's.
// A node's fault is in its software, as a broken fabric shows: its collective ranks exit 1, or never
// return (the platform cuts them at the test's timeout); its preflight still passes, as it would.
import { chmodSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PREFLIGHT_ANSWER, PYTHON } from "../pipeline/fake-platform.ts";
import { shQuote } from "../../plugins/_shared/ssh/quote.ts";

export interface NodeFault {
  node: string;
  end: "fail" | "hang";
}

const LOG = resolve(import.meta.dir, "../fixtures/nccl/gh200-2node-allreduce-complete-v2.18.3.txt");

/** Writes the script into `dir` and returns its path: the suite's `python`. */
export function fakeWorkload(dir: string, fault?: NodeFault): string {
  const path = join(dir, "python3");
  const answer = JSON.stringify({ ...PREFLIGHT_ANSWER, hostname: "@NODE@", interpreters: { [path]: { ...PREFLIGHT_ANSWER.interpreters[PYTHON], executable: path } } });
  const broken = fault?.end === "fail" ? `echo "gpucheck-workload: error: all_reduce: connection reset by peer (the fabric of $GPUCHECK_NODE)" >&2; exit 1` : "exec sleep 3600";
  const script = [
    "#!/bin/bash",
    'if [ "$1 $2" = "-m gpucheck_workload.launch" ]; then',
    `  shift 2; n=1 node=\${GPUCHECK_NODE_RANK:-\${JOB_COMPLETION_INDEX:-0}}`,
    '  while [ "$1" != -- ]; do case "$1" in --nprocs) n=$2; shift ;; --node-rank) node=$2; shift ;; esac; shift; done; shift',
    '  [ "$n" = 1 ] || { echo "fake launcher: one rank per node only, got --nprocs $n" >&2; exit 2; }',
    '  set -o pipefail; RANK=$node LOCAL_RANK=0 "$0" "$@" 2>&1 | sed -u "s/^/[rank $node] /"; exit',
    "fi",
    // the rank's command: `-m gpucheck_workload [--inventory …] <kind> …`; the launcher's is `-m gpucheck_workload.launch`
    '[ "$1 $2" = "-m gpucheck_workload" ] && case " $* " in',
    '*" preflight "*)',
    `  a=${shQuote(answer)}; echo "GPUCHECK_RESULT \${a//@NODE@/$GPUCHECK_NODE}"; exit 0 ;;`,
    '*" collective "*)',
    ...(fault ? [`  [ "$GPUCHECK_NODE" = ${shQuote(fault.node)} ] && { ${broken}; }`] : []),
    `  [ "$RANK" = 0 ] && cat ${shQuote(LOG)}; exit 0 ;;`,
    "esac",
    `exec ${PYTHON} "$@"`,
    "",
  ].join("\n");
  writeFileSync(path, script);
  chmodSync(path, 0o755);
  return path;
}
