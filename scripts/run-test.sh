#!/bin/sh
# run-test.sh RESULTS_DIR NAME CMD [ARGS...]
#
# Runs one test program, keeps its output in RESULTS_DIR/NAME.log and its
# verdict in RESULTS_DIR/NAME.result: PASS, FAIL (exit N) or SKIP (reason,
# from the last line the test printed before exiting 77), and how many
# seconds it took in RESULTS_DIR/NAME.time.
# Exits 0 for PASS and SKIP, 1 for FAIL, so make stops only on failures.
set -u
dir=$1 name=$2
shift 2
mkdir -p "$dir"
log="$dir/$name.log"
echo "  TEST    $name"
start=$(date +%s)
"$@" >"$log" 2>&1
rc=$?
echo $(($(date +%s) - start)) >"$dir/$name.time"
case $rc in
0)	echo PASS >"$dir/$name.result" ;;
77)	reason=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)
	echo "SKIP $reason" >"$dir/$name.result"
	echo "  SKIP    $name: $reason" ;;
*)	echo "FAIL (exit $rc)" >"$dir/$name.result"
	echo "  FAIL    $name (exit $rc), last lines of $log:"
	tail -n 30 "$log" | sed 's/^/        /'
	exit 1 ;;
esac
exit 0
