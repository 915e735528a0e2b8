#!/bin/sh
# The cgroup root, one discovery for every program (tier_cgroup_root_find()):
# found from mountinfo (pure v2, a mount point with a space, a hybrid host
# whose memory controller is on cgroup v1), and a --cgroup-root that is no
# cgroup2 mount refused by tierctl, tierd-metrics, tierd and the OCI hook
# alike instead of being walked or "ignoring"d.
. "$SRCDIR/tests/cli/lib.sh"

: "${METRICS:?METRICS must name the tierd-metrics under test}"
: "${TIERD:?TIERD must name the tierd under test}"
: "${HOOK:?HOOK must name the tierd-oci-hook under test}"
mk_standard_tree
C="--config $T/tierd.conf"

# tc_found ARGS...: tierctl with the root left to discovery (the fake
# mountinfo in $PROC/self/mountinfo).
tc_found() {
	rc=0
	"$TIERCTL" --sysfs-root "$SYS" --procfs-root "$PROC" "$@" >"$T/out" 2>"$T/err" || rc=$?
	return 0
}

# mountinfo MOUNTPOINT-ESCAPED: a pure cgroup v2 host with cgroup2 there.
mountinfo_v2() {
	mkdir -p "$PROC/self"
	cat >"$PROC/self/mountinfo" <<EOM
22 1 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
23 1 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:2 - sysfs sysfs rw
26 23 0:24 / $1 rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
EOM
}

# 1. Pure v2: the cgroup2 mount is the root.
mountinfo_v2 "$CG"
tc_found $C status
expect_rc 0
expect_out "^/system.slice/postgresql@15-main.service +latency "

# 2. A mount point with spaces: mountinfo escapes them as \040.
mv "$CG" "$T/cgroup v2 root"
mountinfo_v2 "$T/cgroup\\040v2\\040root"
tc_found $C status
expect_rc 0
expect_out "^/system.slice/postgresql@15-main.service +latency "
mv "$T/cgroup v2 root" "$CG"

# 3. Hybrid: v1 controllers (memory among them) on a tmpfs, cgroup2 without
# controllers at .../unified. An error that says so, not a walk of the
# tmpfs and not an empty table.
H=$T/hybrid
mkdir -p "$H/memory" "$H/cpu" "$H/unified"
: >"$H/unified/cgroup.controllers"
: >"$H/unified/cgroup.procs"
cat >"$PROC/self/mountinfo" <<EOM
22 1 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
31 23 0:28 / $H rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / $H/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / $H/memory rw,relatime - cgroup cgroup rw,memory
40 31 0:37 / $H/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd
41 31 0:38 / $H/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate
EOM
for v in status "status --all" "get /system.slice" "explain /system.slice"; do
	tc_found $C $v
	expect_rc 5
	expect_err "the memory controller is on cgroup v1 \(hybrid layout.*$H/unified.*\): tierd needs it on cgroup v2"
done
# tierd-metrics and tierd find the same (they walked the v1 tmpfs at
# /sys/fs/cgroup, and tierd-metrics counted managed cgroups there).
rc=0
"$METRICS" $C --sysfs-root "$SYS" --procfs-root "$PROC" -o - >"$T/out" 2>"$T/err" || rc=$?
expect_rc 1
expect_err "tierd-metrics: the memory controller is on cgroup v1 \(hybrid layout"
expect_no_out "."
rc=0
timeout 60 "$TIERD" --foreground $C --sysfs-root "$SYS" --procfs-root "$PROC" \
	--no-proc-connector --no-systemd --bus-socket "$T/bus" >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" = 124 ] && fail "tierd kept running on a hybrid host"
[ "$rc" != 0 ] || fail "tierd exited 0 on a hybrid host"
expect_err "Cannot start: the memory controller is on cgroup v1 \(hybrid layout"
# ... and the policy's cgroup_root pointing at the v1 tmpfs does not help.
printf '[daemon]\ncgroup_root = %s\n' "$H/unified" >"$T/hybrid.conf"
tc_found --config "$T/hybrid.conf" status
expect_rc 5
expect_err "memory controller is not on cgroup v2 at $H/unified"

# 4. No cgroup2 at all (cgroup v1 only).
grep -v cgroup2 "$PROC/self/mountinfo" >"$T/mi" && mv "$T/mi" "$PROC/self/mountinfo"
tc_found $C status
expect_rc 5
expect_err "no cgroup2 filesystem is mounted and the memory controller is on cgroup v1"

# 5. An explicit root that is not a cgroup2 mount: refused by every program
# once the test suite's fake-tree switch is off.
unset TIER_TEST_FAKE_CGROUP
mkdir -p "$T/plain/a/b"
rc=0
"$TIERCTL" $C --cgroup-root "$T/plain" --sysfs-root "$SYS" --procfs-root "$PROC" status \
	>"$T/out" 2>"$T/err" || rc=$?
expect_rc 5
expect_err "cgroup root $T/plain is not a cgroup2 filesystem"
expect_no_out "."
rc=0
"$TIERCTL" $C --cgroup-root /nonexistent/cg --sysfs-root "$SYS" --procfs-root "$PROC" status \
	>"$T/out" 2>"$T/err" || rc=$?
expect_rc 5
expect_err "cgroup root /nonexistent/cg: No such file or directory"
grep -q "cgroup / not found" "$T/err" && fail "the old message"
# The fake tree itself is refused too without the switch.
rc=0
"$TIERCTL" $C --cgroup-root "$CG" --sysfs-root "$SYS" --procfs-root "$PROC" get /system.slice \
	>"$T/out" 2>"$T/err" || rc=$?
expect_rc 5
expect_err "is not a cgroup2 filesystem"

if [ -n "${METRICS:-}" ]; then
	rc=0
	"$METRICS" $C --cgroup-root "$T/plain" --sysfs-root "$SYS" --procfs-root "$PROC" -o - \
		>"$T/out" 2>"$T/err" || rc=$?
	expect_rc 1
	expect_err "tierd-metrics: cgroup root $T/plain is not a cgroup2 filesystem"
	expect_no_out "."
else
	fail "METRICS (tierd-metrics under test) not set"
fi

if [ -n "${TIERD:-}" ]; then
	rc=0
	timeout 60 "$TIERD" --foreground $C --cgroup-root "$T/plain" --sysfs-root "$SYS" \
		--procfs-root "$PROC" --no-proc-connector --no-systemd --bus-socket "$T/bus" \
		>"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" = 124 ] && fail "tierd kept running on a root that is no cgroup2 mount"
	[ "$rc" != 0 ] || fail "tierd exited 0 on a root that is no cgroup2 mount"
	expect_err "cgroup root $T/plain is not a cgroup2 filesystem"
	rc=0
	timeout 60 "$TIERD" --foreground $C --cgroup-root /nonexistent/cg --sysfs-root "$SYS" \
		--procfs-root "$PROC" --no-proc-connector --no-systemd --bus-socket "$T/bus" \
		>"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" = 124 ] && fail "tierd kept running without a cgroup root"
	[ "$rc" != 0 ] || fail "tierd exited 0 without a cgroup root"
	expect_err "cgroup root /nonexistent/cg: No such file or directory"
else
	fail "TIERD (tierd under test) not set"
fi

if [ -n "${HOOK:-}" ]; then
	printf '[class:pinned]\nmode = promote\n' >"$T/hook.conf"
	mkdir -p "$T/bundle"
	cp "$SRCDIR/tests/hook/data/runc/config.json" "$T/bundle/"
	sed "s|@BUNDLE@|$T/bundle|" "$SRCDIR/tests/hook/data/runc/state.json" >"$T/state.json"
	rc=0
	"$HOOK" --fail-closed --config "$T/hook.conf" --cgroup-root "$T/plain" \
		--procfs-root "$PROC" <"$T/state.json" >"$T/out" 2>"$T/err" || rc=$?
	expect_rc 1
	expect_err "cgroup root $T/plain is not a cgroup2 filesystem"
else
	fail "HOOK (tierd-oci-hook under test) not set"
fi
exit 0
