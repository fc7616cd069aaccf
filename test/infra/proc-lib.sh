# shellcheck shell=bash
# Process helpers the scripts of test/infra share (sourced).
#
# PID 1 in these sandboxes reaps orphans late: a killed daemon lingers as a zombie and passes
# `kill -0`, so liveness is read from /proc/<pid>/stat and the command name.

pid_alive() { # pid_alive PIDFILE COMM...: the pid in PIDFILE is a live, non-zombie process named COMM
  [ -s "$1" ] || return 1
  local p st comm; p=$(cat "$1"); shift
  [ -r "/proc/$p/stat" ] || return 1
  st=$(sed 's/.*) //' "/proc/$p/stat" | cut -d' ' -f1); comm=$(cat "/proc/$p/comm" 2>/dev/null || true)
  [ "$st" != Z ] || return 1
  local c; for c in "$@"; do [ "$comm" = "$c" ] && return 0; done
  return 1
}

descendants() { # descendants PID: every process below PID, deepest first
  local c
  for c in $(pgrep -P "$1" || true); do descendants "$c"; echo "$c"; done
}
