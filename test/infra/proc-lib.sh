# shellcheck shell=bash
# Process helpers the scripts of test/infra share (sourced).
#
# PID 1 in these sandboxes reaps orphans late: a killed daemon lingers as a zombie and passes
# `kill -0`, so liveness is read from /proc/<pid>/stat and the command name.

pid_alive() { # pid_alive PIDFILE COMM...: the pid in PIDFILE is a live, non-zombie process named COMM
  local p stat comm c
  # builtins only: `status` runs this per host, and a fork costs tens of ms on a loaded 2-core machine
  read -r p 2>/dev/null <"$1" && [ -n "$p" ] || return 1
  read -r stat 2>/dev/null <"/proc/$p/stat" && read -r comm 2>/dev/null <"/proc/$p/comm" || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ] || return 1
  shift
  for c in "$@"; do [ "$comm" = "$c" ] && return 0; done
  return 1
}

descendants() { # descendants PID: every process below PID, deepest first
  local c
  for c in $(pgrep -P "$1" || true); do descendants "$c"; echo "$c"; done
}
