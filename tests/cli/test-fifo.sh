#!/bin/sh
# Files named on the command line (--config, the --*-root trees) are not
# waited on: a FIFO where a file should be is refused, no verb blocks.
. "$SRCDIR/tests/cli/lib.sh"
command -v timeout >/dev/null 2>&1 || skip "no timeout(1)"

mk_standard_tree

# tc under a time limit: 124 means tierctl blocked.
tct() {
	rc=0
	timeout 20 "$TIERCTL" --cgroup-root "$CG" --sysfs-root "$SYS" --procfs-root "$PROC" \
		"$@" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" != 124 ] || fail "tierctl $* blocked on a FIFO"
}

# procfs: kernel.numa_balancing
rm "$PROC/sys/kernel/numa_balancing"
mkfifo "$PROC/sys/kernel/numa_balancing"
tct topology
expect_rc 0
expect_out "^2 memory tiers: fast-tier capacity 16.0G of 24.0G\$"
expect_no_out "kernel.numa_balancing"
[ -p "$PROC/sys/kernel/numa_balancing" ] || fail "the FIFO was replaced"

# --config
mkfifo "$T/fifo.conf"
for verb in status "explain /batch.slice" "apply --dry-run" "apply"; do
	tct --config "$T/fifo.conf" $verb
	[ "$rc" = 5 ] || [ "$rc" = 1 ] || { cat "$T/err" >&2; fail "$verb with a FIFO policy: exit $rc"; }
done

# a knob that is a FIFO
rm "$CG/batch.slice/memory.numa_balancing"
mkfifo "$CG/batch.slice/memory.numa_balancing"
tct get /batch.slice
expect_rc 5
expect_err "^tierctl: /batch.slice: cannot read memory.numa_balancing: not a regular file, refused\$"
tct set /batch.slice off
expect_rc 5
[ -p "$CG/batch.slice/memory.numa_balancing" ] || fail "the FIFO knob was replaced"
exit 0
