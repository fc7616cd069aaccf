#!/usr/bin/env bash
# Fake hosts with their own network stacks, for the tests that must find one bad host: each host is a
# network namespace with its own sshd, joined to a bridge by a veth pair, and has its own cgroup, so
# that a fault slows, cuts, caps or freezes exactly that host. Debian 12, root, iproute2 6.1.
#
#   bash test/infra/netns.sh start [N]        hosts ns1..nsN (without N: 4, or as many as already run)
#   bash test/infra/netns.sh stop             remove every namespace, veth, the bridge, sshd and cgroup
#   bash test/infra/netns.sh status           one line per host: its sshd, its link and its faults
# Faults on host I (a number or nsI), each with its undo:
#   slow I RATE / unslow I           tc tbf at RATE (500kbit, 10mbit, 1gbit) on both ends of its veth
#   netem I "SPEC" / unnetem I       "loss P%": a BPF dropper on both ends; netem's other options
#                                    ("delay 50ms") as a netem qdisc, where the kernel has sch_netem
#   cut I / uncut I                  its veth down on the bridge side: no carrier, packets vanish
#   cut-fabric I / uncut-fabric I    the same for its fabric link only: ssh (the management network)
#                                    still reaches it, ranks that talk over fab0 do not
#   cpu-cap I PERCENT / cpu-uncap I  the host's processes together get PERCENT of one CPU
#   freeze I / thaw I                every process of the host stops (cgroup freezer)
#   clear I / clear-all              undo every fault on host I / on every host
#
# Each host also has a second link, fab0 with 10.89.0.(10+I)/24, to a second bridge gc-fab (a
# cluster's fabric beside its management network, as InfiniBand is beside Ethernet): ranks told to
# use it (GLOO_SOCKET_IFNAME=fab0) lose each other when it is cut while ssh still reaches the host.
# Host I is namespace gc-hI with 10.88.0.(10+I)/24 on its eth0; the veth's other end is gc-hI in the
# root namespace, a port of the bridge gc-br (10.88.0.1/24), through which the gpucheck client on
# this machine reaches the hosts and the hosts reach each other. ns1..nsN resolve through /etc/hosts
# (lines marked "# gpucheck-netns") and HostName lines in the client config. Each sshd listens on port
# 22 of its own address, started with `ip netns exec`, which also gives it the namespace's own /sys
# (so /sys/class/net shows eth0 and lo, as on a host; /sys/fs/cgroup is not mounted there), and in
# its own UTS namespace, so `hostname` prints nsI. Everything else is this machine's: filesystem,
# users, PIDs, CPUs.
# The user, key, sshd settings and the user's host-to-host ssh config are test/infra/ssh.sh's
# (test/infra/sshd-lib.sh); the cgroups are test/infra/cgroup-lib.sh's (gpucheck-netns/hI).
#
# What the tests read ($BASE/env):
#   GPUCHECK_NETNS_HOSTS       ns1,...,nsN
#   GPUCHECK_NETNS_ADDRS       their addresses, in the same order
#   GPUCHECK_NETNS_SSH_CONFIG  client config: the names, Port, User, IdentityFile, known_hosts, BatchMode
#   GPUCHECK_NETNS_USER  GPUCHECK_NETNS_BASE
set -euo pipefail

BASE=${GPUCHECK_NETNS_BASE:-/run/gpucheck-test/netns}
USER_NAME=${GPUCHECK_SSH_USER:-gpucheck-ssh}
CG_STATE=$BASE/cgroup
BRIDGE=gc-br
FABRIC=gc-fab
NET=10.88.0
FABNET=10.89.0
GROUP=gpucheck-netns # host I's cgroup is $GROUP/hI
MAX_HOSTS=200
HERE=$(dirname "$0")

log() { echo "[test/infra/netns] $*" >&2; }
die() { echo "netns.sh: $*" >&2; exit 2; }
usage() { echo "usage: netns.sh $*" >&2; exit 2; }

# shellcheck source=test/infra/sshd-lib.sh
. "$HERE/sshd-lib.sh"
# shellcheck source=test/infra/cgroup-lib.sh
. "$HERE/cgroup-lib.sh"
# shellcheck source=test/infra/netns-faults.sh
. "$HERE/netns-faults.sh"

addr_of() { echo "$NET.$((10 + $1))"; }
group_of() { echo "$GROUP/h$1"; }
sshd_pid() { cat "$BASE/h$1/sshd.pid" 2>/dev/null || true; }
daemon_pid() { sshd_pid "$1"; } # for netns-faults.sh
host_count() { ls -d "$BASE"/h[0-9]* 2>/dev/null | wc -l || true; }

host_index() { # host_index ARG: ARG (3 or ns3) as the number of a host of the running lab, or die
  local n i=${1#ns}; n=$(host_count)
  [ "$n" -gt 0 ] || die "the lab is not running: bash test/infra/netns.sh start [N]"
  [[ $i =~ ^[0-9]+$ ]] && [ "$i" -ge 1 ] && [ "$i" -le "$n" ] || die "no host $1: the lab has $n hosts (ns1-ns$n)"
  echo "$i"
}

etc_hosts() { # etc_hosts N: the name lines of hosts 1..N (none for 0), rewritten in place
  # /etc/hosts may be a bind mount: keep its inode
  { grep -v '# gpucheck-netns$' /etc/hosts; for i in $(seq 1 "$1"); do echo "$(addr_of "$i") ns$i # gpucheck-netns"; done; } >"$BASE/hosts"
  cmp -s "$BASE/hosts" /etc/hosts || cat "$BASE/hosts" >/etc/hosts
  rm -f "$BASE/hosts"
}

stop_host() { # stop_host I: its sshd and every process of it, its cgroup, namespace and veth
  local ns=gc-h$1
  cg_thaw "$(group_of "$1")" "$(sshd_pid "$1")"
  kill_tree "$BASE/h$1/sshd.pid"
  cg_remove "$(group_of "$1")" "" kill
  # a process started in the namespace some other way (ip netns exec) holds it too
  # shellcheck disable=SC2046
  kill -KILL $(ip netns pids "$ns" 2>/dev/null) 2>/dev/null || true
  ip netns del "$ns" 2>/dev/null || true # takes the veth pair with it
  ip link del "gc-h$1" 2>/dev/null || true
  ip link del "gc-f$1" 2>/dev/null || true
  rm -rf "$BASE/h$1"
}

start_host() { # start_host I: namespace, veth, address, sshd, cgroup (each step skipped when done)
  local i=$1 ns=gc-h$1 d=$BASE/h$1 a; a=$(addr_of "$1")
  ip netns list | grep -q "^$ns\b" || ip netns add "$ns"
  ip link show "gc-h$i" >/dev/null 2>&1 || ip link add "gc-h$i" type veth peer name eth0 netns "$ns"
  ip link set "gc-h$i" master $BRIDGE up
  ip -n "$ns" addr replace "$a/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
  ip link show "gc-f$i" >/dev/null 2>&1 || ip link add "gc-f$i" type veth peer name fab0 netns "$ns"
  ip link set "gc-f$i" master $FABRIC up
  ip -n "$ns" addr replace "$FABNET.$((10 + i))/24" dev fab0
  ip -n "$ns" link set fab0 up
  mkdir -p "$d"
  [ -s "$d/ssh_host_ed25519_key" ] || ssh-keygen -q -t ed25519 -N '' -C "ns$i" -f "$d/ssh_host_ed25519_key"
  { echo "# ns$i"; echo "ListenAddress $a:22"; common_sshd_config "$d/ssh_host_ed25519_key" "$d/sshd.pid"; } >"$d/sshd_config"
  # its own UTS namespace too: `hostname` says nsI, and the inventory (one per hostname) tells hosts apart
  # shellcheck disable=SC2016
  start_sshd "$d" ip netns exec "$ns" unshare --uts sh -c 'hostname "$0" && exec "$@"' "ns$i"
  # sshd's parent returns before the daemon has written its pid file
  for _ in $(seq 50); do alive "$d/sshd.pid" && break; sleep 0.1; done
  alive "$d/sshd.pid" || { log "ns$i: sshd did not start"; return 1; }
  cg_make "$(group_of "$i")"
  cg_join "$(group_of "$i")" "$(sshd_pid "$i")"
}

status_line() { # status_line I
  local i=$1 pid faults
  faults=$(host_faults "$i")
  if alive "$BASE/h$i/sshd.pid"; then read -r pid <"$BASE/h$i/sshd.pid"; echo "ns$i $NET.$((10 + i)) sshd $pid: ${faults:-no fault}"
  else echo "ns$i $NET.$((10 + i)) sshd down: ${faults:-no fault}"; return 1; fi
}

cmd=${1:-start}
case "$cmd" in
stop)
  for d in "$BASE"/h[0-9]*; do [ -d "$d" ] && stop_host "${d##*/h}"; done
  ip link del $BRIDGE 2>/dev/null || true
  ip link del $FABRIC 2>/dev/null || true
  [ -d "$BASE" ] && etc_hosts 0
  home=$(getent passwd "$USER_NAME" | cut -d: -f6 || true)
  [ -n "$home" ] && rm -f "$home/.ssh/config.d/netns" "$home/.ssh/id_netns"
  rm -f "$BASE/env"
  log "stopped"
  exit 0
  ;;
status)
  [ "$(host_count)" -gt 0 ] || die "the lab is not running: bash test/infra/netns.sh start [N]"
  rc=0 n=$(host_count)
  for ((i = 1; i <= n; i++)); do status_line "$i" || rc=1; done
  exit $rc
  ;;
slow | netem | cpu-cap)
  [ $# -eq 3 ] || usage "$cmd I $(case $cmd in slow) echo RATE ;; netem) echo SPEC ;; *) echo PERCENT ;; esac)"
  i=$(host_index "$2")
  case $cmd in
    slow) slow "$i" "$3" ;;
    netem) netem "$i" "$3" ;;
    cpu-cap) is_percent "$3" || die "cpu-cap: \"$3\" is not a percentage of one CPU from 1 to $(max_percent)"
      cg_fault "$(group_of "$i")" "$(sshd_pid "$i")" cpu-cap "$3" ;;
  esac
  exit 0
  ;;
unslow | unnetem | cut | uncut | cut-fabric | uncut-fabric | cpu-uncap | freeze | thaw | clear)
  [ $# -eq 2 ] || usage "$cmd I"
  i=$(host_index "$2")
  case $cmd in
    unslow) unslow "$i" ;;
    unnetem) unnetem "$i" ;;
    cut) cut_link "$i" down ;;
    uncut) cut_link "$i" up ;;
    cut-fabric) cut_fabric "$i" down ;;
    uncut-fabric) cut_fabric "$i" up ;;
    clear) clear_host "$i" ;;
    *) cg_fault "$(group_of "$i")" "$(sshd_pid "$i")" "$cmd" ;;
  esac
  exit 0
  ;;
clear-all)
  [ "$(host_count)" -gt 0 ] || die "the lab is not running: bash test/infra/netns.sh start [N]"
  for i in $(seq 1 "$(host_count)"); do clear_host "$i"; done
  exit 0
  ;;
start) ;;
*) usage "start [N] | stop | status | slow I RATE | unslow I | netem I SPEC | unnetem I | cut I | uncut I | cut-fabric I | uncut-fabric I | cpu-cap I PERCENT | cpu-uncap I | freeze I | thaw I | clear I | clear-all" ;;
esac

N=${2:-$(host_count)}
[ -n "${2:-}" ] || [ "$N" != 0 ] || N=4
[[ $N =~ ^[0-9]+$ ]] && [ "$N" -ge 1 ] && [ "$N" -le $MAX_HOSTS ] || die "start: \"$N\" is not a host count from 1 to $MAX_HOSTS"
T0=$(date +%s%N)

install_openssh
setup_user_and_key
ip link show $BRIDGE >/dev/null 2>&1 || ip link add $BRIDGE type bridge
ip addr replace "$NET.1/24" dev $BRIDGE
ip link set $BRIDGE up
# the fabric bridge carries no address of this machine's: only the hosts talk over it
ip link show $FABRIC >/dev/null 2>&1 || ip link add $FABRIC type bridge
ip link set $FABRIC up
# hosts beyond N (an earlier, larger start) go
for d in "$BASE"/h[0-9]*; do [ -d "$d" ] && [ "${d##*/h}" -gt "$N" ] && stop_host "${d##*/h}"; done
known="$BASE/known_hosts.new"; : >"$known"
for i in $(seq 1 "$N"); do
  start_host "$i"
  echo "$(addr_of "$i"),ns$i $(cut -d' ' -f1,2 "$BASE/h$i/ssh_host_ed25519_key.pub")" >>"$known"
done
mv "$known" "$BASE/known_hosts"
etc_hosts "$N"

{
  echo "# generated by test/infra/netns.sh: hosts in network namespaces"
  for i in $(seq 1 "$N"); do printf 'Host ns%s\n  HostName %s\n' "$i" "$(addr_of "$i")"; done
  echo "Host ns* $NET.*"
  echo "  Port 22"
  client_options
} >"$BASE/config"
chmod 644 "$BASE/config"
install_user_config netns

hosts=$(seq -f 'ns%g' 1 "$N" | paste -sd,)
cat >"$BASE/env" <<EOF
GPUCHECK_NETNS_HOSTS=$hosts
GPUCHECK_NETNS_ADDRS=$(for i in $(seq 1 "$N"); do addr_of "$i"; done | paste -sd,)
GPUCHECK_NETNS_SSH_CONFIG=$BASE/config
GPUCHECK_NETNS_USER=$USER_NAME
GPUCHECK_NETNS_BASE=$BASE
EOF

for i in $(seq 1 "$N"); do wait_login "ns$i" "$(addr_of "$i")" || exit 1; done
log "ready: $N hosts ($hosts, $(addr_of 1)..$(addr_of "$N") on bridge $BRIDGE) user $USER_NAME, config $BASE/config, in $((($(date +%s%N) - T0) / 1000000)) ms"
echo "$BASE/env"
