# shellcheck shell=bash
# The network faults of test/infra/netns.sh (sourced by it). Each acts on both ends of host I's veth
# pair, eth0 inside the namespace (what the host sends) and gc-hI on the bridge (what it receives):
# a qdisc only shapes what leaves an interface, so shaping both ends' egress covers both directions.
# test/infra/slurm-lab.sh sources it too, for its nodes' veths: it sets these before sourcing, and
# both define group_of I (the host's cgroup) and daemon_pid I (its sshd or slurmd).
NF_LINK=${NF_LINK:-gc-h} # host I's veth in the root namespace is $NF_LINK$I, the other end eth0 in namespace $NF_LINK$I
NF_FAB=${NF_FAB:-gc-f}   # its fabric veth: $NF_FAB$I, fab0 inside
NF_NAME=${NF_NAME:-ns}   # host I as the messages name it

ends() { # ends I: "NETNS DEV" for each end of host I's veth, "-" being the root namespace
  printf '%s%s eth0\n- %s%s\n' "$NF_LINK" "$1" "$NF_LINK" "$1"
}

tcn() { # tcn NETNS ARGS...: tc in that namespace
  local n=$1; shift
  if [ "$n" = - ]; then tc "$@"; else tc -n "$n" "$@"; fi
}

root_kind() { # root_kind NETNS DEV: the root qdisc's kind (noqueue on a veth nothing was added to)
  tcn "$1" qdisc show dev "$2" root | awk 'NR == 1 { print $2 }'
}

slow() { # slow I RATE: a token bucket at RATE each way
  [[ $2 =~ ^([0-9]+(\.[0-9]+)?)(bit|kbit|mbit|gbit)$ ]] && awk -v r="${BASH_REMATCH[1]}" 'BEGIN { exit !(r > 0) }' ||
    die "slow: rate \"$2\" is not a tc rate such as 500kbit, 10mbit or 1gbit"
  local mult bps burst n dev
  case ${BASH_REMATCH[3]} in bit) mult=1 ;; kbit) mult=1000 ;; mbit) mult=1000000 ;; gbit) mult=1000000000 ;; esac
  bps=$(awk -v r="${BASH_REMATCH[1]}" -v m=$mult 'BEGIN { printf "%d", r * m }')
  # 10 ms of traffic per burst, and never less than a few full-size packets
  burst=$(awk -v b="$bps" 'BEGIN { x = b / 8 / 100; printf "%d", (x < 16384 ? 16384 : x) }')
  while read -r n dev; do
    [ "$(root_kind "$n" "$dev")" != netem ] || die "slow: $NF_NAME$1 has a netem qdisc (its delay): unnetem $1 first, tbf and netem cannot both be its root qdisc"
  done < <(ends "$1")
  while read -r n dev; do tcn "$n" qdisc replace dev "$dev" root tbf rate "$2" burst "$burst" latency 100ms; done < <(ends "$1")
}

unslow() { # unslow I
  local n dev
  while read -r n dev; do [ "$(root_kind "$n" "$dev")" != tbf ] || tcn "$n" qdisc del dev "$dev" root; done < <(ends "$1")
}

# Loss is a classic BPF program in the clsact egress hook rather than netem's loss, because kernels
# built without CONFIG_NET_SCH_NETEM (this machine's, a Firecracker guest) have no netem at all. It
# drops a packet when the kernel's per-packet random number is below P% of 2^32:
#   ld rand (SKF_AD_RANDOM); jge T ? pass : drop; pass: ret TC_ACT_OK (0); drop: ret TC_ACT_SHOT (2)
loss_program() { # loss_program PERCENT
  awk -v p="$1" 'BEGIN { printf "4,32 0 0 4294963256,53 0 1 %d,6 0 0 0,6 0 0 2", p / 100 * 4294967296 }'
}

loss_percent() { # loss_percent NETNS DEV: the loss the dropper on DEV applies ("5%"), or nothing
  local f t
  f=$(tcn "$1" filter show dev "$2" egress 2>/dev/null)
  [[ $f =~ bytecode\ \'4,32\ 0\ 0\ 4294963256,53\ 0\ 1\ ([0-9]+), ]] || return 0
  t=$(((BASH_REMATCH[1] * 1000 + (1 << 31)) >> 32)) # tenths of a percent, rounded
  t=$((t / 10)).$((t % 10))
  echo "${t%.0}%"
}

netem() { # netem I "SPEC": loss P% through the dropper, every other netem option through netem itself
  local words rest=() loss="" n dev out
  read -r -a words <<<"$2"
  [ ${#words[@]} -gt 0 ] || die "netem: the spec is empty: \"loss 5%\", \"delay 50ms\" or both"
  set -- "$1" "${words[@]}"
  local i=$1; shift
  while [ $# -gt 0 ]; do
    if [ "$1" = loss ]; then
      [ $# -ge 2 ] || die "netem: loss needs a percentage: loss 5%"
      [[ $2 =~ ^([0-9]+(\.[0-9]+)?)%$ ]] && awk -v p="${BASH_REMATCH[1]}" 'BEGIN { exit !(p > 0 && p < 100) }' ||
        die "netem: loss \"$2\" is not a percentage above 0 and below 100 (cut $i drops everything)"
      loss=${BASH_REMATCH[1]}; shift 2
    else rest+=("$1"); shift; fi
  done
  if [ ${#rest[@]} -gt 0 ]; then
    while read -r n dev; do
      [ "$(root_kind "$n" "$dev")" != tbf ] || die "netem: $NF_NAME$i is slowed (tbf): unslow $i first, tbf and netem cannot both be its root qdisc"
    done < <(ends "$i")
    while read -r n dev; do
      if ! out=$(tcn "$n" qdisc replace dev "$dev" root netem "${rest[@]}" 2>&1); then
        case $out in
          *"qdisc kind is unknown"*)
            die "netem: this kernel has no netem qdisc (CONFIG_NET_SCH_NETEM is off): \"${rest[*]}\" cannot be applied; loss alone works (netem $i \"loss 5%\")" ;;
          *) die "netem: tc refused \"${rest[*]}\": $out" ;;
        esac
      fi
    done < <(ends "$i")
  fi
  [ -n "$loss" ] || return 0
  while read -r n dev; do
    tcn "$n" qdisc del dev "$dev" clsact 2>/dev/null || true
    tcn "$n" qdisc add dev "$dev" clsact
    tcn "$n" filter add dev "$dev" egress bpf da bytecode "$(loss_program "$loss")"
  done < <(ends "$i")
}

unnetem() { # unnetem I
  local n dev
  while read -r n dev; do
    tcn "$n" qdisc del dev "$dev" clsact 2>/dev/null || true
    [ "$(root_kind "$n" "$dev")" != netem ] || tcn "$n" qdisc del dev "$dev" root
  done < <(ends "$1")
}

cut_link() { # cut_link I up|down: host I's management link
  ip link set "$NF_LINK$1" "$2"
  [ "$2" = down ] || forget "$1" eth0
}

cut_fabric() { # cut_fabric I up|down: host I's fabric link only
  ip link set "$NF_FAB$1" "$2"
  [ "$2" = down ] || forget "$1" fab0
}

# Address resolution that ran out while a link was down leaves the host's address failing in its
# peers' caches (INCOMPLETE, then FAILED, a connection's first packet queued on it): a connection
# made right after the undo fails "No route to host" (seen in CI; made at will by connecting during
# the cut and uncutting 2.5 s later). An undone cut leaves none of that: every namespace forgets it.
forget() { # forget I DEV: the lab's namespaces (and the root one) forget host I's address on DEV; host I forgets all it learnt on it
  local addr n
  addr=$(ip -n "$NF_LINK$1" -4 -o addr show dev "$2" 2>/dev/null | awk '{ sub(/\/.*/, "", $4); print $4; exit }')
  [ -n "$addr" ] || return 0
  ip neigh flush to "$addr" >/dev/null 2>&1 || true
  for n in $(ip netns list | awk -v p="^$NF_LINK[0-9]+$" '$1 ~ p { print $1 }'); do
    if [ "$n" = "$NF_LINK$1" ]; then ip -n "$n" neigh flush dev "$2" >/dev/null 2>&1 || true; else ip -n "$n" neigh flush to "$addr" >/dev/null 2>&1 || true; fi
  done
}

host_faults() { # host_faults I: the faults host I has now, read from the kernel: "cut; slow 10Mbit; ..."
  local f=() root q g; g=$(group_of "$1")
  [[ $(ip -o link show "$NF_LINK$1" 2>/dev/null) =~ [\<,]UP[,\>] ]] || f+=("cut")
  [[ $(ip -o link show "$NF_FAB$1" 2>/dev/null) =~ [\<,]UP[,\>] ]] || f+=("fabric cut")
  root=$(tc qdisc show dev "$NF_LINK$1" root)
  if [[ $root =~ \ tbf\ .*\ rate\ ([^ ]+) ]]; then f+=("slow ${BASH_REMATCH[1]}")
  elif [[ $root =~ \ netem\ .*limit\ [0-9]+\ *(.*) ]]; then f+=("netem ${BASH_REMATCH[1]}"); fi
  q=$(loss_percent - "$NF_LINK$1"); [ -z "$q" ] || f+=("loss $q")
  q=$(cg_cap_percent "$g"); [ -z "$q" ] || f+=("cpu-cap $q%")
  ! cg_frozen "$g" || f+=("frozen")
  local IFS=';'; q="${f[*]}"; echo "${q//;/; }"
}

clear_host() { # clear_host I: every fault undone
  cut_link "$1" up
  cut_fabric "$1" up
  unslow "$1"
  unnetem "$1"
  cg_uncap "$(group_of "$1")"
  cg_thaw "$(group_of "$1")" "$(daemon_pid "$1")"
}
