#!/bin/sh
# kselftest-vm.sh TEST [ARGS...]: run one of the series' static kselftests inside the
# two-tier VM (as a tests/vm/run-vm command) and map kselftest's exit codes
# to the project's: KSFT_PASS 0 -> 0, KSFT_SKIP 4 -> 77, anything else fails.
set -u
name=$1
shift
bin=${TIERD_VM_BUILD:?not inside run-vm}/kernel/kselftest/$name
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
# test_toptier's page cache case needs a file of 16 MB or more on a
# filesystem with a page cache (the guest's / is 9p with cache=loose; /tmp
# is tmpfs, shmem): a vmlinux of the build tree.
for f in "$TIERD_VM_BUILD"/kernel/obj-patched/vmlinux "$TIERD_VM_BUILD"/kernel/obj-debug/vmlinux; do
	if [ -r "$f" ] && [ "$(stat -c %s "$f")" -ge 16777216 ]; then
		export TOPTIER_TEST_FILE="$f"
		break
	fi
done
# Swap for test_toptier's swap-in case: 256 MB on zram0, as the guest
# cases have it, if the kernel has zram and the VM no swap yet.
zram=
if [ "$name" = test_toptier ] && [ -w /sys/block/zram0/disksize ] &&
	[ "$(wc -l </proc/swaps)" -le 1 ]; then
	if echo 256M >/sys/block/zram0/disksize &&
		{ mkswap /dev/zram0 || busybox mkswap /dev/zram0; } >/dev/null 2>&1 &&
		{ swapon /dev/zram0 || busybox swapon /dev/zram0; } 2>/dev/null; then
		zram=1
		echo "# swap: 256 MB on zram0"
	fi
fi
"$bin" "$@"
rc=$?
[ -n "$zram" ] && { swapoff /dev/zram0 || busybox swapoff /dev/zram0; } 2>/dev/null
[ -n "$old_hot" ] && echo "$old_hot" >"$hot"
case $rc in
0) exit 0 ;;
4) echo "SKIP: $name skipped (the kernel lacks the feature)"; exit 77 ;;
*) exit "$rc" ;;
esac
