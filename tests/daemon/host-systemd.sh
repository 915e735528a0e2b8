#!/bin/sh
# tierd's calls to systemd never block it (host, fake tree, a stand-in for
# systemd's private socket: tierd-fake-systemd, see fake-systemd.c):
#  1. memory.low of a unit's cgroup is set through SetUnitProperties
#     (runtime), memory.numa_balancing directly;
#  2. a unit systemd has not loaded yet (no ControlGroup twice) is asked for
#     again and then set through systemd, not written directly (systemd
#     would undo that);
#  3. a cgroup that only looks like a unit (never a ControlGroup) gets the
#     raw file after a few tries;
#  4. while systemd holds its answer (until the test lets it go), tierd answers its bus API and
#     applies the policy to a new cgroup at once;
#  5. who owns a cgroup is asked once (memory.low and memory.high share the
#     answer) and asked again after a reload.
# As root, in a mount namespace of its own, the fake tree is bind-mounted on
# /sys/fs/cgroup and the stand-in listens on /run/systemd/private (a tmpfs
# on /run), so tierd finds "systemd" the way it does on a host; otherwise
# tierd is pointed at it with --systemd-address (TIERD_TEST_NS=0 forces that).
if [ -z "${TIERD_TEST_NS:-}" ] && [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	TIERD_TEST_NS=1 exec unshare -m sh "$0" "$@"
fi
. "$(dirname "$0")/lib-host.sh"

: "${FAKE_SYSTEMD:=${BUILD:-$SRCDIR/build}/test/tierd-fake-systemd}"
[ -x "$FAKE_SYSTEMD" ] || skip "no $FAKE_SYSTEMD"
command -v busctl >/dev/null 2>&1 || skip "no busctl"

mk_fake_host
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
[class:svc]
mode = off
memory_low = 16M
memory_high = 1G
[class:fast]
mode = full
[rule:svc]
class = svc
cgroup = /system.slice/*.service
[rule:fast]
class = fast
cgroup = /fast/**
EOC
mk_cgroup system.slice
mk_cgroup system.slice/demo.service
mk_cgroup system.slice/late-a.service
mk_cgroup system.slice/gone-x.service
mk_cgroup fast

SD_LOG=$T/systemd.log
: >"$SD_LOG"
if [ "${TIERD_TEST_NS:-}" = 1 ]; then
	mount --make-rprivate / 2>/dev/null
	mount --bind "$CG" /sys/fs/cgroup || fail "cannot bind-mount the fake tree"
	mount -t tmpfs tmpfs /run || fail "cannot mount a tmpfs on /run"
	mkdir -p /run/systemd/system
	SD_SOCKET=/run/systemd/private
	SYSTEMD_ADDRESS=auto
	# tierd as on a host: the tree at /sys/fs/cgroup, systemd found by itself.
	TIERD_ARGS="--cgroup-root /sys/fs/cgroup --no-system-bus"
	how="systemd's private socket in a mount namespace"
else
	SD_SOCKET=$T/systemd
	SYSTEMD_ADDRESS=unix:path=$SD_SOCKET
	TIERD_ARGS=
	how="--systemd-address"
fi
mkdir -p "$T/moved"
FAKE_SYSTEMD_MOVED=$T/moved "$FAKE_SYSTEMD" "$SD_SOCKET" "$CG" "$SD_LOG" &
FAKE_PID=$!
trap 'kill $FAKE_PID 2>/dev/null; cleanup' EXIT
"$WAITFOR" -t 10 "$SD_LOG" '^ready' || fail "the fake systemd did not start"
echo "# the stand-in for systemd: $how"

low_of() {
	cat "$CG/$1/memory.low"
}
sd_says() {
	"$WAITFOR" -t "${2:-10}" "$SD_LOG" "$1" || { cat "$SD_LOG"; fail "systemd was not asked /$1/"; }
}

# shellcheck disable=SC2086
start_tierd $TIERD_ARGS
u=system.slice/demo.service
sd_says 'SetUnitProperties demo.service MemoryLow=16777216 runtime=1'
"$WAITFOR" -t 10 "$CG/$u/memory.low" '^16777216$' || fail "$u: memory.low $(low_of $u)"
wait_log "/$u: MemoryLow=16777216 on demo.service \\(was 0; class svc, rule svc, startup\\)"
wait_mode $u off
sd_says 'SetUnitProperties demo.service MemoryHigh=1073741824 runtime=1'
n=$(grep -c 'Get demo.service ControlGroup' "$SD_LOG")
[ "$n" = 1 ] || fail "systemd asked $n times who owns $u (one lookup per cgroup)"
echo "ok 1 MemoryLow=/MemoryHigh= through systemd (one lookup), memory.numa_balancing directly"

u=system.slice/late-a.service
sd_says 'Get late-a.service ControlGroup: \(none, call 2\)'
sd_says 'SetUnitProperties late-a.service MemoryLow=16777216'
wait_log "/$u: MemoryLow=16777216 on late-a.service"
grep -q "/$u: memory.low 0 -> " "$LOG" && fail "$u: memory.low written directly"
echo "ok 2 a unit not loaded yet is asked for again, then set through systemd"

u=system.slice/gone-x.service
"$WAITFOR" -t 15 "$CG/$u/memory.low" '^16777216$' || fail "$u: memory.low $(low_of $u)"
wait_log "/$u: memory.low 0 -> 16777216 \\(class svc, rule svc, startup\\)"
# tierd says how often it asked; systemd must have been asked exactly that
# often, more than once (no count of our own, no clock).
wait_log "/$u: unit gone-x.service not loaded after [0-9]* tries"
tries=$(sed -n "s|.*/$u: unit gone-x.service not loaded after \\([0-9]*\\) tries.*|\\1|p" "$LOG" | head -n 1)
n=$(grep -c 'Get gone-x.service ControlGroup' "$SD_LOG")
[ "$n" -ge 2 ] && [ "$n" = "$tries" ] ||
	fail "ControlGroup asked $n times for gone-x.service, tierd says after $tries tries"
grep -q 'SetUnitProperties gone-x' "$SD_LOG" && fail "SetUnitProperties for a unit that is not loaded"
echo "ok 3 not a unit: the raw file after $n tries"

mk_cgroup system.slice/slow-y.service
sd_says 'SetUnitProperties slow-y.service MemoryLow=16777216'
# systemd holds its answer until told (SIGUSR1); meanwhile tierd answers its
# bus and applies the policy: a tierd that blocked would do neither until
# the answer, which never comes first.
busctl --timeout=30 --address="unix:path=$T/bus" call org.tierd.Manager1 /org/tierd/Manager1 \
	org.tierd.Manager1 Status >"$T/status" 2>&1 || { cat "$T/status"; fail "tierd blocked while systemd was slow"; }
mk_cgroup fast/during
wait_mode fast/during full
grep -q 'answering now' "$SD_LOG" && fail "systemd answered before it was told to"
kill -USR1 "$FAKE_PID"
sd_says 'answering now'
wait_log '/system.slice/slow-y.service: MemoryLow=16777216 on slow-y.service'
echo "ok 4 a slow systemd does not block tierd"

# 5. What systemd said is not kept across a reload: demo.service's cgroup is
#    elsewhere now, so after the reload tierd asks again and writes the raw
#    file instead of handing the new value to the unit.
u=system.slice/demo.service
printf '/system.slice/other.slice/demo.service\n' >"$T/moved/demo.service"
sed -i 's/^memory_low = 16M$/memory_low = 32M/' "$CONF"
kill -HUP "$TIERD_PID"
"$WAITFOR" -t 10 "$CG/$u/memory.low" '^33554432$' || fail "$u: memory.low $(low_of $u)"
wait_log "/$u: memory.low 16777216 -> 33554432"
n=$(grep -c 'Get demo.service ControlGroup' "$SD_LOG")
[ "$n" = 2 ] || fail "systemd asked $n times who owns $u (expected once more after the reload)"
grep -q 'SetUnitProperties demo.service MemoryLow=33554432' "$SD_LOG" &&
	fail "a stale unit from before the reload got the new value"
echo "ok 5 the unit cache is asked again after a reload"
stop_tierd
exit 0
