#!/bin/sh
# tierd (the ASan build) on the damon backend against a fake host with a fake
# DAMON sysfs tree: the kdamonds (one per tier) are added only when a class
# needs a scheme, a
# burst of cgroups below a promote class costs few commits and every memcg
# with pages gets its scheme, memory.numa_balancing is never written, the
# sysctl is set to 0 and restored (numa_balancing_sysctl = off), SIGTERM
# stops the kdamonds and removes the record, and tierd exits 0 (no leak).
# Then on the knob backend: a promote class (page_cache on, the default)
# gets a page-cache scheme per memcg with pages (migrate_hot, memcg, anon
# filtered out), a class with page_cache = off and an off class none.
#
# The fake cannot make directories when a count file is written, so
# kdamonds/0 (the fast tier's) and kdamonds/1 (the slow tier's: the
# promotion schemes) are there ahead with room for up to MAXS schemes.
. "$SRCDIR/tests/daemon/lib-host.sh"

N=${DAMON_BURST:-60}
MAXS=$((2 * N + 8))
ADMIN=$SYS/kernel/mm/damon/admin
K=$ADMIN/kdamonds/1
KF=$ADMIN/kdamonds/0

mk_fake_host
# node 0 at [0, 64 MB), node 1 at [64 MB, 128 MB) (4 kB pages)
cat >"$PROC/zoneinfo" <<EOZ
Node 0, zone   Normal
  pages free     8192
        spanned  16384
        present  16384
        managed  16384
  start_pfn:           0
Node 1, zone   Normal
  pages free     8192
        spanned  16384
        present  16384
        managed  16384
  start_pfn:           16384
EOZ

# kdamonds/0 and 1 as nr_kdamonds 2 and the staged counts would make them
w() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" >"$1"; }
mkdir -p "$ADMIN/kdamonds"
w "$ADMIN/kdamonds/nr_kdamonds" 0
# (the fast tier's with the 16 inert schemes it gets: the fake does not
# recreate scheme directories with the kernel's defaults when nr_schemes
# changes, and inert indexes are not written after a count change)
mk_kdamond() {
	kd=$1
	ns=$3
	w "$kd/state" off
	w "$kd/pid" "$2"
	c=$kd/contexts/0
	w "$kd/contexts/nr_contexts" 1
	w "$c/operations" vaddr
	for f in sample_us aggr_us update_us; do w "$c/monitoring_attrs/intervals/$f" 0; done
	w "$c/monitoring_attrs/nr_regions/min" 0
	w "$c/monitoring_attrs/nr_regions/max" 0
	w "$c/targets/nr_targets" 1
	w "$c/targets/0/regions/nr_regions" 32
	i=0
	while [ $i -lt 32 ]; do
		w "$c/targets/0/regions/$i/start" 0
		w "$c/targets/0/regions/$i/end" 0
		i=$((i + 1))
	done
	w "$c/schemes/nr_schemes" "$ns"
	i=0
	while [ $i -lt "$ns" ]; do
		s=$c/schemes/$i
		mkdir -p "$s/access_pattern/sz" "$s/access_pattern/nr_accesses" \
			"$s/access_pattern/age" "$s/quotas/weights" "$s/quotas/goals/0" \
			"$s/watermarks" "$s/filters/0" "$s/filters/1" "$s/filters/2"
		for f in action target_nid apply_interval_us access_pattern/sz/min \
			access_pattern/sz/max access_pattern/nr_accesses/min \
			access_pattern/nr_accesses/max access_pattern/age/min access_pattern/age/max \
			quotas/ms quotas/bytes quotas/reset_interval_ms quotas/weights/sz_permil \
			quotas/weights/nr_accesses_permil quotas/weights/age_permil watermarks/metric \
			quotas/goals/0/target_metric quotas/goals/0/target_value \
			quotas/goals/0/current_value filters/0/type filters/0/matching \
			filters/0/memcg_path filters/0/addr_start filters/0/addr_end filters/1/type \
			filters/1/matching filters/1/memcg_path filters/1/addr_start \
			filters/1/addr_end filters/2/type filters/2/matching filters/2/memcg_path \
			filters/2/addr_start filters/2/addr_end; do
			printf '0\n' >"$s/$f"
		done
		printf '1\n' >"$s/quotas/goals/nr_goals"
		printf '2\n' >"$s/filters/nr_filters"
		i=$((i + 1))
	done
}
mk_kdamond "$KF" 4241 16
mk_kdamond "$K" 4242 $MAXS
C=$K/contexts/0

cat >"$CONF" <<EOC
[daemon]
backend = damon
numa_balancing_sysctl = off
reconcile_interval = 1h
rebalance_interval = 1h
[class:hot]
mode = promote
[class:cold]
mode = off
[rule:burst]
class = hot
cgroup = /burst/**
[rule:cold]
class = cold
cgroup = /cold
EOC
mk_cgroup cold
printf '4096\n' >"$CG/cold/memory.current"
mk_cgroup burst
rm -f "$CG/cold/memory.numa_balancing" "$CG/burst/memory.numa_balancing"

# The kernel shows "on" again once a command is done; the fake keeps what was
# written: a watcher puts "on" back after each "commit" (inotify, no polling).
state_watcher() {
	(
		wpid=
		trap '[ -z "$wpid" ] || kill "$wpid" 2>/dev/null; exit 0' TERM
		while :; do
			"$WAITFOR" -t 3600 "$K/state" '^commit$' >/dev/null 2>&1 &
			wpid=$!
			wait "$wpid" || exit 0
			printf 'on\n' >"$K/state"
		done
	) &
	STATE_PID=$!
}
state_watcher
trap 'kill $STATE_PID 2>/dev/null; cleanup' EXIT

start_tierd
wait_log 'Backend damon'
wait_log 'kernel.numa_balancing 2 -> 0'
[ "$(cat "$PROC/sys/kernel/numa_balancing")" = 0 ] || fail "sysctl not 0"
# nothing promotes yet: no kdamond
[ "$(cat "$ADMIN/kdamonds/nr_kdamonds")" = 0 ] || { cat $C/schemes/0/filters/0/memcg_path; ls -la $CG/burst; cat $CG/burst/memory.current; fail "a kdamond was added for nothing"; }
echo "ok 1 no kdamond while no class needs a scheme; sysctl 2 -> 0"

# the burst: N cgroups below /burst, one after the other, each with pages
runs0=$(grep -c ') runs ' "$LOG")
t0=$(date +%s%N)
i=0
while [ $i -lt "$N" ]; do
	s=$T/stage/b.$i
	mkdir -p "$s"
	fill_cgroup "$s"
	rm -f "$s/memory.numa_balancing"
	printf '8192\n' >"$s/memory.current"
	mv "$s" "$CG/burst/c$i"
	i=$((i + 1))
done
t1=$(date +%s%N)
"$WAITFOR" -t 30 "$LOG" "runs $N schemes" ||
	{ grep -E 'DAMON|inotify|Cannot' "$LOG" | grep -v synced >&2; fail "no commit of $N schemes"; }
# that was the last commit: the plan is complete, a later sync finds it so
runs=$(($(grep -c ') runs ' "$LOG") - runs0))
secs=$(((t1 - t0) / 1000000000 + 1))
[ "$(cat "$ADMIN/kdamonds/nr_kdamonds")" = 2 ] || fail "nr_kdamonds is not 2 (one per tier)"
[ "$(cat "$K/state")" = on ] || [ "$(cat "$K/state")" = commit ] || fail "kdamond not started"
# the fast tier's: staged (the record), not started (no demotion, no hot sets)
[ "$(cat "$KF/state")" = off ] || fail "the fast tier's kdamond runs for nothing"
[ "$(cat "$KF/contexts/0/operations")" = paddr ] || fail "the fast tier's kdamond not staged"
# a handful of commits, not one per cgroup: one per quiet spell of 200 ms
# or per 2 s of burst (how many depends on the machine's load; a fifth of
# the cgroups is far above what any run needed)
[ "$runs" -ge 1 ] && [ "$runs" -le $((N / 5)) ] ||
	fail "a burst of $N cgroups over ${secs}s cost $runs commits"
i=0
while [ $i -lt "$N" ]; do
	grep -qx "/burst/c$i" "$C"/schemes/*/filters/0/memcg_path ||
		fail "/burst/c$i has no scheme"
	i=$((i + 1))
done
grep -qx /cold "$C"/schemes/*/filters/0/memcg_path && fail "/cold (mode off) has a scheme"
grep -qx /burst "$C"/schemes/*/filters/0/memcg_path && fail "/burst (no pages) has a scheme"
grep -q 'migrate_hot' "$C/schemes/0/action" || fail "scheme 0 is not migrate_hot"
[ -f "$T/damon-owner" ] || fail "no record $T/damon-owner"
echo "ok 2 a burst of $N cgroups in ${secs}s: $runs commit(s), one scheme each"

# never the knob
[ ! -e "$CG/burst/c0/memory.numa_balancing" ] || fail "memory.numa_balancing written"

kill $STATE_PID 2>/dev/null
wait $STATE_PID 2>/dev/null
w "$K/state" on	# what the kernel shows after a commit (the fake keeps the command)
stop_tierd
[ ! -e "$T/damon-owner" ] || fail "the record stayed"
[ "$(cat "$K/state")" = off ] || fail "SIGTERM did not stop the kdamond"
[ "$(cat "$PROC/sys/kernel/numa_balancing")" = 2 ] || fail "sysctl not restored"
grep -q 'DAMON: stopped kdamond 1 (slow-tier)' "$LOG" || fail "no stop logged"
echo "ok 3 SIGTERM: kdamond stopped, sysctl restored, tierd exits 0"

# The knob backend: page-cache schemes.  A fresh tree (the knob in every
# cgroup), kdamonds 0 and 1 free again.
rm -rf "$CG/burst" "$CG/cold"
for c in pc pc/x nopc off; do
	mk_cgroup $c
	printf '8192\n' >"$CG/$c/memory.current"
done
w "$ADMIN/kdamonds/nr_kdamonds" 0
w "$K/state" off
w "$KF/state" off
cat >"$CONF" <<EOC
[daemon]
backend = knob
reconcile_interval = 1h
rebalance_interval = 1h
[class:pc]
mode = promote
[class:nopc]
mode = full
page_cache = off
[class:off]
mode = off
[rule:pc]
class = pc
cgroup = /pc
[rule:nopc]
class = nopc
cgroup = /nopc
[rule:off]
class = off
cgroup = /off
EOC
state_watcher
start_tierd
wait_log 'Backend knob'
"$WAITFOR" -t 30 "$LOG" "runs 2 schemes" ||
	{ grep -E 'DAMON|page cache' "$LOG" >&2; fail "no page-cache schemes for /pc and /pc/x"; }
[ "$(cat "$ADMIN/kdamonds/nr_kdamonds")" = 2 ] || fail "knob backend: nr_kdamonds is not 2"
wait_mode pc promote
for m in /pc /pc/x; do
	f=$(grep -lx "$m" "$C"/schemes/*/filters/0/memcg_path | head -n 1)
	[ -n "$f" ] || fail "$m has no page-cache scheme"
	s=${f%/filters/0/memcg_path}
	[ "$(cat "$s/action")" = migrate_hot ] || fail "$m: $(cat "$s/action"), not migrate_hot"
	[ "$(cat "$s/target_nid")" = 0 ] || fail "$m: target_nid $(cat "$s/target_nid")"
	[ "$(cat "$s/filters/nr_filters")" = 2 ] || fail "$m: $(cat "$s/filters/nr_filters") filters"
	[ "$(cat "$s/filters/0/type")" = memcg ] || fail "$m: filter 0 is not memcg"
	[ "$(cat "$s/filters/1/type")" = anon ] || fail "$m: filter 1 is not anon"
	[ "$(cat "$s/filters/1/matching")" = Y ] || fail "$m: anon filter does not filter anon out"
done
for m in /nopc /off; do
	grep -qx "$m" "$C"/schemes/*/filters/0/memcg_path && fail "$m has a page-cache scheme"
done
echo "ok 4 knob backend: a page-cache scheme per memcg of a promote class, none for page_cache = off or mode off"

kill $STATE_PID 2>/dev/null
wait $STATE_PID 2>/dev/null
w "$K/state" on
stop_tierd
[ "$(cat "$K/state")" = off ] || fail "knob backend: SIGTERM did not stop the kdamond"
echo "ok 5 knob backend: SIGTERM stops the page-cache kdamond, tierd exits 0"
