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
[ ${#paths[@]} -eq 0 ] && set -- "$@" test/integration
bun test --timeout 120000 --path-ignore-patterns="node_modules/**" "$@"
