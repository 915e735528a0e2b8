#!/bin/sh
# run-in-vm.sh TEST.sh: boot the two-tier VM (tests/vm/run-vm) with
# $TIERD_VM_KERNEL (default: the patched kernel) and run TEST.sh as the guest's
# test.  Skips (77, with the reason) without qemu, busybox or a bzImage.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
kernel=${TIERD_VM_KERNEL:-$build/kernel/patched/bzImage}
timeout=${DAEMON_VM_TIMEOUT:-240}

[ $# -ge 1 ] || { echo "usage: run-in-vm.sh TEST.sh [ARGS...]" >&2; exit 2; }
command -v qemu-system-x86_64 >/dev/null 2>&1 ||
	{ echo "SKIP: qemu-system-x86_64 not installed (make deps)"; exit 77; }
command -v busybox >/dev/null 2>&1 || { echo "SKIP: busybox not installed (make deps)"; exit 77; }
[ -r "$kernel" ] || { echo "SKIP: no kernel at $kernel (make kernel KERNEL=patched)"; exit 77; }
[ -x "$build/bin/tierd" ] || { echo "SKIP: no $build/bin/tierd (make tierd)"; exit 77; }
[ -x "$build/test/tierd-waitfor" ] || { echo "SKIP: no $build/test/tierd-waitfor"; exit 77; }

# vm-systemd*.sh boot systemd as init.  Booting the default target would
# start every service of the host (the root is the host's); the test unit
# alone (+ sysinit/basic) is enough, and keeps the boot short.
case $(basename "$1") in
vm-systemd*)
	BUILD=$build TIERD_VM_KERNEL=$kernel exec "$top/tests/vm/run-vm" --systemd \
		--append "systemd.unit=tierd-vmtest.service systemd.show_status=false" \
		--timeout "$timeout" --kernel "$kernel" "$@" ;;
esac
BUILD=$build TIERD_VM_KERNEL=$kernel exec "$top/tests/vm/run-vm" --timeout "$timeout" \
	--kernel "$kernel" "$@"
