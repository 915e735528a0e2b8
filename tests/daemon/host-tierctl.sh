#!/bin/sh
# tierctl as a client of the running tierd (host, fake cgroup tree, ASan
# builds of both):
#  - over the private socket: status shows the daemon's status line, explain
#    and apply --dry-run answer from the policy tierd has loaded (even when
#    the files on disk are broken), reload reports success and failure;
#  - --daemon without a daemon fails with exit 6, reload too; --no-daemon and
#    --config work on the files;
#  - over a system bus (a private dbus-daemon with the policy file from
#    etc/dbus-1/system.d): tierd owns org.tierd.Manager1, tierctl finds it
#    there when the socket is missing, and an unprivileged user may read
#    (status, explain, dry run) but not reload.
. "$(dirname "$0")/lib-host.sh"

: "${TIERCTL:?TIERCTL must name the tierctl binary under test}"

# tc ARGS...: tierctl against the fake tree; output in $T/out, $T/err, $rc.
tc() {
	rc=0
	"$TIERCTL" --cgroup-root "$CG" --sysfs-root "$SYS" --procfs-root "$PROC" "$@" \
		>"$T/out" 2>"$T/err" || rc=$?
}

mk_fake_host
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h

[class:fast]
mode = full
weight = 300
toptier_min = 25%

[class:batch]
mode = off
memory_low = 16M

[rule:fast]
class = fast
cgroup = /fast/**

[rule:batch]
class = batch
cgroup = /batch/**
EOC
mk_cgroup fast
mk_cgroup fast/a
mk_cgroup batch
mk_cgroup batch/b
mk_cgroup other
start_tierd --no-system-bus
wait_mode fast/a full
wait_mode batch/b off
D="--daemon --bus-socket $T/bus"

# 1. status through the daemon: its status line, then the table.
tc $D status
expect_rc 0
expect out "^tierd \\($T/bus\\): [0-9]+ cgroups, [0-9]+ in a class"
expect out "^/fast/a +fast +full"
cat "$T/out"
tc $D --json status
expect_rc 0
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["daemon"]["running"] is True, d; assert "in a class" in d["daemon"]["status"], d' "$T/out" ||
	fail "status --json lacks the daemon"
echo "ok 1 status via tierd"

# 2. explain through the daemon: the same fields as standalone.
tc $D explain /fast/a
expect_rc 0
expect out "^policy: +tierd \\($T/bus\\)\$"
expect out "^rule: +fast \\($CONF:[0-9]+\\)\$"
expect out "^matched by: +cgroup = /fast/\\*\\* \\(/fast/a\\)\$"
expect out "^class: +fast\$"
expect out "^weight: +300\$"
expect out "^toptier_min: +25% of the fast tier less fast_tier_reserve = 192.0M\$"
expect out "^configured mode: +full\$"
tc --no-daemon --config "$CONF" explain /fast/a
expect_rc 0
expect out "^policy: +$CONF\$"
grep -v '^policy:' "$T/out" >"$T/standalone"
tc $D explain /fast/a
grep -v '^policy:' "$T/out" >"$T/via-daemon"
cmp -s "$T/standalone" "$T/via-daemon" || {
	diff "$T/standalone" "$T/via-daemon"; fail "explain differs between tierd and standalone"; }
tc $D --json explain /batch/b
expect_rc 0
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["from_daemon"] is True and d["rule"]["name"] == "batch", d
assert d["class"]["memory_low"] == {"value": "16M", "bytes": 16777216}, d
assert d["class"]["toptier_min"] is None and d["configured"] == "off", d
' "$T/out" || fail "explain --json via tierd"
tc $D explain /other
expect_rc 0
expect out "^no rule matches: unmanaged\$"
tc $D explain /no/such
expect_rc 3
expect err "No cgroup /no/such"
echo "ok 2 explain via tierd (same output as standalone)"

# 3. apply --dry-run through the daemon: exactly what drifted.
tc $D apply --dry-run
expect_rc 0
expect out "^dry run \\(tierd, $T/bus\\): [0-9]+ cgroups, [0-9]+ managed, 0 would change, [0-9]+ unchanged, 0 failed\$"
printf 'promote\n' >"$CG/fast/a/memory.numa_balancing"
printf '0\n' >"$CG/batch/b/memory.low"
tc $D apply --dry-run
expect_rc 0
expect out "^/fast/a: memory.numa_balancing promote -> full \\(rule fast, class fast\\)\$"
expect out "^/batch/b: memory.low 0 -> 16777216 \\(rule batch, class batch\\)\$"
expect out ", 2 would change, [0-9]+ unchanged, 0 failed\$"
[ "$(mode_of fast/a)" = promote ] || fail "a dry run wrote"
tc $D --json apply --dry-run
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["summary"]["changes"] == 2 and {c["cgroup"]: c["new"] for c in d["changes"]} == {"/fast/a": "full", "/batch/b": "16777216"}, d' "$T/out" ||
	fail "apply --dry-run --json via tierd"
echo "ok 3 dry-run diff via tierd"

# 4. reload: a broken file keeps the old policy, tierctl says so (exit 1),
#    and explain keeps answering from the daemon's (old, good) policy while
#    the files alone no longer load.
printf '[class:broken]\nmode = sideways\n' >"$T/etc/tierd.conf.d/50-broken.conf"
tc $D reload
expect_rc 1
expect err "tierd kept its previous policy: .*50-broken.conf:2: "
tc $D explain /fast/a
expect_rc 0
expect out "^class: +fast\$"
tc --no-daemon --config "$CONF" explain /fast/a
expect_rc 1
expect err "50-broken.conf:2: "
tc $D status
expect out "last reload FAILED, old policy kept"
rm -f "$T/etc/tierd.conf.d/50-broken.conf"
sed 's/^weight = 300$/weight = 500/' "$CONF" >"$CONF.new" && mv "$CONF.new" "$CONF"
wait_log 'Policy reloaded'
tc $D reload
expect_rc 0
expect out "^tierd reloaded its policy\$"
tc $D explain /fast/a
expect out "^weight: +500\$"
cat "$T/out"
wait_mode fast/a full
echo "ok 4 reload via tierd"

stop_tierd

# 5. No daemon: --daemon and reload fail with exit 6 and say why; the auto
#    mode with files named works standalone; --no-daemon with reload is a
#    usage error.
tc $D status
expect_rc 6
expect err "tierd is not running \\(nobody listens on "
tc --bus-socket "$T/bus" reload
expect_rc 6
tc --no-daemon reload
expect_rc 2
tc --config "$CONF" --bus-socket "$T/bus" explain /fast/a
expect_rc 0
expect out "^policy: +$CONF\$"
echo "ok 5 without tierd"

# 6. The system bus: a private dbus-daemon (DBUS_SYSTEM_BUS_ADDRESS) with
#    the policy file tierd ships.
if ! command -v dbus-daemon >/dev/null 2>&1; then
	echo "ok 6 # skip: no dbus-daemon"
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	echo "ok 6 # skip: needs root and setpriv (a second user for the policy)"
	exit 0
fi
cat >"$T/system.conf" <<EOC
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$T/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus"
           send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus"
           send_interface="org.freedesktop.DBus.Introspectable"/>
  </policy>
  <include>$SRCDIR/etc/dbus-1/system.d/org.tierd.Manager1.conf</include>
</busconfig>
EOC
: >"$T/dbus.addr"
dbus-daemon --config-file="$T/system.conf" --nofork --nopidfile --print-address=1 \
	>"$T/dbus.addr" 2>"$T/dbus.log" &
DBUS_PID=$!
trap 'kill $DBUS_PID 2>/dev/null; cleanup' EXIT
"$WAITFOR" -t 10 "$T/dbus.addr" '^unix:' ||
	fail "dbus-daemon did not start: $(cat "$T/dbus.log")"
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T/system_bus_socket"
chmod 0755 "$T"
chmod 0666 "$T/system_bus_socket"

start_tierd --system-bus
"$WAITFOR" -t 10 "$LOG" 'Bus API org.tierd.Manager1 on the system bus|Cannot own' ||
	fail "tierd did not say whether it owns its name"
grep -q 'on the system bus' "$LOG" || fail "tierd does not own org.tierd.Manager1"

# Root, with the socket gone: the system bus.
tc --daemon --bus-socket "$T/no-socket" status
expect_rc 0
expect out "^tierd \\(the system bus\\): "
tc --daemon --bus-socket "$T/no-socket" explain /batch/b
expect_rc 0
expect out "^policy: +tierd \\(the system bus\\)\$"

# Another user: reads are allowed, reload is not.
nobody() {
	rc=0
	setpriv --reuid=65534 --regid=65534 --clear-groups env \
		DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" \
		"$TIERCTL" --daemon --bus-socket "$T/bus" --cgroup-root "$CG" --sysfs-root "$SYS" \
		--procfs-root "$PROC" "$@" >"$T/out" 2>"$T/err" || rc=$?
}
chmod -R a+rX "$T/cg" "$T/sys" "$T/proc" "$T/etc"
nobody status
expect_rc 0
expect out "^tierd \\(the system bus\\): "
nobody apply --dry-run
expect_rc 0
nobody reload
expect_rc 5
expect err "tierd refused Reload"
expect err "only root may reload"
echo "ok 6 system bus: tierd owns the name, users read, only root reloads"

# The bus daemon restarts: tierd notices, keeps the socket, and takes its
# name again once the bus is back (retry every 5 s).
kill "$DBUS_PID"
wait "$DBUS_PID" 2>/dev/null
wait_log 'Lost the system bus'
tc --daemon --bus-socket "$T/bus" status
expect_rc 0
: >"$T/dbus.addr"
dbus-daemon --config-file="$T/system.conf" --nofork --nopidfile --print-address=1 \
	>"$T/dbus.addr" 2>"$T/dbus.log" &
DBUS_PID=$!
"$WAITFOR" -t 10 "$T/dbus.addr" '^unix:' || fail "dbus-daemon did not restart"
chmod 0666 "$T/system_bus_socket"
wait_log 'on the system bus again' 20
nobody status
expect_rc 0
expect out "^tierd \\(the system bus\\): "
echo "ok 6b the system bus restarts: tierd takes its name again"

# A second tierd (its own run directory) cannot take the name: it says so
# and keeps the socket.
: >"$T/log2"
mkdir -m 0700 "$T/second"
"$TIERD" --foreground --config "$CONF" --cgroup-root "$CG" --sysfs-root "$SYS" \
	--procfs-root "$PROC" --no-proc-connector --no-systemd --bus-socket "$T/second/bus2" \
	--system-bus --dry-run >>"$T/log2" 2>&1 &
pid2=$!
"$WAITFOR" -t 20 "$T/log2" 'tierd started' || fail "second tierd did not start"
grep -q 'another tierd has it' "$T/log2" || { cat "$T/log2"; fail "name clash not reported"; }
kill "$pid2"; wait "$pid2"
stop_tierd
echo "ok 7 name already owned"
exit 0
