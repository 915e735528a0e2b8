#!/bin/sh
# In the VM: fs.inotify.max_user_watches too small for the tree.  tierd says
# so once, keeps running, and the periodic reconcile applies the policy to
# cgroups below directories it could not watch.
. "$(dirname "$0")/lib-vm.sh"
need_knob
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 2s
[class:batch]
mode = off
[rule:batch]
class = batch
cgroup = /many/**
EOC
mkdir "$CG/many" && enable_memory many
i=0
while [ $i -lt 60 ]; do
	mkdir "$CG/many/c$i"
	enable_memory "many/c$i"
	i=$((i + 1))
done
echo 40 >/proc/sys/fs/inotify/max_user_watches
start_tierd
grep -c 'max_user_watches (40) reached' "$LOG" | grep -qx 1 || fail "the limit was not reported exactly once"
wait_mode many/c59 off
# About 20 of the c* directories are not watched: a child created there is
# found by the reconcile (2 s), the others by inotify.  All must get it.
i=0
while [ $i -lt 60 ]; do
	mkdir "$CG/many/c$i/x"
	i=$((i + 1))
done
i=0
while [ $i -lt 60 ]; do
	wait_mode "many/c$i/x" off 15
	i=$((i + 1))
done
[ "$(grep -c 'max_user_watches' "$LOG")" = 1 ] || fail "the limit was reported more than once"
kill -0 "$TIERD_PID" || fail "tierd died"
stop_tierd
echo "PASS"
