# shellcheck shell=bash
# One cgroup per fake host, so that a CPU cap or a freeze lands on exactly that host: its daemon (the
# namespace's sshd, the logical node's slurmd) joins the cgroup when it starts, and everything it forks
# afterwards (sessions, ranks, job steps) inherits the membership whatever becomes of its parent.
# Sourced by test/infra/netns.sh and test/infra/slurm.sh; the caller defines log().
#
# cgroup v2 (/sys/fs/cgroup/cgroup.controllers exists): one directory, cpu.max and cgroup.freeze.
# cgroup v1 (these machines: cpu, cpuacct, freezer, ... each mounted at /sys/fs/cgroup/<controller>):
# the same path under cpu/ (cpu.cfs_quota_us) and freezer/ (freezer.state). Without a freezer the
# freeze falls back to SIGSTOP of every process in the host's cpu cgroup and under its daemon: a
# process forked by one of them in the instant between listing and stopping escapes, which the
# freezer's atomic freeze does not allow.

CG=/sys/fs/cgroup
CG_PERIOD_US=100000
# the cpu and freezer hierarchies (the same directory on v2; empty where a controller is missing)
if [ -e $CG/cgroup.controllers ]; then CG_V2=1; CG_CPU=$CG; CG_FREEZER=$CG
else
  CG_V2=; CG_CPU=; CG_FREEZER=
  [ -e $CG/cpu/cgroup.procs ] && CG_CPU=$CG/cpu
  [ -e $CG/freezer/cgroup.procs ] && CG_FREEZER=$CG/freezer
fi

cg_dirs() { # cg_dirs NAME: the host's cgroup directories
  [ -n "$CG_CPU" ] && echo "$CG_CPU/$1"
  [ -n "$CG_FREEZER" ] && [ "$CG_FREEZER" != "$CG_CPU" ] && echo "$CG_FREEZER/$1"
  return 0
}

cg_make() { # cg_make NAME: the host's cgroups (v2: with the cpu controller enabled on the way down)
  local d
  if [ -n "$CG_V2" ]; then
    local path=$CG part
    for part in ${1//\// }; do
      grep -qw cpu "$path/cgroup.subtree_control" || echo +cpu >"$path/cgroup.subtree_control"
      path=$path/$part; mkdir -p "$path"
    done
    return
  fi
  for d in $(cg_dirs "$1"); do mkdir -p "$d"; done
}

cg_join() { # cg_join NAME PID: the process (all its threads) and what it forks from now on
  local d; for d in $(cg_dirs "$1"); do echo "$2" >"$d/cgroup.procs"; done
}

cg_procs() { # cg_procs NAME: the processes in the host's cgroup
  local d=$CG_CPU/$1
  [ -n "$CG_CPU" ] || d=$CG_FREEZER/$1
  [ -e "$d/cgroup.procs" ] && cat "$d/cgroup.procs"
  return 0
}

cg_cap() { # cg_cap NAME PERCENT: PERCENT of one CPU for all the host's processes together
  local d=$CG_CPU/$1
  [ -n "$CG_CPU" ] || { log "no cgroup cpu controller on this machine: cannot cap a CPU"; return 1; }
  if [ -n "$CG_V2" ]; then echo "$(($2 * CG_PERIOD_US / 100)) $CG_PERIOD_US" >"$d/cpu.max"
  else echo $CG_PERIOD_US >"$d/cpu.cfs_period_us"; echo $(($2 * CG_PERIOD_US / 100)) >"$d/cpu.cfs_quota_us"; fi
}

cg_uncap() { # cg_uncap NAME
  local d=$CG_CPU/$1
  [ -n "$CG_CPU" ] && [ -d "$d" ] || return 0
  if [ -n "$CG_V2" ]; then echo "max $CG_PERIOD_US" >"$d/cpu.max"; else echo -1 >"$d/cpu.cfs_quota_us"; fi
}

cg_cap_percent() { # cg_cap_percent NAME: the cap in percent of one CPU, or nothing when uncapped
  local d=$CG_CPU/$1 q
  [ -n "$CG_CPU" ] && [ -d "$d" ] || return 0
  if [ -n "$CG_V2" ]; then read -r q _ <"$d/cpu.max"; else read -r q <"$d/cpu.cfs_quota_us"; fi
  case $q in max | -1) ;; *) echo $((q * 100 / CG_PERIOD_US)) ;; esac
}

cg_freezer() { # cg_freezer NAME: the file that freezes the host, if this machine has a freezer
  if [ -n "$CG_V2" ]; then echo "$CG/$1/cgroup.freeze"
  elif [ -n "$CG_FREEZER" ]; then echo "$CG_FREEZER/$1/freezer.state"; fi
}

cg_frozen() { # cg_frozen NAME: true when the host is frozen (by the freezer or the SIGSTOP fallback)
  local s
  if [ -n "$CG_V2" ]; then grep -qx 'frozen 1' "$CG/$1/cgroup.events" 2>/dev/null
  elif [ -n "$CG_FREEZER" ]; then read -r s 2>/dev/null <"$CG_FREEZER/$1/freezer.state" && [ "$s" = FROZEN ]
  else [ -e "$CG_STATE/${1##*/}.stopped" ]; fi
}

cg_signal_all() { # cg_signal_all NAME ROOTPID SIG: the fallback freeze; the daemon's tree and cgroup
  local pids; pids=$(cg_procs "$1")
  [ -n "$2" ] && pids="$pids $(descendants "$2") $2"
  # shellcheck disable=SC2086
  [ -z "${pids// /}" ] || kill -"$3" $pids 2>/dev/null || true
}

cg_freeze() { # cg_freeze NAME ROOTPID: every process of the host stops; returns once they have
  local f; f=$(cg_freezer "$1")
  if [ -z "$f" ]; then mkdir -p "$CG_STATE"; touch "$CG_STATE/${1##*/}.stopped"; cg_signal_all "$1" "$2" STOP; return; fi
  if [ -n "$CG_V2" ]; then echo 1 >"$f"; else echo FROZEN >"$f"; fi
  # v1 passes through FREEZING while tasks are still being stopped
  for _ in $(seq 50); do cg_frozen "$1" && return 0; sleep 0.1; done
  log "$1: not frozen after 5 s ($(cat "$f"))"; return 1
}

cg_thaw() { # cg_thaw NAME ROOTPID
  local f; f=$(cg_freezer "$1")
  if [ -z "$f" ]; then
    [ -e "$CG_STATE/${1##*/}.stopped" ] || return 0
    cg_signal_all "$1" "$2" CONT; rm -f "$CG_STATE/${1##*/}.stopped"; return
  fi
  [ -e "$f" ] || return 0
  if [ -n "$CG_V2" ]; then echo 0 >"$f"; else echo THAWED >"$f"; fi
}

cg_remove() { # cg_remove NAME ROOTPID kill|keep: undo every fault, then end or release what is left, rmdir
  local d p
  cg_thaw "$1" "$2"; cg_uncap "$1"
  for d in $(cg_dirs "$1"); do
    [ -d "$d" ] || continue
    for p in $(cat "$d/cgroup.procs"); do
      # released to the hierarchy's root, where they were before the host existed
      if [ "$3" = kill ]; then kill -KILL "$p" 2>/dev/null || true; else echo "$p" >"${d%/"$1"}/cgroup.procs" 2>/dev/null || true; fi
    done
    # killed processes leave the cgroup once they have exited (cgroup files always have size 0)
    for _ in $(seq 50); do read -r _ <"$d/cgroup.procs" || break; sleep 0.1; done
    rmdir "$d" 2>/dev/null || log "cannot remove $d: still holds $(paste -sd' ' "$d/cgroup.procs")"
  done
  for d in $(cg_dirs "$(dirname "$1")"); do rmdir "$d" 2>/dev/null || true; done
}

# The CPU and freeze faults, as test/infra/netns.sh and slurm.sh both offer them on host I
cg_fault() { # cg_fault NAME ROOTPID cpu-cap|cpu-uncap|freeze|thaw [PERCENT]
  case $3 in
    cpu-cap) cg_cap "$1" "$4" ;;
    cpu-uncap) cg_uncap "$1" ;;
    freeze) cg_freeze "$1" "$2" ;;
    thaw) cg_thaw "$1" "$2" ;;
  esac
}

max_percent() { echo $(($(nproc) * 100)); } # a cap above every CPU of this machine caps nothing

is_percent() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le "$(max_percent)" ]; }
