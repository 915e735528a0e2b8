#!/bin/sh
# bench/fair/bench-fair.sh: the fairness experiment (tests/fair/) twice in
# the two-tier VM, without tierd and with it, printed side by side: every
# 5 s after the late workload starts, each workload's fast-tier bytes against
# its target, Jain's index over fast/target, then the promotions and
# demotions of each workload.  `make bench-fair`; the serial logs stay in
# build/fair/bench-{without,with-tierd}.log, the table in build/fair/bench.txt.
# FAIR_BENCH_MODES="without with-tierd with-tierd-promotion" adds a run where
# tierd enforces with the promotion switch instead of the tier-aware limits.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
out=$build/fair
mkdir -p "$out"

rc=0
modes=${FAIR_BENCH_MODES:-without with-tierd}
for mode in $modes; do
	echo "== run: $mode (one VM boot, about 2 minutes under TCG)"
	sh "$top/tests/fair/run-fair-vm.sh" "$mode" "$out/bench-$mode.log" >"$out/bench-$mode.out" 2>&1
	r=$?
	tail -n 3 "$out/bench-$mode.out"
	if [ $r = 77 ]; then
		echo "SKIP: $(tail -n 1 "$out/bench-$mode.out")"
		exit 77
	fi
	[ $r = 0 ] || rc=1
done

logs=
for mode in $modes; do
	logs="$logs $out/bench-$mode.log"
done
# shellcheck disable=SC2086
sh "$top/bench/fair/fair-table.sh" $logs | tee "$out/bench.txt"
exit $rc
