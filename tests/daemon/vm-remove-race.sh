#!/bin/sh
# In the VM: cgroups removed while tierd applies them (tierd-churn: mkdir +
# rmdir back to back, 2000 times, and 300 more that live ~1 ms, in parallel):
# no errors, no crash, and later cgroups are still applied.
. "$(dirname "$0")/lib-vm.sh"
need_knob
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
[class:batch]
mode = off
memory_high = 512M
[rule:batch]
class = batch
cgroup = /race/**
EOC
mkdir "$CG/race" && enable_memory race
start_tierd
mkdir "$CG/race/a" "$CG/race/b" && enable_memory race/a && enable_memory race/b
"$BUILD/test/tierd-churn" "$CG/race/a" 2000 &
c1=$!
"$BUILD/test/tierd-churn" "$CG/race/b" 300 1000 || fail "churn b failed"
wait $c1 || fail "churn a failed"
mkdir "$CG/race/survivor"
wait_mode race/survivor off 30
kill -0 "$TIERD_PID" || fail "tierd died"
if grep -E 'race/./r[0-9]+.*(failed|cannot|error)' "$LOG" | grep -v 'vanished'; then
	fail "a vanished cgroup was reported as an error"
fi
echo "creations seen: $(grep -c 'race/./r[0-9]*: created' "$LOG"), skipped as vanished: $(grep -c 'race/./r[0-9]*: vanished' "$LOG"), applied before removal: $(grep -c 'race/./r[0-9]*: memory.numa_balancing inherit -> off' "$LOG")"
stop_tierd
echo "PASS"
