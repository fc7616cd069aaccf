#!/usr/bin/env bash
# The main job on a fresh Debian machine: install what is missing, build, run the built-in
# cpu-smoke suite (2 CPU ranks, gloo) on this machine with Debian's Python and PyTorch.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/apt-install.sh python3-torch python3-torchvision
[ -x node_modules/.bin/bun ] || npm ci --no-audit --no-fund
npm run build
exec compiled/gpucheck suite cpu-smoke --python /usr/bin/python3 "$@"
