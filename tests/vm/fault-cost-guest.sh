#!/bin/sh
# fault-cost-guest.sh [--sequential] [ROUNDS [DEPTHS]]: in the guest, measure
# the stime per hinting fault of the fault-cost case at two cgroup depths
# (DEPTHS, default "1 32"), ROUNDS times (default 5), in one boot.
#
# By default both depths run at the same time in each round
# (TIERD_FAULT_DEPTHS, each workload pinned to its own vCPU), the order
# swapped every round so that each depth gets CPU 0 in turn; every round
# prints the two FAULTCOST lines and "FAULTCOST ratio depthB/depthA=R",
# B the deeper chain. The end prints the mean per depth (FAULTCOST-MEAN)
# and the ratios with their mean (FAULTCOST-RATIO-MEAN). About 45 s a round.
#
# --sequential runs one depth after the other instead (TIERD_FAULT_DEPTH,
# 3 rounds by default): each run then sees a different host load.
#
#   tests/vm/run-vm --timeout 900 /work/main/tests/vm/fault-cost-guest.sh
set -u
vmtest=${TIERD_VM_BUILD:-/work/main/build}/vm/tierd-vmtest
sequential=0
if [ "${1:-}" = --sequential ]; then
	sequential=1
	shift
fi
if [ $sequential = 1 ]; then
	rounds=${1:-3}
else
	rounds=${1:-5}
fi
depths=${2:-1 32}
out=/tmp/faultcost.txt
failed=0
: >$out
i=0
while [ $i -lt "$rounds" ]; do
	i=$((i + 1))
	if [ $sequential = 1 ]; then
		for d in $depths; do
			echo "== fault-cost round $i depth $d at $(cut -d' ' -f1 /proc/uptime)s"
			TIERD_FAULT_DEPTH=$d "$vmtest" fault-cost >$out.log 2>&1
			rc=$?
			cat $out.log
			grep -a '^FAULTCOST ' $out.log >>$out
			[ "$rc" -eq 0 ] || failed=1
		done
		continue
	fi
	# Odd rounds in the given order, even rounds swapped: the first
	# depth of the pair runs on CPU 0.
	pair=$depths
	[ $((i % 2)) = 0 ] && pair=$(echo "$depths" | awk '{ print $2, $1 }')
	echo "== fault-cost round $i, depths $pair at once (CPU 0, CPU 1)" \
		"at $(cut -d' ' -f1 /proc/uptime)s"
	TIERD_FAULT_DEPTHS="$pair" "$vmtest" fault-cost >$out.log 2>&1
	rc=$?
	cat $out.log
	grep -a '^FAULTCOST ' $out.log >>$out
	[ "$rc" -eq 0 ] || failed=1
done
echo "== fault-cost: all runs"
cat $out
awk '
$2 == "ratio" {
	split($3, kv, "="); nr++; rs += kv[2]; rl = rl sprintf(" %s", kv[2])
	if (nr == 1 || kv[2] < rmin) rmin = kv[2]
	if (nr == 1 || kv[2] > rmax) rmax = kv[2]
	rname = kv[1]
	next
}
{
	delete m
	for (i = 2; i <= NF; i++) {
		split($i, kv, "="); m[kv[1]] = kv[2]
	}
	d = m["depth"]; n[d]++; us[d] += m["us_per_fault"]; fps[d] += m["faults_per_s"]
}
END {
	for (d in n)
		printf "FAULTCOST-MEAN depth=%s runs=%d us_per_fault=%.2f faults_per_s=%.0f\n",
			d, n[d], us[d] / n[d], fps[d] / n[d] | "sort -t= -k2 -n"
	close("sort -t= -k2 -n")
	if (nr)
		printf "FAULTCOST-RATIO-MEAN %s runs=%d mean=%.3f min=%.3f max=%.3f ratios=%s\n",
			rname, nr, rs / nr, rmin, rmax, substr(rl, 2)
}' $out
exit $failed
