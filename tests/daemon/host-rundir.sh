#!/bin/sh
# The run directory (the bus socket's directory) on the host, fake tree:
#  1. a second tierd on the same directory refuses to start (exit 1, says
#     which PID holds the lock) and the first keeps serving its socket;
#  2. a regular file at the --bus-socket path is refused and survives;
#  3. a run directory writable by others (or owned by another user) is
#     refused;
#  4. a stale socket (nobody listens) is replaced; a socket put in place of
#     ours while tierd runs is not removed at exit; ours is.
. "$(dirname "$0")/lib-host.sh"

command -v busctl >/dev/null 2>&1 || skip "no busctl"

mk_fast_host
mk_cgroup fast
mk_cgroup fast/a

status() {
	busctl --timeout=5 --address="unix:path=$1" call org.tierd.Manager1 /org/tierd/Manager1 \
		org.tierd.Manager1 Status
}
# run_tierd SOCKET LOGFILE [ARGS]: a tierd in the foreground that is expected
# to refuse to start; exit status in $rc (124: it ran, killed after 20 s).
run_tierd() {
	sock=$1 log=$2
	shift 2
	rc=0
	timeout 20 "$TIERD" --foreground --config "$CONF" --cgroup-root "$CG" --sysfs-root "$SYS" \
		--procfs-root "$PROC" --no-proc-connector --no-systemd --bus-socket "$sock" "$@" \
		>"$log" 2>&1 || rc=$?
}

# 1. One tierd per run directory.
start_tierd
wait_mode fast/a full
ino=$(stat -c %i "$T/bus")
run_tierd "$T/bus" "$T/second.log"
[ "$rc" = 1 ] || { cat "$T/second.log"; fail "a second tierd exited $rc, expected 1"; }
grep -q "another tierd (PID $TIERD_PID) is running" "$T/second.log" ||
	{ cat "$T/second.log"; fail "the second tierd does not say who holds the lock"; }
[ "$(stat -c %i "$T/bus")" = "$ino" ] || fail "the second tierd replaced the socket"
status "$T/bus" | grep -q 'cgroups, .* in a class' || fail "the first tierd stopped serving"
# Another socket name in the same directory is the same run directory.
run_tierd "$T/bus-other" "$T/second.log"
[ "$rc" = 1 ] || fail "a second tierd with another socket in the same directory exited $rc"
[ -e "$T/bus-other" ] && fail "the refused tierd left a socket behind"
kill -0 "$TIERD_PID" || fail "tierd died"
echo "ok 1 a second tierd refuses to start, the first keeps serving"

# 4b. While it runs, someone replaces our socket: at exit it is left alone.
mv "$T/bus" "$T/bus.ours"
python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$T/bus" ||
	fail "cannot make a socket"
stop_tierd
[ -S "$T/bus" ] || fail "tierd removed a socket it did not bind"
grep -q 'no longer the socket we bound' "$LOG" || fail "no word about the replaced socket"
rm -f "$T/bus" "$T/bus.ours"
echo "ok 4b a socket that is not ours is not removed at exit"

# 4. A stale socket (a crashed tierd's: nobody listens) is replaced, and
#    ours is removed at exit.
python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$T/bus"
start_tierd
status "$T/bus" >/dev/null || fail "tierd does not serve after replacing a stale socket"
stop_tierd
[ -e "$T/bus" ] && fail "tierd left its socket behind"
echo "ok 4 a stale socket is replaced; ours is removed at exit"

# 2. A regular file where the socket should be: refused, left alone.
printf 'precious\n' >"$T/bus"
run_tierd "$T/bus" "$T/file.log"
[ "$rc" = 1 ] || { cat "$T/file.log"; fail "tierd with a file at the socket path exited $rc"; }
grep -q 'exists and is not a socket' "$T/file.log" || { cat "$T/file.log"; fail "no reason given"; }
[ "$(cat "$T/bus")" = precious ] || fail "the file at the socket path was replaced"
rm -f "$T/bus"
echo "ok 2 a regular file at the socket path survives"

# 3. A run directory others can write to, or someone else's: refused.
mkdir -m 0777 "$T/open"
chmod 0777 "$T/open" # whatever the umask
run_tierd "$T/open/bus" "$T/open.log"
[ "$rc" = 1 ] || { cat "$T/open.log"; fail "tierd with a world-writable run directory exited $rc"; }
grep -q 'writable by everyone' "$T/open.log" || { cat "$T/open.log"; fail "no reason given"; }
[ -e "$T/open/bus" ] && fail "a socket was made in a world-writable directory"
mkdir -m 0770 "$T/group"
chmod 0770 "$T/group"
run_tierd "$T/group/bus" "$T/group.log"
[ "$rc" = 1 ] || fail "tierd with a group-writable run directory exited $rc"
if [ "$(id -u)" = 0 ]; then
	mkdir -m 0700 "$T/theirs"
	chown 65534 "$T/theirs"
	run_tierd "$T/theirs/bus" "$T/theirs.log"
	[ "$rc" = 1 ] || { cat "$T/theirs.log"; fail "tierd with another user's run directory exited $rc"; }
	grep -q 'owned by UID 65534' "$T/theirs.log" || { cat "$T/theirs.log"; fail "no reason given"; }
fi
ln -s "$T/group" "$T/link"
run_tierd "$T/link/bus" "$T/link.log"
[ "$rc" = 1 ] || fail "tierd with a symlink as run directory exited $rc"
echo "ok 3 an unsafe run directory is refused"
exit 0
