#!/bin/sh
# A policy of 100,000 rules loads (tierd's reload runs the same code in its
# event loop, so loading must be linear) and gives the right result: the rule
# and class counts, and a rule deep in the file found by explain, with its
# line. (The unit suite checks duplicates at this scale.)
# The timeout is a hang guard only (this takes about a second under ASan).
. "$SRCDIR/tests/cli/lib.sh"
command -v awk >/dev/null 2>&1 || skip "no awk"
command -v timeout >/dev/null 2>&1 || skip "no timeout(1)"

tct() {
	rc=0
	timeout 300 "$TIERCTL" --cgroup-root "$CG" --sysfs-root "$SYS" --procfs-root "$PROC" \
		"$@" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" != 124 ] || fail "tierctl $* did not finish within 300 s"
}

# gen N: 20 classes, then N rules with four matchers each.
gen() {
	awk -v n="$1" 'BEGIN {
		for (c = 0; c < 20; c++)
			printf "[class:c%d]\nmode = %s\n\n", c, c % 2 ? "promote" : "full"
		for (k = 0; k < n; k++)
			printf "[rule:r%d]\nclass = c%d\ncgroup = /tenant-%d.slice/**\n" \
				"unit = app-%d-*.service\nexe = /opt/app%d/bin/*\n" \
				"annotation = tierd.io/app=app%d\n\n", k, k % 20, k, k, k, k
	}'
}

mk_standard_tree
gen 100000 >"$T/big.conf"
tct check "$T/big.conf"
expect_rc 0
expect_out "^$T/big.conf: ok \\(20 classes, 100000 rules\\)\$"

# Rule r77777 starts at line 61 + 7 * 77777 and matches its tenant.
mk_cg /tenant-77777.slice inherit
mk_cg /tenant-77777.slice/db inherit
tct --config "$T/big.conf" explain /tenant-77777.slice/db
expect_rc 0
expect_out "^rule: +r77777 \\($T/big.conf:$((61 + 7 * 77777))\\)\$"
expect_out "^class: +c17"
exit 0
