#!/bin/sh
# What a dry-run tierd would write, as unprivileged callers get it
# (DryRun from the last full pass's list): the list borrows each path from
# the cached plan and the class and rule names from the policy, and must
# never outlive them: after a reload that replaces both, the answer is the
# new pass's (ASan: nothing read after it was freed).
. "$(dirname "$0")/lib-host.sh"

command -v busctl >/dev/null 2>&1 || skip "no busctl"
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	skip "needs root and setpriv"
fi
mk_fast_host
mk_cgroup fast
mk_cgroup fast/a
mk_cgroup fast/b
start_tierd --dry-run --no-system-bus
wait_log 'tierd started'
chmod 0711 "$T"
chmod 0666 "$T/bus"
nb() {
	setpriv --reuid=65534 --regid=65534 --clear-groups busctl --timeout=10 \
		--address="unix:path=$T/bus" call org.tierd.Manager1 /org/tierd/Manager1 \
		org.tierd.Manager1 "$@"
}
nb DryRun t 0 >"$T/nobody" 2>&1 || { cat "$T/nobody"; fail "nobody's DryRun"; }
grep -q '"/fast/a" "fast" "fast" "memory.numa_balancing" "inherit" "full"' "$T/nobody" ||
	{ cat "$T/nobody"; fail "nobody's DryRun lacks /fast/a"; }
grep -q '"/fast/b" "fast" "fast"' "$T/nobody" || { cat "$T/nobody"; fail "nobody's DryRun lacks /fast/b"; }
[ "$(mode_of fast/a)" = inherit ] || fail "a dry run wrote"
echo "ok 1 nobody's DryRun of a dry-run tierd"

# A reload with other names: the old plan and policy go.
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
[class:slow]
mode = off
[rule:slow-b]
class = slow
cgroup = /fast/b
EOC
kill -HUP "$TIERD_PID"
"$WAITFOR" -t 20 "$LOG" 'Reconciled .*\(reload' >/dev/null || fail "no reconcile after the reload"
nb DryRun t 0 >"$T/nobody" 2>&1 || { cat "$T/nobody"; fail "nobody's DryRun after the reload"; }
grep -q '"/fast/b" "slow" "slow-b" "memory.numa_balancing" "inherit" "off"' "$T/nobody" ||
	{ cat "$T/nobody"; fail "nobody's DryRun is not the new pass's"; }
grep -q '"/fast/a"' "$T/nobody" && { cat "$T/nobody"; fail "nobody's DryRun still has /fast/a"; }
echo "ok 2 after a reload, the new pass's list"

stop_tierd
echo "PASS host-dryrun-cached"
