#!/bin/sh
# In the VM: a process in a cgroup execs a binary an exe= rule matches; the
# proc connector tells tierd at once (no reconcile for an hour), and the
# process's cgroup gets the class.  Then a process that already runs that
# binary is moved into an empty cgroup: no exec, but cgroup.events
# (populated 0 -> 1) makes tierd evaluate it again.
. "$(dirname "$0")/lib-vm.sh"
need_knob
mkdir -p "$T/bin"
cp "$(command -v sleep)" "$T/bin/tierd-special-db"
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
[class:latency]
mode = promote
[rule:db]
class = latency
exe = $T/bin/tierd-special-*
EOC
mkdir "$CG/apps" && enable_memory apps
mkdir "$CG/apps/one" "$CG/apps/two" "$CG/apps/three"
start_tierd
grep -q 'Process events (proc connector) unavailable' "$LOG" &&
	skip "no proc connector in this kernel (CONFIG_PROC_EVENTS)"
[ "$(mode_of apps/one)" = inherit ] || fail "apps/one set before any exec"
sh -c "echo \$\$ >$CG/apps/one/cgroup.procs; exec $T/bin/tierd-special-db 60" &
pid=$!
wait_mode apps/one promote
[ "$(mode_of apps/two)" = inherit ] || fail "apps/two was set but runs nothing"
grep -q "executed $T/bin/tierd-special-db" "$LOG" || fail "no exec record in the log"
# Started in the root cgroup (never managed), then moved.
"$T/bin/tierd-special-db" 60 &
pid2=$!
wait_log "executed $T/bin/tierd-special-db"
[ "$(mode_of apps/three)" = inherit ] || fail "apps/three set too early"
echo "$pid2" >"$CG/apps/three/cgroup.procs" || fail "cannot move PID $pid2"
wait_mode apps/three promote
grep -q '/apps/three: memory.numa_balancing inherit -> promote (.*processes moved in)' "$LOG" ||
	fail "apps/three was not applied through cgroup.events"
kill "$pid" "$pid2" 2>/dev/null
stop_tierd
echo "PASS"
