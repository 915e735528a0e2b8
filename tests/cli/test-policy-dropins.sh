#!/bin/sh
# Drop-ins that are not regular files are errors, never skipped: a dangling
# symlink, a symlink loop, a directory or a FIFO named *.conf each give
# "FILE: message" and exit 1, like an unreadable file. A symlink to a regular
# file is fine.
. "$SRCDIR/tests/cli/lib.sh"
command -v timeout >/dev/null 2>&1 || skip "no timeout(1)"

tct() {
	rc=0
	timeout 10 "$TIERCTL" "$@" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" != 124 ] || fail "tierctl $* did not return within 10 s"
}

D=$T/etc/tierd.conf.d
mkdir -p "$D" "$T/shared"
printf '[rule:r]\nclass = gold\ncgroup = /x\n' >"$T/etc/tierd.conf"
printf '[class:gold]\nmode = promote\n' >"$T/shared/gold.conf"
printf '[class:silver]\n' >"$D/10-silver.conf"

# A symlink to a regular file (elsewhere): read like the file itself.
ln -s ../../shared/gold.conf "$D/20-gold.conf"
tct check "$T/etc/tierd.conf"
expect_rc 0
expect_out "ok \\(2 classes, 1 rules\\)"
tct --json check "$T/etc/tierd.conf"
expect_rc 0
if command -v jq >/dev/null 2>&1; then
	[ "$(jq -r '.files[0].files_read[2]' "$T/out")" = "$D/20-gold.conf" ] ||
		fail "json: the symlinked drop-in is not in files_read"
fi

# Each kind on its own: one error naming it, exit 1.
check_one() { # NAME REGEX
	tct check "$T/etc/tierd.conf"
	expect_rc 1
	expect_err "^$D/$1: $2\$"
	n=$(wc -l <"$T/err")
	[ "$n" -eq 1 ] || { cat "$T/err" >&2; fail "$1: expected one error, got $n"; }
}

ln -s nonexistent.conf "$D/30-dangling.conf"
check_one 30-dangling.conf "cannot read: dangling symlink"
rm "$D/30-dangling.conf"

ln -s 40-loop.conf "$D/40-loop.conf"
check_one 40-loop.conf "cannot read: symlink loop \\(Too many levels of symbolic links\\)"
rm "$D/40-loop.conf"

mkdir "$D/50-dir.conf"
check_one 50-dir.conf "not a regular file \\(a directory\\)"
rmdir "$D/50-dir.conf"

mkfifo "$D/60-fifo.conf"
check_one 60-fifo.conf "not a regular file"
rm "$D/60-fifo.conf"

# A dangling symlink to where the drop-in used to be: the rule loses its class.
rm "$T/shared/gold.conf"
tct check "$T/etc/tierd.conf"
expect_rc 1
expect_err "^$D/20-gold.conf: cannot read: dangling symlink\$"
expect_err "^$T/etc/tierd.conf:2: rule 'r' names unknown class 'gold'\$"

# Files that are not *.conf, or hidden, are still ignored whatever they are.
printf '[class:gold]\n' >"$T/shared/gold.conf"
ln -s nonexistent "$D/README"
ln -s nonexistent "$D/.hidden.conf"
mkfifo "$D/70-fifo.conf.disabled"
tct check "$T/etc/tierd.conf"
expect_rc 0
expect_out "ok \\(2 classes, 1 rules\\)"
exit 0
