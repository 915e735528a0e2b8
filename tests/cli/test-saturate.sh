#!/bin/sh
# Residency sums saturate at UINT64_MAX instead of wrapping: anon
# 18446744073709551615 plus file 1 on a fast node is 16.0E fast bytes, not 0.
. "$SRCDIR/tests/cli/lib.sh"

mk_standard_tree
C="--config $T/tierd.conf"

MAX=18446744073709551615
sed -i -e "s/^anon N0=.*/anon N0=$MAX N1=$MAX/" -e 's/^file N0=.*/file N0=1 N1=1/' \
	"$CG/batch.slice/job1/memory.numa_stat"

tc $C status
expect_rc 0
expect_out "^/batch.slice/job1 +batch +inherit +full +16.0E +16.0E "
# the others are as before
expect_out "^/system.slice/postgresql@15-main.service +latency +inherit +full +3.0G +1.0G +- +4.0G +75%\$"

tc --json $C status
expect_rc 0
json_ok "$T/out"
grep -q "\"fast_bytes\": $MAX" "$T/out" || { cat "$T/out" >&2; fail "json: fast_bytes not saturated"; }
grep -q "\"slow_bytes\": $MAX" "$T/out" || { cat "$T/out" >&2; fail "json: slow_bytes not saturated"; }
exit 0
