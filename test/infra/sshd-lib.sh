# shellcheck shell=bash
# What test/infra/ssh.sh (hosts on loopback) and test/infra/netns.sh (hosts in network namespaces)
# share: the test user, its client key, the sshd config, starting and killing an sshd tree, the
# user's own ssh config for host-to-host ssh, and the login check. Sourced; the caller sets BASE (its
# state directory), USER_NAME and log().
#
# Things that bite (why it looks the way it does):
# - useradd leaves the password "!" (locked) and with UsePAM=no sshd refuses locked accounts even for
#   key logins ("Permission denied (publickey)"): the password field is set to "*".
# - sshd reads AuthorizedKeysFile as the target user: $BASE must be traversable by that user.
# - /run/sshd (privilege separation dir) is normally made by systemd.
# - killing an sshd listener does not end the connections it accepted: a host "dies" only when its
#   per-connection sshd's die too (kill_tree kills the whole tree).

# shellcheck source=test/infra/proc-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/proc-lib.sh"

alive() { pid_alive "$1" sshd; } # alive PIDFILE: a live, non-zombie sshd

kill_tree() { # kill_tree PIDFILE: the listener and every connection it serves
  [ -s "$1" ] || return 0
  local p; p=$(cat "$1")
  if alive "$1"; then
    # stop the listener first so no new connection forks while the tree is being killed
    kill -STOP "$p" 2>/dev/null || true
    # then freeze the whole tree before killing any of it: a host that dies sends nothing more, but a
    # tree killed one process at a time lets a connection's sshd see its command die first and send
    # that exit status (137) to the client, which reads as the test failing, not the host dying
    local tree; tree=$(descendants "$p")
    # (shallowest first, so no sshd runs while its command is already stopped)
    # shellcheck disable=SC2046,SC2086
    kill -STOP $(printf '%s\n' $tree | tac) 2>/dev/null || true
    # shellcheck disable=SC2086
    kill -KILL $tree "$p" 2>/dev/null || true
  fi
  rm -f "$1"
}

install_openssh() {
  [ -x /usr/sbin/sshd ] && command -v ssh >/dev/null && return 0
  log "installing openssh-server"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends openssh-server openssh-client >/dev/null 2>&1 || {
    apt-get update >/dev/null; apt-get install -y --no-install-recommends openssh-server openssh-client >/dev/null; }
}

setup_user_and_key() { # the test user, and $BASE/client/id_ed25519 as the only key it accepts
  mkdir -p /run/sshd && chmod 0755 /run/sshd
  id "$USER_NAME" >/dev/null 2>&1 || useradd -m -s /bin/bash "$USER_NAME"
  usermod -p '*' "$USER_NAME"
  # the docker platform reaches engines through these hosts (`ssh host docker system dial-stdio`), so
  # the test user may use the local dockerd's socket, which is group docker's (made here if dockerd
  # has not made it yet: dockerd gives its socket to an existing group docker when it starts)
  getent group docker >/dev/null || groupadd -r docker
  id -nG "$USER_NAME" | grep -qw docker || usermod -aG docker "$USER_NAME"
  mkdir -p "$BASE/client" && chmod 755 "$(dirname "$BASE")" "$BASE" && chmod 700 "$BASE/client"
  [ -s "$BASE/client/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C gpucheck-test-client -f "$BASE/client/id_ed25519"
  cp "$BASE/client/id_ed25519.pub" "$BASE/authorized_keys" && chmod 644 "$BASE/authorized_keys"
}

common_sshd_config() { # common_sshd_config HOSTKEY PIDFILE
  cat <<EOF
HostKey $1
PidFile $2
AuthorizedKeysFile $BASE/authorized_keys
AllowUsers $USER_NAME
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
UseDNS no
PrintMotd no
PrintLastLog no
# many multiplexed sessions per connection (8 ranks + control commands) and many parallel connects
MaxSessions 64
MaxStartups 512:30:1024
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
}

start_sshd() { # start_sshd DIR [WRAPPER...]: validate and start the sshd configured in DIR unless it runs
  local d=$1; shift
  /usr/sbin/sshd -t -f "$d/sshd_config"
  if ! alive "$d/sshd.pid"; then
    log "starting sshd $(basename "$d") ($(grep -c ^ListenAddress "$d/sshd_config") address(es))"
    "$@" /usr/sbin/sshd -f "$d/sshd_config" # daemonizes, writes the pid file
  fi
}

client_options() { # the part of a client config every host block shares
  cat <<EOF
  User $USER_NAME
  IdentityFile $BASE/client/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile $BASE/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  BatchMode yes
  ConnectTimeout 5
EOF
}

# The hosts reach each other as the test user too, as an MPI cluster's do (mpirun starts its daemons
# over ssh): the same key and known_hosts. Each script owns one file under ~/.ssh/config.d, which
# ~/.ssh/config includes, so the loopback hosts and the namespace hosts are reachable side by side.
install_user_config() { # install_user_config NAME: $BASE/config for the test user, as ~/.ssh/config.d/NAME
  local home; home=$(getent passwd "$USER_NAME" | cut -d: -f6)
  install -d -m 700 -o "$USER_NAME" -g "$USER_NAME" "$home/.ssh" "$home/.ssh/config.d"
  install -m 600 -o "$USER_NAME" -g "$USER_NAME" "$BASE/client/id_ed25519" "$home/.ssh/id_$1"
  sed -e "s|^# generated by \([^:]*\):.*|# generated by \1 for intra-cluster ssh|" -e "s|IdentityFile .*|IdentityFile $home/.ssh/id_$1|" \
    "$BASE/config" | grep -v '^  User ' >"$home/.ssh/config.d/$1.new"
  install -m 600 -o "$USER_NAME" -g "$USER_NAME" "$home/.ssh/config.d/$1.new" "$home/.ssh/config.d/$1" && rm -f "$home/.ssh/config.d/$1.new"
  printf '# generated by gpucheck test/infra: one file per test cluster\nInclude config.d/*\n' >"$home/.ssh/config.new"
  install -m 600 -o "$USER_NAME" -g "$USER_NAME" "$home/.ssh/config.new" "$home/.ssh/config" && rm -f "$home/.ssh/config.new"
}

wait_login() { # wait_login HOST ADDR: HOST accepts a key login and ssh reaches it on ADDR (max ~10 s)
  local out
  for _ in $(seq 50); do
    if out=$(ssh -F "$BASE/config" "$1" 'echo $SSH_CONNECTION' 2>/dev/null) && [ "$(echo "$out" | cut -d' ' -f3)" = "$2" ]; then return 0; fi
    sleep 0.2
  done
  log "$1: login failed"; ssh -v -F "$BASE/config" "$1" true || true
  return 1
}
