#!/bin/sh
# Issue item 9: config.json that is not a regular file (a FIFO nobody
# writes, a device, a directory) is refused at once with a clear error,
# instead of blocking the hook until the runtime's timeout or reading
# forever; --fail-open starts the container, --fail-closed does not.
. "$SRCDIR/tests/hook/lib.sh"
command -v timeout >/dev/null || skip "no timeout(1)"
command -v mkfifo >/dev/null || skip "no mkfifo(1)"

mk_policy
CRUN=/machine.slice/libpod-3f1d2c4b5a697e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d.scope
mk_cg "$CRUN"
mkdir -p "$T/b"
state crun "$T/b" >"$T/s"

# refused_fast REGEX: both modes, within 5 s, with REGEX on stderr.
refused_fast() {
	hook_t 10 <"$T/s"
	[ "$rc" != 124 ] || fail "the hook blocked on $(ls -l "$T/b/config.json")"
	[ "$secs" -le 5 ] || fail "the hook took $secs s"
	expect_rc 0
	expect_err "$1"
	expect_err "starting the container without its tiering class \(--fail-open\)"
	hook_t 10 --fail-closed <"$T/s"
	expect_rc 1
	expect_err "$1"
}

mkfifo "$T/b/config.json"
refused_fast "cannot read $T/b/config.json: not a regular file"
rm "$T/b/config.json"

ln -s /dev/zero "$T/b/config.json"
refused_fast "cannot read $T/b/config.json: not a regular file"
rm "$T/b/config.json"

mkdir "$T/b/config.json"
refused_fast "cannot read $T/b/config.json: Is a directory"
rmdir "$T/b/config.json"
expect_file "$CRUN" memory.numa_balancing inherit

# A regular file, even through a symlink, is read as before.
cp "$DATA/crun/config.json" "$T/real-config.json"
ln -s "$T/real-config.json" "$T/b/config.json"
hook_t 10 --fail-closed <"$T/s"
expect_rc 0
expect_file "$CRUN" memory.numa_balancing full
exit 0
