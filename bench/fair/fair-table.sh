#!/bin/sh
# fair-table.sh LOG...: the side-by-side table of runs of
# tests/fair/guest-fair.sh (their "FAIR" lines), e.g. without and with tierd.
# Times are seconds after the late workload started; each cell is fast-tier
# MB / target MB (fast/target).  Then, per run and workload: pages promoted
# and demoted (with a total over the workloads), the largest overshoot of
# the top-tier usage over the ceiling (usage: memory.stat "toptier" where
# the kernel has it, else the memory.numa_stat fast bytes; ceiling:
# memory.toptier_high, or memory.toptier_max where lower), the pages demoted
# to the ceiling and for the exchange at it, and when the late workload first
# held >= 90% of its target (FAIR_TABLE_LATE_PCT).  Logs of a guest-fair.sh
# without those fields (older runs, older kernels) show "-" there.
set -u
[ $# -ge 1 ] || { echo "usage: fair-table.sh LOG..." >&2; exit 2; }

awk -v step="${FAIR_TABLE_STEP:-5}" -v latepct="${FAIR_TABLE_LATE_PCT:-90}" \
	-v settle="${FAIR_TABLE_SETTLE:-5}" '
function mb(b) { return b / 1048576 }
function isnum(x) { return x ~ /^[0-9]+$/ }
# The ceiling of a sample: min(toptier_high, toptier_max) of the numbers
# among them; "" without one (no file, or "max").
function ceiling(r, t, w,    h, m) {
	h = (r, t, w, "toptier_high") in v ? v[r, t, w, "toptier_high"] : ""
	m = (r, t, w, "toptier_max") in v ? v[r, t, w, "toptier_max"] : ""
	if (!isnum(h)) h = ""
	if (!isnum(m)) m = ""
	if (h == "" || (m != "" && m + 0 < h + 0)) h = m
	return h
}
# The top-tier usage of a sample: the exact counter where there is one.
function usage(r, t, w,    u) {
	u = (r, t, w, "toptier") in v ? v[r, t, w, "toptier"] : ""
	return isnum(u) ? u + 0 : v[r, t, w, "fast"] + 0
}
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
	u = usage(run, t, w); c = ceiling(run, t, w)
	if (c != "" && (!((run, w) in over) || u - c > over[run, w])) {
		over[run, w] = u - c
		overpct[run, w] = c > 0 ? 100 * (u - c) / c : 0
	}
	# The same once the ceiling has not moved for "settle" seconds: what
	# promotion adds, not the excess a lower ceiling leaves to demote.
	if (!((run, w) in pc) || c != pc[run, w]) { chg[run, w] = t; pc[run, w] = c }
	if (c != "" && t - chg[run, w] >= settle &&
	    (!((run, w) in sover) || u - c > sover[run, w])) {
		sover[run, w] = u - c
		soverpct[run, w] = c > 0 ? 100 * (u - c) / c : 0
	}
	g = v[run, t, w, "target"] + 0
	if (w == "late" && g > 0 && (run in t0)) {
		if (!(run in best) || 100 * u / g > best[run]) best[run] = 100 * u / g
		if (!(run in late90) && 100 * u >= latepct * g) late90[run] = t - t0[run]
	}
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
		for (k = 1; k <= run; k++) {
			printf " | %10s %10s %10s %8s", v[k, last[k], w, "promoted"], v[k, last[k], w, "demoted"],
				v[k, last[k], w, "refused"], v[k, last[k], w, "mode"]
			tp[k] += v[k, last[k], w, "promoted"]; td[k] += v[k, last[k], w, "demoted"]
			tr[k] += v[k, last[k], w, "refused"]
		}
		printf "\n"
	}
	printf "%-8s", "total"
	for (k = 1; k <= run; k++) printf " | %10d %10d %10d %8s", tp[k], td[k], tr[k], ""
	printf "\n"
	printf "\nTop tier against its ceiling over each run: the largest overshoot of the usage\n"
	printf "(memory.stat toptier where the kernel has it, else fast) over the ceiling\n"
	printf "(memory.toptier_high, or toptier_max where lower), in MB and %% of the ceiling\n"
	printf "(0: never above); \"settled\": the same from %d s after the last change of the\n", settle
	printf "ceiling on (what promotion adds, not the excess a lowered ceiling leaves to\n"
	printf "demote); pages demoted to the ceiling and for the exchange at it at the\n"
	printf "end (pgdemote_toptier, pgdemote_toptier_exchange; also counted in demoted).\n"
	printf "\"-\": no ceiling (memory.toptier_high max or absent), or not counted by the kernel.\n"
	printf "%-8s", "workload"
	for (k = 1; k <= run; k++) printf " | %-53s", "---- " name[k] " ----"
	printf "\n%-8s", ""
	for (k = 1; k <= run; k++)
		printf " | %10s %10s %10s %10s %8s", "over MB", "over %", "settled %", "to-ceil", "exchange"
	printf "\n"
	for (i = 1; i <= nw; i++) {
		w = wl[i]
		printf "%-8s", w
		for (k = 1; k <= run; k++) {
			if ((k, w) in over) {
				o = over[k, w] > 0 ? over[k, w] : 0
				op = over[k, w] > 0 ? overpct[k, w] : 0
				printf " | %10.1f %9.1f%%", mb(o), op
			} else {
				printf " | %10s %10s", "-", "-"
			}
			if ((k, w) in sover)
				printf " %9.1f%%", (sover[k, w] > 0 ? soverpct[k, w] : 0)
			else
				printf " %10s", "-"
			dt = (k, last[k], w, "demoted_toptier") in v ? v[k, last[k], w, "demoted_toptier"] : "-"
			dx = (k, last[k], w, "demoted_exchange") in v ? v[k, last[k], w, "demoted_exchange"] : "-"
			printf " %10s %8s", dt, dx
		}
		printf "\n"
	}
	printf "\nLate workload first at >= %d%% of its target (usage as above; seconds after its start):\n",
		latepct
	for (k = 1; k <= run; k++) {
		if (k in late90)
			x = sprintf("%ds", late90[k])
		else
			x = sprintf("never (best %s)", (k in best) ? sprintf("%.0f%%", best[k]) : "-")
		printf "  run %d: %-22s %s\n", k, name[k], x
	}
	printf "\n"
	for (k = 1; k <= run; k++) printf "  %s\n", res[k]
}' "$@"
