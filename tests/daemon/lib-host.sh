# tests/daemon/lib-host.sh: helpers for the host-side daemon tests (sourced).
#
# Builds a fake host in a temp dir ($T/cg cgroup tree, $T/sys, $T/proc) and
# runs $TIERD (the ASan build) against it in the foreground, logging to
# $T/log.  A fake cgroup is made complete in $T/stage and then renamed into
# the tree, so the daemon never sees a directory without its files (the
# kernel creates a cgroup's files atomically with the directory).
#
# Waiting is done with $WAITFOR (inotify, bounded timeout), never a fixed sleep.

set -u

: "${TIERD:?TIERD must name the tierd binary under test}"
: "${SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${WAITFOR:=${BUILD:-$SRCDIR/build}/test/tierd-waitfor}"

T=$(mktemp -d "${TMPDIR:-/tmp}/tierd-host.XXXXXX")
CG=$T/cg
SYS=$T/sys
PROC=$T/proc
# The fake tree stands in for a cgroup2 mount (tier_cgroup_root_find()).
export TIER_TEST_FAKE_CGROUP=1
CONF=$T/etc/tierd.conf
LOG=$T/log
TIERD_PID=

cleanup() {
	if [ -n "$TIERD_PID" ]; then
		kill "$TIERD_PID" 2>/dev/null
		wait "$TIERD_PID" 2>/dev/null
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
	echo "FAIL: $*" >&2
	if [ -r "$LOG" ]; then
		echo "--- tierd log (last 40 lines)" >&2
		tail -n 40 "$LOG" >&2
	fi
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 77
}

[ -x "$WAITFOR" ] || skip "no $WAITFOR (make tierd-test-tools)"

mk_fake_host() {
	mkdir -p "$CG" "$T/stage" "$T/etc/tierd.conf.d" "$PROC/sys/kernel"
	for n in 0 1; do
		d=$SYS/devices/system/node/node$n
		mkdir -p "$d"
		printf 'Node %s MemTotal: 1048576 kB\nNode %s MemFree: 524288 kB\n' $n $n >"$d/meminfo"
	done
	printf '0-1\n' >"$SYS/devices/system/node/online"
	printf '0-1\n' >"$SYS/devices/system/node/has_memory"
	printf '0\n' >"$SYS/devices/system/node/has_cpu"
	mkdir -p "$SYS/devices/virtual/memory_tiering/memory_tier4" \
		"$SYS/devices/virtual/memory_tiering/memory_tier22"
	printf '0\n' >"$SYS/devices/virtual/memory_tiering/memory_tier4/nodelist"
	printf '1\n' >"$SYS/devices/virtual/memory_tiering/memory_tier22/nodelist"
	printf '2\n' >"$PROC/sys/kernel/numa_balancing"
	printf 'MemTotal: 2097152 kB\n' >"$PROC/meminfo"
	printf 'cpuset cpu io memory pids\n' >"$CG/cgroup.controllers"
	printf 'memory\n' >"$CG/cgroup.subtree_control"
	: >"$CG/cgroup.procs"
}

# fill_cgroup DIR: the files of a memory-controller cgroup.
fill_cgroup() {
	printf 'inherit\n' >"$1/memory.numa_balancing"
	printf '0\n' >"$1/memory.low"
	printf 'max\n' >"$1/memory.high"
	printf '0\n' >"$1/memory.current"
	: >"$1/cgroup.procs"
	printf 'populated 1\nfrozen 0\n' >"$1/cgroup.events"
}

# mk_cgroup PATH: a complete cgroup at $CG/PATH, appearing atomically.
mk_cgroup() {
	s=$T/stage/new.$$
	rm -rf "$s"
	mkdir -p "$s"
	fill_cgroup "$s"
	mkdir -p "$(dirname "$CG/$1")"
	mv "$s" "$CG/$1"
}

# mk_cgroup_tree PATH DEPTH FANOUT: a whole subtree appearing at once.
mk_cgroup_tree() {
	s=$T/stage/tree.$$
	rm -rf "$s"
	mkdir -p "$s"
	fill_cgroup "$s"
	_mk_level "$s" "$2" "$3"
	mv "$s" "$CG/$1"
}
_mk_level() {
	local i
	[ "$2" -gt 0 ] || return 0
	i=0
	while [ $i -lt "$3" ]; do
		mkdir "$1/c$i"
		fill_cgroup "$1/c$i"
		_mk_level "$1/c$i" $(($2 - 1)) "$3"
		i=$((i + 1))
	done
}

mode_of() {
	cat "$CG/$1/memory.numa_balancing"
}

# start_tierd [ARGS...]: run the daemon in the background, wait until it is up.
# It does not talk to systemd, unless $SYSTEMD_ADDRESS names one to talk to
# ("auto": the one it finds by itself).
start_tierd() {
	: >"$LOG"
	if [ "${SYSTEMD_ADDRESS:-}" = auto ]; then
		:
	elif [ -n "${SYSTEMD_ADDRESS:-}" ]; then
		set -- --systemd-address "$SYSTEMD_ADDRESS" "$@"
	else
		set -- --no-systemd "$@"
	fi
	"$TIERD" --foreground -v --config "$CONF" --cgroup-root "$CG" --sysfs-root "$SYS" \
		--procfs-root "$PROC" --no-proc-connector --bus-socket "$T/bus" "$@" \
		>>"$LOG" 2>&1 &
	TIERD_PID=$!
	"$WAITFOR" -t 20 "$LOG" 'tierd started|Cannot start' || fail "tierd did not start"
	grep -q 'Cannot start' "$LOG" && fail "tierd refused to start"
	return 0
}

# stop_tierd: SIGTERM, and the daemon must exit 0 (ASan leak check included).
stop_tierd() {
	kill -TERM "$TIERD_PID"
	rc=0
	wait "$TIERD_PID" || rc=$?
	TIERD_PID=
	[ "$rc" = 0 ] || fail "tierd exited $rc on SIGTERM (99 = ASan, 98 = UBSan)"
}

# wait_mode PATH MODE: memory.numa_balancing of PATH becomes MODE.
wait_mode() {
	"$WAITFOR" -t "${3:-10}" "$CG/$1/memory.numa_balancing" "^$2\$" ||
		fail "$1: memory.numa_balancing is '$(mode_of "$1")', expected '$2'"
}

wait_log() {
	"$WAITFOR" -t "${2:-10}" "$LOG" "$1" || fail "log lacks /$1/"
}

# After a tierctl run that left its exit status in $rc and its output in
# $T/out and $T/err: expect_rc STATUS; expect out|err ERE.
expect_rc() {
	[ "$rc" = "$1" ] || {
		echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"
		fail "exit status $rc, expected $1"; } >&2
}
expect() {
	grep -Eq -- "$2" "$T/$1" || {
		echo "--- $1"; cat "$T/$1"; fail "$1 lacks /$2/"; } >&2
}

# A fake host whose policy has one cgroup rule: /fast/** gets class fast
# (mode full); no rescans of its own (reconcile_interval 1h).
mk_fast_host() {
	mk_fake_host
	cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
[class:fast]
mode = full
[rule:fast]
class = fast
cgroup = /fast/**
EOC
}

# The bus tests' common ground: a policy with a cgroup rule (fast, full)
# and an exe rule (db, promote), the cgroups fast and fast/a.
mk_fast_db_host() {
	mk_fake_host
	cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
[class:fast]
mode = full
[class:db]
mode = promote
[rule:fast]
class = fast
cgroup = /fast/**
[rule:db]
class = db
exe = /usr/sbin/secret*
EOC
	mk_cgroup fast
	mk_cgroup fast/a
}

# apps/db runs pid 4242, whose exe is /usr/sbin/secretd (the db rule).
mk_secret_db() {
	mk_cgroup apps
	mk_cgroup apps/db
	printf '4242\n' >"$CG/apps/db/cgroup.procs"
	mkdir -p "$PROC/4242"
	ln -s /usr/sbin/secretd "$PROC/4242/exe"
}

# bc METHOD SIG ARGS...: call tierd's bus API on its private socket.
bc() {
	busctl --timeout=10 --address="unix:path=$T/bus" call org.tierd.Manager1 \
		/org/tierd/Manager1 org.tierd.Manager1 "$@"
}
