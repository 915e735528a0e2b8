#!/bin/bash
# harness-test.sh KERNEL: checks run-vm itself: the guest's exit status comes
# back, a skip keeps its reason on the last line, a hung guest is killed at
# the timeout (exit 124), the serial log of a failed run is kept, --env
# reaches the guest, --lru-gen switches MGLRU, and the splat check bites: a
# WARNING line in the kernel log fails a run that passed (126), and the
# test's own output cannot (the bite test, on every kernel).
#
# harness-test.sh --lkdtm KERNEL: the bite test with a real WARN(): LKDTM's
# WARNING crash type (debugfs provoke-crash/DIRECT) in the guest must make
# run-vm exit 126 and name the WARNING. Skips (77) on a kernel without
# LKDTM (the debug kernel has it, CONFIG_LKDTM in tierd-debug.config).
set -u
run_vm=$(dirname "$0")/run-vm
mode=basic
if [ "${1:-}" = --lkdtm ]; then
	mode=lkdtm
	shift
fi
kernel=$1
timeout=${HARNESS_TIMEOUT:-120}
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

if [ $mode = lkdtm ]; then
	out=$("$run_vm" -q --timeout "$timeout" --kernel "$kernel" /bin/sh -c '
		d=/sys/kernel/debug/provoke-crash/DIRECT
		if [ ! -e $d ]; then
			echo "SKIP: kernel without LKDTM: no $d (CONFIG_LKDTM, debugfs)"
			exit 77
		fi
		if ! grep -qx WARNING $d; then
			echo "SKIP: LKDTM lists no WARNING crash type in $d"
			exit 77
		fi
		echo WARNING >$d
		echo "lkdtm: wrote WARNING to $d"')
	rc=$?
	if [ $rc = 77 ]; then
		echo "$out" | tail -n 1
		exit 77
	fi
	check "a WARN() from LKDTM fails the run" 126 "$rc"
	if echo "$out" | grep -q 'run-vm:   kernel: WARNING: CPU: .*lkdtm'; then
		echo "ok: run-vm names the WARNING: $(echo "$out" | grep -m1 'kernel: WARNING:')"
	else
		echo "FAILED: run-vm did not print the WARNING line; it printed:"
		echo "$out" | sed 's/^/    /'
		fail=1
	fi
	if echo "$out" | grep -q 'run-vm:   kernel tainted'; then
		echo "ok: run-vm reports the W taint"
	else
		echo "FAILED: run-vm did not report the W taint"
		fail=1
	fi
	rm -f "$(echo "$out" | sed -n 's/.*serial log kept in //p')"
	exit $fail
fi

# The kernel log check on its own (run-vm --check-log, no VM): every
# report kind below is caught, one line each, and none of the look-alikes.
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/splats" <<'EOF'
[   12.345678] WARNING: CPU: 1 PID: 2 at mm/memcontrol.c:1 f+0x1/0x2
[   12.345678] WARNING: possible circular locking dependency detected
[   12.345678] WARNING: inconsistent lock state
[   12.345678] WARNING: possible recursive locking detected
[   12.345678] WARNING: suspicious RCU usage
[   12.345678] BUG: KASAN: slab-use-after-free in f+0x1/0x2
[   12.345678] BUG: sleeping function called from invalid context at mm/f.c:1
[   12.345678] INFO: task kworker/0:1:12 blocked for more than 120 seconds.
[   12.345678] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
[   12.345678] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [a:1]
[   12.345678] UBSAN: array-index-out-of-bounds in mm/f.c:12:3
[   12.345678] list_add corruption. prev->next should be next (ffff), but was 0000.
[   12.345678] list_del corruption, ffff->next is LIST_POISON1 (dead000000000100)
[   12.345678] page_counter underflow: -1 nr_pages=1
[   12.345678] BUG kmalloc-128 (Not tainted): Redzone overwritten
[   12.345678] kernel BUG at mm/memcontrol.c:123!
[   12.345678] Oops: general protection fault, probably for non-canonical address 0xdead: 0000 [#1]
[   12.345678] KASAN: null-ptr-deref in range [0x0000000000000000-0x0000000000000007]
[   12.345678] Kernel panic - not syncing: Fatal exception
test output glued to [   12.345678] WARNING: CPU: 0 PID: 3 at mm/g.c:2 g+0x1/0x2
EOF
cat >"$tmp/benign" <<'EOF'
[   12.345678] traps: prog[123] general protection fault ip:401000 sp:7ffd error:0 in prog[401000+1000]
[   12.345678] prog[12]: segfault at 0 ip 0000000000401000 sp 00007ffd error 4 in prog
[   12.345678] RETBleed: WARNING: Spectre v2 mitigation leaves CPU vulnerable to RETBleed attacks, data leaks possible!
[    0.480721] PCI: Using host bridge windows from ACPI; if necessary, use "pci=nocrs" and report a bug
WARNING: CPU: 0 PID: 1 at test/fake.c:1 probe
BUG: not a kernel bug
Kernel panic - not really
TIERD-VM-KMSG-END tainted=4096
EOF
want=$(wc -l <"$tmp/splats")
got=$("$run_vm" --check-log "$tmp/splats" | wc -l)
"$run_vm" --check-log "$tmp/splats" >/dev/null
check "run-vm --check-log: each kind of kernel report caught, once" "$want 126" "$got $?"
out=$("$run_vm" --check-log "$tmp/benign")
check "run-vm --check-log: look-alikes and a harmless taint (O) pass${out:+ (caught: $out)}" 0 "$?"
echo 'TIERD-VM-KMSG-END tainted=512' >"$tmp/taint"
"$run_vm" --check-log "$tmp/taint" >/dev/null
check "run-vm --check-log: a W taint alone fails" 126 "$?"
# HARNESS_LOG_ONLY=1: only these (no VM).
[ $mode = basic ] && [ "${HARNESS_LOG_ONLY:-0}" = 1 ] && exit $fail

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
# A failed run ends with the test's own last lines, after the kernel log
# dump, so a caller showing the tail (scripts/run-test.sh) shows the reason.
if echo "$out" | tail -n 6 | grep -q 'run-vm:   | hello from the guest'; then
	echo "ok: the failed test's last lines close run-vm's output"
else
	echo "FAILED: run-vm's output does not end with the test's last lines:"
	echo "$out" | tail -n 6 | sed 's/^/    /'
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

# One boot for three checks (each boot costs ~10 s under TCG): the mounts,
# --env, and that a test's own output is not the kernel's: splat-like lines
# on stdout, and a user space fault the kernel logs (traps: ... general
# protection fault), pass. The guest names the check that failed.
fake='WARNING: CPU: 0 PID: 1 at test/fake.c:1 probe'
out=$("$run_vm" --timeout 120 --kernel "$kernel" --env 'TIERD_VM_X=a b$c' /bin/sh -c '
	test "$(cat /proc/sys/kernel/numa_balancing)" -ge 0 && test -w /tmp && ! test -w '"$build"' &&
	 grep -q " /sys/fs/cgroup cgroup2 " /proc/mounts || { echo "guest: mounts wrong"; exit 2; }
	test "$TIERD_VM_X" = "a b\$c" || { echo "guest: TIERD_VM_X=$TIERD_VM_X"; exit 3; }
	echo "'"$fake"'"; echo "BUG: not a kernel bug"; echo "Kernel panic - not really"
	echo "<6>traps: probe[1] general protection fault ip:0 sp:0 error:0" >/dev/kmsg')
rc=$?
check "guest mounts: cgroup2, writable /tmp, read-only build/; --env NAME=VALUE reaches the
    guest; splat-like test output and a user space fault do not fail the run" 0 "$rc"
[ $rc = 0 ] || echo "$out" | grep -a -E '^(guest|run-vm):' | sed 's/^/    /'
rm -f "$(echo "$out" | sed -n 's/.*serial log kept in //p')"

# The bite test: a WARNING in the kernel log fails a run whose test passed.
# The line goes in through /dev/kmsg at KERN_WARNING, the level WARN()
# prints at; it taints nothing, so the log check alone must catch it.
out=$("$run_vm" -q --timeout 120 --kernel "$kernel" /bin/sh -c \
	"echo '<4>$fake' >/dev/kmsg && dmesg | grep -q 'test/fake.c:1 probe'")
rc=$?
check "a WARNING in the kernel log fails a passing run" 126 "$rc"
if echo "$out" | grep -qF "run-vm:   kernel: $fake"; then
	echo "ok: run-vm names the WARNING line"
else
	echo "FAILED: run-vm did not print the WARNING line; it printed:"
	echo "$out" | sed 's/^/    /'
	fail=1
fi
rm -f "$(echo "$out" | sed -n 's/.*serial log kept in //p')"

# ... and so does one the console never showed: only the dump at the end
# of the run has it (console at log level 1).
out=$("$run_vm" -q --timeout 120 --loglevel 1 --kernel "$kernel" /bin/sh -c \
	"echo '<4>$fake' >/dev/kmsg")
check "a WARNING only the kernel log dump has fails the run" 126 "$?"
rm -f "$(echo "$out" | sed -n 's/.*serial log kept in //p')"

# An "Oops: int3" alone (QEMU TCG's stale translation of live-patched
# text, see run-vm) is run again once, then fails; with anything else
# beside it, no second run.
int3='Oops: int3: 0000 [#1] PREEMPT SMP NOPTI'
out=$("$run_vm" -q --timeout 120 --kernel "$kernel" /bin/sh -c "echo '<0>$int3' >/dev/kmsg")
rc=$?
check "an Oops: int3 alone, twice, fails the run" 126 "$rc"
check "an Oops: int3 alone: run again once" 1 "$(echo "$out" | grep -c 'running it again, once')"
rm -f "$(echo "$out" | sed -n 's/.*serial log kept in //p')" \
	"$(echo "$out" | sed -n 's/.*; log in \(.*\)): running it again.*/\1/p')"
out=$("$run_vm" -q --timeout 120 --kernel "$kernel" /bin/sh -c \
	"echo '<0>$int3' >/dev/kmsg; echo '<4>$fake' >/dev/kmsg")
rc=$?
check "an Oops: int3 with a WARNING fails the run" 126 "$rc"
check "an Oops: int3 with a WARNING: no second run" 0 \
	"$(echo "$out" | grep -c 'running it again, once')"
rm -f "$(echo "$out" | sed -n 's/.*serial log kept in //p')"

# --lru-gen: MGLRU off and on, as the guest sees it; a kernel without
# MGLRU fails the run (125) and says why.
lru=/sys/kernel/mm/lru_gen/enabled
out=$("$run_vm" -q --timeout 120 --kernel "$kernel" --lru-gen off /bin/sh -c \
	"echo lru_gen=\$(cat $lru); test \"\$(cat $lru)\" = 0x0000")
rc=$?
if [ $rc = 125 ] && echo "$out" | grep -q "$lru is missing"; then
	echo "ok: run-vm --lru-gen off on a kernel without MGLRU: 125, \"$lru is missing\""
else
	check "run-vm --lru-gen off: $lru reads 0x0000" 0 "$rc"
	"$run_vm" -q --timeout 120 --kernel "$kernel" --lru-gen on /bin/sh -c \
		"echo lru_gen=\$(cat $lru); test \"\$(cat $lru)\" != 0x0000" >/dev/null
	check "run-vm --lru-gen on: $lru reads non-zero" 0 "$?"
fi

exit $fail
