#!/bin/sh
# In the VM with systemd as init (run-vm --systemd): tierd runs as a service
# under the hardened unit of etc/tierd.service (Type=notify-reload,
# ProtectSystem=strict, ProtectKernelTunables=yes, ReadWritePaths=/sys/fs/cgroup).
# Checks that
#  - it starts (READY=1) and the cgroup tree stays writable under the hardening;
#  - a transient unit from systemd-run gets its class: memory.numa_balancing
#    written directly (patched kernel) and MemoryLow= set through systemd's
#    SetUnitProperties (systemctl show reports it, memory.low holds it);
#  - its changes are in the journal with CGROUP=, CLASS=, RULE=, KNOB=, OLD=, NEW=;
#  - `systemctl reload` with a broken drop-in keeps the service running, the
#    old policy in force, and the failure in its status text;
#  - tierctl finds the service: root on /run/tierd/bus, another user through
#    org.tierd.Manager1 on the system bus (dbus-daemon with the shipped
#    policy: reads allowed, reload refused); tierctl reload reports the
#    broken drop-in; without the service, tierctl --daemon exits 6.
. "$(dirname "$0")/lib-vm.sh"

[ -d /run/systemd/system ] || skip "not booted with systemd (run-vm --systemd)"
knob=0
mkdir "$CG/tierd-probe" 2>/dev/null
[ -e "$CG/tierd-probe/memory.numa_balancing" ] && knob=1
[ -e "$CG/system.slice/memory.numa_balancing" ] && knob=1
rmdir "$CG/tierd-probe" 2>/dev/null
echo "kernel knob present: $knob"

# /tmp is private to the service (PrivateTmp=yes): keep its files in /run.
R=/run/tierd-test
mkdir -p "$R/tierd.conf.d"
cat >"$R/tierd.conf" <<EOC
[daemon]
reconcile_interval = 1h
[class:batch]
mode = off
memory_low = 10M
[rule:batch]
class = batch
unit = tierd-demo-*.service
EOC
# Install tierd into the VM's writable overlay, as make install would: the
# service's private /tmp would hide a checkout that lives under /tmp.
mkdir -p "$R/sbin" "$R/lib"
cp "$BUILD/bin/tierd" "$R/sbin/tierd" && cp -P "$BUILD"/lib/libtier.so* "$R/lib/" ||
	fail "cannot copy tierd into $R"
# The system bus, with tierd's D-Bus policy, before tierd starts (it takes
# its name at startup).
sysbus=0
if command -v dbus-daemon >/dev/null 2>&1; then
	mkdir -p /etc/dbus-1/system.d
	cp "$TOP/etc/dbus-1/system.d/org.tierd.Manager1.conf" /etc/dbus-1/system.d/
	if systemctl start dbus.socket dbus.service 2>"$R/dbus.err"; then
		sysbus=1
	else
		echo "no system bus in the VM: $(cat "$R/dbus.err")"
	fi
fi
sed -e "s|^ExecStart=.*|ExecStart=$R/sbin/tierd --config $R/tierd.conf -v|" \
	-e '/^ConditionPathExists=/d' "$TOP/etc/tierd.service" >/run/systemd/system/tierd.service
systemctl daemon-reload
systemctl start tierd.service || {
	systemctl status tierd.service --no-pager; journalctl -u tierd --no-pager | tail -30
	fail "tierd.service did not start"; }
echo "status: $(systemctl show -p StatusText --value tierd.service)"

systemd-run --unit=tierd-demo-db.service --quiet sleep 120 || fail "systemd-run failed"
u=system.slice/tierd-demo-db.service
"$WAITFOR" -t 20 "$CG/$u/memory.low" '^10485760$' || {
	journalctl -u tierd --no-pager | tail -30; fail "memory.low of $u not set"; }
low=$(systemctl show -p MemoryLow --value tierd-demo-db.service)
[ "$low" = 10485760 ] || fail "systemd does not know MemoryLow (got '$low'): not set through D-Bus"
echo "MemoryLow of tierd-demo-db.service: $low (through SetUnitProperties)"
if [ $knob = 1 ]; then
	"$WAITFOR" -t 10 "$CG/$u/memory.numa_balancing" '^off$' ||
		fail "memory.numa_balancing of $u not written under the hardened unit"
	echo "memory.numa_balancing of $u: off (the cgroup tree is writable under the unit)"
fi
# systemd keeps the value across its own daemon-reload (it owns it now).
systemctl daemon-reload
low=$(cat "$CG/$u/memory.low")
[ "$low" = 10485760 ] || fail "memory.low lost across daemon-reload ($low)"

# The bus API for tierctl on /run/tierd/bus (RuntimeDirectory= under ProtectSystem=strict).
busctl --address=unix:path=/run/tierd/bus call org.tierd.Manager1 /org/tierd/Manager1 \
	org.tierd.Manager1 Explain s "/$u" >"$R/explain" 2>&1 || { cat "$R/explain"; fail "bus API unreachable"; }
grep -q 'class batch, rule batch' "$R/explain" || { cat "$R/explain"; fail "bus Explain"; }
echo "bus API: $(cat "$R/explain")"

# tierctl as the daemon's client: root over the private socket.
TIERCTL=$BUILD/bin/tierctl
"$TIERCTL" status >"$R/st" 2>&1 || { cat "$R/st"; fail "tierctl status"; }
grep -q '^tierd (/run/tierd/bus): ' "$R/st" || { cat "$R/st"; fail "tierctl status did not ask tierd"; }
grep -Eq "^/$u +batch " "$R/st" || { cat "$R/st"; fail "tierctl status lacks $u"; }
"$TIERCTL" explain "/$u" >"$R/ex" 2>&1 || { cat "$R/ex"; fail "tierctl explain"; }
grep -q '^policy: *tierd (/run/tierd/bus)$' "$R/ex" && grep -q '^class: *batch$' "$R/ex" ||
	{ cat "$R/ex"; fail "tierctl explain did not answer from tierd"; }
"$TIERCTL" apply --dry-run >"$R/dry" 2>&1 || { cat "$R/dry"; fail "tierctl apply --dry-run"; }
grep -q '^dry run (tierd, /run/tierd/bus): .* 0 would change' "$R/dry" ||
	{ cat "$R/dry"; fail "tierctl dry run via tierd"; }
echo "tierctl (root): $(head -1 "$R/st")"
# Another user: the socket is root's; the system bus lets it read, not reload.
if [ $sysbus = 1 ]; then
	busctl status org.tierd.Manager1 >/dev/null 2>&1 ||
		{ journalctl -u tierd --no-pager | grep -i 'bus' | tail; fail "tierd does not own org.tierd.Manager1"; }
	rc=0
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TIERCTL" status >"$R/st2" 2>&1 || rc=$?
	[ $rc = 0 ] && grep -q '^tierd (the system bus): ' "$R/st2" ||
		{ cat "$R/st2"; fail "an unprivileged tierctl status did not reach tierd on the system bus"; }
	rc=0
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TIERCTL" reload >"$R/rl2" 2>&1 || rc=$?
	[ $rc = 5 ] && grep -q 'refused Reload' "$R/rl2" ||
		{ cat "$R/rl2"; fail "an unprivileged tierctl reload was not refused (exit $rc)"; }
	echo "tierctl (nobody): $(head -1 "$R/st2"); reload refused"
else
	echo "tierctl (nobody): skipped, no system bus"
fi

journalctl -u tierd.service -o verbose --no-pager >"$R/journal" 2>&1
for f in CGROUP=/$u CLASS=batch RULE=batch KNOB=memory.low OLD=0 NEW=10485760; do
	grep -q "^ *$f\$" "$R/journal" || { tail -40 "$R/journal"; fail "no journal field $f"; }
done
echo "journal: structured fields present"
grep -q 'Listening to process events' "$R/journal" ||
	fail "the proc connector does not work under the hardened unit"
echo "proc connector: works under the unit's sandbox"

# The journal as it grows, to wait for lines with inotify.
journalctl -u tierd.service -f -o cat --no-pager >"$R/follow" 2>&1 &
jpid=$!
printf '[class:x]\nmode = bogus\n' >"$R/tierd.conf.d/90-bad.conf"
systemctl reload tierd.service || fail "systemctl reload failed"
# systemd 252 has no Type=notify-reload: reload returns before tierd is done.
"$WAITFOR" -t 20 "$R/follow" 'keeping the previous policy' || fail "no failed reload in the journal"
systemctl is-active --quiet tierd.service || fail "tierd died on a bad reload"
st=$(systemctl show -p StatusText --value tierd.service)
echo "status after a bad reload: $st"
case $st in *FAILED*90-bad.conf:2*) ;; *) fail "status does not show the failed reload" ;; esac
journalctl -u tierd.service --no-pager | grep -q '90-bad.conf:2: ' || fail "no FILE:LINE in the journal"
rc=0
"$TIERCTL" reload >"$R/rl" 2>&1 || rc=$?
[ $rc = 1 ] && grep -q 'kept its previous policy: .*90-bad.conf:2: ' "$R/rl" ||
	{ cat "$R/rl"; fail "tierctl reload of a broken drop-in: exit $rc"; }
echo "tierctl reload: $(head -1 "$R/rl")"
systemd-run --unit=tierd-demo-web.service --quiet sleep 120
"$WAITFOR" -t 20 "$CG/system.slice/tierd-demo-web.service/memory.low" '^10485760$' ||
	fail "the old policy is not applied after a bad reload"
systemctl stop tierd.service
rc=0
"$TIERCTL" --daemon status >"$R/st3" 2>&1 || rc=$?
[ $rc = 6 ] || { cat "$R/st3"; fail "tierctl --daemon without tierd exited $rc, expected 6"; }
kill $jpid 2>/dev/null
echo "PASS"
