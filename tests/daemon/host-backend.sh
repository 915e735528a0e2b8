#!/bin/sh
# The backend tierd uses (issue 22, item 1): said at start-up with its
# reason, in Status and through Backend() on the bus API; the same choice
# as tierctl doctor's (tier_backend_choose()).
. "$(dirname "$0")/lib-host.sh"

command -v busctl >/dev/null 2>&1 || skip "no busctl"
mk_fast_host
mk_cgroup fast

# 1. The patched kernel: knob.
start_tierd
wait_log 'Backend knob: memory.numa_balancing present \(in /fast: a kernel with the tierd series\)'
bc Backend >"$T/out" || fail "Backend() failed"
grep -q '^ssbs "auto" "knob" true "memory.numa_balancing present' "$T/out" ||
	fail "Backend(): $(cat "$T/out")"
bc Status | grep -q '; backend knob' || fail "Status lacks the backend"
stop_tierd
echo "ok 1 knob on the patched kernel"

# 2. A stock kernel with DAMON's sysfs: damon.
rm "$CG/fast/memory.numa_balancing"
mkdir -p "$SYS/kernel/mm/damon/admin/kdamonds"
start_tierd
wait_log 'Backend damon: memory.numa_balancing not present \(kernel without the tierd series\); DAMON sysfs present; 2 memory tiers'
bc Backend | grep -q '^ssbs "auto" "damon" true ' || fail "Backend() is not damon"
stop_tierd
echo "ok 2 damon on a stock kernel with DAMON"

# 3. backend = knob asked for there: a warning that says why, and none.
sed -i 's/^\[daemon\]$/[daemon]\nbackend = knob/' "$CONF"
start_tierd
wait_log 'Backend none: backend = knob in the policy, but memory.numa_balancing not present'
bc Backend | grep -q '^ssbs "knob" "none" false ' || fail "Backend() is not an unserved knob"
# A reload that changes it: a restart is needed, said so.
sed -i 's/^backend = knob$/backend = damon/' "$CONF"
kill -HUP "$TIERD_PID"
wait_log 'backend changed to damon; a restart is needed for that, ignoring'
stop_tierd
echo "ok 3 an explicit backend the machine cannot serve"
