#!/bin/sh
# bench-apps.sh: the real-application scenarios (tests/vm/apps/apps-guest.sh)
# on the three setups, one VM boot each, then the tables (apps-table.sh).
#
#   BENCH_APPS_SCENARIOS  "place noisy bgsave" (default)
#   BENCH_APPS_SETUPS     "stock-none stock-damon patched-knob" (default)
#   BENCH_APPS_OUT        directory for the serial logs (default
#                         $BUILD/apps/bench-<UTC date and time>); a log already
#                         there is kept and not run again, so a second call
#                         with the same directory completes a table
#   APPS_KERNEL_STOCK     the stock bzImage; while it does not exist the
#                         patched kernel stands in for it with the damon
#                         backend and the tables say so
#   APPS_KERNEL_PATCHED   the patched bzImage
# The conditions (VM and data sizes, durations) are the defaults below;
# APPS_* variables in the environment override them (apps-guest.sh).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
stock=${APPS_KERNEL_STOCK:-$build/kernel/stock/bzImage}
patched=${APPS_KERNEL_PATCHED:-$build/kernel/patched/bzImage}
scenarios=${BENCH_APPS_SCENARIOS:-place noisy bgsave}
setups=${BENCH_APPS_SETUPS:-stock-none stock-damon patched-knob}
out=${BENCH_APPS_OUT:-$build/apps/bench-$(date -u +%Y%m%d-%H%M)}

# The conditions of the tables in bench/apps/README.md.
: "${APPS_MEM_FAST:=192M}" "${APPS_MEM_SLOW:=256M}" "${APPS_RESERVE:=32M}"
: "${APPS_REDIS_MB:=32}" "${APPS_MC_MB:=32}" "${APPS_HOGS:=3}" "${APPS_HOG_MB:=44}"
: "${APPS_VICTIM_HOT_MB:=40}" "${APPS_VICTIM_COLD_MB:=8}" "${APPS_PRE_SECS:=8}"
: "${APPS_DURATION:=120}" "${APPS_BGSAVE_AT:=6}" "${APPS_VM_TIMEOUT:=480}"
export APPS_MEM_FAST APPS_MEM_SLOW APPS_RESERVE APPS_REDIS_MB APPS_MC_MB APPS_HOGS \
	APPS_HOG_MB APPS_VICTIM_HOT_MB APPS_VICTIM_COLD_MB APPS_PRE_SECS APPS_DURATION \
	APPS_BGSAVE_AT APPS_VM_TIMEOUT

mkdir -p "$out" || exit 1
echo "bench-apps: logs in $out"
for sc in $scenarios; do
	for su in $setups; do
		log=$out/$sc-$su.log
		[ -s "$log" ] && grep -a -q '^APPS-RUN' "$log" && continue
		case $su in
		stock-*)
			k=$stock
			if [ ! -r "$k" ]; then
				k=$patched
				echo "bench-apps: no $stock: the patched kernel stands in for it ($su)"
				echo "$su patched-standin" >>"$out/standin"
			fi ;;
		patched-*) k=$patched ;;
		*) echo "bench-apps: unknown setup $su" >&2; exit 2 ;;
		esac
		"$top/tests/vm/apps/run-apps.sh" "$k" "$sc" "${su#*-}" "$log" |
			grep -E '^(apps:|APPS-(EVENT|RUN)|SKIP|FAIL|run-vm)'
	done
done
"$top/bench/apps/apps-table.sh" "$out"
