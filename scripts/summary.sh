#!/bin/sh
# summary.sh RESULTS_DIR: print every test's verdict, a total, and the
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
	printf '  %-40s %s\n' "$name" "$verdict"
	case $verdict in
	PASS*) pass=$((pass + 1)) ;;
	SKIP*) skip=$((skip + 1)) ;;
	*) fail=$((fail + 1)) ;;
	esac
done
echo "============================================================"
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
