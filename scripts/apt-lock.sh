#!/usr/bin/env bash
# Sourced by apt-install.sh: wait_for_apt_lock waits while another apt or dpkg (unattended-upgrades
# on a fresh machine, a second job) holds the package locks, instead of failing at once with
# "Could not get lock". Bounded: APT_LOCK_WAIT_S (default 300 s); every APT_LOCK_NOTE_S (30 s) a line
# names the holder's pid and command. A process holding a lock file open is its holder (apt and dpkg
# open them only to lock them; their fcntl locks are invisible to flock -n), found through /proc.
APT_LOCK_FILES=${APT_LOCK_FILES:-/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock}

# "pid N (command) on FILE" for each process that has one of the lock files open; nothing when none does
apt_lock_holders() {
  local f link pid
  for f in $APT_LOCK_FILES; do
    [ -e "$f" ] || continue
    # find's -lname reads every process's fd links in one pass (a shell loop over them took minutes)
    # (find exits 1 on the fds it may not read, which under pipefail would read as "no holder")
    { find /proc/[0-9]*/fd -maxdepth 1 -lname "$f" 2>/dev/null || true; } | while read -r link; do
      pid=${link#/proc/}
      pid=${pid%%/*}
      echo "pid $pid ($(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-80 | sed 's/ *$//')) on $f"
    done
  done | sort -u
  return 0
}

wait_for_apt_lock() {
  local limit=${APT_LOCK_WAIT_S:-300} every=${APT_LOCK_NOTE_S:-30} start=$SECONDS next=0 holders
  while holders=$(apt_lock_holders) && [ -n "$holders" ]; do
    local waited=$((SECONDS - start))
    if [ "$waited" -ge "$limit" ]; then
      echo "[apt-install] gave up after ${limit} s waiting for the package lock, still held by $(echo "$holders" | paste -sd ';' | sed 's/;/; /g'): wait for it to finish (or stop it) and run again" >&2
      return 1
    fi
    if [ "$waited" -ge "$next" ]; then
      echo "[apt-install] waiting for the package lock (${waited} s of at most ${limit} s), held by $(echo "$holders" | paste -sd ';' | sed 's/;/; /g')" >&2
      next=$((waited + every))
    fi
    sleep 1
  done
}
