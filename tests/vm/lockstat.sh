#!/bin/sh
# lockstat.sh [CASE [SHARERS]]: run one guest case (default
# cow-shared-promote) with lock statistics on and print the lock_stat lines
# of the locks promotion takes (page table locks, lru_lock, zone->lock,
# mmap_lock). SHARERS (2..16) sets TIERD_VM_SHARERS, the number of processes
# of cow-shared-cost. Needs a kernel with CONFIG_LOCK_STAT (the debug
# kernel):
#
#   tests/vm/run-vm --kernel build/kernel/debug/bzImage --time-scale 3 \
#       /work/main/tests/vm/lockstat.sh cow-shared-promote
#   tests/vm/run-vm --kernel build/kernel/debug/bzImage --time-scale 3 \
#       /work/main/tests/vm/lockstat.sh cow-shared-cost 8
set -u
case=${1:-cow-shared-promote}
if [ $# -ge 2 ]; then
	TIERD_VM_SHARERS=$2
	export TIERD_VM_SHARERS
fi
if [ ! -w /proc/sys/kernel/lock_stat ]; then
	echo "SKIP: no /proc/sys/kernel/lock_stat (CONFIG_LOCK_STAT)"
	exit 77
fi
echo 0 >/proc/lock_stat
echo 1 >/proc/sys/kernel/lock_stat
"${TIERD_VM_BUILD:-/work/main/build}/vm/tierd-vmtest" "$case"
rc=$?
echo 0 >/proc/sys/kernel/lock_stat
echo "== lock_stat after $case${TIERD_VM_SHARERS:+ with $TIERD_VM_SHARERS sharers}"
sed -n 3,4p /proc/lock_stat
grep -E '^ *(ptlock_ptr|&lruvec->lru_lock|&zone->lock|&mm->mmap_lock)[^ ]*:' /proc/lock_stat
exit $rc
