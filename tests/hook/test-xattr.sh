#!/bin/sh
# Issue item 4: the class is recorded for tierd as the trusted.<KEY> xattr
# of the container's cgroup (only root can write trusted.*; the owner of a
# delegated subtree can write user.*), through the directory's fd. user.*
# is neither written nor needed.
. "$SRCDIR/tests/hook/lib.sh"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
/usr/bin/python3 -c "import os, sys; os.setxattr(sys.argv[1], 'trusted.t', b'1')" "$CG" 2>/dev/null ||
	skip "$T does not take trusted.* xattrs (not root?)"

mk_policy
CRUN=/machine.slice/libpod-3f1d2c4b5a697e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d.scope
mk_cg "$CRUN"

sample crun
expect_rc 0
expect_quiet
v=$(xattr_get "$CG$CRUN" trusted.tierd.io/class) || fail "no trusted.tierd.io/class xattr"
[ "$v" = latency ] || fail "trusted.tierd.io/class is '$v'"
if xattr_get "$CG$CRUN" user.tierd.io/class >/dev/null; then
	fail "the hook still writes user.tierd.io/class"
fi

# Another annotation key, another class: trusted.<that key>.
mk_cg "$CRUN"
sed 's|"tierd.io/class": "latency"|"example.com/tier": "batch"|' "$DATA/crun/state.json" |
	sed "s|@BUNDLE@|$T/bundle-crun|" >"$T/s"
hook --annotation example.com/tier <"$T/s"
expect_rc 0
v=$(xattr_get "$CG$CRUN" trusted.example.com/tier) || fail "no trusted.example.com/tier xattr"
[ "$v" = batch ] || fail "trusted.example.com/tier is '$v'"

# --dry-run records nothing.
rm -r "$CG$CRUN"
mk_cg "$CRUN"
sample crun --dry-run
expect_rc 0
if xattr_get "$CG$CRUN" trusted.tierd.io/class >/dev/null; then
	fail "--dry-run set the xattr"
fi
exit 0
