#!/usr/bin/env bash
# An each-node inventory over a simulated fleet of ssh hosts, through the compiled binary: N real
# sshd addresses on loopback (test/infra/ssh.sh, 16 per sshd), every node answered by the workload's
# stand-in (test/standin/python3: canned outputs, no torch), so the run measures gpucheck's fan-out,
# not the nodes. Then the same command on the same hosts through `pdsh -R ssh -f FANOUT`.
#
#   bash bench/fleet-ssh.sh [N=1000] [FANOUT=64] [REPS=3] [MODE=inventory]
#
# MODE=preflight is the bare fan-out of one short command: `gpucheck suite --preflight-only`, warm
# (one unmeasured run first stages the workload on every host, as any run after the first finds it),
# against pdsh running the same preflight probe of the stand-in, one ssh session per host each.
#
# Its own fleet (GPUCHECK_SSH_BASE=/run/gpucheck-fleet/ssh, port 2733) so that the test hosts of
# another session (/run/gpucheck-test/ssh, port 2722) are never restarted. Prints, per rep, the wall
# time, gpucheck's peak RSS and CPU (GNU time), the run's verdict counts, and pdsh's wall and CPU.
set -euo pipefail
N=${1:-1000}
FANOUT=${2:-64}
REPS=${3:-3}
MODE=${4:-inventory}
case $MODE in inventory | preflight) ;; *) echo "MODE is inventory or preflight, not $MODE" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
export GPUCHECK_SSH_BASE=${GPUCHECK_SSH_BASE:-/run/gpucheck-fleet/ssh} GPUCHECK_SSH_PORT=${GPUCHECK_SSH_PORT:-2733}
bin=$root/compiled/gpucheck
[ -x "$bin" ] || { echo "build first: node_modules/.bin/bun run scripts/build.ts gpucheck" >&2; exit 2; }

t0=$(date +%s%N)
bash "$root/test/infra/ssh.sh" start $((N + 4)) >/dev/null
echo "fleet: $N hosts up in $((($(date +%s%N) - t0) / 1000000)) ms; sshd listeners' RSS $(ps -C sshd -o rss= | awk '{s+=$1} END {printf "%.0f MiB over %d", s/1024, NR}') processes"
# shellcheck disable=SC1091
. "$GPUCHECK_SSH_BASE/env"
work=$(mktemp -d /tmp/gpucheck-fleet-XXXXXX)
trap 'rm -rf "$work"' EXIT
# the stand-in where the test user can read it (a worktree under /work may not be)
install -d -m 755 "$work/standin" "$work/standin/canned"
install -m 755 "$root/test/standin/python3" "$work/standin/python3"
install -m 644 "$root"/test/standin/canned/* "$work/standin/canned/"
chmod 755 "$work"
tr , '\n' <<<"$GPUCHECK_SSH_BENCH_HOSTS" | head -n "$N" >"$work/hosts"
cat >"$work/suite.yaml" <<YAML
name: fleet-inventory
defaults: { gpusPerNode: 0, ranksPerNode: 1 }
tests:
  - name: inventory
    kind: inventory
platform:
  type: ssh
  ssh:
    configFile: $GPUCHECK_SSH_CONFIG
    hostfile: $work/hosts
    maxParallel: $FANOUT
    launcher: gpucheck
YAML

gpucheck_args=(--each-node) pdsh_cmd="GPUCHECK_NODE=\$(hostname) $work/standin/python3 -m gpucheck_workload inventory"
if [ "$MODE" = preflight ]; then
  gpucheck_args=(--preflight-only)
  pdsh_cmd="GPUCHECK_NODE=\$(hostname) $work/standin/python3 -m gpucheck_workload preflight --python $work/standin/python3"
  "$bin" suite "$work/suite.yaml" --python "$work/standin/python3" --preflight-only --out "$work/warm-up" --progress none >"$work/stdout" 2>&1 || true
  echo "warm-up (stages the workload on every host): $(head -1 "$work/stdout")"
fi
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for rep in $(seq 1 "$REPS"); do
  out=$work/run$rep
  /usr/bin/time -f "%e s wall, %M KiB peak RSS, %U s user, %S s sys" -o "$work/time" \
    "$bin" suite "$work/suite.yaml" --python "$work/standin/python3" "${gpucheck_args[@]}" --out "$out" --progress none >"$work/stdout" 2>"$work/stderr" || true
  echo "gpucheck rep $rep: $(cat "$work/time"); $(head -1 "$work/stdout")"
  PDSH_SSH_ARGS="-F $GPUCHECK_SSH_CONFIG -o BatchMode=yes -l%u %h" /usr/bin/time -f "%e s wall, %M KiB peak RSS, %U s user, %S s sys" -o "$work/ptime" \
    pdsh -R ssh -f "$FANOUT" -l "$GPUCHECK_SSH_USER" -w "^$work/hosts" "$pdsh_cmd" >"$work/pdsh.out" 2>"$work/pdsh.err" || true
  echo "pdsh -f $FANOUT rep $rep: $(cat "$work/ptime"); $(grep -c GPUCHECK_RESULT "$work/pdsh.out") results, $(wc -l <"$work/pdsh.err") stderr lines"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
tail -3 "$work/stderr"
