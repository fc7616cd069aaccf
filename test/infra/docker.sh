#!/usr/bin/env bash
# Real container engines for the docker platform's tests, on this machine, with no registry and no
# container networking: dockerd (Debian's docker.io) and podman's Docker-compatible API service.
#   bash test/infra/docker.sh start [docker|podman|both]   (default both; podman failing is not fatal)
#   bash test/infra/docker.sh stop
# Then builds the test image gpucheck-test/torch-cpu:bookworm (Debian minbase + python3-torch,
# python3-torchvision) with debootstrap and `docker import`, once, and loads it into podman too.
# Why each setting:
#  * --bridge=none --iptables=false: docker0 (172.17/16) and podman's CNI bridge (10.88/16) are
#    private ranges this workplace forbids as targets; containers use NetworkMode host or none.
#  * a fake nvidia-container-runtime-hook on dockerd's PATH at start-up makes dockerd register its
#    "nvidia" device driver, so DeviceRequests (--gpus) are accepted and NVIDIA_VISIBLE_DEVICES is set.
#  * podman without systemd: cgroupfs, file events logger, ulimits capped (no CAP_SYS_RESOURCE here).
#  * dockerd also listens on tcp://127.0.0.1:12376 with TLS, client certificates required
#    (--tlsverify), as an engine behind DOCKER_HOST=tcp://… should: a CA, the server's certificate
#    (IP 127.0.0.1) and a client's, made with openssl at the first start into a 0700 directory;
#    $STATE/env names the listener and the client's DOCKER_CERT_PATH (ca.pem, cert.pem, key.pem).
set -euo pipefail
ACTION=${1:-start}; WHICH=${2:-both}
STATE=/run/gpucheck-test/docker
PODMAN_CONF=/etc/gpucheck-test/containers.conf
FAKE_NV=/opt/gpucheck-test/fake-nvidia/bin
IMAGE=${GPUCHECK_TEST_IMAGE:-gpucheck-test/torch-cpu:bookworm}
IMAGE_TAR=/var/lib/gpucheck-test/torch-cpu-rootfs.tar
TLS_DIR=$STATE/tls
TLS_HOST=tcp://127.0.0.1:12376
log() { echo "[docker.sh] $*" >&2; }

# shellcheck source=test/infra/proc-lib.sh
. "$(dirname "$0")/proc-lib.sh"
# shellcheck source=test/infra/cgroup-lib.sh
. "$(dirname "$0")/cgroup-lib.sh"
alive() { pid_alive "$1" "$2"; } # alive PIDFILE NAME: a live, non-zombie process whose comm is NAME
wait_sock() { local i; for i in $(seq $(( $2 * 10 ))); do
  curl -sf --unix-socket "$1" http://localhost/_ping >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
stop_pid() {
  if alive "$1" "$2"; then
    local p; p=$(cat "$1"); log "stopping $2 pid $p"; kill "$p" || true
    for _ in $(seq 100); do alive "$1" "$2" || break; sleep 0.1; done
  fi
  rm -f "$1"
}

if [ "$ACTION" = stop ]; then
  stop_pid $STATE/dockerd.pid dockerd
  stop_pid $STATE/podman.pid podman
  rm -f /run/podman/podman.sock
  mountpoint -q /run/docker/netns/default && umount /run/docker/netns/default || true
  exit 0
fi
[ "$ACTION" = start ] || { echo "usage: $0 start [docker|podman|both] | stop" >&2; exit 2; }
mkdir -p $STATE /etc/gpucheck-test /var/lib/gpucheck-test

pkgs=(curl debootstrap)
[ "$WHICH" != podman ] && pkgs+=(docker.io)
[ "$WHICH" != docker ] && pkgs+=(podman catatonit)
missing=(); for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1 || {
    apt-get update >/dev/null; apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
fi

# The test image's root filesystem: Debian's own CPU PyTorch; nothing comes from a registry.
if [ ! -s $IMAGE_TAR ]; then
  root=$(mktemp -d)
  log "debootstrap bookworm with python3-torch (a few minutes, once)"
  debootstrap --variant=minbase --include=python3-torch,python3-torchvision bookworm "$root" >/var/log/gpucheck-test-debootstrap.log 2>&1 \
    || { tail -20 /var/log/gpucheck-test-debootstrap.log >&2; rm -rf "$root"; exit 1; }
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/usr/share/doc "$root"/usr/share/man
  tar -C "$root" -cf $IMAGE_TAR.tmp . && mv $IMAGE_TAR.tmp $IMAGE_TAR
  rm -rf "$root"
fi

# The TLS listener's certificates, once: a CA, the engine's (for 127.0.0.1) and a client's (DOCKER_CERT_PATH layout).
make_tls() {
  [ -s $TLS_DIR/client/key.pem ] && return 0
  local t; t=$(mktemp -d "$STATE/.tls.XXXXXX"); chmod 700 "$t"; mkdir -m 700 "$t/client"
  log "making the TLS listener's CA, server and client certificates"
  (
    cd "$t"
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=gpucheck-test docker CA" -keyout ca-key.pem -out ca.pem 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout server-key.pem -out server.csr 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 3650 -extfile server.ext -out server-cert.pem 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=gpucheck-test client" -keyout client/key.pem -out client.csr 2>/dev/null
    printf 'extendedKeyUsage=clientAuth\n' > client.ext
    openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 3650 -extfile client.ext -out client/cert.pem 2>/dev/null
    cp ca.pem client/ca.pem; rm -f ./*.csr ./*.ext ./*.srl; chmod 600 ./*-key.pem client/key.pem
  )
  rm -rf $TLS_DIR; mv "$t" $TLS_DIR
}
tls_ping() {
  curl -sf --max-time 5 --cacert $TLS_DIR/client/ca.pem --cert $TLS_DIR/client/cert.pem --key $TLS_DIR/client/key.pem \
    "https://${TLS_HOST#tcp://}/_ping" >/dev/null 2>&1
}

if [ "$WHICH" != podman ]; then
  make_tls
  # a dockerd started before the TLS listener existed (the daemons outlive a run) is started again with it
  if alive $STATE/dockerd.pid dockerd && ! tls_ping; then
    log "dockerd has no TLS listener on $TLS_HOST: restarting it"
    stop_pid $STATE/dockerd.pid dockerd
  fi
  mkdir -p $FAKE_NV
  printf '#!/bin/sh\n# fake NVIDIA OCI prestart hook: lets dockerd accept GPU DeviceRequests without GPUs\ncat >/dev/null\nexit 0\n' > $FAKE_NV/nvidia-container-runtime-hook
  chmod +x $FAKE_NV/nvidia-container-runtime-hook
  if ! alive $STATE/dockerd.pid dockerd; then
    start_dockerd() {
      log "starting dockerd $*"
      PATH=$FAKE_NV:$PATH nohup dockerd --host unix:///var/run/docker.sock \
        --host $TLS_HOST --tlsverify --tlscacert $TLS_DIR/ca.pem --tlscert $TLS_DIR/server-cert.pem --tlskey $TLS_DIR/server-key.pem \
        --bridge=none --iptables=false --ip6tables=false --ip-forward=false --ip-masq=false \
        "$@" >/var/log/gpucheck-test-dockerd.log 2>&1 &
      echo $! > $STATE/dockerd.pid
    }
    start_dockerd
    if ! wait_sock /var/run/docker.sock 30; then
      log "dockerd not ready with overlay2; retrying with vfs"
      stop_pid $STATE/dockerd.pid dockerd
      start_dockerd --storage-driver=vfs
      wait_sock /var/run/docker.sock 30 || { tail -20 /var/log/gpucheck-test-dockerd.log >&2; exit 1; }
    fi
  fi
  if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
    log "importing $IMAGE into docker"
    docker import -c 'ENV PATH=/usr/local/bin:/usr/bin:/bin' $IMAGE_TAR "$IMAGE" >/dev/null
  fi
  docker run --rm --network none "$IMAGE" /usr/bin/python3 -c 'import torch' || { log "image $IMAGE cannot import torch"; exit 1; }
  tls_ping || { log "dockerd does not answer over TLS on $TLS_HOST"; tail -20 /var/log/gpucheck-test-dockerd.log >&2; exit 1; }
  printf 'GPUCHECK_DOCKER_TLS_HOST=%s\nGPUCHECK_DOCKER_CERT_PATH=%s\n' $TLS_HOST $TLS_DIR/client > $STATE/env
  log "docker ready: unix:///var/run/docker.sock and $TLS_HOST (TLS, DOCKER_CERT_PATH=$TLS_DIR/client), image $IMAGE"
fi

# podman 4.3's Docker-compatible API busy-polls its state database for each container it waits on (bolt_state.db
# opened some 300 times a second: 40-60 % of a core for one running container). The service's threads sit in the
# root cgroup, each weighing as much as a whole container's cgroup, so a rank in a container got a fraction of
# the CPU that the same rank got on dockerd (cpu-smoke: 369 s on podman against 49 s on docker in CI). The
# service goes into its own cgroup with a low CPU weight: it still has the whole machine when nothing else runs,
# and yields to the ranks when they do. Its containers are not in it: podman puts conmon and each container into
# libpod_parent/, whatever the service's own cgroup.
api_low_weight() { # api_low_weight PID
  local cg=gpucheck-podman-api
  cg_make $cg
  if [ -n "$CG_V2" ]; then echo 6 >"$CG_CPU/$cg/cpu.weight"; else echo 64 >"$CG_CPU/$cg/cpu.shares"; fi
  cg_join $cg "$1"
}

if [ "$WHICH" != docker ]; then
  mkdir -p /etc/gpucheck-test/cni
  echo '{ "cniVersion": "0.4.0", "name": "podman", "plugins": [ { "type": "loopback" } ] }' > /etc/gpucheck-test/cni/87-podman.conflist
  cat > $PODMAN_CONF <<'EOF'
[containers]
netns = "none"
default_ulimits = ["nofile=8192:8192", "nproc=8192:8192"]
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
[network]
network_config_dir = "/etc/gpucheck-test/cni"
EOF
  export CONTAINERS_CONF=$PODMAN_CONF
  podman_ok=1
  if ! alive $STATE/podman.pid podman; then
    mkdir -p /run/podman; rm -f /run/podman/podman.sock
    log "starting podman system service"
    nohup podman system service --time=0 unix:///run/podman/podman.sock >/var/log/gpucheck-test-podman.log 2>&1 &
    echo $! > $STATE/podman.pid
    wait_sock /run/podman/podman.sock 30 || { tail -20 /var/log/gpucheck-test-podman.log >&2; podman_ok=0; }
  fi
  if [ $podman_ok = 1 ]; then
    api_low_weight "$(cat $STATE/podman.pid)" || log "could not lower the podman service's CPU weight: it keeps the root cgroup's"
    podman image exists "localhost/$IMAGE" || podman image exists "$IMAGE" ||
      podman import -q -c 'ENV PATH=/usr/local/bin:/usr/bin:/bin' $IMAGE_TAR "$IMAGE" >/dev/null
    log "podman ready: unix:///run/podman/podman.sock (CLI needs CONTAINERS_CONF=$PODMAN_CONF)"
  elif [ "$WHICH" = podman ]; then exit 1
  else log "podman unavailable; docker only"; stop_pid $STATE/podman.pid podman; rm -f /run/podman/podman.sock
  fi
fi
