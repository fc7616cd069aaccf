#!/usr/bin/env bash
# An each-node inventory over N nodes of the fake Kubernetes API (test/k8s-fake: an in-process API
# server, scheduler and kubelet whose containers are local processes), through the compiled binary,
# every node answered by the workload's stand-in (test/standin/python3: canned outputs, no torch).
#
#   bash bench/fleet-k8s.sh [N=1000]
#
# Prints the wall time, gpucheck's peak RSS and CPU (GNU time, the binary and what it waited for),
# the fake server's own peak RSS, and the run's first summary line.
set -euo pipefail
N=${1:-1000}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/compiled/gpucheck
[ -x "$bin" ] || { echo "build first: node_modules/.bin/bun run scripts/build.ts gpucheck" >&2; exit 2; }
work=$(mktemp -d /tmp/gpucheck-fleet-k8s-XXXXXX)
"$root/node_modules/.bin/bun" "$root/test/k8s-fake/serve.ts" "$work" "$N" >"$work/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT
until grep -q '^ready ' "$work/serve.log"; do sleep 0.2; kill -0 $server || { cat "$work/serve.log"; exit 1; }; done
cat >"$work/suite.yaml" <<YAML
name: fleet-k8s-inventory
platform:
  type: k8s
  k8s:
    image: local/python
defaults: { gpusPerNode: 0, ranksPerNode: 1, timeout: 10m }
tests:
  - name: inventory
    kind: inventory
    perNode: true
    nodes: $N
YAML
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
cd "$work"
KUBECONFIG=$work/kubeconfig /usr/bin/time -f "%e s wall, %M KiB peak RSS, %U s user, %S s sys" -o "$work/time" \
  "$bin" suite suite.yaml --python "$root/test/standin/python3" --out "$work/run" --progress none >"$work/stdout" 2>"$work/stderr" || true
echo "gpucheck on $N fake k8s nodes: $(cat "$work/time"); $(head -1 "$work/stdout")"
echo "fake API server peak RSS: $(grep VmHWM /proc/$server/status | awk '{print $2, $3}')"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
grep -v '^\s*$' "$work/stdout" | sed -n 2,4p
tail -3 "$work/stderr"
