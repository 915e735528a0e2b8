#!/bin/sh
# tierctl topology: two tiers, one tier, JSON.
. "$SRCDIR/tests/cli/lib.sh"

mk_host_two_tier
tc topology
expect_rc 0
expect_out "^NODE +TIER +TOP +CPU +MEMTOTAL +MEMFREE\$"
expect_out "^0 +4 +yes +yes +16.0G +12.0G\$"
expect_out "^1 +22 +no +no +8.0G "
expect_out "^tier 4: nodes 0, 16.0G total, 12.0G free \\(top tier\\)\$"
expect_out "^2 memory tiers: fast-tier capacity 16.0G of 24.0G\$"
expect_out "kernel.numa_balancing = 2"
expect_no_out "single memory tier"

tc --json topology
expect_rc 0
json_ok "$T/out"
if command -v jq >/dev/null 2>&1; then
	[ "$(jq '.nodes | length' "$T/out")" = 2 ] || fail "json nodes"
	[ "$(jq '.fast_capacity' "$T/out")" = 17179869184 ] || fail "json fast_capacity"
	[ "$(jq '.tiering_active' "$T/out")" = true ] || fail "json tiering_active"
fi

rm -rf "$SYS" "$PROC"
mk_host_one_tier
tc topology
expect_rc 0
expect_out "^single memory tier: tiering inactive\$"
tc --json topology
expect_rc 0
json_ok "$T/out"
exit 0
