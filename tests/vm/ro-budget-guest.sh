#!/bin/sh
# ro-budget-guest.sh [ROUNDS [VARIANTS]]: in the guest, run the
# ro-toptier-budget case for each TIERD_BUDGET_VARIANT in VARIANTS
# (default "none rofile anon"), ROUNDS times (default 1), in one boot, then
# print the BUDGET lines again as a table. Under a minute a variant.
#
#   tests/vm/run-vm --timeout 900 /work/main/tests/vm/ro-budget-guest.sh
set -u
vmtest=${TIERD_VM_BUILD:-/work/main/build}/vm/tierd-vmtest
rounds=${1:-1}
variants=${2:-none rofile anon}
out=/tmp/budget.txt
failed=0
: >$out
i=0
while [ $i -lt "$rounds" ]; do
	i=$((i + 1))
	for v in $variants; do
		echo "== ro-toptier-budget round $i variant $v at $(cut -d' ' -f1 /proc/uptime)s"
		TIERD_BUDGET_VARIANT=$v "$vmtest" ro-toptier-budget >$out.log 2>&1
		rc=$?
		cat $out.log
		grep -a '^BUDGET ' $out.log >>$out
		if [ "$rc" -ne 0 ]; then
			echo "BUDGET variant=$v error=exit-$rc" | tee -a $out
			failed=1
		fi
	done
done
echo "== ro-toptier-budget: all runs"
awk '
BEGIN {
	printf "%-7s %8s %8s %10s %10s %10s %9s %8s\n", "variant", "s_to_90", "s_first",
		"pte_upd", "promo_pte", "promoted", "hot_scans", "scan_seq"
}
{
	delete m
	for (i = 2; i <= NF; i++) {
		split($i, kv, "="); m[kv[1]] = kv[2]
	}
	if ("error" in m) {
		printf "%-7s %s\n", m["variant"], m["error"]
		next
	}
	printf "%-7s %7.1f%s %8.1f %10s %10s %10s %9s %8s\n", m["variant"], m["secs_to_90"],
		m["reached"] == 1 ? " " : "+", m["secs_first"], m["pte_updates"],
		m["promo_pte_updates"], m["pgpromote_success"], m["hot_scans"], m["scan_seq"]
}
END { print "(+: 90% not reached, the time bound)" }' $out
exit $failed
