#!/usr/bin/env bash
# An each-node inventory over the local Slurm's logical nodes, through the compiled binary: the
# nodes are slurmd's on this host (test/infra/slurm.sh, reconfigured to N nodes), every node answered
# by the workload's stand-in (test/standin/python3: canned outputs, no torch), so the run measures
# gpucheck's submission, one job-wide step and the verdicts, not the nodes.
#
#   bash bench/fleet-slurm.sh [N=64] [REPS=3]
#
# Prints, per rep, the wall time, gpucheck's peak RSS and CPU (GNU time), the run's first line, the
# srun lines of the batch script and the step marks in its output; then the slurmd's memory. Leaves
# the cluster at N nodes: `bash test/infra/slurm.sh start` (4, the tests' size) puts it back.
set -euo pipefail
N=${1:-64}
REPS=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/compiled/gpucheck
[ -x "$bin" ] || { echo "build first: node_modules/.bin/bun run scripts/build.ts gpucheck" >&2; exit 2; }
t0=$(date +%s%N)
SLURM_NODES=$N SLURM_WAIT=600 bash "$root/test/infra/slurm.sh" start >/dev/null
echo "slurm: $N nodes idle in $((($(date +%s%N) - t0) / 1000000)) ms; slurmd RSS $(ps -C slurmd -o rss= | awk '{s+=$1} END {printf "%.0f MiB over %d", s/1024, NR}') processes"
work=$(mktemp -d /tmp/gpucheck-fleet-slurm-XXXXXX)
trap 'rm -rf "$work"' EXIT
cat >"$work/suite.yaml" <<YAML
name: fleet-inventory
defaults: { gpusPerNode: 0, ranksPerNode: 1 }
tests:
  - name: inventory
    kind: inventory
platform:
  type: slurm
YAML
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for rep in $(seq 1 "$REPS"); do
  out=$work/run$rep
  /usr/bin/time -f "%e s wall, %M KiB peak RSS, %U s user, %S s sys" -o "$work/time" \
    "$bin" suite "$work/suite.yaml" --python "$root/test/standin/python3" --out "$out" --progress none >"$work/stdout" 2>"$work/stderr" || true
  script=$out/logs/inventory/job.sbatch
  marks=$(cat "$out"/logs/inventory/slurm-*.out 2>/dev/null | grep -c '^gpucheck-step ' || true)
  echo "gpucheck rep $rep: $(cat "$work/time"); $(head -1 "$work/stdout"); $(grep -c '^ *srun ' "$script") srun lines in the script, $marks step marks"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
