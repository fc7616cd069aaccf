#!/bin/sh
# A stand-in for the OpenSSH client (test/integration/no-daemon/ssh-conformance.test.ts puts it on PATH as
# `ssh`): every host is a scratch directory on this machine, <root>/hosts/<host>, and the remote
# command runs there as sshd would run it: one string for `/bin/sh -c`, in a clean environment
# whose HOME is that directory, with SSH_CONNECTION naming the address the host was reached on.
# Its stdin reaches the remote command until the client goes away, which the remote watchdog sees as EOF.
# What a local shell cannot show (a refused connection, an unknown host key) is replayed: a file
# <root>/faults/<host> (or <user>@<host> when a login user is given) holds ssh's stderr for that
# host, printed with ssh's exit code 255. Each command that reaches a host is a line of <root>/calls.
root=$(cd "$(dirname "$0")/.." && pwd)
op=
user=
while [ $# -gt 0 ]; do
  case "$1" in
    -l) user=$2; shift 2 ;;
    -F | -i | -p | -o) shift 2 ;;
    -O) op=$2; shift 2 ;;
    --) shift; break ;;
    -*) shift ;;
    *) break ;;
  esac
done
host=$1
shift
fault=$root/faults/${user:+$user@}$host
if [ -f "$fault" ]; then
  cat "$fault" >&2
  exit 255
fi
# what reached the host, for tests counting sessions: the host and the remote command's name ($0)
if [ -n "$op" ]; then called="-O $op"; else called=${*##* }; fi
printf '%s %s\n' "$host" "$called" >>"$root/calls"
# `ssh -O exit`: no ControlMaster here to close
[ -n "$op" ] && exit 0
home=$root/hosts/$host
mkdir -p "$home"
cd "$home" || exit 255
# The remote command runs in a session of its own, on pipes of its own (fifos) that this client
# relays, as sshd's child on its own pipes: killing the client's process group (gpucheck's stop)
# reaches no remote process, and the remote side sees what a dropped connection shows it, EOF on
# stdin and a broken pipe on output. Had it shared this client's pipes, a rank that outlived its
# killed wrapper would hold them open and gpucheck would wait on them forever, which real ssh never does.
mkdir -p "$root/chan"
c=$(mktemp -d "$root/chan/XXXXXX") || exit 255
mkfifo "$c/in" "$c/out" "$c/err" || exit 255
setsid env -i HOME="$home" PATH=/usr/local/bin:/usr/bin:/bin LOGNAME="$(id -un)" USER="$(id -un)" \
  SSH_CONNECTION="127.0.0.1 50000 127.0.0.1 22" /bin/sh -c "$*" <"$c/in" >"$c/out" 2>"$c/err" &
remote=$!
cat "$c/out" &
out=$!
cat "$c/err" >&2 &
err=$!
# (an asynchronous command's stdin is /dev/null unless redirected: the client's own is kept on fd 4)
exec 4<&0
cat <&4 >"$c/in" 4<&- &
in=$!
exec 4<&-
wait $remote
rc=$?
# as ssh, the client ends once the remote output is closed (by every process holding it), stdin or not
wait $out $err
kill $in 2>/dev/null
rm -rf "$c"
exit $rc
