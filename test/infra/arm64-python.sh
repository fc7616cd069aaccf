#!/usr/bin/env bash
# An arm64 Python (Grace hosts: GH200, GB200 NVL72 trays) on this x86 machine, from Debian's own arm64
# packages, run by qemu-user-static. Nothing is installed for arm64: the .debs are downloaded with
# apt-get (Debian's mirror, as every package here) and unpacked into a directory that qemu uses as its root.
#   bash test/infra/arm64-python.sh DIR     prints DIR/python3, a wrapper that runs the arm64 interpreter
# Needs qemu-user-static (scripts/ci-deps.sh). Idempotent: a DIR already unpacked is reused.
set -euo pipefail
dir=$1
ver=$(/usr/bin/python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
if [ ! -x "$dir/root/usr/bin/python$ver" ]; then
  # arm64 package lists: the foreign architecture is declared once, its lists fetched when missing
  dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
  # libc6, libpython's stdlib and what its C modules link (zlib, expat, ffi): enough for the pure-Python workload
  pkgs=("python$ver-minimal:arm64" "libpython$ver-minimal:arm64" "libpython$ver-stdlib:arm64" libc6:arm64 zlib1g:arm64 libexpat1:arm64 libffi8:arm64)
  rm -rf "$dir" && mkdir -p "$dir/debs" "$dir/root"
  # apt-get download writes where it runs; as root it warns that _apt cannot reach the directory: harmless
  (cd "$dir/debs" && { apt-get download -q "${pkgs[@]}" >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get download -q "${pkgs[@]}" >/dev/null 2>&1; }; })
  for deb in "$dir"/debs/*.deb; do dpkg-deb -x "$deb" "$dir/root"; done
  rm -rf "$dir/debs"
fi
cat >"$dir/python3" <<WRAP
#!/bin/sh
exec /usr/bin/qemu-aarch64-static -L "$dir/root" "$dir/root/usr/bin/python$ver" "\$@"
WRAP
chmod +x "$dir/python3"
echo "$dir/python3"
