#!/bin/sh
# Issue item 18: the OCI state on stdin may be at most 1 MiB, inclusive:
# a valid state padded to exactly 1,048,576 bytes is accepted (the class is
# applied), one byte more is refused with "more than 1 MiB".
. "$SRCDIR/tests/hook/lib.sh"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"

mk_policy
CRUN=/machine.slice/libpod-3f1d2c4b5a697e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d.scope
mk_cg "$CRUN"
state crun >"$T/state.json"

# pad N: the state followed by spaces (JSON whitespace) to N bytes.
pad() {
	/usr/bin/python3 - "$T/state.json" "$1" "$T/s" <<'EOP'
import sys
data = open(sys.argv[1], "rb").read()
n = int(sys.argv[2])
assert len(data) < n
open(sys.argv[3], "wb").write(data + b" " * (n - len(data)))
EOP
	[ "$(wc -c <"$T/s")" = "$1" ] || fail "padding to $1"
}

pad 1048576
hook --fail-closed <"$T/s"
expect_rc 0
expect_file "$CRUN" memory.numa_balancing full

mk_cg "$CRUN"
pad 1048577
hook --fail-closed <"$T/s"
expect_rc 1
expect_err "cannot read the OCI state from stdin: more than 1 MiB"
expect_file "$CRUN" memory.numa_balancing inherit

# The same through a pipe (the runtime's way), not a file.
mk_cg "$CRUN"
pad 1048576
cat "$T/s" | { hook --fail-closed; echo "$rc" >"$T/rc"; }
rc=$(cat "$T/rc")
expect_rc 0
expect_file "$CRUN" memory.numa_balancing full
pad 1048577
cat "$T/s" | { hook --fail-closed; echo "$rc" >"$T/rc"; }
rc=$(cat "$T/rc")
expect_rc 1
expect_err "more than 1 MiB"
exit 0
