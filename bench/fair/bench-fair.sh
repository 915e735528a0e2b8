#!/bin/sh
# bench/fair/bench-fair.sh: the fairness experiment (tests/fair/) twice in
# the two-tier VM, without tierd and with it, printed side by side: every
# 5 s after the late workload starts, each workload's fast-tier bytes against
# its target, Jain's index over fast/target, then the promotions and
# demotions of each workload, its largest overshoot of the top-tier ceiling,
# and when the late workload first held 90% of its target.  `make
# bench-fair`; the serial logs stay in build/fair/bench-{without,with-tierd}.log,
# the table in build/fair/bench.txt.
# FAIR_BENCH_MODES="without with-tierd with-tierd-promotion" adds a run where
# tierd enforces with the promotion switch instead of the tier-aware limits.
# FAIR_VM_SMP=8 runs the VM with 8 vCPUs instead of run-vm's 2; the files
# then end in -smp8 (build/fair/bench-with-tierd-smp8.log, bench-smp8.txt),
# so that runs with 2 and 8 vCPUs can be put side by side with
# bench/fair/fair-table.sh LOG....  Under TCG 8 vCPUs are slower to boot
# and run on a small host: raise FAIR_VM_TIMEOUT (seconds, default 300).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
out=$build/fair
mkdir -p "$out"

smp=${FAIR_VM_SMP:-}
case $smp in
*[!0-9]*|0) echo "bench-fair.sh: FAIR_VM_SMP=$smp: want a number of vCPUs (1 or more)" >&2; exit 2 ;;
esac
sfx=${smp:+-smp$smp}

rc=0
modes=${FAIR_BENCH_MODES:-without with-tierd}
for mode in $modes; do
	echo "== run: $mode${smp:+, $smp vCPUs} (one VM boot, about 2 minutes under TCG)"
	sh "$top/tests/fair/run-fair-vm.sh" "$mode" "$out/bench-$mode$sfx.log" \
		>"$out/bench-$mode$sfx.out" 2>&1
	r=$?
	tail -n 3 "$out/bench-$mode$sfx.out"
	if [ $r = 77 ]; then
		echo "SKIP: $(tail -n 1 "$out/bench-$mode$sfx.out")"
		exit 77
	fi
	[ $r = 0 ] || rc=1
done

logs=
for mode in $modes; do
	logs="$logs $out/bench-$mode$sfx.log"
done
# shellcheck disable=SC2086
sh "$top/bench/fair/fair-table.sh" $logs | tee "$out/bench$sfx.txt"
exit $rc
