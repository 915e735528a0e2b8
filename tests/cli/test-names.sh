#!/bin/sh
# Cgroup names with a newline, an ESC sequence or bytes that are not UTF-8
# reach the terminal escaped (\n, \x1b, \xff) in every text output: status,
# apply, explain, get/set and the error messages. JSON has its own escaping
# (test-status.sh).
. "$SRCDIR/tests/cli/lib.sh"

mk_standard_tree
C="--config $T/tierd.conf"

NL=$(printf '/batch.slice/nl\nname')
ESC=$(printf '/batch.slice/esc\033[31mred')
BAD=$(printf '/batch.slice/bad\377')
mk_cg "$NL"
mk_cg "$ESC"
mk_cg "$BAD"

# Nothing raw: no ESC, no \377, no name split over two lines.
raw_free() {
	if LC_ALL=C grep -q "$(printf '[\033\377]')" "$T/out" "$T/err"; then
		cat -v "$T/out" "$T/err" >&2
		fail "$1: a raw ESC or 0xff byte in the output"
	fi
	if grep -q '^name' "$T/out" "$T/err"; then
		cat "$T/out" "$T/err" >&2
		fail "$1: a newline of a name went out raw"
	fi
}

tc $C status
expect_rc 0
raw_free status
expect_out '^/batch.slice/nl\\nname +batch +inherit +full '
expect_out '^/batch.slice/esc\\x1b\[31mred +batch +inherit +full '
expect_out '^/batch.slice/bad\\xff +batch +inherit +full '
# header + 5 + 3
[ "$(wc -l <"$T/out")" = 9 ] || { cat "$T/out" >&2; fail "status: expected 8 rows"; }

tc $C apply --dry-run
expect_rc 0
raw_free "apply --dry-run"
expect_out '^/batch.slice/nl\\nname: memory.numa_balancing inherit -> off \(rule batch, class batch\)$'
expect_out '^/batch.slice/esc\\x1b\[31mred: memory.numa_balancing inherit -> off '
expect_out '^/batch.slice/bad\\xff: memory.numa_balancing inherit -> off '

tc $C explain "$ESC"
expect_rc 0
raw_free explain
expect_out '^cgroup: +/batch.slice/esc\\x1b\[31mred$'
expect_out '^matched by: +cgroup = /batch.slice/\*\* \(/batch.slice/esc\\x1b\[31mred\)$'

tc set "$NL" promote
expect_rc 0
raw_free set
expect_out '^/batch.slice/nl\\nname: memory.numa_balancing inherit -> promote$'
tc set "$BAD/" promote
expect_rc 0
raw_free set
expect_out '^/batch.slice/bad\\xff: memory.numa_balancing inherit -> promote$'
mk_cg "$BAD/child"
tc get "$BAD/child"
expect_rc 0
raw_free get
expect_out '^/batch.slice/bad\\xff/child: configured inherit, effective promote \(set by /batch.slice/bad\\xff\)$'

# Errors quote what was typed, escaped.
tc get "$(printf '/no/x\033]0;pwned\007')"
expect_rc 3
raw_free "get error"
expect_err '^tierctl: cgroup /no/x\\x1b]0;pwned\\x07 not found: No such file or directory$'
tc set "$ESC" "$(printf 'off\033[2J')"
expect_rc 2
raw_free "set error"
expect_err "^tierctl: invalid mode 'off\\\\x1b\\[2J'"
# libtier's own messages (an unknown knob value) too.
printf 'bo\033[5mgus\n' >"$CG$ESC/memory.numa_balancing"
tc get "$ESC"
[ "$rc" != 0 ] || fail "a garbage knob read as a mode"
raw_free "libtier message"
expect_err "unknown value 'bo\\\\x1b\\[5mgus'"
exit 0
