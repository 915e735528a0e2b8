#!/bin/sh
# summary.sh RESULTS_DIR: print every test's verdict and duration, the time
# per group (the name up to its first '-') and in all, a total, and the
# combined Check summary of the unit suites (the last line).
set -u
dir=$1
pass=0 fail=0 skip=0
echo
echo "==================== tierd test summary ===================="
for f in "$dir"/*.result; do
	[ -e "$f" ] || continue
	name=$(basename "$f" .result)
	verdict=$(cat "$f")
	secs=$(cat "$dir/$name.time" 2>/dev/null || echo 0)
	printf '  %-40s %5ss  %s\n' "$name" "$secs" "$verdict"
	echo "${name%%-*} $secs" >>"$dir/.groups"
	case $verdict in
	PASS*) pass=$((pass + 1)) ;;
	SKIP*) skip=$((skip + 1)) ;;
	*) fail=$((fail + 1)) ;;
	esac
done
# make -k's own errors (kept by the Makefile's make_k): a target that failed
# and is not a test whose FAIL is counted above is a build step that stopped
# its tests from running at all.
if [ -s "$dir/.make-stderr" ]; then
	for t in $(sed -n 's/^make\(\[[0-9]*\]\)\{0,1\}: \*\*\* \[\(.*:[0-9]*: \)\{0,1\}\([^]]*\)\] Error.*/\3/p' \
		"$dir/.make-stderr" | sort -u); do
		case $t in
		check-*) grep -q '^FAIL' "$dir/${t#check-}.result" 2>/dev/null && continue ;;
		esac
		printf '  %-40s %5s   %s\n' "(build) $(basename "$t")" - "FAIL (make: $t)"
		fail=$((fail + 1))
	done
fi
echo "============================================================"
if [ -e "$dir/.groups" ]; then
	# time spent in tests per group; the rest of the wall time is building
	awk '{ t[$1] += $2; all += $2 } END {
		printf "time in tests:"
		for (g in t) printf " %s %ds,", g, t[g]
		printf " all %ds\n", all }' "$dir/.groups"
	rm -f "$dir/.groups"
fi
if [ -e "$dir/.start" ]; then
	# kernels this run built (scripts/kernel.sh leaves .build-seconds)
	for f in $(find "$dir/../kernel" -maxdepth 2 -name .build-seconds -newer "$dir/.start" \
		2>/dev/null | sort); do
		k=$(basename "$(dirname "$f")")
		echo "kernel $k built in $(cat "$f")s"
	done
	echo "wall time since the run started: $(($(date +%s) - $(cat "$dir/.start")))s"
fi
echo "tests: $pass passed, $fail failed, $skip skipped"
# Check prints "NN%: Checks: N, Failures: F, Errors: E" per suite runner.
cat "$dir"/*.log 2>/dev/null | awk '
	/^[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+/ {
		gsub(",", ""); c += $3; f += $5; e += $7; n++
	}
	END {
		if (n) printf "%d%%: Checks: %d, Failures: %d, Errors: %d\n",
			c ? int(100 * (c - f - e) / c) : 0, c, f, e
	}'
[ "$fail" -eq 0 ]
