# tests/daemon/lib-vm.sh: helpers for the daemon tests that run inside the
# two-tier VM as the guest's test (sourced).  The guest's root is the host's,
# read-only; /tmp and /run are tmpfs; /sys/fs/cgroup is a real cgroup2 tree
# with the memory controller enabled for the root's children.
#
# Every wait is an inotify wait with a bounded timeout (tierd-waitfor).

set -u

TOP=${TIERD_VM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${TIERD_VM_BUILD:-$TOP/build}
TIERD=${TIERD:-$BUILD/bin/tierd}
WAITFOR=$BUILD/test/tierd-waitfor
CG=/sys/fs/cgroup
T=$(mktemp -d /tmp/tierd-vmtest.XXXXXX)
CONF=$T/tierd.conf
LOG=$T/tierd.log
TIERD_PID=

fail() {
	echo "FAIL: $*"
	if [ -r "$LOG" ]; then
		echo "--- tierd log (last 40 lines)"
		tail -n 40 "$LOG"
	fi
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 77
}

# The knob exists only on the patched kernel (and only where the memory
# controller is enabled): probe it once.
need_knob() {
	mkdir -p "$CG/tierd-probe" || fail "cannot create a cgroup"
	[ -e "$CG/tierd-probe/memory.numa_balancing" ] ||
		{ rmdir "$CG/tierd-probe"; skip "kernel lacks memory.numa_balancing (boot the patched kernel)"; }
	rmdir "$CG/tierd-probe"
}

# enable_memory PATH: memory controller for the children of PATH.
enable_memory() {
	echo +memory >"$CG/$1/cgroup.subtree_control" || fail "cannot enable memory in $1"
}

start_tierd() {
	: >"$LOG"
	"$TIERD" --foreground -v --config "$CONF" --no-systemd "$@" >>"$LOG" 2>&1 &
	TIERD_PID=$!
	"$WAITFOR" -t 30 "$LOG" 'tierd started|Cannot start' || fail "tierd did not start"
	grep -q 'Cannot start' "$LOG" && fail "tierd refused to start"
	return 0
}

stop_tierd() {
	kill -TERM "$TIERD_PID"
	rc=0
	wait "$TIERD_PID" || rc=$?
	TIERD_PID=
	[ "$rc" = 0 ] || fail "tierd exited $rc on SIGTERM"
}

mode_of() {
	cat "$CG/$1/memory.numa_balancing" 2>/dev/null
}

# wait_mode PATH MODE [TIMEOUT]
wait_mode() {
	"$WAITFOR" -t "${3:-10}" "$CG/$1/memory.numa_balancing" "^$2\$" ||
		fail "$1: memory.numa_balancing is '$(mode_of "$1")', expected '$2'"
}

wait_log() {
	"$WAITFOR" -t "${2:-10}" "$LOG" "$1" || fail "log lacks /$1/"
}

# ms since boot, for latencies
now_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}
