#!/usr/bin/env bash
# The integration tier (npm run test:integration): builds compiled/gpucheck, starts the real daemons
# (sshd, Slurm, dockerd, podman on loopback; the fault lab's hosts and a second Slurm cluster in network namespaces) with
# test/infra/*.sh, runs bun test on test/integration/
# (the platforms against those daemons, the end-to-end runs of the built binary), stops the daemons.
# Needs the Debian packages of scripts/ci-deps.sh (scripts/test.sh installs them).
#   bash scripts/test-integration.sh                      the whole tier
#   bash scripts/test-integration.sh test/integration/e2e/local.test.ts
#   bash scripts/test-integration.sh --no-daemon         only test/integration/no-daemon/ (below)
# Arguments go to bun test (scripts/test.sh passes its JUnit reporter). A daemon that does not start
# is still listed in GPUCHECK_INFRA: its tests fail loudly rather than skip.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
# --prepare (first argument): build and start the daemons, then exit and leave them up; scripts/test.sh
# runs it beside the unit tier, then this script with GPUCHECK_INTEGRATION_PREPARED=1, which skips both
# (and still stops the daemons at its end)
prepare=""
if [ "${1:-}" = --prepare ]; then prepare=1; shift; fi
# test/integration/no-daemon/: the platforms' conformance and pattern tables against the fakes (the
# fake ssh client, the in-process Kubernetes API, the fake Docker engine and Slurm), the 1,000-node
# fixtures and the certificate's every-byte check. They need no daemon, no build and no Debian package,
# but spawn hundreds of processes or wait out hung units' timeouts: over a unit test's 5 s. --no-daemon
# (first argument) runs them alone, 3 files at a time; scripts/test.sh does so beside the unit tier and
# then runs this script with GPUCHECK_INTEGRATION_NO_DAEMON_DONE=1, which leaves them out. The whole
# tier without it runs them beside its build and daemon start-ups.
no_daemon=test/integration/no-daemon
no_daemon_run() { bun test --timeout 120000 --parallel=3 --path-ignore-patterns="node_modules/**" "$@" "$no_daemon"; }
if [ "${1:-}" = --no-daemon ]; then
  shift
  no_daemon_run "$@"
  exit $?
fi
prepared=""
[ -z "$prepare" ] && [ "${GPUCHECK_INTEGRATION_PREPARED:-}" = 1 ] && prepared=1
paths=()
for a in "$@"; do [[ $a == -* ]] || paths+=("$a"); done
# each bun process writes its own JUnit report (beside the one asked for, -no-daemon, -rest, -quiet,
# -netns and -slurm-lab added to its name): scripts/test.sh counts every report in its directory
args_for() {
  local suffix=$1; shift
  for a in "$@"; do
    if [[ $a == --reporter-outfile=* && -n $suffix ]]; then echo "${a%.xml}-$suffix.xml"; else echo "$a"; fi
  done
}
no_daemon_pid=""
if [ -z "$prepare" ] && [ ${#paths[@]} -eq 0 ] && [ "${GPUCHECK_INTEGRATION_NO_DAEMON_DONE:-}" != 1 ] && [ "${GPUCHECK_INTEGRATION_SHARDS:-2}" != 1 ]; then
  mapfile -t no_daemon_args < <(args_for no-daemon "$@")
  no_daemon_log=$(mktemp /tmp/gpucheck-integration-no-daemon-XXXXXX.log)
  no_daemon_run "${no_daemon_args[@]}" >"$no_daemon_log" 2>&1 &
  no_daemon_pid=$!
fi
if [ -z "$prepared" ]; then
  bun run build >/dev/null || { echo "test-integration.sh: build failed" >&2; exit 1; }
fi
export GPUCHECK_TEST_BINARY="$PWD/compiled/gpucheck"

# start NAME: test/infra/NAME.sh start, its output in /tmp/gpucheck-infra-NAME.log, its seconds in
# /tmp/gpucheck-infra-NAME.seconds; a daemon that does not start is said here, and still listed below
start() {
  local t0=$SECONDS
  # the daemons outlive this run: they keep /tmp, not a TMPDIR scripts/test.sh removes afterwards
  if ! TMPDIR=/tmp bash "test/infra/$1.sh" start >"/tmp/gpucheck-infra-$1.log" 2>&1; then
    echo "test-integration.sh: could not start $1 (see /tmp/gpucheck-infra-$1.log):" >&2
    tail -5 "/tmp/gpucheck-infra-$1.log" >&2
  fi
  echo $((SECONDS - t0)) >"/tmp/gpucheck-infra-$1.seconds"
}
# Three chains at once (CI's wall time is their longest, not their sum); within a chain, one after
# another: netns.sh shares ssh.sh's test user and ~/.ssh/config, slurm-lab.sh shares slurm.sh's munged.
infra=(ssh slurm slurm-lab docker netns)
if [ -z "$prepared" ]; then
  t0=$SECONDS
  { start ssh; start netns; } &
  { start slurm; start slurm-lab; } &
  start docker &
  wait
  echo "test-integration.sh: daemons started in $((SECONDS - t0)) s ($(for n in "${infra[@]}"; do printf '%s %s s, ' "$n" "$(cat "/tmp/gpucheck-infra-$n.seconds")"; done | sed 's/, $//'))" >&2
fi
[ -n "$prepare" ] && exit 0
stop() { for name in "${infra[@]}"; do [ -f "test/infra/$name.sh" ] && bash "test/infra/$name.sh" stop >/dev/null 2>&1; done; }
trap stop EXIT
# docker.sh also starts podman's Docker-compatible API when it can
[ -S /run/podman/podman.sock ] && infra+=("podman")
export GPUCHECK_INFRA=$(IFS=,; echo "${infra[*]}")
echo "test-integration.sh: infra: $GPUCHECK_INFRA" >&2

no_daemon_rc=0
if [ -n "$no_daemon_pid" ]; then
  wait $no_daemon_pid
  no_daemon_rc=$?
  echo "test-integration.sh: test/integration/no-daemon/'s output:" >&2
  cat "$no_daemon_log"
  rm -f "$no_daemon_log"
fi
if [ ${#paths[@]} -gt 0 ] || [ "${GPUCHECK_INTEGRATION_SHARDS:-2}" = 1 ]; then
  skip=()
  [ "${GPUCHECK_INTEGRATION_NO_DAEMON_DONE:-}" = 1 ] && skip=(--path-ignore-patterns="$no_daemon/**")
  [ ${#paths[@]} -eq 0 ] && set -- "$@" test/integration
  bun test --timeout 120000 --path-ignore-patterns="node_modules/**" "${skip[@]}" "$@"
  exit $?
fi

# The whole tier runs in two phases (GPUCHECK_INTEGRATION_SHARDS=1: one bun process, in bun's order):
# 1. two bun processes at once, each a shard of the files that tolerate the other's load. Much of the
#    tier waits (Slurm's minute-long time limit, timeouts cut by design, sshd and dockerd round trips),
#    which one process spends idle. The "hosts" shard holds every file that uses the loopback sshd's
#    user or the local Slurm: those tests count what the ssh user has left running, drain nodes, and
#    plant stages at the next job ids, so they run one after another as before. The "rest" shard holds
#    Docker Engine and podman, the fake Kubernetes API, the local platform, the fault lab's
#    CPU-only checks, and the other files that need no daemon. Their sums of test times are about even.
# 2. once both have ended, the timing-sensitive fault tests (quiet, below): a healthy pair must end
#    well inside a 30 s timeout that cuts the hung ones, and a soak's free rank must not drift 40 %
#    while its neighbour is throttled; under the other shard's torch ranks both failed (BENCHMARKS.md,
#    CI time per tier). First the soak and the CPU-cap files alone (their measure is steadiness), then
#    the fault lab's and the namespaced Slurm cluster's isolation files at once: each lab is its own
#    hosts in its own namespaces, and both mostly wait out hung units' timeouts with a core idle.
hosts=(test/integration/platforms/ssh test/integration/platforms/docker-ssh test/integration/platforms/slurm
  test/integration/e2e/kill-matrix.test.ts test/integration/e2e/attacks.test.ts
  test/integration/health/slurm-drain.test.ts test/integration/infra/fault-lab-slurm.test.ts
  # no daemon of theirs: here to even the shards' wall times (the rest's builds and images cost more than its tests' sums)
  test/integration/e2e/gpu-on-cpu.test.ts test/integration/e2e/run-dir.test.ts)
# isolate-k8s and isolate-slurm judge failing ranks on fakes, with no timeout to beat: they go with the rest
quiet=(test/integration/isolate/netns-isolate.test.ts test/integration/isolate/slurm-isolate.test.ts
  test/integration/isolate/netns-cpu-cap.test.ts test/integration/soak/)
mapfile -t all < <(find test/integration -name '*.test.ts' | sort)
hosts_files=() rest_files=() quiet_files=()
for f in "${all[@]}"; do
  [[ $f == "$no_daemon/"* ]] && continue # run above, or by scripts/test.sh beside the unit tier
  group=rest
  for d in "${hosts[@]}"; do [[ $f == "$d"* ]] && group=hosts; done
  for d in "${quiet[@]}"; do [[ $f == "$d"* ]] && group=quiet; done
  case $group in hosts) hosts_files+=("$f") ;; rest) rest_files+=("$f") ;; quiet) quiet_files+=("$f") ;; esac
done
mapfile -t rest_args < <(args_for rest "$@")
mapfile -t quiet_args < <(args_for quiet "$@")
mapfile -t lab_args < <(args_for slurm-lab "$@")
mapfile -t netns_args < <(args_for netns "$@")
# the two labs' files, run at once after the others
netns_lab=test/integration/isolate/netns-isolate.test.ts slurm_lab=test/integration/isolate/slurm-isolate.test.ts
alone_files=() lab_files=()
for f in "${quiet_files[@]}"; do
  case $f in "$netns_lab" | "$slurm_lab") lab_files+=("$f") ;; *) alone_files+=("$f") ;; esac
done
rest_log=$(mktemp /tmp/gpucheck-integration-rest-XXXXXX.log)
echo "test-integration.sh: ${#hosts_files[@]} files in the hosts shard and ${#rest_files[@]} in the rest at once, then ${#quiet_files[@]} timing-sensitive ones (the rest's output follows the hosts')" >&2
t1=$SECONDS
bun test --timeout 120000 --path-ignore-patterns="node_modules/**" "${rest_args[@]}" "${rest_files[@]}" >"$rest_log" 2>&1 &
rest_pid=$!
bun test --timeout 120000 --path-ignore-patterns="node_modules/**" "$@" "${hosts_files[@]}"
hosts_rc=$?
hosts_s=$((SECONDS - t1))
wait $rest_pid
rest_rc=$?
rest_s=$((SECONDS - t1))
echo "test-integration.sh: the rest shard's output:" >&2
cat "$rest_log"
rm -f "$rest_log"
t2=$SECONDS
quiet_rc=0
if [ ${#alone_files[@]} -gt 0 ]; then
  bun test --timeout 120000 --path-ignore-patterns="node_modules/**" "${quiet_args[@]}" "${alone_files[@]}"
  quiet_rc=$?
fi
alone_s=$((SECONDS - t2))
t3=$SECONDS
lab_rc=0
if [[ " ${lab_files[*]} " == *" $slurm_lab "* ]]; then
  lab_log=$(mktemp /tmp/gpucheck-integration-slurm-lab-XXXXXX.log)
  bun test --timeout 120000 --path-ignore-patterns="node_modules/**" "${lab_args[@]}" "$slurm_lab" >"$lab_log" 2>&1 &
  lab_pid=$!
fi
if [[ " ${lab_files[*]} " == *" $netns_lab "* ]]; then
  bun test --timeout 120000 --path-ignore-patterns="node_modules/**" "${netns_args[@]}" "$netns_lab" || lab_rc=1
fi
if [ -n "${lab_pid:-}" ]; then
  wait $lab_pid || lab_rc=1
  echo "test-integration.sh: the namespaced Slurm cluster's file's output:" >&2
  cat "$lab_log"
  rm -f "$lab_log"
fi
echo "test-integration.sh: hosts shard ${hosts_s} s and rest shard ${rest_s} s at once, then the soak and CPU-cap files ${alone_s} s alone, then both labs' isolation files $((SECONDS - t3)) s at once" >&2
[ $no_daemon_rc = 0 ] && [ $hosts_rc = 0 ] && [ $rest_rc = 0 ] && [ $quiet_rc = 0 ] && [ $lab_rc = 0 ]
