#!/usr/bin/env bash
# The integration tier (npm run test:integration): builds compiled/gpucheck, starts the real daemons
# (sshd, Slurm, dockerd, podman on loopback; the fault lab's hosts and a second Slurm cluster in network namespaces) with
# test/infra/*.sh, runs bun test on test/integration/
# (the platforms against those daemons, the end-to-end runs of the built binary), stops the daemons.
# Needs the Debian packages of scripts/ci-deps.sh (scripts/test.sh installs them).
#   bash scripts/test-integration.sh                      the whole tier
#   bash scripts/test-integration.sh test/integration/e2e/local.test.ts
# Arguments go to bun test (scripts/test.sh passes its JUnit reporter). A daemon that does not start
# is still listed in GPUCHECK_INFRA: its tests fail loudly rather than skip.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
bun run build >/dev/null || { echo "test-integration.sh: build failed" >&2; exit 1; }
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
t0=$SECONDS
{ start ssh; start netns; } &
{ start slurm; start slurm-lab; } &
start docker &
wait
echo "test-integration.sh: daemons started in $((SECONDS - t0)) s ($(for n in "${infra[@]}"; do printf '%s %s s, ' "$n" "$(cat "/tmp/gpucheck-infra-$n.seconds")"; done | sed 's/, $//'))" >&2
stop() { for name in "${infra[@]}"; do [ -f "test/infra/$name.sh" ] && bash "test/infra/$name.sh" stop >/dev/null 2>&1; done; }
trap stop EXIT
# docker.sh also starts podman's Docker-compatible API when it can
[ -S /run/podman/podman.sock ] && infra+=("podman")
export GPUCHECK_INFRA=$(IFS=,; echo "${infra[*]}")
echo "test-integration.sh: infra: $GPUCHECK_INFRA" >&2

paths=()
for a in "$@"; do [[ $a == -* ]] || paths+=("$a"); done
if [ ${#paths[@]} -gt 0 ] || [ "${GPUCHECK_INTEGRATION_SHARDS:-1}" != 2 ]; then
  [ ${#paths[@]} -eq 0 ] && set -- "$@" test/integration
  bun test --timeout 120000 --path-ignore-patterns="node_modules/**" "$@"
  exit $?
fi

# GPUCHECK_INTEGRATION_SHARDS=2 runs the whole tier as two bun processes at once. Not the default:
# measured on a fresh clone (BENCHMARKS.md, CI time per tier) it took the tier from about 2,950 s to
# about 2,400 s, but the timing-sensitive fault tests (a hung pair cut at 30 s, a soak's drift of a rank
# at full speed) failed under the other shard's load, and CI must be green. The
# "daemons" shard holds every file that uses the loopback sshd's, the local Slurm, dockerd or podman
# (test/infra/ssh.sh, slurm.sh, docker.sh): those tests stop hosts, drain nodes and count what is left
# on them, so they run one after another as before. The "lab" shard holds the rest: the fault lab's
# namespaced hosts and Slurm cluster (netns.sh, slurm-lab.sh), cgroup and blkio limits, the fake
# Kubernetes API, the local platform. The two sums are about even. By default the tier is one process,
# in bun's order.
daemons=(test/integration/platforms/ssh test/integration/platforms/docker test/integration/platforms/slurm
  test/integration/e2e/kill-matrix.test.ts test/integration/e2e/attacks.test.ts test/integration/e2e/docker.test.ts
  test/integration/e2e/fail-fast-rerun.test.ts test/integration/e2e/preflight.test.ts
  test/integration/e2e/output-pipes.test.ts test/integration/health/slurm-drain.test.ts
  test/integration/report/validators.test.ts test/integration/infra.test.ts test/integration/binary.test.ts
  test/integration/infra/fault-lab-slurm.test.ts)
mapfile -t all < <(find test/integration -name '*.test.ts' | sort)
lab_files=() daemon_files=()
for f in "${all[@]}"; do
  in_daemons=""
  for d in "${daemons[@]}"; do [[ $f == "$d"* ]] && in_daemons=1; done
  if [ -n "$in_daemons" ]; then daemon_files+=("$f"); else lab_files+=("$f"); fi
done
# each shard writes its own JUnit report (the lab's beside the one asked for, with -lab in its name):
# scripts/test.sh counts every report in its directory
lab_args=()
for a in "$@"; do
  if [[ $a == --reporter-outfile=* ]]; then lab_args+=("${a%.xml}-lab.xml"); else lab_args+=("$a"); fi
done
lab_log=$(mktemp /tmp/gpucheck-integration-lab-XXXXXX.log)
echo "test-integration.sh: ${#daemon_files[@]} files in the daemons shard, ${#lab_files[@]} in the lab shard (its output follows)" >&2
bun test --timeout 120000 --path-ignore-patterns="node_modules/**" "${lab_args[@]}" "${lab_files[@]}" >"$lab_log" 2>&1 &
lab_pid=$!
bun test --timeout 120000 --path-ignore-patterns="node_modules/**" "$@" "${daemon_files[@]}"
daemon_rc=$?
wait $lab_pid
lab_rc=$?
echo "test-integration.sh: the lab shard's output:" >&2
cat "$lab_log"
rm -f "$lab_log"
[ $daemon_rc = 0 ] && [ $lab_rc = 0 ]
