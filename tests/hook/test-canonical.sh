#!/bin/sh
# Issue item 15: a non-canonical cgroupsPath ("/a/", "//a", "//") names the
# same cgroup as its canonical form, through tier_cgroup_path_normalize(),
# before anything is matched or applied: "//" is the root (refused),
# "//a//b/" is /a/b (applied, and matched against /proc/PID/cgroup, which is
# normalised too).
. "$SRCDIR/tests/hook/lib.sh"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"

mk_policy
RUNC=/kubepods/burstable/pod0b5ed2f3-5a51-4d6e-9a32-1f2b4a6c8d10/c3a4b2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3
mk_cg ""
mk_cg "$RUNC"
mkdir -p "$PROC/41902"

# --- the root in any spelling is refused, whatever /proc says
for p in / // /// ////; do
	with_cgroups_path runc "$p"
	printf '0::%s\n' "$RUNC" >"$PROC/41902/cgroup"
	hook --fail-closed <"$T/s"
	expect_file "" memory.numa_balancing inherit
	expect_rc 1
	expect_err "linux.cgroupsPath '$p' is the root cgroup: not touching it"
done

# --- "/a/", "//a", "/a//b/" are the canonical cgroup, with and without
# /proc (in any spelling) agreeing
for p in "$RUNC/" "/$RUNC" "/$(echo "$RUNC" | sed 's|/|//|g')//"; do
	for proc in "$RUNC" "/$RUNC/" ""; do
		mk_cg "$RUNC"
		with_cgroups_path runc "$p"
		if [ -n "$proc" ]; then
			printf '0::%s\n' "$proc" >"$PROC/41902/cgroup"
		else
			rm -f "$PROC/41902/cgroup"
		fi
		hook --fail-closed --verbose <"$T/s"
		expect_rc 0
		expect_err "^tierd-oci-hook: container [0-9a-f]+: $RUNC: memory.numa_balancing inherit -> promote"
		expect_file "$RUNC" memory.numa_balancing promote
		expect_file "$RUNC" memory.low 1073741824
	done
done

# --- a non-canonical relative cgroupsPath matches the canonical /proc path
REL=/user.slice/user-1000.slice/user@1000.service/libpod/abc
mk_cg "$REL"
with_cgroups_path runc "libpod//abc/"
printf '0::/%s//\n' "$REL" >"$PROC/41902/cgroup"
hook --fail-closed <"$T/s"
expect_rc 0
expect_file "$REL" memory.numa_balancing promote
exit 0
