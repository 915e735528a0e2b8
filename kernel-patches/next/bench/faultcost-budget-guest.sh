#!/bin/sh
# faultcost-budget-guest.sh ROUNDS: in the guest, the fault-cost case
# (tierd-vmtest, depths 1 and 32 at once) with memory.promote_rate_max's
# static key off and on, alternating, ROUNDS pairs. "On" is a 1G/s budget
# on a cgroup beside the workloads (none of their ancestors has one): the
# key is on and every promotion candidate walks its cgroup's ancestry.
# Without memory.promote_rate_max (stock, the series) it runs "off" only.
set -u
vmtest=${TIERD_VMTEST:-/work/main/build/vm/tierd-vmtest}
rounds=${1:-2}
cgr=/sys/fs/cgroup
echo +memory >$cgr/cgroup.subtree_control
i=0
while [ $i -lt "$rounds" ]; do
	i=$((i + 1))
	for key in off on; do
		if [ $key = on ]; then
			[ -e $cgr/memory.swap.max ] || true
			mkdir -p $cgr/keyon
			[ -e $cgr/keyon/memory.promote_rate_max ] || { rmdir $cgr/keyon; continue; }
			echo 1G >$cgr/keyon/memory.promote_rate_max || exit 1
		fi
		echo "== round $i key $key at $(cut -d' ' -f1 /proc/uptime)s"
		grep -E '^(pgpromote_candidate|pgpromote_refused_rate|numa_hint_faults) ' /proc/vmstat >/tmp/vm0
		TIERD_FAULT_DEPTHS="1 32" $vmtest fault-cost 2>&1 | grep -a 'FAULTCOST\|FAIL\|PASS' | sed "s/^/key=$key /"
		# how many hinting faults reached the budget check (candidates:
		# past the hot threshold and the ceiling) in this round
		grep -E '^(pgpromote_candidate|pgpromote_refused_rate|numa_hint_faults) ' /proc/vmstat |
			paste -d' ' /tmp/vm0 - | awk -v k=$key '{ printf "key=%s VMSTAT %s %d\n", k, $1, $4 - $2 }'
		if [ $key = on ]; then
			echo max >$cgr/keyon/memory.promote_rate_max
			rmdir $cgr/keyon
		fi
	done
done
