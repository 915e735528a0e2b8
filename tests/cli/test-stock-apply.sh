#!/bin/sh
# A stock kernel (no memory.numa_balancing): a policy whose classes leave
# mode alone (or say inherit) applies with exit 0 and writes only what its
# classes set; a class with a mode the kernel cannot honour still says so.
. "$SRCDIR/tests/cli/lib.sh"

mk_host_two_tier
mk_root
mk_cg /system.slice -
mk_cg /system.slice/postgresql.service -
mk_cg /batch.slice -
mk_cg /batch.slice/job1 -
cat >"$T/tierd.conf" <<'EOM'
[class:db]
memory_low = 64M

[class:batch]
mode = inherit
memory_high = 1G

[rule:db]
class = db
cgroup = /system.slice/postgresql.service

[rule:batch]
class = batch
cgroup = /batch.slice/**
EOM

tc --config "$T/tierd.conf" apply --dry-run
expect_rc 0

tc --config "$T/tierd.conf" apply
expect_rc 0
[ "$(cat "$CG/system.slice/postgresql.service/memory.low")" = 67108864 ] ||
	fail "memory.low not applied: $(cat "$CG/system.slice/postgresql.service/memory.low")"
[ "$(cat "$CG/batch.slice/job1/memory.high")" = 1073741824 ] ||
	fail "memory.high not applied: $(cat "$CG/batch.slice/job1/memory.high")"
[ ! -e "$CG/batch.slice/job1/memory.numa_balancing" ] || fail "apply created the knob file"

# A second apply has nothing to do.
tc --config "$T/tierd.conf" apply
expect_rc 0

# A mode the kernel cannot honour is still reported (exit 4).
cat >"$T/off.conf" <<'EOM'
[class:off]
mode = off

[rule:off]
class = off
cgroup = /system.slice/postgresql.service
EOM
tc --config "$T/off.conf" apply
expect_rc 4
expect_err "kernel does not support memory.numa_balancing"
exit 0
