#!/usr/bin/env bash
# A single-host Slurm "cluster" for gpucheck's slurm platform tests and benchmark:
# slurmctld + one slurmd per logical node (node1..nodeN, all on 127.0.0.1), fake GPUs as GRES.
# Debian 12, root, no systemd; Slurm 22.05 + munge from Debian's slurm-wlm/munge packages.
#
#   bash test/infra/slurm.sh start     install if needed, configure, start, wait until every node is idle
#   bash test/infra/slurm.sh stop      stop the daemons this script started (by PID file)
#   bash test/infra/slurm.sh status    sinfo per node
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
# - PID 1 in these sandboxes reaps orphans late: a killed daemon lingers as a zombie and passes
#   `kill -0`, so liveness is read from /proc/<pid>/stat and comm.
# - node state (DRAIN reasons) survives restarts in StateSaveLocation; a config change wipes it.
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

alive() { # alive PIDFILE: the pid in it is a live (not zombie) slurm/munge daemon
  [ -s "$1" ] || return 1
  local p st comm; p=$(cat "$1")
  [ -r "/proc/$p/stat" ] || return 1
  st=$(sed 's/.*) //' "/proc/$p/stat" | cut -d' ' -f1); comm=$(cat "/proc/$p/comm" 2>/dev/null || true)
  [ "$st" != Z ] && case "$comm" in slurmd|slurmctld|munged) true;; *) false;; esac
}

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

case "${1:-start}" in
  stop) stop_all; exit 0;;
  status) sinfo -N -o '%N %T %c %G %E'; exit 0;;
  start) ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2;;
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
log "$NODES nodes idle in $(( ($(date +%s%N) - T0) / 1000000 )) ms"
