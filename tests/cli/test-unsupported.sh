#!/bin/sh
# A kernel without memory.numa_balancing: said in words, exit 4.
. "$SRCDIR/tests/cli/lib.sh"

MSG="kernel does not support memory.numa_balancing \\(the tierd kernel patches are not applied\\)"
mk_host_two_tier
mk_root
mk_cg /system.slice -
mk_cg /system.slice/postgresql.service -
mk_cg /batch.slice -
mk_cg /batch.slice/job1 -
mk_policy "$T/tierd.conf"

tc get /system.slice/postgresql.service
expect_rc 4
expect_err "^tierctl: $MSG\$"

tc set /batch.slice off
expect_rc 4
expect_err "^tierctl: $MSG\$"
[ ! -e "$CG/batch.slice/memory.numa_balancing" ] || fail "set created the knob file"

before=$(tree_sum)
tc --config "$T/tierd.conf" apply
expect_rc 4
expect_err "^tierctl: $MSG\$"
[ "$(tree_sum)" = "$before" ] || fail "apply changed the tree"
[ ! -e "$CG/batch.slice/job1/memory.numa_balancing" ] || fail "apply created the knob file"

tc --config "$T/tierd.conf" apply --dry-run
expect_rc 4
expect_err "$MSG"

tc --config "$T/tierd.conf" explain /system.slice/postgresql.service
expect_rc 4
expect_out "rule: +db"
expect_err "$MSG"

# status still shows what it can, and says why modes are missing.
tc --config "$T/tierd.conf" status
expect_rc 0
expect_out "^/system.slice/postgresql.service +latency +- +- "
expect_err "$MSG"

# A cgroup without the memory controller is not the kernel's fault.
mk_cg /nomem inherit
rm -f "$CG"/nomem/memory.*
tc get /nomem
expect_rc 5
expect_err "memory controller not enabled"
exit 0
