#!/bin/sh
# tierctl explain and status show the demand the fair share used (resident
# or the hot set tierd measured last + hot_margin) and the class's
# promotion budget, computed from the files as tierd computes them:
#  1. demand = hot with tierd's hot-sets file in its run directory (the
#     directory of --bus-socket): the hot cgroup's demand is hot x 1.25,
#     at most its resident bytes, and the water-filling gives the cold hog
#     only that;
#  2. the same policy without a measurement: resident, and explain says
#     that the class asked for hot;
#  3. demand = resident: equal weights, equal halves.
# The file is version 2 (hot bytes per tier: /hog 1G = 0.25G fast + 0.75G
# slow; /victim's split unknown, "-"), shown by status --json and explain;
# 1b reads a version 1 file (a tierd from before the split): totals only.
. "$SRCDIR/tests/cli/lib.sh"

mk_host_two_tier
mk_root
G=1073741824
# /hog: 16G resident, 1G of it hot; /victim: 12G resident, 10G hot.
mk_cg /hog inherit $((8 * G)) $((8 * G))
mk_cg /victim inherit $((2 * G)) $((10 * G))
mkdir -p "$T/run"
B="--bus-socket $T/run/bus"
policy() {
	cat >"$T/tierd.conf" <<EOC
[daemon]
fast_tier_reserve = 0
[class:c]
demand = $1
promote_budget = 8M
[rule:c]
class = c
cgroup = /*
EOC
}
C="--config $T/tierd.conf"
now=$(awk '{ printf "%d", $1 * 1000000 }' /proc/uptime)
printf 'tierd-hot-sets 2 %s\n%s %s %s /hog\n%s - - /victim\n' "$now" \
	"$G" $((G / 4)) $((3 * G / 4)) $((10 * G)) >"$T/run/hot-sets"

# 1. by hot set: victim 10G + 25% = 12.5G, capped at its 12G resident; the
# hog claims 1.25G: it gets that, the victim the rest of the 16G.
policy hot
tc $C $B explain /victim
expect_rc 0
expect_out "^promote budget: +8.0M/s\$"
expect_out "^fair share: +12.0G of the fast tier\$"
expect_out "^demand: +hot 12.0G \\(hot set 10.0G \\+ hot_margin, at most resident 12.0G\\)\$"
expect_out "^hot set: +10.0G \\(per tier: unknown\\)\$"
expect_out "^hot set read: +[0-9]+ s ago"
tc --json $C $B explain /victim
expect_rc 0
json_ok "$T/out"
if command -v jq >/dev/null 2>&1; then
	[ "$(jq -r '.share | "\(.hot_bytes) \(.hot_fast_bytes) \(.hot_slow_bytes)"' "$T/out")" = \
		"$((10 * G)) null null" ] || fail "json /victim hot split: $(cat "$T/out")"
fi
tc $C $B explain /hog
expect_rc 0
expect_out "^fair share: +1.2G of the fast tier\$"
expect_out "^demand: +hot 1.2G "
expect_out "^hot set: +1.0G \\(fast 256.0M, slow 768.0M\\)\$"
tc --json $C $B explain /hog
expect_rc 0
json_ok "$T/out"
if command -v jq >/dev/null 2>&1; then
	[ "$(jq -r .share.demand "$T/out")" = hot ] || fail "json share.demand"
	[ "$(jq -r .share.hot_bytes "$T/out")" = "$G" ] || fail "json hot_bytes"
	[ "$(jq -r .share.hot_fast_bytes "$T/out")" = $((G / 4)) ] || fail "json hot_fast_bytes"
	[ "$(jq -r .share.hot_slow_bytes "$T/out")" = $((3 * G / 4)) ] || fail "json hot_slow_bytes"
	[ "$(jq -r .share.demand_bytes "$T/out")" = $((G + G / 4)) ] || fail "json demand_bytes"
	[ "$(jq -r .share.target_bytes "$T/out")" = $((G + G / 4)) ] || fail "json target_bytes"
	[ "$(jq -r .class.promote_budget_bytes_per_second "$T/out")" = 8388608 ] ||
		fail "json promote budget"
fi
tc --json $C $B status
expect_rc 0
json_ok "$T/out"
if command -v jq >/dev/null 2>&1; then
	v=$(jq -r '.cgroups[] | select(.cgroup == "/hog") | "\(.demand) \(.demand_bytes) \(.hot_bytes) \(.target_bytes)"' "$T/out")
	[ "$v" = "hot $((G + G / 4)) $G $((G + G / 4))" ] || fail "status /hog: $v"
	v=$(jq -r '.cgroups[] | select(.cgroup == "/hog") | "\(.hot_fast_bytes) \(.hot_slow_bytes)"' "$T/out")
	[ "$v" = "$((G / 4)) $((3 * G / 4))" ] || fail "status /hog split: $v"
	v=$(jq -r '.cgroups[] | select(.cgroup == "/victim") | "\(.hot_bytes) \(.hot_fast_bytes) \(.hot_slow_bytes)"' "$T/out")
	[ "$v" = "$((10 * G)) null null" ] || fail "status /victim split: $v"
fi
# the HOT column: tierd's reading, whatever the demand
tc $C $B status
expect_rc 0
expect_out "^CGROUP +CLASS +CONFIGURED +EFFECTIVE +FAST +SLOW +HOT +TARGET +FAST%\$"
expect_out "^/hog +c +inherit +full +8.0G +8.0G +1.0G +1.2G +"
expect_out "^/victim +c +inherit +full +2.0G +10.0G +10.0G +12.0G +"

# 1b. a version 1 file (a tierd from before the split) still counts: the
# same totals and shares, no split anywhere
printf 'tierd-hot-sets 1 %s\n%s /hog\n%s /victim\n' "$now" "$G" $((10 * G)) \
	>"$T/run/hot-sets"
tc $C $B explain /hog
expect_rc 0
expect_out "^fair share: +1.2G of the fast tier\$"
expect_out "^hot set: +1.0G \\(per tier: unknown\\)\$"
tc $C $B status
expect_rc 0
expect_out "^/hog +c +inherit +full +8.0G +8.0G +1.0G +1.2G +"
tc --json $C $B status
expect_rc 0
json_ok "$T/out"
if command -v jq >/dev/null 2>&1; then
	v=$(jq -r '.cgroups[] | select(.cgroup == "/hog") | "\(.hot_bytes) \(.hot_fast_bytes) \(.hot_slow_bytes)"' "$T/out")
	[ "$v" = "$G null null" ] || fail "status /hog, version 1: $v"
fi
# a malformed line (a split that does not add up) is skipped: /hog shares
# by resident then, /victim keeps its reading
printf 'tierd-hot-sets 2 %s\n%s 1 1 /hog\n%s - - /victim\n' "$now" "$G" $((10 * G)) \
	>"$T/run/hot-sets"
tc $C $B status
expect_rc 0
expect_out "^/hog +c +inherit +full +8.0G +8.0G +- +"
expect_out "^/victim +c +inherit +full +2.0G +10.0G +10.0G +"

# 2. no measurement: resident, said so; no HOT
rm "$T/run/hot-sets"
tc $C $B status
expect_out "^/hog +c +inherit +full +8.0G +8.0G +- +8.0G +"
tc $C $B explain /victim
expect_rc 0
expect_out "^fair share: +8.0G of the fast tier\$"
expect_out "^demand: +resident 12.0G \\(the class asks for hot: no hot-set measurement"
expect_no_out "^hot set read:"

# 3. by resident bytes: equal halves
policy resident
tc $C $B explain /hog
expect_rc 0
expect_out "^fair share: +8.0G of the fast tier\$"
expect_out "^demand: +resident 16.0G\$"
expect_out "^page cache: +on \\(takes effect here: no: the class's mode does not promote"
tc --json $C $B explain /hog
if command -v jq >/dev/null 2>&1; then
	[ "$(jq -r .share.demand_wanted "$T/out")" = resident ] || fail "json demand_wanted"
	# page_cache: on by default, no effect without a promoting mode
	[ "$(jq -r .class.page_cache "$T/out")" = on ] || fail "json class.page_cache"
	[ "$(jq -r .page_cache.effect "$T/out")" = no ] || fail "json page_cache.effect"
fi

# 4. page_cache on the knob backend (this tree has memory.numa_balancing):
# a promote class's page cache goes through tierd's DAMON schemes where
# DAMON is there; page_cache = off leaves it to NUMA balancing (nothing)
pc_policy() {
	cat >"$T/tierd.conf" <<EOC
[class:c]
mode = promote
$1
[rule:c]
class = c
cgroup = /*
EOC
}
pc_policy ""
tc $C $B explain /hog
expect_rc 0
expect_out "^page cache: +on \\(takes effect here: no: no DAMON sysfs interface\\)\$"
mkdir -p "$SYS/kernel/mm/damon/admin/kdamonds"
tc $C $B explain /hog
expect_out "^page cache: +on \\(takes effect here: yes: tierd's DAMON page-cache schemes"
pc_policy "page_cache = off"
tc $C $B explain /hog
expect_out "^page cache: +off \\(takes effect here: no: off: NUMA balancing promotes only what tasks fault on"
tc --json $C $B explain /hog
if command -v jq >/dev/null 2>&1; then
	[ "$(jq -r .class.page_cache "$T/out")" = off ] || fail "json class.page_cache off"
fi
exit 0
