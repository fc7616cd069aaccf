#!/usr/bin/env bash
# A single-host Slurm "cluster" for gpucheck's slurm platform tests and benchmark:
# slurmctld + one slurmd per logical node (node1..nodeN, all on 127.0.0.1), fake GPUs as GRES.
# Debian 12, root, no systemd; Slurm 22.05 + munge from Debian's slurm-wlm/munge packages.
#
#   bash test/infra/slurm.sh start     install if needed, configure, start, wait until every node is idle
#   bash test/infra/slurm.sh stop      stop the daemons this script started (by PID file)
#   bash test/infra/slurm.sh status    sinfo per node, and each node's faults
# Faults on logical node I (a number or nodeI), each with its undo; they act on the node's slurmd and
# every job step it starts (test/infra/cgroup-lib.sh: the slurmd joins cgroup gpucheck-slurm/nodeI
# when it starts, and its slurmstepd's and their tasks inherit that):
#   bash test/infra/slurm.sh cpu-cap I PERCENT / cpu-uncap I   PERCENT of one CPU for the whole node
#   bash test/infra/slurm.sh freeze I / thaw I                  every process of the node stops
#   bash test/infra/slurm.sh clear I / clear-all                undo both on node I / on every node
#
# Knobs: SLURM_NODES=4 (the benchmark uses 32)  SLURM_CPUS=4  SLURM_GPUS=8  SLURM_WAIT=60 (s)
# Changing SLURM_NODES rewrites slurm.conf and restarts the daemons with fresh controller state.
#
# Things that bite on one host (why the config looks the way it does):
# - `hostname` prints the real host in every task: jobs must use SLURMD_NODENAME for the node name.
# - no slurmdbd: plain `sacct` says "Slurm accounting storage is disabled"; `sacct -c` reads the
#   jobcomp file configured below, and `scontrol show job` keeps finished jobs for MinJobAge.
# - AccountingStorageTRES=gres/gpu is fatal without slurmdbd, so it is not set.
# - gres/gpu without File= is dropped by slurmd and the node drains ("count reported lower than
#   configured"), so the fake GPUs are /dev/null clones under $FAKEGPU.
# - the default batch_sched_delay makes back-to-back jobs start ~3 s late; set to 0.
# - the host has 2 cores; SlurmdParameters=config_overrides makes slurmd trust slurm.conf's CPUs.
# - node names must resolve (MASTER_ADDR=node1): an /etc/hosts line maps them to 127.0.0.1.
# - node state (DRAIN reasons) survives restarts in StateSaveLocation; a config change wipes it.
# - the per-node faults rely on ProctrackType=proctrack/linuxproc and TaskPlugin=task/none: neither
#   moves a step into cgroups of its own, so steps stay in their slurmd's cgroup (proctrack/cgroup
#   or task/cgroup would move them out, and a cap on the node would miss its jobs). A node frozen for
#   longer than SlurmdTimeout (30 s) is set DOWN by slurmctld; ReturnToService=2 brings it back.
set -euo pipefail

NODES=${SLURM_NODES:-4}
CPUS=${SLURM_CPUS:-4}
GPUS=${SLURM_GPUS:-8}
WAIT=${SLURM_WAIT:-60}
HOST=$(hostname -s)
STATE=/run/gpucheck-slurm
CONF=/etc/slurm/slurm.conf
GRES=/etc/slurm/gres.conf
FAKEGPU=/var/lib/slurm-fakegpu

log() { echo "[test/infra/slurm] $*" >&2; }
die() { echo "slurm.sh: $*" >&2; exit 2; }
# shellcheck source=test/infra/proc-lib.sh
. "$(dirname "$0")/proc-lib.sh"
# shellcheck source=test/infra/cgroup-lib.sh
. "$(dirname "$0")/cgroup-lib.sh"
CG_STATE=$STATE/cgroup
group_of() { echo "gpucheck-slurm/node$1"; }
slurmd_pid() { cat "/run/slurmd-node$1.pid" 2>/dev/null || true; }
node_count() { ls /run/slurmd-node*.pid 2>/dev/null | wc -l || true; }

node_index() { # node_index ARG: ARG (2 or node2) as the number of a running node, or die
  local n i=${1#node}; n=$(node_count)
  [ "$n" -gt 0 ] || die "the cluster is not running: bash test/infra/slurm.sh start"
  [[ $i =~ ^[0-9]+$ ]] && [ "$i" -ge 1 ] && [ "$i" -le "$n" ] || die "no node $1: the cluster has $n nodes (node1-node$n)"
  echo "$i"
}

clear_node() { cg_uncap "$(group_of "$1")"; cg_thaw "$(group_of "$1")" "$(slurmd_pid "$1")"; }

alive() { pid_alive "$1" slurmd slurmctld munged; } # alive PIDFILE: a live slurm/munge daemon

slurm_pidfiles() { ls /run/slurmd-node*.pid /run/slurmctld.pid 2>/dev/null || true; }

wait_gone() {
  for _ in $(seq 100); do
    local any=0 f
    for f in $(slurm_pidfiles); do alive "$f" && any=1; done
    [ $any = 0 ] && return 0; sleep 0.1
  done
  log "daemons still alive after 10 s"; return 1
}

stop_slurm() {
  local f
  for f in $(slurm_pidfiles); do
    if alive "$f"; then log "stopping $(cat /proc/"$(cat "$f")"/comm) pid $(cat "$f")"; kill "$(cat "$f")" || true; fi
  done
  wait_gone
}

stop_all() {
  stop_slurm
  if [ -e $STATE/munged.started ] && alive /run/munge/munged.pid; then
    log "stopping munged pid $(cat /run/munge/munged.pid)"; kill "$(cat /run/munge/munged.pid)" || true
  fi
  rm -f $STATE/munged.started
}

cmd=${1:-start}
case "$cmd" in
  stop)
    for n in $(seq 1 "$(node_count)"); do clear_node "$n"; done
    stop_all
    for d in $CG/cpu/gpucheck-slurm/node* $CG/gpucheck-slurm/node*; do [ -d "$d" ] && cg_remove "$(group_of "${d##*/node}")" "" keep; done
    exit 0;;
  status)
    sinfo -N -o '%N %T %c %G %E'
    for n in $(seq 1 "$(node_count)"); do
      f=$(cg_cap_percent "$(group_of "$n")"); f=${f:+cpu-cap $f%}
      ! cg_frozen "$(group_of "$n")" || f="${f:+$f; }frozen"
      echo "node$n slurmd $(slurmd_pid "$n"): ${f:-no fault}"
    done
    exit 0;;
  cpu-cap)
    [ $# -eq 3 ] || { echo "usage: slurm.sh cpu-cap I PERCENT" >&2; exit 2; }
    n=$(node_index "$2")
    is_percent "$3" || die "cpu-cap: \"$3\" is not a percentage of one CPU from 1 to $(max_percent)"
    cg_fault "$(group_of "$n")" "$(slurmd_pid "$n")" cpu-cap "$3"; exit 0;;
  cpu-uncap | freeze | thaw | clear)
    [ $# -eq 2 ] || { echo "usage: slurm.sh $cmd I" >&2; exit 2; }
    n=$(node_index "$2")
    if [ "$cmd" = clear ]; then clear_node "$n"; else cg_fault "$(group_of "$n")" "$(slurmd_pid "$n")" "$cmd"; fi
    exit 0;;
  clear-all) for n in $(seq 1 "$(node_count)"); do clear_node "$n"; done; exit 0;;
  start) ;;
  *) echo "usage: slurm.sh start | stop | status | cpu-cap I PERCENT | cpu-uncap I | freeze I | thaw I | clear I | clear-all" >&2; exit 2;;
esac

T0=$(date +%s%N)

# ------------------------------------------------------------------ install (CI machines)
need=()
for b in slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client munged:munge; do
  command -v "${b%%:*}" >/dev/null 2>&1 || need+=("${b##*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends "${need[@]}" >/dev/null 2>&1 || {
    apt-get update >/dev/null; apt-get install -y --no-install-recommends "${need[@]}" >/dev/null; }
fi

# ------------------------------------------------------------------ munge
mkdir -p $STATE
install -d -o munge -g munge -m 0755 /run/munge
install -d -o munge -g munge -m 0700 /var/log/munge /etc/munge
install -d -o munge -g munge -m 0711 /var/lib/munge
[ -s /etc/munge/munge.key ] || dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
chown munge:munge /etc/munge/munge.key; chmod 0400 /etc/munge/munge.key
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  log "starting munged"
  runuser -u munge -- /usr/sbin/munged
  touch $STATE/munged.started
  for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
fi

# ------------------------------------------------------------------ config
mkdir -p /etc/slurm /var/spool/slurmctld /var/log/slurm $FAKEGPU
for i in $(seq 0 $((GPUS - 1))); do [ -e $FAKEGPU/gpu$i ] || mknod $FAKEGPU/gpu$i c 1 3; done
for n in $(seq 1 "$NODES"); do mkdir -p /var/spool/slurmd/node$n; done

newconf=$(mktemp); newgres=$(mktemp)
cat > "$newconf" <<CONF
# generated by gpucheck test/infra/slurm.sh: $NODES logical nodes on $HOST
ClusterName=gpucheck
SlurmctldHost=${HOST}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=/var/log/slurm/jobcomp.log
SwitchType=switch/none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
SlurmctldPort=6817
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd/%n
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd-%n.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
GresTypes=gpu
MinJobAge=300
KillWait=5
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=node[1-$NODES] NodeHostname=$HOST NodeAddr=127.0.0.1 Port=[17001-$((17000 + NODES))] CPUs=$CPUS Boards=1 SocketsPerBoard=1 CoresPerSocket=$CPUS ThreadsPerCore=1 RealMemory=2000 Gres=gpu:fake:$GPUS State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
cat > "$newgres" <<CONF
# generated by gpucheck test/infra/slurm.sh
AutoDetect=off
NodeName=node[1-$NODES] Name=gpu Type=fake File=$FAKEGPU/gpu[0-$((GPUS - 1))]
CONF

hosts_line="127.0.0.1 $(seq -f 'node%g' 1 "$NODES" | paste -sd' ') # gpucheck-slurm"
if ! grep -qxF "$hosts_line" /etc/hosts; then
  # rewrite in place: /etc/hosts may be a bind mount, so keep its inode
  { grep -v -e '# gpucheck-slurm$' -e '# slurm-local$' /etc/hosts; echo "$hosts_line"; } > $STATE/hosts
  cat $STATE/hosts > /etc/hosts
fi

changed=0
cmp -s "$newconf" $CONF || { mv "$newconf" $CONF; changed=1; }
cmp -s "$newgres" $GRES || { mv "$newgres" $GRES; changed=1; }
rm -f "$newconf" "$newgres"
chmod 644 $CONF $GRES
if [ $changed = 1 ]; then
  log "config changed: restarting slurm with fresh controller state"
  stop_slurm
  rm -rf /var/spool/slurmctld/* /run/slurmd-node*.pid
fi

# ------------------------------------------------------------------ start
alive /run/slurmctld.pid || { log "starting slurmctld"; slurmctld; }
for _ in $(seq 100); do scontrol ping >/dev/null 2>&1 && break; sleep 0.1; done
started=0
for n in $(seq 1 "$NODES"); do
  alive /run/slurmd-node$n.pid || { slurmd -N node$n; started=$((started + 1)); }
done
[ $started = 0 ] || log "started $started slurmd"

deadline=$(( $(date +%s) + WAIT ))
while :; do
  ready=$(sinfo -h -N -o '%N %T' 2>/dev/null | awk '$2=="idle"||$2=="mixed"||$2=="allocated"' | wc -l)
  [ "$ready" -ge "$NODES" ] && break
  # a DRAIN/DOWN left over from an earlier run (or a test that drained a node and died)
  bad=$(sinfo -h -N -o '%N %T' 2>/dev/null | awk '$2 ~ /drain|down|fail/ {print $1}' | paste -sd, -)
  [ -z "$bad" ] || scontrol update nodename="$bad" state=resume 2>/dev/null || true
  if [ "$(date +%s)" -ge $deadline ]; then log "nodes not idle after $WAIT s:"; sinfo -N -o '%N %T %E' >&2; exit 1; fi
  sleep 0.2
done
# every slurmd in its node's cgroup before any job: the steps it starts from then on inherit it
for n in $(seq 1 "$NODES"); do cg_make "$(group_of "$n")"; cg_join "$(group_of "$n")" "$(slurmd_pid "$n")"; done
log "$NODES nodes idle in $(( ($(date +%s%N) - T0) / 1000000 )) ms"
