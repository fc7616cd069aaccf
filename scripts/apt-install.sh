#!/usr/bin/env bash
# apt-install.sh PKG...: installs the Debian packages that are missing; `apt-get update` only when
# the install fails without it (a fresh machine's package lists may be empty or stale).
set -euo pipefail
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "[apt-install] installing: ${missing[*]}" >&2
# another apt (unattended-upgrades on a fresh machine) may hold the lock: wait for it, bounded
. "$(dirname "$0")/apt-lock.sh"
wait_for_apt_lock
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 || {
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}
