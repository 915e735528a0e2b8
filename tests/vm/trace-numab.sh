#!/bin/sh
# trace-numab.sh: in the guest, check that promotion-only scans show up in
# the sched_skip_vma_numa tracepoint with the reason the series gives them.
# Each case runs with the event on; the trace must hold its reason:
#
#   anon-promote-promote   promo_only_memcg         (memory.numa_balancing=promote)
#   file-ro-promote        promo_only_shared_ro     (RO file mapping, tiering mode)
#   pid-inactive-promote   promo_only_pid_inactive  (VMAs no scanning task touched)
#
# Needs trace events (the debug kernel: CONFIG_ENABLE_DEFAULT_TRACERS):
#
#   tests/vm/run-vm --kernel build/kernel/debug/bzImage --time-scale 3 \
#       /work/main/tests/vm/trace-numab.sh
set -u
vmtest=${TIERD_VM_BUILD:-/work/main/build}/vm/tierd-vmtest
t=/sys/kernel/debug/tracing
[ -d $t/events ] || t=/sys/kernel/tracing
[ -d $t/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
if [ ! -d $t/events/sched/sched_skip_vma_numa ]; then
	echo "SKIP: no sched_skip_vma_numa trace event (a kernel without trace events)"
	exit 77
fi
failed=0
run() {
	case=$1 reason=$2
	echo 0 >$t/tracing_on
	echo 4096 >$t/buffer_size_kb
	: >$t/trace
	echo 1 >$t/events/sched/sched_skip_vma_numa/enable
	echo 1 >$t/tracing_on
	"$vmtest" "$case"
	rc=$?
	echo 0 >$t/tracing_on
	echo 0 >$t/events/sched/sched_skip_vma_numa/enable
	n=$(grep -c "reason=$reason\$" $t/trace)
	echo "== $case: $n sched_skip_vma_numa events with reason=$reason; all reasons:"
	grep -o 'reason=[a-z_]*' $t/trace | sort | uniq -c | sed 's/^/   /'
	if [ "$rc" -ne 0 ]; then
		echo "FAILED: $case exited $rc"
		failed=1
	elif [ "$n" -eq 0 ]; then
		echo "FAILED: no reason=$reason event during $case"
		failed=1
	else
		echo "ok: $case traced as $reason"
	fi
}
run anon-promote-promote promo_only_memcg
run file-ro-promote promo_only_shared_ro
run pid-inactive-promote promo_only_pid_inactive
exit $failed
