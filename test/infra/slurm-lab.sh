#!/usr/bin/env bash
# A second Slurm 22.05 cluster whose nodes have networks of their own, so that a network fault lands
# on one Slurm node: each logical node snI runs its slurmd in network namespace gs-nI (and a UTS
# namespace: `hostname` prints snI), joined to bridge gs-br by a veth. Its job steps are forked by
# that slurmd, so the ranks' traffic crosses the node's veth, and a qdisc or a link down on that
# veth is a real fault of that node. Debian 12, root, no systemd; the packages of test/infra/slurm.sh.
#
#   bash test/infra/slurm-lab.sh start [N]    N nodes (default 4): namespaces, slurmctld, slurmd's, idle
#   bash test/infra/slurm-lab.sh stop         daemons, namespaces, veths, bridges, cgroups, /etc/hosts lines
#   bash test/infra/slurm-lab.sh status       sinfo, then one line per node with the faults the kernel shows
# Faults on node I (a number or snI), each with its undo:
#   slow I RATE / unslow I              tc tbf at RATE on both ends of its veth (slurmd and ranks alike)
#   netem I "loss P%" / unnetem I       packet loss both ways (a BPF dropper: this kernel has no netem)
#   cut I / uncut I                     its veth down: slurmctld loses the node too (DOWN after 30 s)
#   cut-fabric I / uncut-fabric I       its fabric link fab0 down; slurmd and the rendezvous keep eth0
#   cpu-cap I PERCENT / cpu-uncap I     its slurmd and steps together get PERCENT of one CPU
#   freeze I / thaw I                   every process of the node stops (cgroup freezer)
#   clear I / clear-all                 undo every fault on node I / on every node
#
# Why a cluster of its own rather than a mode of slurm.sh: slurm.sh's cluster (node1..node4, all on
# 127.0.0.1, /etc/slurm/slurm.conf, port 6817) is what test/integration/platforms/slurm*.ts expect,
# and another worker's test run may be using it; this one has its own config (SLURM_CONF=$CONF, which
# every Slurm command and gpucheck's slurm platform read; sbatch exports it into the job, so the
# batch script's srun reads it too), its own slurmctld port, state, pid and log files, and its own
# node names, which resolve to the namespaces' addresses (MASTER_ADDR=snI reaches the node's eth0).
#
# Layout, beside test/infra/netns.sh's 10.88/10.89 hosts and never touching them:
#   root namespace: slurmctld on 10.90.0.1:6827 (bridge gs-br), munged (a unix socket: every
#   namespace sees the same /run). Node I: eth0 10.90.0.(10+I)/24 on gs-br, fab0 10.91.0.(10+I)/24 on
#   gs-fab (no address of this machine's: only the nodes talk over it), slurmd on port 6818 of eth0.
#   Ranks told GLOO_SOCKET_IFNAME=fab0 move their data over the fabric, as NCCL over InfiniBand does,
#   while slurmd, srun's I/O and the rendezvous (TCPStore at MASTER_ADDR) stay on eth0.
#
# Not real: the nodes share this machine's CPUs, memory, filesystem, users and PIDs (a stageDir on
# /tmp is a shared filesystem here); see test/infra/README.md.
set -euo pipefail

HERE=$(dirname "$0")
STATE=${GPUCHECK_SLURM_LAB_BASE:-/run/gpucheck-test/slurm-lab}
ETC=/etc/slurm-lab
CONF=$ETC/slurm.conf
SPOOL=/var/spool/slurm-lab
LOGS=/var/log/slurm-lab
PORT=6827
NET=10.90.0
FABNET=10.91.0
BRIDGE=gs-br
FABRIC=gs-fab
GROUP=gpucheck-slurm-lab # node I's cgroup is $GROUP/nI
CPUS=${SLURM_CPUS:-4}
WAIT=${SLURM_WAIT:-60}
HOST=$(hostname -s)
CG_STATE=$STATE/cgroup
export SLURM_CONF=$CONF

log() { echo "[test/infra/slurm-lab] $*" >&2; }
die() { echo "slurm-lab.sh: $*" >&2; exit 2; }
usage() { echo "usage: slurm-lab.sh $*" >&2; exit 2; }

# shellcheck source=test/infra/proc-lib.sh
. "$HERE/proc-lib.sh"
# shellcheck source=test/infra/cgroup-lib.sh
. "$HERE/cgroup-lib.sh"
NF_LINK=gs-n NF_FAB=gs-f NF_NAME=sn
# shellcheck source=test/infra/netns-faults.sh
. "$HERE/netns-faults.sh"

addr_of() { echo "$NET.$((10 + $1))"; }
group_of() { echo "$GROUP/n$1"; }
daemon_pid() { cat "$STATE/slurmd-sn$1.pid" 2>/dev/null || true; }
node_count() { ls -d "$STATE"/n[0-9]* 2>/dev/null | wc -l || true; }
alive() { pid_alive "$1" slurmd slurmctld; }

node_index() { # node_index ARG: ARG (2 or sn2) as the number of a node of the running lab, or die
  local n i=${1#sn}; n=$(node_count)
  [ "$n" -gt 0 ] || die "the lab is not running: bash test/infra/slurm-lab.sh start [N]"
  [[ $i =~ ^[0-9]+$ ]] && [ "$i" -ge 1 ] && [ "$i" -le "$n" ] || die "no node $1: the lab has $n nodes (sn1-sn$n)"
  echo "$i"
}

etc_hosts() { # etc_hosts N: the name lines of nodes 1..N (none for 0), rewritten in place (a bind mount keeps its inode)
  mkdir -p "$STATE"
  { grep -v '# gpucheck-slurm-lab$' /etc/hosts; for i in $(seq 1 "$1"); do echo "$(addr_of "$i") sn$i # gpucheck-slurm-lab"; done; } >"$STATE/hosts"
  cmp -s "$STATE/hosts" /etc/hosts || cat "$STATE/hosts" >/etc/hosts
  rm -f "$STATE/hosts"
}

wait_dead() { # wait_dead PIDFILE...: until none is alive (10 s)
  local f any
  for _ in $(seq 100); do
    any=0; for f in "$@"; do ! alive "$f" || any=1; done
    [ $any = 0 ] && return 0; sleep 0.1
  done
  log "still alive after 10 s: $*"; return 1
}

in_service() { # in_service I: wait until slurmctld hears node I again and may schedule on it
  # a slurmd frozen for a test leaves its node DOWN* (not responding) until slurmctld's next ping
  # after the thaw; the next test would find it still down and hold that against it (seen in CI)
  # once slurmctld has set it DOWN for not responding, it pings it again only now and then (here 40 s
  # to well over a minute after the thaw, the lab's 60 s wait ran out in CI): a SIGHUP makes slurmd
  # reconfigure and register with slurmctld, which hears it at once, as a rebooted node's start would
  local node=sn$1 state="" nudged=""
  for _ in $(seq 300); do
    state=$(sinfo -h -n "$node" -o %T 2>/dev/null || true)
    case $state in '' | *'*' | down* | drain* | fail*) ;; *) return 0 ;; esac
    case $state in *'*') [ -n "$nudged" ] || { kill -HUP "$(daemon_pid "$1")" 2>/dev/null || true; nudged=1; } ;; esac
    scontrol ping >/dev/null 2>&1 || true
    case $state in down | drained | draining) scontrol update nodename="$node" state=resume 2>/dev/null || true ;; esac
    sleep 0.2
  done
  log "$node is still ${state:-unlisted} 60 s after its fault was undone"
  return 1
}

stop_node() { # stop_node I: its slurmd and everything of it, its cgroup, namespace and veths
  local ns=gs-n$1 f=$STATE/slurmd-sn$1.pid
  cg_thaw "$(group_of "$1")" "$(daemon_pid "$1")"
  if alive "$f"; then kill "$(cat "$f")" || true; wait_dead "$f" || kill -KILL "$(cat "$f")" 2>/dev/null || true; fi
  # its job steps, and anything else a test started in the namespace
  cg_remove "$(group_of "$1")" "" kill
  # shellcheck disable=SC2046
  kill -KILL $(ip netns pids "$ns" 2>/dev/null) 2>/dev/null || true
  ip netns del "$ns" 2>/dev/null || true # takes the veth pairs with it
  ip link del "gs-n$1" 2>/dev/null || true
  ip link del "gs-f$1" 2>/dev/null || true
  rm -rf "$STATE/n$1" "$f"
}

net_node() { # net_node I: namespace, both veths, addresses (each step skipped when done)
  local i=$1 ns=gs-n$1
  ip netns list | grep -q "^$ns\b" || ip netns add "$ns"
  ip link show "gs-n$i" >/dev/null 2>&1 || ip link add "gs-n$i" type veth peer name eth0 netns "$ns"
  ip link set "gs-n$i" master $BRIDGE up
  ip -n "$ns" addr replace "$(addr_of "$i")/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
  ip link show "gs-f$i" >/dev/null 2>&1 || ip link add "gs-f$i" type veth peer name fab0 netns "$ns"
  ip link set "gs-f$i" master $FABRIC up
  ip -n "$ns" addr replace "$FABNET.$((10 + i))/24" dev fab0
  ip -n "$ns" link set fab0 up
  mkdir -p "$STATE/n$i" "$SPOOL/sn$i"
}

write_conf() { # write_conf N: the config for N nodes; true when it changed
  local new; new=$(mktemp)
  cat >"$new" <<CONF
# generated by gpucheck test/infra/slurm-lab.sh: $1 nodes in network namespaces on $HOST
# (the reasons for the settings shared with test/infra/slurm.sh are in that script's header)
ClusterName=gpucheck-lab
SlurmctldHost=${HOST}($NET.1)
SlurmctldPort=$PORT
SlurmdPort=6818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
StateSaveLocation=$SPOOL/ctld
SlurmdSpoolDir=$SPOOL/%n
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd-%n.pid
SlurmctldLogFile=$LOGS/slurmctld.log
SlurmdLogFile=$LOGS/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
MinJobAge=300
KillWait=5
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=30
$(for i in $(seq 1 "$1"); do echo "NodeName=sn$i NodeHostname=sn$i NodeAddr=$(addr_of "$i") CPUs=$CPUS Boards=1 SocketsPerBoard=1 CoresPerSocket=$CPUS ThreadsPerCore=1 RealMemory=2000 State=UNKNOWN"; done)
PartitionName=lab Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  if cmp -s "$new" "$CONF"; then rm -f "$new"; return 1; fi
  mv "$new" "$CONF"; chmod 644 "$CONF"; return 0
}

status_line() { # status_line I
  local i=$1 faults; faults=$(host_faults "$i")
  if alive "$STATE/slurmd-sn$i.pid"; then echo "sn$i $(addr_of "$i") slurmd $(daemon_pid "$i"): ${faults:-no fault}"
  else echo "sn$i $(addr_of "$i") slurmd down: ${faults:-no fault}"; return 1; fi
}

cmd=${1:-start}
case "$cmd" in
stop)
  for d in "$STATE"/n[0-9]*; do [ -d "$d" ] && stop_node "${d##*/n}"; done
  if alive "$STATE/slurmctld.pid"; then kill "$(cat "$STATE/slurmctld.pid")" || true; wait_dead "$STATE/slurmctld.pid" || true; fi
  ip link del $BRIDGE 2>/dev/null || true
  ip link del $FABRIC 2>/dev/null || true
  etc_hosts 0
  rm -f "$STATE/env"
  log "stopped"
  exit 0
  ;;
status)
  [ "$(node_count)" -gt 0 ] || die "the lab is not running: bash test/infra/slurm-lab.sh start [N]"
  sinfo -N -o '%N %T %E' || true
  rc=0 n=$(node_count)
  for ((i = 1; i <= n; i++)); do status_line "$i" || rc=1; done
  exit $rc
  ;;
slow | netem | cpu-cap)
  [ $# -eq 3 ] || usage "$cmd I $(case $cmd in slow) echo RATE ;; netem) echo SPEC ;; *) echo PERCENT ;; esac)"
  i=$(node_index "$2")
  case $cmd in
    slow) slow "$i" "$3" ;;
    netem) netem "$i" "$3" ;;
    cpu-cap) is_percent "$3" || die "cpu-cap: \"$3\" is not a percentage of one CPU from 1 to $(max_percent)"
      cg_fault "$(group_of "$i")" "$(daemon_pid "$i")" cpu-cap "$3" ;;
  esac
  exit 0
  ;;
unslow | unnetem | cut | uncut | cut-fabric | uncut-fabric | cpu-uncap | freeze | thaw | clear)
  [ $# -eq 2 ] || usage "$cmd I"
  i=$(node_index "$2")
  case $cmd in
    unslow) unslow "$i" ;;
    unnetem) unnetem "$i" ;;
    cut) cut_link "$i" down ;;
    uncut) cut_link "$i" up ;;
    cut-fabric) cut_fabric "$i" down ;;
    uncut-fabric) cut_fabric "$i" up ;;
    clear) clear_host "$i" && in_service "$i" ;;
    thaw) cg_fault "$(group_of "$i")" "$(daemon_pid "$i")" thaw && in_service "$i" ;;
    *) cg_fault "$(group_of "$i")" "$(daemon_pid "$i")" "$cmd" ;;
  esac
  exit 0
  ;;
clear-all)
  [ "$(node_count)" -gt 0 ] || die "the lab is not running: bash test/infra/slurm-lab.sh start [N]"
  for i in $(seq 1 "$(node_count)"); do clear_host "$i"; done
  exit 0
  ;;
start) ;;
*) usage "start [N] | stop | status | slow I RATE | unslow I | netem I SPEC | unnetem I | cut I | uncut I | cut-fabric I | uncut-fabric I | cpu-cap I PERCENT | cpu-uncap I | freeze I | thaw I | clear I | clear-all" ;;
esac

N=${2:-$(node_count)}
[ -n "${2:-}" ] || [ "$N" != 0 ] || N=4
[[ $N =~ ^[0-9]+$ ]] && [ "$N" -ge 1 ] && [ "$N" -le 64 ] || die "start: \"$N\" is not a node count from 1 to 64"
T0=$(date +%s%N)

# the packages are scripts/ci-deps.sh's; munged and its key are shared with slurm.sh's cluster. Not
# `slurm.sh start` to get them: with another SLURM_NODES than the running cluster's it would rewrite
# and restart that cluster under whoever is using it
command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null ||
  die "slurm-wlm and munge are not installed: bash scripts/ci-deps.sh (or apt-get install slurm-wlm munge)"
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  install -d -o munge -g munge -m 0755 /run/munge
  install -d -o munge -g munge -m 0700 /var/log/munge /etc/munge
  install -d -o munge -g munge -m 0711 /var/lib/munge
  [ -s /etc/munge/munge.key ] || dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
  chown munge:munge /etc/munge/munge.key; chmod 0400 /etc/munge/munge.key
  log "starting munged"
  runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
fi

mkdir -p "$STATE" "$ETC" "$SPOOL/ctld" "$LOGS"
ip link show $BRIDGE >/dev/null 2>&1 || ip link add $BRIDGE type bridge
ip addr replace "$NET.1/24" dev $BRIDGE
ip link set $BRIDGE up
ip link show $FABRIC >/dev/null 2>&1 || ip link add $FABRIC type bridge
ip link set $FABRIC up
for d in "$STATE"/n[0-9]*; do [ -d "$d" ] && [ "${d##*/n}" -gt "$N" ] && stop_node "${d##*/n}"; done
for i in $(seq 1 "$N"); do net_node "$i"; done
etc_hosts "$N"

if write_conf "$N"; then
  log "config changed: restarting the lab's slurmctld and slurmd's with fresh controller state"
  for f in "$STATE"/slurmd-sn*.pid "$STATE/slurmctld.pid"; do ! alive "$f" || kill "$(cat "$f")" || true; done
  # shellcheck disable=SC2046
  wait_dead "$STATE"/slurmd-sn*.pid "$STATE/slurmctld.pid" || true
  rm -rf "${SPOOL:?}/ctld/"* "$STATE"/slurmd-sn*.pid
fi

alive "$STATE/slurmctld.pid" || { log "starting slurmctld on $NET.1:$PORT"; slurmctld -f "$CONF"; }
for _ in $(seq 100); do scontrol ping >/dev/null 2>&1 && break; sleep 0.1; done
for i in $(seq 1 "$N"); do
  alive "$STATE/slurmd-sn$i.pid" && continue
  # slurmd forks its steps, which stay in its namespaces (network, UTS) and its cgroup. nsenter, not
  # `ip netns exec`: that one mounts the namespace's own /sys, without /sys/fs/cgroup, and slurmd's
  # cgroup plugin refuses to start there ("No filesystem mounted on /sys/fs/cgroup")
  # shellcheck disable=SC2016
  nsenter --net=/run/netns/gs-n$i unshare --uts sh -c 'hostname "$0" && exec slurmd -f "$1" -N "$0"' "sn$i" "$CONF"
done

deadline=$(($(date +%s) + WAIT))
while :; do
  ready=$(sinfo -h -N -o '%N %T' 2>/dev/null | awk '$2=="idle"||$2=="mixed"||$2=="allocated"' | sort -u | wc -l)
  [ "$ready" -ge "$N" ] && break
  bad=$(sinfo -h -N -o '%N %T' 2>/dev/null | awk '$2 ~ /drain|down|fail/ {print $1}' | paste -sd, -)
  [ -z "$bad" ] || scontrol update nodename="$bad" state=resume 2>/dev/null || true
  if [ "$(date +%s)" -ge $deadline ]; then log "nodes not idle after $WAIT s:"; sinfo -N -o '%N %T %E' >&2; exit 1; fi
  sleep 0.2
done
for i in $(seq 1 "$N"); do cg_make "$(group_of "$i")"; cg_join "$(group_of "$i")" "$(daemon_pid "$i")"; done

cat >"$STATE/env" <<EOF
SLURM_CONF=$CONF
GPUCHECK_SLURM_LAB_NODES=$(seq -f 'sn%g' 1 "$N" | paste -sd,)
GPUCHECK_SLURM_LAB_ADDRS=$(for i in $(seq 1 "$N"); do addr_of "$i"; done | paste -sd,)
GPUCHECK_SLURM_LAB_BASE=$STATE
EOF
log "ready: $N nodes (sn1..sn$N, $(addr_of 1)..$(addr_of "$N") on bridge $BRIDGE), SLURM_CONF=$CONF, in $((($(date +%s%N) - T0) / 1000000)) ms"
echo "$STATE/env"
