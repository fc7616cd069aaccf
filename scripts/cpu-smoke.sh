#!/usr/bin/env bash
# The main job on a fresh Debian machine: install what is missing, build, run the built-in
# cpu-smoke suite (2 CPU ranks, gloo) on this machine with Debian's Python and PyTorch.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
/usr/bin/python3 -c 'import torch' 2>/dev/null || need+=(python3-torch)
/usr/bin/python3 -c 'import torchvision' 2>/dev/null || need+=(python3-torchvision)
if [ ${#need[@]} -gt 0 ]; then
  echo "[cpu-smoke] installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1 || {
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
  }
fi
[ -x node_modules/.bin/bun ] || npm ci --no-audit --no-fund
npm run build
exec compiled/gpucheck suite cpu-smoke --python /usr/bin/python3 "$@"
