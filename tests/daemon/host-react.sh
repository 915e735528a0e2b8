#!/bin/sh
# tierd's reaction path (host, fake tree): what happens per event, not per
# tree.  The daemon logs "Observing the whole cgroup tree (REASON)" for each
# full-tree observe (-v), and "Rebalanced N cgroups (cgroup change)" for each
# fair-share round that changes start.
#  1. a new cgroup, and a whole new subtree, get their class with no tree
#     observe after startup's;
#  2. a burst of cgroups, each its own inotify event, gets fewer rebalances
#     than events (coalesced), and the last round counts them all;
#  3. an exe= rule still matches (a process shows up, cgroup.events says
#     populated), again with no tree observe;
#  4. a removed cgroup leaves the table of managed cgroups ("N in a class")
#     with no tree observe; a reload observes the tree once.
. "$(dirname "$0")/lib-host.sh"

command -v busctl >/dev/null 2>&1 || skip "no busctl"
mk_fake_host
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
rebalance_interval = 1h
fast_tier_reserve = 0
[class:fast]
mode = full
[class:db]
mode = promote
[rule:fast]
class = fast
cgroup = /fast/**
[rule:db]
class = db
exe = /usr/sbin/mysqld
EOC
mk_cgroup fast
mk_cgroup apps
mk_cgroup apps/db

observes() {
	grep -c 'Observing the whole cgroup tree' "$LOG"
}
rebalances() {
	grep -c 'Rebalanced [0-9]* cgroups (cgroup change)' "$LOG"
}
in_a_class() {
	bc Status | sed -n 's/.* \([0-9][0-9]*\) in a class.*/\1/p'
}

start_tierd
wait_log 'Observing the whole cgroup tree \(startup\)'
n0=$(observes)
[ "$n0" = 1 ] || fail "startup observed the tree $n0 times"

# 1. One cgroup, then a subtree that appears at once.
mk_cgroup fast/a
wait_mode fast/a full
mk_cgroup_tree fast/tree 2 3
for p in fast/tree fast/tree/c0 fast/tree/c2/c1; do
	wait_mode "$p" full
done
[ "$(observes)" = "$n0" ] || fail "a new cgroup made tierd observe the whole tree"
echo "ok 1 new cgroups get their class without a tree observe"

# 2. 20 cgroups, each renamed in by a process of its own.
i=0
while [ $i -lt 20 ]; do
	mkdir -p "$T/stage/b$i"
	fill_cgroup "$T/stage/b$i"
	i=$((i + 1))
done
wait_log 'Rebalanced 2 cgroups \(cgroup change\)'	# fast/a, fast/tree (top-most)
r0=$(rebalances)
# The 20 renames happen while tierd is stopped, so all 20 events are queued
# before it reads the first: how fast this loop runs against the debounce
# does not matter.
kill -STOP "$TIERD_PID"
i=0
while [ $i -lt 20 ]; do
	mv "$T/stage/b$i" "$CG/fast/b$i"
	i=$((i + 1))
done
kill -CONT "$TIERD_PID"
wait_mode fast/b19 full
# 2 + 20 top-most managed: the round after the last change counts them all.
wait_log 'Rebalanced 22 cgroups \(cgroup change\)'
r=$(($(rebalances) - r0))
[ "$r" = 1 ] || fail "$r rebalances for 20 queued new cgroups (not coalesced into one)"
[ "$(observes)" = "$n0" ] || fail "the rebalance observed the whole tree"
echo "ok 2 a burst of 20 cgroups: $r coalesced rebalance(s), no tree observe"

# 3. exe= rule: pid 4242 runs /usr/sbin/mysqld in apps/db.
[ "$(mode_of apps/db)" = inherit ] || fail "apps/db set before it had a process"
mkdir -p "$PROC/4242"
ln -sf /usr/sbin/mysqld "$PROC/4242/exe"
printf '4242\n' >"$CG/apps/db/cgroup.procs"
printf 'populated 1\nfrozen 0\n' >"$CG/apps/db/cgroup.events"
wait_mode apps/db promote
wait_log '/apps/db: memory.numa_balancing inherit -> promote \(class db, rule db, processes moved in\)'
[ "$(observes)" = "$n0" ] || fail "an exe match made tierd observe the whole tree"
echo "ok 3 exe rule through cgroup.events, no tree observe"

# 4. The table follows removals; a reload observes the tree once.
n=$(in_a_class)
[ "$n" = 35 ] || fail "Status says $n in a class, expected 35"
rm -r "$CG/fast/b19" || fail "cannot remove fast/b19"
wait_log '/fast/b19: removed'
n=$(in_a_class)
[ "$n" = 34 ] || fail "Status says $n in a class after a removal, expected 34"
[ "$(observes)" = "$n0" ] || fail "a removal made tierd observe the whole tree"
kill -HUP "$TIERD_PID"
wait_log 'Policy reloaded'
[ "$(observes)" = $((n0 + 1)) ] || fail "a reload observed the tree $(($(observes) - n0)) times"
echo "ok 4 removals update the table; a reload observes the tree once"
stop_tierd
exit 0
