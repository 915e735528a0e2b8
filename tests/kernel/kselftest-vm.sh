#!/bin/sh
# kselftest-vm.sh TEST: run one of the series' static kselftests inside the
# two-tier VM (as a tests/vm/run-vm command) and map kselftest's exit codes
# to the project's: KSFT_PASS 0 -> 0, KSFT_SKIP 4 -> 77, anything else fails.
set -u
bin=${TIERD_VM_BUILD:?not inside run-vm}/kernel/kselftest/$1
if [ ! -x "$bin" ]; then
	echo "SKIP: $bin not built (make kselftest-numa)"
	exit 77
fi
# A slower kernel (run-vm --time-scale: the debug kernel) takes longer from
# a NUMA scan to a workload's next touch of a page: scale the hot threshold
# of tiering mode with it (debugfs, where the kernel has it), or pages that
# are read all the time do not count as hot.
hot=/sys/kernel/debug/sched/numa_balancing/hot_threshold_ms
scale=${TIERD_VM_TIME_SCALE:-1}
old_hot=
if [ "$scale" -gt 1 ] 2>/dev/null && [ -w "$hot" ]; then
	old_hot=$(cat "$hot")
	echo $((1000 * scale)) >"$hot" && echo "# hot threshold $((1000 * scale)) ms (was $old_hot)"
fi
"$bin"
rc=$?
[ -n "$old_hot" ] && echo "$old_hot" >"$hot"
case $rc in
0) exit 0 ;;
4) echo "SKIP: $1 skipped (the kernel lacks the feature)"; exit 77 ;;
*) exit "$rc" ;;
esac
