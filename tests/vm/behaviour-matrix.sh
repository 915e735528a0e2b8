#!/bin/bash
# behaviour-matrix.sh: what NUMA balancing does to each kind of memory, for
# every kernel.numa_balancing mode and memory.numa_balancing value, measured
# cell by cell in the two-tier VM (a measurement, not a test).
#
#   behaviour-matrix.sh [--kernel BZIMAGE] [--timeout SEC] [--time-scale N]
#                       [--modes "0 1 2 3"] [--knobs full,promote,off]
#                       [--kinds anon,shmem,file-ro,pid-inactive,cow-shared,thp]
#                       [--out FILE] [--no-run]
#
# Boots the VM once per mode (tests/vm/behaviour-matrix-guest.sh runs the
# `tierd-vmtest cell` case for every knob and kind in that boot), collects
# the CELL lines of the serial logs (kept in build/vm/behaviour-matrix/) and
# writes a Markdown table, rows mode x knob, columns VMA kind, to
# build/vm/behaviour-matrix.md (or --out), then prints it. --no-run only
# rewrites the table from the logs of an earlier run.
set -u -o pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
kernel=$build/kernel/patched/bzImage
timeout=900
time_scale=1
modes="0 1 2 3"
knobs=full,promote,off
kinds=anon,shmem,file-ro,pid-inactive,cow-shared,thp
out=$build/vm/behaviour-matrix.md
run=1

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--time-scale) time_scale=$2; shift 2 ;;
	--modes) modes=$(echo "$2" | tr , ' '); shift 2 ;;
	--knobs) knobs=$2; shift 2 ;;
	--kinds) kinds=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--no-run) run=0; shift ;;
	*) echo "behaviour-matrix.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

logdir=$build/vm/behaviour-matrix
mkdir -p "$logdir" "$(dirname "$out")" || exit 1

if [ "$run" = 1 ]; then
	if [ ! -r "$kernel" ]; then
		echo "behaviour-matrix.sh: no kernel at $kernel (make kernel KERNEL=patched)" >&2
		exit 1
	fi
	t_all=$(date +%s)
	for m in $modes; do
		log=$logdir/mode-$m.log
		printf '  VM      kernel.numa_balancing=%s  ' "$m"
		t0=$(date +%s)
		"$top/tests/vm/run-vm" -q --timeout "$timeout" --time-scale "$time_scale" \
			--kernel "$kernel" --log "$log" \
			"$top/tests/vm/behaviour-matrix-guest.sh" "$m" "$knobs" "$kinds" \
			>"$log.host" 2>&1
		rc=$?
		secs=$(( $(date +%s) - t0 ))
		echo "exit $rc (${secs}s)" | tee "$log.verdict"
	done
	echo "wall time $(( $(date +%s) - t_all ))s for modes $modes" >"$logdir/wall"
fi

mode_name() {
	case $1 in
	0) echo "0 (off)" ;;
	1) echo "1 (normal)" ;;
	2) echo "2 (tiering)" ;;
	3) echo "3 (normal+tiering)" ;;
	*) echo "$1" ;;
	esac
}

# One table cell per CELL line: "MODE KNOB KIND<TAB>text".
cells() {
	for m in $modes; do
		grep -a -h '^CELL ' "$logdir/mode-$m.log" 2>/dev/null
	done | awk '{
		delete c
		for (i = 2; i <= NF; i++) {
			split($i, kv, "="); c[kv[1]] = kv[2]
		}
		key = c["mode"] " " c["knob"] " " c["kind"]
		if (c["error"] != "") {
			printf "%s\t**setup failed** (%s)\n", key, c["error"]
			next
		}
		split(c["slow_fast_after"], s, "/")
		split(c["fast_region_kept"], f, "/")
		total = s[2] + 0
		pct = total ? 100 * c["promoted"] / total : 0
		t = sprintf("pte %s (promo %s) / hf %s / local %s / promoted %s (%.0f%%)",
			c["pte_updates"], c["promo_pte_updates"], c["hint_faults"],
			c["hint_faults_local"], c["promoted"], pct)
		# Where the pages are when that differs from what was promoted
		# (placement migrations in mode 1 are not promotions), and
		# where they were when the hot phase began (pid-inactive: a
		# placement scan may move them during the warm-up).
		if (s[1] != (c["promoted"] > total ? total : c["promoted"]))
			t = t sprintf("; fast %d%%", total ? 100 * s[1] / total : 0)
		if (c["fast_before"] + 0)
			t = t sprintf(" (%d%% before the hot phase)",
				total ? 100 * c["fast_before"] / total : 0)
		if (f[2] + 0 && f[1] != f[2])
			t = t sprintf("; fast region kept %d%%", 100 * f[1] / f[2])
		if (c["knob_file"] == "missing")
			t = t " (no knob)"
		printf "%s\t%s\n", key, t
	}'
}

{
	echo "# Behaviour matrix: NUMA balancing by mode, memory.numa_balancing and VMA kind"
	echo
	echo "Generated $(date -u '+%Y-%m-%d %H:%M UTC') by tests/vm/behaviour-matrix.sh" \
		"(make vm-behaviour-matrix)."
	echo "Kernel: $kernel; time scale $time_scale."
	for m in $modes; do
		echo "kernel.numa_balancing=$m: $(cat "$logdir/mode-$m.log.verdict" 2>/dev/null)"
	done | sed 's/^/- /'
	[ -r "$logdir/wall" ] && echo "- $(cat "$logdir/wall")"
	echo
	echo "Each cell: one workload in its own cgroup, 8 MB hot on the slow node (the"
	echo "VMA kind of the column) and 8 MB of private anonymous memory hot on the fast"
	echo "node, two threads, about 10 s. Counters are the cgroup's memory.stat deltas:"
	echo "pte = numa_pte_updates (promo = numa_promo_pte_updates, the promotion-only"
	echo "part), hf = numa_hint_faults, promoted = pgpromote_success (and its share of"
	echo "the 2048 hot pages); local = numa_hint_faults_local of /proc/vmstat (hinting"
	echo "faults on pages already on the faulting CPU's node: the fast region). \"fast"
	echo "N%\" is where the hot set is at the end when that is not what was promoted"
	echo "(mode 1 migrates for placement, not promotion); \"fast region kept\" is shown"
	echo "when some of the fast region left the fast node. pid-inactive: 64 VMAs read"
	echo "only by sleeping worker threads, after a warm-up (\"before the hot phase\":"
	echo "already moved during it); cow-shared: populated before fork(), read by"
	echo "both processes; thp: MADV_HUGEPAGE, 2 MB aligned (promoted counts 4 KB"
	echo "pages, hf one per PMD)."
	echo
	echo "Read as: mode 0 and knob off: nothing is scanned. knob promote: only the"
	echo "slow-tier pages are scanned (pte = promo, local 0), and only with the"
	echo "tiering bit (in mode 1 it is off). Mode 2 never scans the fast region."
	echo "Mode 1 (placement only) moves private pages to the CPUs' node without"
	echo "counting promotions, and leaves COW-shared and read-only file pages alone."
	echo
	printf '| mode | knob |'
	for k in $(echo "$kinds" | tr , ' '); do
		printf ' %s |' "$k"
	done
	echo
	printf '|---|---|'
	for k in $(echo "$kinds" | tr , ' '); do
		printf -- '---|'
	done
	echo
	table=$(cells)
	for m in $modes; do
		for n in $(echo "$knobs" | tr , ' '); do
			printf '| %s | %s |' "$(mode_name "$m")" "$n"
			for k in $(echo "$kinds" | tr , ' '); do
				t=$(printf '%s\n' "$table" | awk -F '\t' -v key="$m $n $k" \
					'$1 == key { t = $2 } END { print t }')
				printf ' %s |' "${t:--}"
			done
			echo
		done
	done
	echo
	echo "The CELL lines:"
	echo
	echo '```'
	for m in $modes; do
		grep -a -h '^CELL ' "$logdir/mode-$m.log" 2>/dev/null
	done
	echo '```'
} >"$out"

echo
cat "$out"
