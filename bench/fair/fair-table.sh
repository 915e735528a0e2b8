#!/bin/sh
# fair-table.sh LOG...: the side-by-side table of runs of
# tests/fair/guest-fair.sh (their "FAIR" lines), e.g. without and with tierd.
# Times are seconds after the late workload started; each cell is fast-tier
# MB / target MB (fast/target).
set -u
[ $# -ge 1 ] || { echo "usage: fair-table.sh LOG..." >&2; exit 2; }

awk -v step="${FAIR_TABLE_STEP:-5}" '
function mb(b) { return b / 1048576 }
FNR == 1 { run++ }
/^FAIR-INFO / {
	info[run] = $0; sub(/^FAIR-INFO /, "", info[run])
	name[run] = $2; sub(/mode=/, "", name[run])
}
/^FAIR-EVENT / && / start late / { t = $2; sub(/t=/, "", t); t0[run] = t }
/^FAIR-RESULT / { res[run] = $0; sub(/^FAIR-RESULT /, "", res[run]) }
/^FAIR-JAIN / {
	t = $2; sub(/t=/, "", t); j = $3; sub(/jain=/, "", j)
	jain[run, t] = j; times[run, ++nt[run]] = t
}
/^FAIR t=/ {
	t = $2; sub(/t=/, "", t); w = $3
	for (i = 4; i <= NF; i++) { split($i, kv, "="); v[run, t, w, kv[1]] = kv[2] }
	if (!(w in seen)) { seen[w] = 1; wl[++nw] = w }
	last[run] = t
}
# The last sample at or before time x of run r ("" if none).
function at(r, x,    i, best) {
	best = ""
	for (i = 1; i <= nt[r]; i++) if (times[r, i] + 0 <= x + 0) best = times[r, i]
	if (best != "" && x - best > 3) best = ""	# the run had ended
	return best
}
function cell(r, t, w,    f, g) {
	if (t == "" || !((r, t, w, "fast") in v)) return sprintf("%17s", "-")
	f = v[r, t, w, "fast"]; g = v[r, t, w, "target"]
	return sprintf("%5.0f/%-4.0f %5s", mb(f), mb(g), g > 0 ? sprintf("%3.0f%%", 100 * f / g) : "-")
}
END {
	printf "Fairness experiment: two 100 MB hogs start first, a 64 MB late workload joins.\n"
	printf "Cells: fast-tier MB / target MB (fast/target); targets are the weighted max-min\n"
	printf "shares of the fast tier (tierctl status), equal weights.\n\n"
	for (k = 1; k <= run; k++) printf "  run %d: %s\n", k, info[k]
	printf "\n%7s", "t-late"
	for (k = 1; k <= run; k++) {
		printf " |"
		for (i = 1; i <= nw; i++) printf " %17s", wl[i]
		printf " %6s", "Jain"
	}
	printf "\n%7s", ""
	for (k = 1; k <= run; k++) printf " | %-*s", nw * 18 + 6, "---- " name[k] " ----"
	printf "\n"
	maxt = 0
	for (k = 1; k <= run; k++) if (last[k] - t0[k] > maxt) maxt = last[k] - t0[k]
	for (x = -step; x <= maxt + step - 1; x += step) {
		printf "%6ds", x
		for (k = 1; k <= run; k++) {
			t = at(k, t0[k] + x)
			printf " |"
			for (i = 1; i <= nw; i++) printf " %s", cell(k, t, wl[i])
			printf " %6s", (t != "" && (k, t) in jain) ? jain[k, t] : "-"
		}
		printf "\n"
	}
	printf "\nAt the end of each run (pages; memory.stat):\n"
	printf "%-8s", "workload"
	for (k = 1; k <= run; k++) printf " | %-42s", "---- " name[k] " ----"
	printf "\n%-8s", ""
	for (k = 1; k <= run; k++) printf " | %10s %10s %10s %8s", "promoted", "demoted", "refused", "mode"
	printf "\n"
	for (i = 1; i <= nw; i++) {
		w = wl[i]
		printf "%-8s", w
		for (k = 1; k <= run; k++)
			printf " | %10s %10s %10s %8s", v[k, last[k], w, "promoted"], v[k, last[k], w, "demoted"],
				v[k, last[k], w, "refused"], v[k, last[k], w, "mode"]
		printf "\n"
	}
	printf "\n"
	for (k = 1; k <= run; k++) printf "  %s\n", res[k]
}' "$@"
