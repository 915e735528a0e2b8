#!/bin/sh
# run-fair-vm.sh with-tierd|without [LOG]: boot the two-tier VM
# (tests/vm/run-vm) and run the fairness experiment (guest-fair.sh) in it.
# Kernel: $FAIR_VM_KERNEL (default build/kernel/fair/bzImage, the kernel
# with tier-aware limits, else build/kernel/patched/bzImage).  Skips (77,
# with the reason) without qemu, busybox or a bzImage.  LOG keeps the serial
# log (bench/fair reads it).  $FAIR_TIERD: the tierd binary to run (default
# build/bin/tierd).  $FAIR_VM_SMP: the number of vCPUs (run-vm --smp, all on
# the fast node; default run-vm's, 2), e.g. 8; more vCPUs under TCG may need
# a larger $FAIR_VM_TIMEOUT.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
mode=${1:-with-tierd}
log=${2:-}
kernel=${FAIR_VM_KERNEL:-}
if [ -z "$kernel" ]; then
	kernel=$build/kernel/fair/bzImage
	[ -r "$kernel" ] || kernel=$build/kernel/patched/bzImage
fi
timeout=${FAIR_VM_TIMEOUT:-300}
smp=${FAIR_VM_SMP:-}
case $smp in
*[!0-9]*|0) echo "run-fair-vm.sh: FAIR_VM_SMP=$smp: want a number of vCPUs (1 or more)" >&2; exit 2 ;;
esac

command -v qemu-system-x86_64 >/dev/null 2>&1 ||
	{ echo "SKIP: qemu-system-x86_64 not installed (make deps)"; exit 77; }
command -v busybox >/dev/null 2>&1 || { echo "SKIP: busybox not installed (make deps)"; exit 77; }
command -v jq >/dev/null 2>&1 || { echo "SKIP: jq not installed (make deps)"; exit 77; }
[ -r "$kernel" ] || { echo "SKIP: no kernel at $kernel (make kernel KERNEL=patched)"; exit 77; }
for f in bin/tierd bin/tierctl fair/fair-load test/tierd-waitfor; do
	[ -x "$build/$f" ] || { echo "SKIP: no $build/$f"; exit 77; }
done
echo "fairness experiment ($mode) on $kernel${smp:+, $smp vCPUs}"
exec env BUILD="$build" "$top/tests/vm/run-vm" --timeout "$timeout" --kernel "$kernel" \
	--mem-fast 256M --mem-slow 256M ${smp:+--smp "$smp"} ${log:+--log "$log"} \
	/bin/sh "$top/tests/fair/guest-fair.sh" "$mode" ${FAIR_TIERD:+"$FAIR_TIERD"}
