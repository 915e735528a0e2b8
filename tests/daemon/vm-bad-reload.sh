#!/bin/sh
# In the VM: SIGHUP with a broken drop-in keeps the old policy (still applied
# to new cgroups), logs every FILE:LINE error; fixing it reloads by inotify.
. "$(dirname "$0")/lib-vm.sh"
need_knob
mkdir -p "$T/tierd.conf.d"
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
[class:batch]
mode = off
[rule:batch]
class = batch
cgroup = /jobs/**
EOC
mkdir "$CG/jobs" && enable_memory jobs
start_tierd
mkdir "$CG/jobs/a"
wait_mode jobs/a off
cat >"$T/tierd.conf.d/10-bad.conf" <<EOC
[class:oops]
mode = fastest
weight = -3
[rule:jobs-full]
class = missing
cgroup = /jobs/**
EOC
kill -HUP "$TIERD_PID"
wait_log 'keeping the previous policy'
grep -q '10-bad.conf:2: ' "$LOG" || fail "no FILE:LINE error for line 2"
grep -q '10-bad.conf:3: ' "$LOG" || fail "no FILE:LINE error for line 3"
grep -q '10-bad.conf:5: ' "$LOG" || fail "no FILE:LINE error for line 5"
mkdir "$CG/jobs/b"
wait_mode jobs/b off
kill -0 "$TIERD_PID" || fail "tierd died on a bad reload"
# A good drop-in, picked up by inotify without a signal: jobs become promote.
cat >"$T/tierd.conf.d/10-bad.conf" <<EOC
[class:pinned]
mode = promote
EOC
sed 's/^mode = off$/mode = promote/' "$CONF" >"$CONF.new" && mv "$CONF.new" "$CONF"
wait_log 'Policy reloaded'
wait_mode jobs/a promote
wait_mode jobs/b promote
stop_tierd
echo "PASS"
