#!/bin/sh
# behaviour-matrix-guest.sh [MODES [KNOBS [KINDS]]]: in the guest, run
# `tierd-vmtest cell` for every kernel.numa_balancing mode in MODES (default
# 2), memory.numa_balancing value in KNOBS (default full,promote,off) and
# VMA kind in KINDS (default anon,shmem,file-ro,pid-inactive,cow-shared,thp),
# one cell after the other in one boot. The lists are comma separated.
# Every cell prints one "CELL mode=... knob=... kind=..." line; a cell that
# could not be set up prints "CELL mode=M knob=K kind=X error=exit-N" and
# the script then exits 1. behaviour-matrix.sh boots it once per mode:
#
#   tests/vm/run-vm --timeout 900 /work/main/tests/vm/behaviour-matrix-guest.sh 2
set -u
vmtest=${TIERD_VM_BUILD:-/work/main/build}/vm/tierd-vmtest
modes=$(echo "${1:-2}" | tr , ' ')
knobs=$(echo "${2:-full,promote,off}" | tr , ' ')
kinds=$(echo "${3:-anon,shmem,file-ro,pid-inactive,cow-shared,thp}" | tr , ' ')
failed=0
for mode in $modes; do
	for knob in $knobs; do
		for kind in $kinds; do
			echo "== cell mode=$mode knob=$knob kind=$kind" \
				"at $(cut -d' ' -f1 /proc/uptime)s"
			TIERD_CELL_MODE=$mode TIERD_CELL_KNOB=$knob TIERD_CELL_KIND=$kind \
				"$vmtest" cell
			rc=$?
			if [ "$rc" -ne 0 ]; then
				echo "CELL mode=$mode knob=$knob kind=$kind error=exit-$rc"
				failed=1
			fi
		done
	done
done
echo "== cells done at $(cut -d' ' -f1 /proc/uptime)s"
exit $failed
