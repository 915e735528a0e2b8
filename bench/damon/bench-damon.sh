#!/bin/bash
# bench/damon/bench-damon.sh: the two tiering mechanisms side by side in the
# two-tier VM (a benchmark, not a test: `make bench-damon`).
#
#  1. promotion of a 48 MB anonymous hot set placed on the slow node
#     (case damon-tierd-bench): tierd with backend auto on the stock kernel
#     (damon: a migrate_hot scheme per memcg) and on the patched one (knob:
#     NUMA balancing's hinting faults, kernel.numa_balancing 2): time to
#     90% on the fast node, pages migrated and promoted, hinting faults,
#     CPU of tierd, of its kdamond and of the workload;
#  2. promotion of a 64 MB file's page cache read with read() (case
#     damon-tierd-pagecache): patched (MGLRU on) and stock (MGLRU off:
#     stock 6.12 with MGLRU on does not see read(), patch 18 of the series);
#  3. cost at scale (case damon-tierd-scale): tierd's and its kdamond's CPU
#     in percent of one core with 10, 100 and 500 managed memcgs, steady
#     state over SCALE_SECS, and one new memcg: mkdir -> its scheme, and
#     the duration of that sync.
#
# Usage: bench-damon.sh [SCALE_SECS]   (default 30; TABLE_ONLY=1: the tables
#   again from the logs of the last run, no VM)
#   BUILD (default ./build) with bin/tierd, vm/tierd-vmtest and the stock and
#   patched kernels (make kernel KERNEL=stock/patched); SCALE_NS ("10 100 500").
# Output: the table on stdout and in $BUILD/bench/damon.md, the raw metric
# lines in $BUILD/bench/damon.txt, each VM's log in $BUILD/bench/damon-*.log.
# Figures are from QEMU TCG (no KVM): CPU percentages include the
# emulation's overhead, and times are slower than on hardware.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
secs=${1:-30}
ns=${SCALE_NS:-10 100 500}
out=$BUILD/bench
mkdir -p "$out"
k_stock=$BUILD/kernel/stock/bzImage
k_patched=$BUILD/kernel/patched/bzImage
for k in "$k_stock" "$k_patched"; do
	[ -f "$k" ] || { echo "bench-damon: no $k (make kernel KERNEL=...)" >&2; exit 1; }
done

kernel_of() {	# stock|patched -> its bzImage
	if [ "$1" = patched ]; then echo "$k_patched"; else echo "$k_stock"; fi
}

run() {	# tag kernel [run-vm args...] case
	local tag=$1 kernel=$2
	shift 2
	printf 'bench-damon: %-28s ... ' "$tag" >&2
	local t0=$SECONDS
	env BUILD="$BUILD" "$top/tests/vm/run-vm" --timeout 600 --mem-fast 512M --mem-slow 512M \
		--kernel "$kernel" "$@" >"$out/damon-$tag.log" 2>&1
	echo "exit $?, $((SECONDS - t0)) s" >&2
}

if [ "${TABLE_ONLY:-0}" = 0 ]; then
	rm -f "$out"/damon-*.log
	for k in stock patched; do
		run "doctor-$k" "$(kernel_of $k)" tierctl-doctor
		run "bench-$k" "$(kernel_of $k)" damon-tierd-bench
	done
	run pagecache-stock "$k_stock" --lru-gen off damon-tierd-pagecache
	run pagecache-patched "$k_patched" damon-tierd-pagecache
	for n in $ns; do
		for k in stock patched; do
			run "scale-$n-$k" "$(kernel_of $k)" --env TIERD_SCALE_N="$n" \
				--env TIERD_SCALE_SECS="$secs" damon-tierd-scale
		done
	done
fi
# the metric lines, each with its kernel (the log's name ends in it)
for f in "$out"/damon-*.log; do
	[ -e "$f" ] || continue
	k=${f%.log}
	grep '^TIERD-VM-METRIC:' "$f" | sed "s|^|kernel=${k##*-} |"
done >"$out/damon.txt"

# key=value fields of a metric line
field() { sed -En "s/(^|.* )$1=([^ ]*).*/\2/p" <<<"$2"; }

{
	echo "## Promotion, anonymous hot set (48 MB, slow node -> fast node)"
	echo
	echo "| kernel | backend | time to 90% (s) | pages migrated | pages promoted (vmstat) | hinting faults | tierd CPU (s) | kdamond CPU (s) | workload CPU (s) |"
	echo "|---|---|---|---|---|---|---|---|---|"
	grep 'case=damon-tierd-bench ' "$out/damon.txt" | while read -r l; do
		echo "| $(field kernel "$l") | $(field backend "$l") | $(field secs_90 "$l") |" \
			"$(field pgmigrate_success "$l") | $(field pgpromote_success "$l") |" \
			"$(field numa_hint_faults "$l") | $(field tierd_cpu_s "$l") |" \
			"$(field kdamond_cpu_s "$l") | $(field worker_cpu_s "$l") |"
	done
	echo
	echo "## Promotion, page cache read with read() (64 MB file)"
	echo
	echo "| kernel | MGLRU | backend | time to 90% (s) | pages migrated | page_cache = off class on the slow node |"
	echo "|---|---|---|---|---|---|"
	grep 'case=damon-tierd-pagecache ' "$out/damon.txt" | while read -r l; do
		echo "| $(field kernel "$l") | $(field lru_gen "$l") | $(field backend "$l") |" \
			"$(field secs_90 "$l") | $(field pgmigrate_success "$l") |" \
			"$(field off_min_pct "$l")% (lowest) |"
	done
	echo
	echo "## Cost at scale (steady state over ${secs} s, % of one core; one new memcg)"
	echo
	echo "| kernel | backend | memcgs | all schemes after (s) | tierd CPU % | kdamond CPU % | new memcg -> scheme (s) | that sync (ms) |"
	echo "|---|---|---|---|---|---|---|---|"
	grep 'case=damon-tierd-scale ' "$out/damon.txt" | while read -r l; do
		echo "| $(field kernel "$l") | $(field backend "$l") | $(field memcgs "$l") |" \
			"$(field secs_all "$l") | $(field tierd_cpu_pct "$l") |" \
			"$(field kdamond_cpu_pct "$l") | $(field new_memcg_s "$l") |" \
			"$(field new_sync_ms "$l") |"
	done
	for k in stock patched; do
		[ -f "$out/damon-doctor-$k.log" ] || continue
		echo
		echo "## tierctl doctor, $k kernel (no policy)"
		echo
		echo '```'
		sed -n '/^init: .*running: tierctl-doctor/,/tierctl doctor exited/p' \
			"$out/damon-doctor-$k.log" | grep -v '^init:\|^==' | sed 's/^  tierctl doctor exited/(exit/; s/(exit \([0-9]*\)$/(exit \1)/'
		echo '```'
	done
} | tee "$out/damon.md"
