#!/usr/bin/env bash
# A simulated InfiniBand subnet that the real infiniband-diags tools talk to, for the fabric kind's tests.
# Debian 12: ibsim-utils (ibsim, ibsim-run, libumad2sim), infiniband-diags, opensm. ibsim serves the
# MADs that libibumad would send to /dev/umad*; `ibsim-run CMD` preloads libumad2sim so that CMD
# (ibnetdiscover, iblinkinfo, perfquery, ibportstate, opensm) talks to it instead of a kernel. opensm runs
# one sweep (-o) to give every port a LID, which perfquery and ibportstate address ports by.
#
#   bash test/infra/ibsim.sh start [NETFILE]   ibsim on NETFILE (default: test/fixtures/fabric/fat-tree.net),
#                                              then one opensm sweep; prints the env file's path
#   bash test/infra/ibsim.sh cmd 'LINE'        one line to ibsim's console (Unlink, Link, ReLink,
#                                              PerformanceSet ...; `help` lists them), answer in $BASE/ibsim.log
#   bash test/infra/ibsim.sh sweep [PARTS]     opensm sweeps again (after a link change, as an SM would);
#                                              PARTS: a partitions.conf that opensm applies (-P), PKeys per port
#   bash test/infra/ibsim.sh stop              ibsim, its console holder and the state directory go
#   bash test/infra/ibsim.sh status            running or not
#
# The console is a fifo held open by a sleeping writer, so that ibsim never reads end-of-file between
# commands. IBSIM_SOCKNAME gives this subnet its own socket name, so another ibsim on the machine is
# another subnet. What tests read: $BASE/env (GPUCHECK_IBSIM_SOCKNAME, GPUCHECK_IBSIM_NET).
set -euo pipefail
BASE=${GPUCHECK_IBSIM_BASE:-/run/gpucheck-test/ibsim}
SOCK=${GPUCHECK_IBSIM_SOCKNAME:-gpucheck-ibsim}
here=$(cd "$(dirname "$0")" && pwd)

alive() { [[ -f $BASE/$1.pid ]] && kill -0 "$(cat "$BASE/$1.pid")" 2>/dev/null; }

sweep() {
  # One opensm sweep: assigns LIDs and brings ports to Active; -o exits once the subnet is up.
  local parts=()
  [[ -n ${1:-} ]] && parts=(-P "$(realpath "$1")")
  IBSIM_SOCKNAME=$SOCK OSM_TMP_DIR=$BASE OSM_CACHE_DIR=$BASE timeout 60 ibsim-run opensm -o "${parts[@]}" -f "$BASE/opensm.log" >"$BASE/opensm.out" 2>&1 ||
    { echo "ibsim.sh: opensm's sweep failed, see $BASE/opensm.out" >&2; return 1; }
}

start() {
  local net=${1:-$here/../fixtures/fabric/fat-tree.net}
  net=$(realpath "$net")
  for tool in ibsim ibsim-run opensm ibnetdiscover; do
    command -v "$tool" >/dev/null || { echo "ibsim.sh: $tool is missing: apt-get install ibsim-utils infiniband-diags opensm" >&2; exit 1; }
  done
  alive ibsim && stop
  mkdir -p "$BASE"
  rm -f "$BASE/console"
  mkfifo "$BASE/console"
  IBSIM_SOCKNAME=$SOCK setsid ibsim -s "$net" <"$BASE/console" >"$BASE/ibsim.log" 2>&1 &
  echo $! >"$BASE/ibsim.pid"
  setsid sleep 1000000 >"$BASE/console" 2>/dev/null </dev/null &
  echo $! >"$BASE/holder.pid"
  for _ in $(seq 50); do grep -q 'Network simulator ready' "$BASE/ibsim.log" && break; sleep 0.1; done
  grep -q 'Network simulator ready' "$BASE/ibsim.log" || { echo "ibsim.sh: ibsim did not start, see $BASE/ibsim.log" >&2; exit 1; }
  sweep
  printf 'GPUCHECK_IBSIM_SOCKNAME=%s\nGPUCHECK_IBSIM_NET=%s\nGPUCHECK_IBSIM_BASE=%s\n' "$SOCK" "$net" "$BASE" >"$BASE/env"
  echo "$BASE/env"
}

cmd() {
  alive ibsim || { echo "ibsim.sh: ibsim is not running (bash test/infra/ibsim.sh start)" >&2; exit 1; }
  # ibsim answers on its log; the command is done when the next prompt is printed after it.
  local before
  before=$(grep -o 'sim>' "$BASE/ibsim.log" | wc -l)
  printf '%s\n' "$1" >"$BASE/console"
  for _ in $(seq 50); do (($(grep -o 'sim>' "$BASE/ibsim.log" | wc -l) > before)) && return 0; sleep 0.05; done
  echo "ibsim.sh: ibsim did not answer '$1', see $BASE/ibsim.log" >&2
  exit 1
}

stop() {
  for p in holder ibsim; do
    if alive "$p"; then kill "$(cat "$BASE/$p.pid")" 2>/dev/null || true; fi
  done
  rm -rf "$BASE"
}

case "${1:-}" in
  start) start "${2:-}" ;;
  cmd) cmd "$2" ;;
  sweep) sweep "${2:-}" ;;
  stop) stop ;;
  status) if alive ibsim; then echo "ibsim running, pid $(cat "$BASE/ibsim.pid")"; else echo "ibsim not running"; exit 1; fi ;;
  *) sed -n '8,13p' "$0"; exit 2 ;;
esac
