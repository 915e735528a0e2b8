#!/bin/sh
# In the VM: cgroups removed while tierd applies them (mkdir + rmdir at once,
# 300 times): no errors, no crash, and later cgroups are still applied.
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
i=0
while [ $i -lt 300 ]; do
	mkdir "$CG/race/r$i" && rmdir "$CG/race/r$i"
	i=$((i + 1))
done
mkdir "$CG/race/survivor"
wait_mode race/survivor off 30
kill -0 "$TIERD_PID" || fail "tierd died"
if grep -E 'race/r[0-9]+.*(failed|cannot|error)' "$LOG" | grep -v 'vanished'; then
	fail "a vanished cgroup was reported as an error"
fi
echo "vanished cgroups skipped: $(grep -c 'vanished' "$LOG")"
stop_tierd
echo "PASS"
