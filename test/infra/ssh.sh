#!/usr/bin/env bash
# Fake bare-metal hosts for the ssh platform's tests and benchmark: real OpenSSH sshd's on loopback.
# Debian 12, root, no systemd, OpenSSH 9.2.
#
#   bash test/infra/ssh.sh start [N]     N hosts (at least 4; without N: 4, or as many as already run, so
#                                        that a test run does not stop a benchmark's hosts): install if
#                                        needed, configure, start, verify login
#   bash test/infra/ssh.sh stop          stop every sshd this script started, and their connections
#   bash test/infra/ssh.sh status        one line per host: alive or not
#   bash test/infra/ssh.sh kill-host I   simulate the death of host I (1-based): SIGKILL its sshd and
#                                        every connection it serves; `start` brings it back
#   bash test/infra/ssh.sh freeze-host I a host that stops answering (hung kernel, cut cable): SIGSTOP
#                                        its sshd tree, connections stay open but silent
#   bash test/infra/ssh.sh thaw-host I   SIGCONT it again
#
# Hosts 1-4 are 127.0.0.2-127.0.0.5, one sshd each with its own host key (node1..node4 are aliases in
# the client config). Hosts 5..N (the benchmarks' fleets) are 127.0.1.1 .. 127.0.1.250, 127.0.2.1, ...
# (1,004 hosts end at 127.0.4.250); they share one host key and 16 addresses per sshd: sshd refuses
# more than 16 ListenAddress (MAX_LISTEN_SOCKS), so 1,000 hosts are 63 sshd's.
# All listen on port $PORT. Logins are for the unprivileged user $USER_NAME with one client key.
#
# What the tests read ($BASE/env, sourced or parsed):
#   GPUCHECK_SSH_CONFIG       client config: Port, User, IdentityFile, known_hosts, strict checking, BatchMode
#   GPUCHECK_SSH_HOSTS        the four test hosts, comma-separated
#   GPUCHECK_SSH_BENCH_HOSTS  hosts 5..N, comma-separated (empty unless N > 4)
#   GPUCHECK_SSH_USER  GPUCHECK_SSH_PORT  GPUCHECK_SSH_BASE
#
# The sshd setup it shares with test/infra/netns.sh (and why it looks the way it does) is in
# test/infra/sshd-lib.sh.
set -euo pipefail

BASE=${GPUCHECK_SSH_BASE:-/run/gpucheck-test/ssh}
PORT=${GPUCHECK_SSH_PORT:-2722}
USER_NAME=${GPUCHECK_SSH_USER:-gpucheck-ssh}
TEST_HOSTS=4
PER_SSHD=16

log() { echo "[test/infra/ssh] $*" >&2; }

# shellcheck source=test/infra/sshd-lib.sh
. "$(dirname "$0")/sshd-lib.sh"

addr_of() { # addr_of I: the loopback address of host I
  local i=$1
  if [ "$i" -le $TEST_HOSTS ]; then echo "127.0.0.$((i + 1))"
  else local k=$((i - TEST_HOSTS - 1)); echo "127.0.$((1 + k / 250)).$((k % 250 + 1))"; fi
}

cmd=${1:-start}
case "$cmd" in
stop)
  for f in "$BASE"/host*/sshd.pid "$BASE"/bench*/sshd.pid; do [ -e "$f" ] && kill_tree "$f"; done
  log "stopped"
  exit 0
  ;;
status)
  rc=0
  for d in "$BASE"/host* "$BASE"/bench*; do
    [ -d "$d" ] || continue
    if alive "$d/sshd.pid"; then echo "$(basename "$d") alive pid $(cat "$d/sshd.pid")"; else echo "$(basename "$d") down"; rc=1; fi
  done
  exit $rc
  ;;
kill-host)
  i=${2:?usage: ssh.sh kill-host I}
  [ "$i" -le $TEST_HOSTS ] || { log "kill-host works on hosts 1-$TEST_HOSTS"; exit 2; }
  kill_tree "$BASE/host$i/sshd.pid"
  log "host$i ($(addr_of "$i")) killed"
  exit 0
  ;;
freeze-host | thaw-host)
  i=${2:?usage: ssh.sh $cmd I}
  f="$BASE/host$i/sshd.pid"
  alive "$f" || { log "host$i is not running"; exit 1; }
  sig=STOP; [ "$cmd" = thaw-host ] && sig=CONT
  # shellcheck disable=SC2046
  kill -$sig "$(cat "$f")" $(descendants "$(cat "$f")") 2>/dev/null || true
  log "host$i ($(addr_of "$i")) ${cmd%-host}"
  exit 0
  ;;
start) ;;
*) echo "usage: ssh.sh start [N] | stop | status | kill-host I | freeze-host I | thaw-host I" >&2; exit 2 ;;
esac

running_bench=$(cat "$BASE"/bench*/sshd_config 2>/dev/null | grep -c '^ListenAddress' || true)
N=${2:-$((TEST_HOSTS + running_bench))}
[ "$N" -ge $TEST_HOSTS ] || N=$TEST_HOSTS
T0=$(date +%s%N)

install_openssh
setup_user_and_key

known="$BASE/known_hosts.new"; : >"$known"
for i in $(seq 1 $TEST_HOSTS); do
  d="$BASE/host$i"; a=$(addr_of "$i"); mkdir -p "$d"
  [ -s "$d/ssh_host_ed25519_key" ] || ssh-keygen -q -t ed25519 -N '' -C "node$i" -f "$d/ssh_host_ed25519_key"
  # each host its own TMPDIR, as each real host has its own /tmp: Open MPI's daemons keep their session
  # directory in /tmp/ompi.<hostname>.<uid>, and two "hosts" of one kernel (one hostname) sharing it
  # race, one job's cleanup against the next's start ("orte_session_dir failed", mpirun exit 213:
  # seen in CI, 1 run of about 20 under load here)
  install -d -m 700 -o "$USER_NAME" -g "$USER_NAME" "$d/tmp"
  { echo "# host$i"; echo "ListenAddress $a:$PORT"; echo "SetEnv TMPDIR=$d/tmp"; common_sshd_config "$d/ssh_host_ed25519_key" "$d/sshd.pid"; } >"$d/sshd_config"
  echo "[$a]:$PORT $(cut -d' ' -f1,2 "$d/ssh_host_ed25519_key.pub")" >>"$known"
  start_sshd "$d"
done

bench_hosts=()
if [ "$N" -gt $TEST_HOSTS ]; then
  key="$BASE/bench_host_ed25519_key"
  [ -s "$key" ] || ssh-keygen -q -t ed25519 -N '' -C bench -f "$key"
  for i in $(seq $((TEST_HOSTS + 1)) "$N"); do bench_hosts+=("$(addr_of "$i")"); done
  for g in $(seq 0 $(((${#bench_hosts[@]} - 1) / PER_SSHD))); do
    d="$BASE/bench$g"; mkdir -p "$d"
    { echo "# bench group $g"
      for a in "${bench_hosts[@]:$((g * PER_SSHD)):$PER_SSHD}"; do echo "ListenAddress $a:$PORT"; done
      common_sshd_config "$key" "$d/sshd.pid"; } >"$d/sshd_config.new"
    # a group whose address list changed (different N) must restart
    if ! cmp -s "$d/sshd_config.new" "$d/sshd_config" 2>/dev/null; then
      [ -e "$d/sshd.pid" ] && kill_tree "$d/sshd.pid"
      mv "$d/sshd_config.new" "$d/sshd_config"
    else rm -f "$d/sshd_config.new"; fi
    start_sshd "$d"
  done
  # known_hosts accepts patterns: one line covers every benchmark address
  for net in $(printf '%s\n' "${bench_hosts[@]}" | cut -d. -f1-3 | sort -u); do
    echo "[$net.*]:$PORT $(cut -d' ' -f1,2 "$key.pub")" >>"$known"
  done
fi
# groups beyond the current N (an earlier, larger start) stop
for d in "$BASE"/bench*; do
  [ -d "$d" ] || continue
  g=${d##*/bench}
  if [ $((g * PER_SSHD)) -ge ${#bench_hosts[@]} ]; then kill_tree "$d/sshd.pid"; rm -rf "$d"; fi
done
mv "$known" "$BASE/known_hosts"

cat >"$BASE/config" <<EOF
# generated by test/infra/ssh.sh: the fake hosts on loopback
Host node1
  HostName 127.0.0.2
Host node2
  HostName 127.0.0.3
Host node3
  HostName 127.0.0.4
Host node4
  HostName 127.0.0.5
Host node* 127.0.*
  Port $PORT
$(client_options)
EOF
chmod 644 "$BASE/config"

# a second fleet (another GPUCHECK_SSH_BASE and port, e.g. bench/fleet-ssh.sh's 1,000 hosts) gets its
# own file, so it never rewrites the test hosts' one under another session's tests
if [ "$BASE" = /run/gpucheck-test/ssh ]; then install_user_config ssh; else install_user_config "ssh-$PORT"; fi

# Open MPI 4.1's orted shares its hwloc topology through shared memory mapped at a "hole" it
# guesses in its address space; with four hosts on one kernel the guess sometimes lands on a
# mapping and orted segfaults in hwloc_shmem_topology_write (about 1 run in 5 here). The test
# cluster's MPI is configured the way a site admin would: no shared topology.
home=$(getent passwd "$USER_NAME" | cut -d: -f6)
install -d -m 755 -o "$USER_NAME" -g "$USER_NAME" "$home/.openmpi"
printf '# generated by test/infra/ssh.sh\nrtc_hwloc_vmhole = none\n' >"$home/.openmpi/mca-params.conf"
chown "$USER_NAME:$USER_NAME" "$home/.openmpi/mca-params.conf"

hosts=$(for i in $(seq 1 $TEST_HOSTS); do addr_of "$i"; done | paste -sd,)
cat >"$BASE/env" <<EOF
GPUCHECK_SSH_CONFIG=$BASE/config
GPUCHECK_SSH_HOSTS=$hosts
GPUCHECK_SSH_BENCH_HOSTS=$(IFS=,; echo "${bench_hosts[*]}")
GPUCHECK_SSH_USER=$USER_NAME
GPUCHECK_SSH_PORT=$PORT
GPUCHECK_SSH_BASE=$BASE
EOF

# every host must accept a key login before the tests start (max ~10 s per host)
IFS=, read -r -a check <<<"$hosts"
# of the benchmark hosts, the first and the last (the others share their sshd's)
[ ${#bench_hosts[@]} -gt 0 ] && check+=("${bench_hosts[0]}" "${bench_hosts[${#bench_hosts[@]} - 1]}")
for a in "${check[@]}"; do wait_login "$a" "$a" || exit 1; done
log "ready: $N hosts ($hosts${bench_hosts[*]:+, ${bench_hosts[0]}..${bench_hosts[${#bench_hosts[@]} - 1]}}) port $PORT user $USER_NAME, config $BASE/config, in $((($(date +%s%N) - T0) / 1000000)) ms"
echo "$BASE/env"
