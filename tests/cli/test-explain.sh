#!/bin/sh
# tierctl explain: which rule, which matcher, class, desired and effective
# mode; unmanaged cgroups; missing cgroups.
. "$SRCDIR/tests/cli/lib.sh"

mk_standard_tree
C="--config $T/tierd.conf"

tc $C explain /system.slice/postgresql@15-main.service
expect_rc 0
expect_out "^cgroup: +/system.slice/postgresql@15-main.service\$"
expect_out "^rule: +db \\($T/tierd.conf:[0-9]+\\)\$"
expect_out "^matched by: +cgroup = /system.slice/postgresql\\*.service"
expect_out "^class: +latency\$"
expect_out "^desired mode: +full\$"
expect_out "^weight: +400\$"
expect_out "^toptier_min: +4G\$"
expect_out "^configured mode: +inherit\$"
expect_out "^effective mode: +full\$"

# Matched through the unit, not the path.
tc $C explain /system.slice/mariadb.service
expect_rc 0
expect_out "^matched by: +unit = mariadb.service"

# A percentage is shown resolved against the capacity the fair share
# divides, the fast tier (16 GiB) less fast_tier_reserve (256M): the bytes
# tierd enforces, not 8.0G of the whole fast tier (one definition).
tc $C explain system.slice/memcached.service
expect_rc 0
expect_out "^toptier_max: +50% of the fast tier less fast_tier_reserve = 7.9G\$"
tc --json $C explain system.slice/memcached.service
expect_rc 0
expect_out '"bytes": 8455716864'

# Effective mode limited by an ancestor.
printf 'off\n' >"$CG/batch.slice/memory.numa_balancing"
tc $C explain /batch.slice/job1/step
expect_rc 0
expect_out "^effective mode: +off \\(set by /batch.slice\\)\$"

tc $C explain /system.slice/cron.service
expect_rc 0
expect_out "^no rule matches: unmanaged\$"
expect_out "^configured mode: +off\$"

tc --json $C explain /system.slice/mariadb.service
expect_rc 0
json_ok "$T/out"
if command -v jq >/dev/null 2>&1; then
	[ "$(jq -r .rule.name "$T/out")" = db ] || fail "json rule"
	[ "$(jq -r .matcher.kind "$T/out")" = unit ] || fail "json matcher"
	[ "$(jq -r .class.name "$T/out")" = latency ] || fail "json class"
	[ "$(jq -r .class.toptier_min.bytes "$T/out")" = 4294967296 ] || fail "json toptier_min"
fi
tc --json $C explain /user.slice
expect_rc 0
json_ok "$T/out"

tc $C explain /no/such.service
expect_rc 3
expect_err "not found"
tc $C explain
expect_rc 2
exit 0
