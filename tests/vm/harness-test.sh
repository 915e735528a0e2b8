#!/bin/bash
# harness-test.sh KERNEL: checks run-vm itself: the guest's exit status comes
# back, a skip keeps its reason on the last line, a hung guest is killed at
# the timeout (exit 124), the serial log of a failed run is kept and --env
# reaches the guest.
set -u
run_vm=$(dirname "$0")/run-vm
kernel=$1
build=${BUILD:-$(cd "$(dirname "$0")/../.." && pwd)/build}
fail=0

check() {
	# check WHAT WANT GOT
	if [ "$2" = "$3" ]; then
		echo "ok: $1"
	else
		echo "FAILED: $1: want $2, got $3"
		fail=1
	fi
}

out=$("$run_vm" -q --timeout 120 --kernel "$kernel" /bin/sh -c 'echo hello from the guest; exit 3')
rc=$?
check "exit status of the guest test" 3 "$rc"
kept=$(echo "$out" | sed -n 's/.*serial log kept in //p')
if [ -n "$kept" ] && grep -q 'hello from the guest' "$kept"; then
	echo "ok: serial log of the failed run kept in $kept"
	rm -f "$kept"
else
	echo "FAILED: no serial log kept for the failed run"
	fail=1
fi

out=$("$run_vm" -q --timeout 120 --kernel "$kernel" /bin/sh -c 'echo "SKIP: no widget"; exit 77')
rc=$?
check "skip status" 77 "$rc"
check "skip reason on the last line" "no widget" "$(echo "$out" | tail -n 1)"

out=$("$run_vm" -q --timeout 20 --kernel "$kernel" /bin/sleep 600)
rc=$?
check "timeout" 124 "$rc"
rm -f "$(echo "$out" | sed -n 's/.*serial log kept in //p')"

out=$("$run_vm" -q --timeout 120 --kernel "$kernel" /bin/sh -c \
	'test "$(cat /proc/sys/kernel/numa_balancing)" -ge 0 && test -w /tmp && ! test -w '"$build"' &&
	 grep -q " /sys/fs/cgroup cgroup2 " /proc/mounts')
check "guest mounts: cgroup2, writable /tmp, read-only build/" 0 "$?"

out=$("$run_vm" -q --timeout 120 --kernel "$kernel" --env 'TIERD_VM_X=a b$c' /bin/sh -c \
	'test "$TIERD_VM_X" = "a b\$c"')
check "run-vm --env NAME=VALUE reaches the guest" 0 "$?"

exit $fail
