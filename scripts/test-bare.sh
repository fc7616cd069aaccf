#!/usr/bin/env bash
# Runs a command (default: npm test, the unit tier) as on a fresh Debian machine after `npm ci` alone:
# every program of the Debian packages in scripts/ci-deps.sh and of what they pull in (chromium,
# xmllint, openssl, jq, ssh, pdsh, Slurm, mpirun, promtool, ...) is hidden, so are Debian's Python
# modules (/usr/lib/python3/dist-packages: torch, jsonschema, pytest, ...), and PATH is
# node_modules/.bin and the system's bin directories only. What a standard Debian install has stays:
# packages of priority required and important (bash, coreutils, util-linux, procps, ...), python3
# with its standard library only, node and git.
# How: a private mount namespace with an overlay on /usr/bin and /usr/sbin whose upper layer holds
# a whiteout for each hidden name (needs root, as CI and the dev machine run). Nothing outside it sees
# the change; it ends with the command.
#   bash scripts/test-bare.sh                 the unit tier
#   bash scripts/test-bare.sh bun test FILE   one file
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "test-bare.sh: needs root (a mount namespace with an overlay on /usr/bin)" >&2; exit 2; }
[ $# -gt 0 ] || set -- npm test

mapfile -t pkgs < <(sed -n '/^PKGS=(/,/^)/p' scripts/ci-deps.sh | grep -oE '^\s+[a-z0-9.+-]+' | tr -d ' ')
keep='^(nodejs|git|bash|coreutils|util-linux|dpkg|sed|grep|findutils|tar|gzip|diffutils|hostname|login|mount|debianutils)$'
required=$(dpkg-query -W -f='${Package} ${Priority}\n' | awk '$2=="required" || $2=="important" {print $1}'; dpkg-query -W -f='${Package}\n' 'python3' 'python3-minimal' 'python3.*' 'libpython3*')
mapfile -t hide_pkgs < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances "${pkgs[@]}" 2>/dev/null |
  grep -E '^[a-z0-9]' | sort -u | grep -vxF -f <(echo "$required") | grep -vE "$keep")
mapfile -t bins < <(dpkg -L "${hide_pkgs[@]}" 2>/dev/null | grep -E '^/(usr/)?s?bin/[^/]+$' | sed 's#^/bin/#/usr/bin/#; s#^/sbin/#/usr/sbin/#' | sort -u)

layers=$(mktemp -d /tmp/gpucheck-bare-XXXXXX)
trap 'rm -rf "$layers"' EXIT
for dir in usr/bin usr/sbin; do mkdir -p "$layers/$dir/upper" "$layers/$dir/work"; done
mkdir -p "$layers/empty"
for bin in "${bins[@]}"; do
  [ -e "$bin" ] || [ -L "$bin" ] || continue
  mknod "$layers${bin%/*}/upper/${bin##*/}" c 0 0 # an overlay whiteout: the name is gone
done
echo "test-bare.sh: ${#bins[@]} programs of ${#hide_pkgs[@]} packages hidden" >&2
export PATH="$PWD/node_modules/.bin:/usr/sbin:/usr/bin:/sbin:/bin"
unshare -m --propagation private bash -c '
  for dir in usr/bin usr/sbin; do
    mount -t overlay overlay -o "lowerdir=/$dir,upperdir=$0/$dir/upper,workdir=$0/$dir/work" "/$dir" || exit 2
  done
  if [ -d /usr/lib/python3/dist-packages ]; then mount --bind "$0/empty" /usr/lib/python3/dist-packages || exit 2; fi
  "$@"' "$layers" "$@"
