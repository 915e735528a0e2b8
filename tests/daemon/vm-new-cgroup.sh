#!/bin/sh
# In the VM: mkdir of a cgroup -> tierd writes its memory.numa_balancing.
. "$(dirname "$0")/lib-vm.sh"
need_knob
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
[class:batch]
mode = off
[class:latency]
mode = full
[rule:batch]
class = batch
cgroup = /batch/**
[rule:latency]
class = latency
cgroup = /latency*
EOC
mkdir "$CG/batch" && enable_memory batch
start_tierd
t0=$(now_ms)
mkdir "$CG/batch/job1"
wait_mode batch/job1 off
t1=$(now_ms)
mkdir "$CG/latency-db"
wait_mode latency-db full
[ "$(mode_of batch)" = inherit ] || fail "/batch itself is not in a class but was written"
grep -q '/batch/job1: memory.numa_balancing inherit -> off (class batch, rule batch, new cgroup)' "$LOG" ||
	fail "no change record for /batch/job1"
echo "mkdir -> knob written in $((t1 - t0)) ms (TCG guest)"
stop_tierd
echo "PASS"
