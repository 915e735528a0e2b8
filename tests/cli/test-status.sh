#!/bin/sh
# tierctl status: managed cgroups by default, --all for all, --json.
. "$SRCDIR/tests/cli/lib.sh"

mk_standard_tree
C="--config $T/tierd.conf"

tc $C status
expect_rc 0
expect_out "^CGROUP +CLASS +CONFIGURED +EFFECTIVE +FAST +SLOW +HOT +TARGET +FAST%\$"
expect_out "^/system.slice/postgresql@15-main.service +latency +inherit +full +3.0G +1.0G +- +4.0G +75%\$"
expect_out "^/system.slice/mariadb.service +latency +full +full +1.0M +0 +- +4.0G +0%\$"
expect_out "^/system.slice/memcached.service +pinned +inherit +full +0 +2.0M +- +2.0M +0%\$"
expect_out "^/batch.slice/job1/step +batch +promote +promote "
# Fair-share targets: only the top-most managed cgroups share the fast tier
# (job1/step is part of job1); a guaranteed minimum holds even above the
# demand (the latency class has toptier_min = 4G).
expect_out "^/batch.slice/job1/step +batch +promote +promote +4.0K +0 +- +- +-\$"
expect_out "^/batch.slice/job1 +batch +inherit +full +4.0K +8.0K +- +12.0K +33%\$"
expect_no_out "cron|user.slice|^/ "
n=$(($(wc -l <"$T/out") - 1))
[ "$n" = 5 ] || fail "expected 5 managed cgroups, got $n"

tc $C status --all
expect_rc 0
expect_out "^/system.slice/cron.service +- +off +off "
expect_out "^/user.slice/user-1000.slice +- +promote +promote "
n=$(($(wc -l <"$T/out") - 1))
[ "$n" = 11 ] || fail "expected 11 cgroups with --all, got $n"

tc --json $C status --all
expect_rc 0
json_ok "$T/out"
if command -v jq >/dev/null 2>&1; then
	[ "$(jq '.cgroups | length' "$T/out")" = 11 ] || fail "json: 11 cgroups"
	v=$(jq -r '.cgroups[] | select(.cgroup == "/system.slice/postgresql@15-main.service") | "\(.class) \(.rule) \(.configured) \(.effective) \(.fast_bytes) \(.slow_bytes)"' "$T/out")
	[ "$v" = "latency db inherit full 3221225472 1073741824" ] || fail "json: postgresql row: $v"
	v=$(jq -r '.cgroups[] | select(.cgroup == "/system.slice/cron.service") | .class' "$T/out")
	[ "$v" = null ] || fail "json: cron class $v"
	v=$(jq -r '.cgroups[] | select(.cgroup == "/system.slice/postgresql@15-main.service") | .target_bytes' "$T/out")
	[ "$v" = 4294967296 ] || fail "json: postgresql target $v"
	v=$(jq -r '.cgroups[] | select(.cgroup == "/system.slice/cron.service") | .target_bytes' "$T/out")
	[ "$v" = null ] || fail "json: cron target $v"
fi

# Cgroup names that need escaping in JSON.
mk_cg '/batch.slice/we"ird\name	tab' off
mk_cg "/batch.slice/$(printf 'bad\377utf8\001ctl')" off
tc --json $C status
expect_rc 0
json_ok "$T/out"
grep -q 'bad\\ufffdutf8\\u0001ctl' "$T/out" || fail "json: invalid UTF-8 and control bytes not escaped"
if command -v jq >/dev/null 2>&1; then
	jq -r '.cgroups[].cgroup' "$T/out" | grep -q 'we"ird\\name	tab' || fail "json: escaped name"
fi
exit 0
