#!/bin/bash
# matrix.sh: run the VM cases on the stock and the patched kernel and write
# the comparison table (the proof that the series matters).
#
#   matrix.sh [--stock BZIMAGE] [--patched BZIMAGE] [--timeout SEC]
#             [--out FILE] [--kernels "stock patched"] [CASE...]
#
# --kernels runs only those ("" runs none and just rewrites the table); the table then uses the earlier results of the
# others (kept in build/vm/matrix/<kernel>/).
#
# Every case runs with run-vm --matrix, so a kernel without
# memory.numa_balancing still runs the workload (without the knob) and is
# recorded as N/A. The serial logs stay in build/vm/matrix/<kernel>/.
# Writes build/vm/matrix.md (or --out) and prints it.
set -u -o pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
stock=$build/kernel/stock/bzImage
patched=$build/kernel/patched/bzImage
timeout=240
out=$build/vm/matrix.md
kernels="stock patched"

while [ $# -gt 0 ]; do
	case $1 in
	--stock) stock=$2; shift 2 ;;
	--patched) patched=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--kernels) kernels=$2; shift 2 ;;
	-*) echo "matrix.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ $# -eq 0 ]; then
	set -- $("$build/vm/tierd-vmtest" list)
fi

logdir=$build/vm/matrix

for k in $kernels; do
	case $k in
	stock|patched) kernel=${!k} ;;
	*) echo "matrix.sh: --kernels takes stock and/or patched" >&2; exit 2 ;;
	esac
	mkdir -p "$logdir/$k"
	for c in "$@"; do
		log=$logdir/$k/$c.log
		if [ ! -r "$kernel" ]; then
			echo "no kernel" >"$log.verdict"
			rm -f "$log"
			continue
		fi
		printf '  VM      %-8s %-28s ' "$k" "$c"
		t0=$(date +%s)
		"$top/tests/vm/run-vm" -q --matrix --timeout "$timeout" --kernel "$kernel" \
			--log "$log" "$c" >"$log.host" 2>&1
		rc=$?
		secs=$(( $(date +%s) - t0 ))
		case $rc in
		0) v=PASS ;;
		77) v="SKIP" ;;
		124) v="FAIL (timeout)" ;;
		*) if grep -aq '^N/A: ' "$log" 2>/dev/null; then
			v="N/A (no knob)"
		   else
			v="FAIL (exit $rc)"
		   fi ;;
		esac
		echo "$v (${secs}s)" >"$log.verdict"
		echo "$v (${secs}s)"
	done
done

# One row per workload run: the metric lines of the guest.
metric_rows() {
	local k=$1 c=$2
	grep -a '^TIERD-VM-METRIC: ' "$logdir/$k/$c.log" 2>/dev/null |
	awk -v k="$k" '{
		delete m
		for (i = 2; i <= NF; i++) {
			split($i, kv, "="); m[kv[1]] = kv[2]
		}
		mode = m["mode"]
		if (m["parent"] != "-") mode = m["parent"] ">" mode
		if (m["knob"] == "missing") mode = mode " (no knob)"
		extra = ""
		if (m["fast_region_pages"] != "")
			extra = sprintf("faults on fast-node pages (numa_hint_faults_local): %s", m["numa_hint_faults_local"])
		printf "| %s | %s | %s | %d | %s | %s | %s | %s | %.1f%% | %s | %s |\n",
			m["case"], k, mode, m["numa_balancing"], m["pages"],
			m["cg_numa_pte_updates"], m["cg_numa_hint_faults"],
			m["cg_pgpromote_success"], 100 * m["frac"], m["secs"], extra
	}'
}

{
	echo "# VM matrix: stock vs patched"
	echo
	echo "Generated $(date -u '+%Y-%m-%d %H:%M UTC') by tests/vm/matrix.sh (make vm-matrix)."
	echo "stock: $stock"
	echo "patched: $patched"
	echo
	echo "| case | stock | patched |"
	echo "|---|---|---|"
	for c in "$@"; do
		echo "| $c | $(cat "$logdir/stock/$c.log.verdict" 2>/dev/null) |" \
			"$(cat "$logdir/patched/$c.log.verdict" 2>/dev/null) |"
	done
	echo
	echo "Per workload run (counters of the workload's cgroup, memory.stat deltas;"
	echo "hot = pages of the hot set placed on the slow node; fast = share of them"
	echo "on the fast node when the run ended; a run ends early once all are fast):"
	echo
	echo "| case | kernel | mode | numa_balancing | hot pages | numa_pte_updates | numa_hint_faults | pgpromote_success | fast | secs | notes |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	for c in "$@"; do
		for k in stock patched; do
			metric_rows "$k" "$c"
		done
	done
} >"$out"

echo
cat "$out"
