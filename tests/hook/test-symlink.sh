#!/bin/sh
# Issue item 2: the hook reaches the container's cgroup only by directory
# fds below the cgroup root, never through a symlink. A symlinked cgroup
# directory (the container's own, or one on the way) and a symlinked
# memory.high are refused with a message; nothing outside the cgroup tree
# is written (no knob, no xattr); exit 0 with --fail-open, 1 with
# --fail-closed.
. "$SRCDIR/tests/hook/lib.sh"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"

mk_policy
ID=3f1d2c4b5a697e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d
CRUN=/machine.slice/libpod-$ID.scope
OUT=$T/outside

# mk_outside: a directory outside the cgroup root that looks like a cgroup.
mk_outside() {
	rm -rf "$OUT"
	mkdir -p "$OUT"
	: >"$OUT/cgroup.procs"
	printf '0\n' >"$OUT/memory.low"
	printf 'max\n' >"$OUT/memory.high"
	printf 'inherit\n' >"$OUT/memory.numa_balancing"
}

# outside_untouched: the knobs as they were, and no xattr of ours.
outside_untouched() {
	[ "$(cat "$OUT/memory.numa_balancing")" = inherit ] ||
		fail "$1: wrote memory.numa_balancing outside the cgroup root"
	[ "$(cat "$OUT/memory.high")" = max ] || fail "$1: wrote memory.high outside the cgroup root"
	[ "$(cat "$OUT/memory.low")" = 0 ] || fail "$1: wrote memory.low outside the cgroup root"
	for x in user.tierd.io/class trusted.tierd.io/class; do
		if xattr_get "$OUT" "$x" >/dev/null; then
			fail "$1: set $x outside the cgroup root"
		fi
	done
}

# both_modes NAME REGEX: fail-open exits 0, fail-closed 1, both say REGEX,
# and nothing outside changes.
both_modes() {
	hook <"$T/s"
	outside_untouched "$1 (fail-open)"
	expect_rc 0
	expect_err "$2"
	expect_err "starting the container without its tiering class \(--fail-open\)"
	hook --fail-closed <"$T/s"
	outside_untouched "$1 (fail-closed)"
	expect_rc 1
	expect_err "$2"
}

# --- the container's cgroup directory is a symlink to a directory outside
mk_outside
mkdir -p "$CG/machine.slice"
ln -s "$OUT" "$CG$CRUN"
state crun >"$T/s"
both_modes "symlinked cgroup" "$CRUN: a symlink on the way below $CG: refusing to follow it"
rm "$CG$CRUN"

# --- a component on the way is a symlink (machine.slice -> elsewhere)
mk_outside
rmdir "$CG/machine.slice"
mkdir -p "$T/elsewhere"
ln -s "$OUT" "$T/elsewhere/libpod-$ID.scope"
ln -s "$T/elsewhere" "$CG/machine.slice"
both_modes "symlinked parent" "$CRUN: a symlink on the way below $CG: refusing to follow it"
rm "$CG/machine.slice"

# --- the cgroup is real, its memory.high is a symlink to a file outside
# (class batch: off + memory.high 8G, CRI-O sample with --class)
CRIO=/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod8d1c6b6a_2f4e_4b0a_9c3d_7e5f1a2b3c4d.slice/crio-9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d.scope
mk_outside
mk_cg "$CRIO"
rm "$CG$CRIO/memory.high"
ln -s "$OUT/memory.high" "$CG$CRIO/memory.high"
state crio >"$T/s"
hook --class batch <"$T/s"
outside_untouched "symlinked memory.high (fail-open)"
expect_rc 0
expect_err "$CRIO: memory.high is a symlink: refusing to follow it"
hook --class batch --fail-closed <"$T/s"
outside_untouched "symlinked memory.high (fail-closed)"
expect_rc 1
expect_err "memory.high is a symlink"
[ -L "$CG$CRIO/memory.high" ] || fail "the symlink was replaced"

# --- a symlinked memory.numa_balancing, the same
mk_outside
mk_cg "$CRIO"
rm "$CG$CRIO/memory.numa_balancing"
ln -s "$OUT/memory.numa_balancing" "$CG$CRIO/memory.numa_balancing"
hook --class batch --fail-closed <"$T/s"
outside_untouched "symlinked memory.numa_balancing"
expect_rc 1
expect_err "memory.numa_balancing is a symlink"
exit 0
