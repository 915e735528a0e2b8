#!/bin/sh
# Exec events come from the kernel only (host, fake tree, the real proc
# connector): tierd reads them with libnl's nl_recv() and drops a datagram
# whose sender is not the kernel (netlink port 0).  Anyone may send a
# datagram to tierd's port; before, a forged "PID N executed" made tierd
# read that process's /proc/PID/exe and give its cgroup the exe= rule's class.
#  1. a forged exec event, sent to tierd's port by another process, is
#     dropped and said so, and its cgroup keeps its value;
#  2. a real exec, which the kernel reports, still gets its class at once.
# Skips where the proc connector is not available (no CONFIG_PROC_EVENTS,
# not root, a network namespace of its own).
. "$(dirname "$0")/lib-host.sh"

command -v python3 >/dev/null 2>&1 || skip "no python3"
SLEEP=$(command -v sleep) || skip "no sleep"
[ "$(id -u)" = 0 ] || skip "the proc connector needs root"
mk_fake_host
mkdir -p "$T/bin"
cp "$SLEEP" "$T/bin/dbd"
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
[class:db]
mode = full
[rule:db]
class = db
exe = $T/bin/dbd
EOC
mk_cgroup forged
mk_cgroup real

# tierd as start_tierd runs it, but with the proc connector.
: >"$LOG"
"$TIERD" --foreground -v --config "$CONF" --cgroup-root "$CG" --sysfs-root "$SYS" \
	--procfs-root "$PROC" --no-systemd --bus-socket "$T/bus" >>"$LOG" 2>&1 &
TIERD_PID=$!
"$WAITFOR" -t 20 "$LOG" 'tierd started|Cannot start' || fail "tierd did not start"
grep -q 'Cannot start' "$LOG" && fail "tierd refused to start"
grep -q 'Listening to process events' "$LOG" ||
	skip "no proc connector here: $(grep 'Process events' "$LOG" | head -n 1)"

# 1. PID 4242 (fake procfs) "executed" the rule's file, in /forged: sent by
#    this shell's python, to the port of tierd's NETLINK_CONNECTOR socket.
mkdir -p "$PROC/4242"
ln -s "$T/bin/dbd" "$PROC/4242/exe"
printf '0::/forged\n' >"$PROC/4242/cgroup"
python3 - "$TIERD_PID" <<'EOP' || fail "cannot send the forged event"
import os, socket, struct, sys
pid = sys.argv[1]
inodes = set()
for fd in os.listdir("/proc/%s/fd" % pid):
    try:
        l = os.readlink("/proc/%s/fd/%s" % (pid, fd))
    except OSError:
        continue
    if l.startswith("socket:["):
        inodes.add(l[8:-1])
port = None
for line in open("/proc/net/netlink").readlines()[1:]:
    f = line.split()
    # sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode
    if f[1] == "11" and f[-1] in inodes:
        port = int(f[2])
if port is None:
    sys.exit("tierd has no NETLINK_CONNECTOR socket")
ev = struct.pack("=IIQii", 2, 0, 0, 4242, 4242)		# PROC_EVENT_EXEC
cn = struct.pack("=IIIIHH", 1, 1, 0, 0, len(ev), 0) + ev	# CN_IDX_PROC, CN_VAL_PROC
msg = struct.pack("=IHHII", 16 + len(cn), 3, 0, 0, os.getpid()) + cn	# NLMSG_DONE
s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 11)
s.bind((0, 0))
s.sendto(msg, (port, 0))
EOP
wait_log 'Process event from netlink port [0-9]*, not the kernel'
grep -q '/forged: memory.numa_balancing' "$LOG" && fail "the forged event moved /forged into a class"
[ "$(mode_of forged)" = inherit ] || fail "/forged is $(mode_of forged)"
echo "ok 1 a forged exec event is dropped"

# 2. A real exec: a shell waits at a gate, its fake /proc entry names the
#    rule's file and /real, then it execs the file; the kernel says so.
mkfifo "$T/gate"
sh -c "read x <'$T/gate'; exec '$T/bin/dbd' 600" &
REAL=$!
trap 'kill $REAL 2>/dev/null; cleanup' EXIT
mkdir -p "$PROC/$REAL"
ln -s "$T/bin/dbd" "$PROC/$REAL/exe"
printf '0::/real\n' >"$PROC/$REAL/cgroup"
echo go >"$T/gate"
wait_mode real full
wait_log "PID $REAL in /real executed"
echo "ok 2 a real exec still gets its class"
kill "$REAL"
stop_tierd
exit 0
