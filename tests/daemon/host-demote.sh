#!/bin/sh
# Demotion through memory.reclaim is written in chunks, one per turn of the
# event loop (issue 24, item 15): a write of memory.reclaim blocks until
# the kernel has reclaimed that much, and tierd wrote up to 1 GiB at once
# per cgroup and round.  Fake tree, promotion switch (no tier-aware
# limits), demotion on and no swap: /hog holds 700M of the fast tier, its
# target is 468M; the 232M excess goes in writes of at most 64M.
. "$(dirname "$0")/lib-host.sh"

mk_fake_host
mkdir -p "$SYS/kernel/mm/numa"
printf 'true\n' >"$SYS/kernel/mm/numa/demotion_enabled"
printf 'Filename\tType\tSize\tUsed\tPriority\n' >"$PROC/swaps"
M=1048576
# numa_cgroup PATH FAST_MB: that much anon on node 0 (fast), none on node 1.
numa_cgroup() {
	s=$T/stage/numa.$$
	rm -rf "$s"
	mkdir -p "$s"
	fill_cgroup "$s"
	printf 'anon N0=%s N1=0\nfile N0=0 N1=0\n' $(($2 * M)) >"$s/memory.numa_stat"
	printf '%s\n' $(($2 * M)) >"$s/memory.current"
	: >"$s/memory.reclaim"
	mv "$s" "$CG/$1"
}
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
rebalance_interval = 1h
[class:fast]
mode = full
[rule:fast]
class = fast
cgroup = /w/*
EOC
mk_cgroup w
numa_cgroup w/hog 700
numa_cgroup w/small 300
start_tierd
wait_mode w/hog off
wait_log 'demoting 232.0M with memory.reclaim'
"$WAITFOR" -t 10 -n 4 "$LOG" '/w/hog: memory.reclaim [0-9]+: done' ||
	fail "the excess was not demoted in four chunks"
grep -E '/w/hog: memory.reclaim [0-9]+:' "$LOG" | awk '{ if ($4 + 0 > 67108864) bad = 1 } END { exit bad }' ||
	fail "a memory.reclaim write of more than 64M"
[ "$(grep -cE '/w/hog: memory.reclaim [0-9]+:' "$LOG")" = 4 ] || fail "not four chunks"
[ "$(cat "$CG/w/hog/memory.reclaim")" -le 67108864 ] ||
	fail "memory.reclaim holds $(cat "$CG/w/hog/memory.reclaim")"
stop_tierd
echo "ok 1 232M of excess demoted in four writes of at most 64M"
