#!/bin/sh
# Issue item 7: a systemd cgroupsPath with a huge slice name
# ("a-a-...-a.slice:p:n", 40,000 dashes) once took 13 s, 4.7 GB and wrote
# 1.6 GB to stderr. Unit names are bounded (systemd's 255 bytes) and so is
# all expansion: the hook refuses it at once with one short message, and
# --fail-open still starts the container. A 255-byte slice still works.
. "$SRCDIR/tests/hook/lib.sh"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
command -v timeout >/dev/null || skip "no timeout(1)"

mk_policy
mk_cg /machine.slice

# bounded_err NAME: stderr was at most 2 KiB; a longer one is cut (so a
# failure report stays readable) and fails.
bounded_err() {
	n=$(wc -c <"$T/err")
	if [ "$n" -gt 2048 ]; then
		head -c 512 "$T/err" >"$T/err.head"
		mv "$T/err.head" "$T/err"
		fail "$1: $n bytes on stderr"
	fi
}
dashes=$(/usr/bin/python3 -c "print('-'.join(['a'] * 40001) + '.slice:p:n')")

with_cgroups_path crun "$dashes"
hook_t 20 <"$T/s"
bounded_err "40,000 dashes"
[ "$rc" != 124 ] || fail "the hook had to be killed after 20 s"
[ "$secs" -le 5 ] || fail "the hook took $secs s"
expect_rc 0
[ "$(wc -l <"$T/err")" -le 2 ] || fail "more than two lines on stderr"
expect_err "linux.cgroupsPath 'a-a-a-.*\.\.\.' is too long \(a unit name over 255 bytes"
expect_err "starting the container without its tiering class \(--fail-open\)"
hook_t 20 --fail-closed <"$T/s"
bounded_err "40,000 dashes, fail-closed"
expect_rc 1

# The scope's name (PREFIX-NAME.scope) is bounded the same way.
long=$(/usr/bin/python3 -c "print('machine.slice:p:' + 'x' * 100000)")
with_cgroups_path crun "$long"
hook_t 20 <"$T/s"
bounded_err "long scope"
[ "$rc" != 124 ] || fail "the hook had to be killed (long scope)"
expect_rc 0
expect_err "is too long"

# A slice name of exactly 255 bytes is a valid unit name and is used.
part_a=$(/usr/bin/python3 -c "print('a' * 120)")
part_b=$(/usr/bin/python3 -c "print('b' * 128)")
slice=$part_a-$part_b.slice
[ ${#slice} = 255 ] || fail "test slice is ${#slice} bytes"
mk_cg "/$part_a.slice/$slice/p-n.scope"
with_cgroups_path crun "$slice:p:n"
hook_t 20 --fail-closed <"$T/s"
expect_rc 0
expect_file "/$part_a.slice/$slice/p-n.scope" memory.numa_balancing full
# one byte more is not
with_cgroups_path crun "${part_a}x-$part_b.slice:p:n"
hook_t 20 --fail-closed <"$T/s"
expect_rc 1
expect_err "is too long"
exit 0
