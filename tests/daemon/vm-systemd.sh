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
#    old policy in force, and the failure in its status text.
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
systemd-run --unit=tierd-demo-web.service --quiet sleep 120
"$WAITFOR" -t 20 "$CG/system.slice/tierd-demo-web.service/memory.low" '^10485760$' ||
	fail "the old policy is not applied after a bad reload"
systemctl stop tierd.service
kill $jpid 2>/dev/null
echo "PASS"
