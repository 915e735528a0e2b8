#!/bin/bash
# scripts/demo.sh: `make demo`, the README's main command.
#
#   scripts/demo.sh [--no-build] [--kernel BZIMAGE] [--seconds N]
#
# Builds the patched kernel and the tools (unless --no-build), boots the
# two-tier QEMU VM (tests/vm/run-vm) and runs tests/demo/guest-demo.sh in it:
# tierd puts three cgroups in three classes (full, promote, off) and the
# demo shows, every few seconds, how much of each workload's memory NUMA
# balancing moved from the slow tier to the fast one; act two compares the
# hinting faults on fast-tier pages of full and promote in mode 3.
set -u -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
make=${MAKE:-make}
kernel=$build/kernel/patched/bzImage
do_build=1
seconds=75

while [ $# -gt 0 ]; do
	case $1 in
	--no-build) do_build=0; shift ;;
	--kernel) kernel=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	*) echo "usage: $0 [--no-build] [--kernel BZIMAGE] [--seconds N]" >&2; exit 2 ;;
	esac
done

bold() { if [ -t 1 ]; then printf '\033[1m%s\033[0m\n' "$*"; else printf '%s\n' "$*"; fi; }
t_start=$(date +%s)

cat <<'EOT'

  tierd demo: per-workload memory tiering
  =======================================

  A machine with two kinds of memory: a FAST tier (DRAM, next to the CPUs)
  and a SLOW tier (here a CPU-less NUMA node that the firmware tables
  describe as slower, like CXL memory). Linux's NUMA balancing can move hot
  pages from the slow tier up to the fast one, but only as a single switch
  for the whole machine.

  tierd's kernel patches add a per-cgroup knob, memory.numa_balancing, with
  the modes full, promote and off; the tierd daemon sets it for every cgroup
  from a policy file, the moment the cgroup appears.

  This demo boots a small two-tier virtual machine (QEMU), starts tierd with
  a three-class policy, and runs the same memory-hungry workload in three
  cgroups, one per class. Every few seconds it shows where each workload's
  memory is. Expect: full and promote climb to the fast tier, off stays.

  Act two shows why promote exists: with task placement on as well
  (kernel.numa_balancing=3), full keeps taking hinting faults on memory
  that is already on the fast tier; promote takes none and still promotes.

EOT

if [ $do_build = 1 ]; then
	bold "[1/3] Building the patched kernel (first time: 10-20 minutes, then cached)"
	$make -C "$top" --no-print-directory kernel KERNEL=patched || {
		echo "demo: the kernel build failed" >&2; exit 1; }
	bold "[2/3] Building libtier, tierctl, tierd and the demo workload"
	$make -C "$top" --no-print-directory -s all tierd-test-tools tierd-demo-load || {
		echo "demo: the build failed" >&2; exit 1; }
else
	bold "[1/3] [2/3] Build skipped (--no-build)"
fi

for f in "$kernel" "$build/bin/tierd" "$build/demo/tierd-demo-load" "$build/test/tierd-waitfor"; do
	[ -e "$f" ] || { echo "demo: missing $f (run make demo without --no-build)" >&2; exit 1; }
done

bold "[3/3] Booting the two-tier VM (QEMU, software emulation: about a minute)"
echo "      fast tier: node 0, 512 MB, with the CPUs; slow tier: node 1, 512 MB, no CPUs"
rc=0
TIERD_DEMO_SECONDS=$seconds BUILD=$build "$top/tests/vm/run-vm" --kernel "$kernel" \
	--timeout $((seconds + 240)) --mem-fast 512M --mem-slow 512M --smp 2 \
	"$top/tests/demo/guest-demo.sh" "$seconds" 2>&1 |
	grep -a --line-buffered -v -E '^(init: |run-vm: |TIERD-VM-RESULT|reboot: |\[ *[0-9]+\.[0-9]+\] )'
rc=${PIPESTATUS[0]}
echo
case $rc in
0) bold "Demo finished in $(($(date +%s) - t_start)) s." ;;
77) bold "Demo skipped: the VM's kernel lacks what the demo needs (see above)." ;;
124) bold "Demo timed out (the VM was killed)." ;;
*) bold "Demo ended with status $rc (see above; serial logs are kept in $build/vm/logs/)." ;;
esac
exit "$rc"
