#!/bin/sh
# Issue 24 item 14: the hook checks the container's cgroup through one
# directory fd and then reads and writes it only through that fd (openat,
# O_NOFOLLOW), never by path again. The test build of the hook runs
# $TIERD_HOOK_TEST_AFTER_CHECK between the check and the first write
# (TIERD_HOOK_TESTING in oci-hook.c); here it swaps the cgroup's path for
#  1. another directory (the checked one renamed away, a new one in place),
#  2. a symlink to a directory outside the cgroup tree.
# The class must land in the directory that was checked and nowhere else.
. "$SRCDIR/tests/hook/lib.sh"

mk_policy
ID=3f1d2c4b5a697e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d
CRUN=/machine.slice/libpod-$ID.scope
OUT=$T/outside
state crun >"$T/s"

# Without a swap the class is applied (the test hook itself works).
mk_cg "$CRUN"
TIERD_HOOK_TEST_AFTER_CHECK="touch '$T/ran'" hook --fail-closed <"$T/s"
expect_rc 0
[ -e "$T/ran" ] || fail "the test hook did not run (not a TIERD_HOOK_TESTING build?)"
expect_file "$CRUN" memory.numa_balancing full

# 1. Another directory at the path after the check.
rm -rf "$CG/machine.slice"
mk_cg "$CRUN"
cat >"$T/swap-dir" <<EOS
mv '$CG$CRUN' '$CG/machine.slice/checked' &&
mkdir '$CG$CRUN' && : >'$CG$CRUN/cgroup.procs' &&
printf 'inherit\n' >'$CG$CRUN/memory.numa_balancing'
EOS
TIERD_HOOK_TEST_AFTER_CHECK="sh $T/swap-dir" hook --fail-closed <"$T/s"
[ -d "$CG/machine.slice/checked" ] || fail "the swap did not happen"
expect_rc 0
expect_file /machine.slice/checked memory.numa_balancing full
expect_file "$CRUN" memory.numa_balancing inherit
if xattr_get "$CG$CRUN" trusted.tierd.io/class >/dev/null 2>&1; then
	fail "the xattr went to the directory swapped in"
fi

# 2. A symlink to a directory outside the cgroup tree after the check.
rm -rf "$CG/machine.slice" "$OUT"
mk_cg "$CRUN"
mkdir -p "$OUT"
: >"$OUT/cgroup.procs"
printf 'inherit\n' >"$OUT/memory.numa_balancing"
cat >"$T/swap-link" <<EOS
mv '$CG$CRUN' '$CG/machine.slice/checked' && ln -s '$OUT' '$CG$CRUN'
EOS
TIERD_HOOK_TEST_AFTER_CHECK="sh $T/swap-link" hook --fail-closed <"$T/s"
[ -L "$CG$CRUN" ] || fail "the swap did not happen"
expect_rc 0
[ "$(cat "$OUT/memory.numa_balancing")" = inherit ] ||
	fail "wrote memory.numa_balancing through the symlink swapped in"
expect_file /machine.slice/checked memory.numa_balancing full
if xattr_get "$OUT" trusted.tierd.io/class >/dev/null 2>&1; then
	fail "the xattr went through the symlink swapped in"
fi
exit 0
