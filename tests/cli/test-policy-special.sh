#!/bin/sh
# tierctl check of policy files that are not regular files or too large:
# refused at once (a FIFO never blocks, /dev/zero and a 1 GiB sparse file are
# never read), each as "FILE: message", exit 1. Drop-ins the same way. Lines
# are bounded by the file's limit, errors at 1000 per load.
. "$SRCDIR/tests/cli/lib.sh"
command -v timeout >/dev/null 2>&1 || skip "no timeout(1)"

# tct ARGS...: tc under a time limit; 124 means tierctl blocked or read on.
tct() {
	rc=0
	timeout 10 "$TIERCTL" "$@" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" != 124 ] || fail "tierctl $* did not return within 10 s"
}

# A FIFO without a writer.
mkfifo "$T/fifo.conf"
tct check "$T/fifo.conf"
expect_rc 1
expect_err "^$T/fifo.conf: not a regular file\$"
expect_no_out "ok"

# A character device that never ends.
tct check /dev/zero
expect_rc 1
expect_err "^/dev/zero: not a regular file\$"

# A directory.
mkdir "$T/dir.conf"
tct check "$T/dir.conf"
expect_rc 1
expect_err "^$T/dir.conf: not a regular file \\(a directory\\)\$"

# A 1 GiB sparse file: refused by its size, before a byte of it is read.
truncate -s 1G "$T/huge.conf" 2>/dev/null || skip "no truncate(1)"
tct check "$T/huge.conf"
expect_rc 1
expect_err "^$T/huge.conf: file too large \\(a policy file may have at most 16 MiB\\)\$"
n=$(wc -l <"$T/err")
[ "$n" -eq 1 ] || fail "expected one error for huge.conf, got $n"

# The same in JSON: the error is in the file's errors list.
tct --json check "$T/huge.conf" "$T/fifo.conf"
expect_rc 1
json_ok "$T/out"
if command -v jq >/dev/null 2>&1; then
	[ "$(jq -r '.files[0].errors[0].message' "$T/out")" = \
		"file too large (a policy file may have at most 16 MiB)" ] || fail "json: huge.conf"
	[ "$(jq -r '.files[1].errors[0].message' "$T/out")" = "not a regular file" ] ||
		fail "json: fifo.conf"
	[ "$(jq '.files[1].errors[0].line' "$T/out")" = 0 ] || fail "json: line of fifo.conf"
fi

# One line longer than the limit (real bytes, no newline): refused whole. One
# just under it is read (one buffer, at most the limit) and is one error.
head -c 17000000 /dev/zero | tr '\0' x >"$T/longline.conf"
tct check "$T/longline.conf"
expect_rc 1
expect_err "^$T/longline.conf: file too large "
{ printf '[class:c]\nmode = '; head -c 16000000 /dev/zero | tr '\0' x; } >"$T/long.conf"
tct check "$T/long.conf"
expect_rc 1
expect_err "^$T/long.conf:2: line too long "
n=$(wc -l <"$T/err")
[ "$n" -eq 1 ] || fail "expected one error for long.conf, got $n"

# A flood of bad lines: 1000 errors, then one line that says so.
yes x | head -n 4000000 >"$T/flood.conf"
tct check "$T/flood.conf"
expect_rc 1
n=$(wc -l <"$T/err")
[ "$n" -eq 1001 ] || fail "flood.conf: expected 1001 lines on stderr, got $n"
[ "$(tail -n 1 "$T/err")" = "$T/flood.conf: too many errors, only the first 1000 are reported" ] ||
	fail "flood.conf: last line is '$(tail -n 1 "$T/err")'"

# Drop-ins: a FIFO, a symlink to /dev/zero and a 1 GiB sparse file are errors
# with their names; the good drop-in is still read (its class is known).
mkdir -p "$T/etc/tierd.conf.d"
printf '[rule:r]\nclass = gold\ncgroup = /x\n' >"$T/etc/tierd.conf"
printf '[class:gold]\n' >"$T/etc/tierd.conf.d/10-gold.conf"
mkfifo "$T/etc/tierd.conf.d/20-fifo.conf"
ln -s /dev/zero "$T/etc/tierd.conf.d/30-zero.conf"
truncate -s 1G "$T/etc/tierd.conf.d/40-huge.conf"
tct check "$T/etc/tierd.conf"
expect_rc 1
expect_err "^$T/etc/tierd.conf.d/20-fifo.conf: not a regular file\$"
expect_err "^$T/etc/tierd.conf.d/30-zero.conf: not a regular file\$"
expect_err "^$T/etc/tierd.conf.d/40-huge.conf: file too large "
n=$(wc -l <"$T/err")
[ "$n" -eq 3 ] || { cat "$T/err" >&2; fail "expected exactly 3 errors, got $n"; }
rm "$T/etc/tierd.conf.d/20-fifo.conf" "$T/etc/tierd.conf.d/30-zero.conf" \
	"$T/etc/tierd.conf.d/40-huge.conf"
tct check "$T/etc/tierd.conf"
expect_rc 0
expect_out "ok \\(1 classes, 1 rules\\)"
exit 0
