#!/bin/sh
# kselftest-vm.sh TEST: run one of the series' static kselftests inside the
# two-tier VM (as a tests/vm/run-vm command) and map kselftest's exit codes
# to the project's: KSFT_PASS 0 -> 0, KSFT_SKIP 4 -> 77, anything else fails.
set -u
bin=${TIERD_VM_BUILD:?not inside run-vm}/kernel/kselftest/$1
if [ ! -x "$bin" ]; then
	echo "SKIP: $bin not built (make kselftest-numa)"
	exit 77
fi
"$bin"
rc=$?
case $rc in
0) exit 0 ;;
4) echo "SKIP: $1 skipped (the kernel lacks the feature)"; exit 77 ;;
*) exit "$rc" ;;
esac
