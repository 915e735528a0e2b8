#!/bin/sh
# fault-cost-guest.sh [ROUNDS [DEPTHS]]: in the guest, run the fault-cost
# case for each cgroup depth in DEPTHS (default "1 32"), alternately, ROUNDS
# times (default 3), then print the FAULTCOST lines again with the mean
# stime per hinting fault of each depth. One boot, about 40 s a run:
#
#   tests/vm/run-vm --timeout 900 /work/main/tests/vm/fault-cost-guest.sh
set -u
vmtest=${TIERD_VM_BUILD:-/work/main/build}/vm/tierd-vmtest
rounds=${1:-3}
depths=${2:-1 32}
out=/tmp/faultcost.txt
failed=0
: >$out
i=0
while [ $i -lt "$rounds" ]; do
	i=$((i + 1))
	for d in $depths; do
		echo "== fault-cost round $i depth $d at $(cut -d' ' -f1 /proc/uptime)s"
		TIERD_FAULT_DEPTH=$d "$vmtest" fault-cost >$out.log 2>&1
		rc=$?
		cat $out.log
		grep -a '^FAULTCOST ' $out.log >>$out
		[ "$rc" -eq 0 ] || failed=1
	done
done
echo "== fault-cost: all runs"
cat $out
awk '{
	for (i = 2; i <= NF; i++) {
		split($i, kv, "="); m[kv[1]] = kv[2]
	}
	d = m["depth"]; n[d]++; us[d] += m["us_per_fault"]; fps[d] += m["faults_per_s"]
} END {
	for (d in n)
		printf "FAULTCOST-MEAN depth=%s runs=%d us_per_fault=%.2f faults_per_s=%.0f\n",
			d, n[d], us[d] / n[d], fps[d] / n[d]
}' $out | sort -t= -k2 -n
exit $failed
