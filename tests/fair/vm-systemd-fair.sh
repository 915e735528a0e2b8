#!/bin/sh
# tests/fair/vm-systemd-fair.sh [TIERD]: in the VM with systemd as init
# (tests/daemon/run-in-vm.sh boots it so for vm-systemd*), two transient
# units from systemd-run share the fast tier under tierd with the tier-aware
# limits: each one's MemoryHigh= must be set through systemd
# (SetUnitProperties, runtime: `systemctl show` knows it) to the value whose
# memory.toptier_high is its target, and come back when it is let go.
# Skips without systemd or without the tier-aware limits.
. "$(dirname "$0")/../daemon/lib-vm.sh"

# On failure, show what tierd logged.
ffail() {
	echo "--- tierd journal"
	tail -n 40 "$R/follow"
	kill "$jpid" 2>/dev/null
	fail "$@"
}

TIERD=${1:-$BUILD/bin/tierd}
LOAD=$BUILD/fair/fair-load

[ -d /run/systemd/system ] || skip "not booted with systemd (run-vm --systemd)"
[ -x "$LOAD" ] || skip "no $LOAD (make fair-load)"
mkdir "$CG/fair-probe" 2>/dev/null
[ -e "$CG/fair-probe/memory.toptier_high" ] || {
	rmdir "$CG/fair-probe"; skip "kernel without tier-aware limits (memory.toptier_high)"; }
rmdir "$CG/fair-probe"
opts=$(awk '$2 == "/sys/fs/cgroup" && $3 == "cgroup2" { print $4 }' /proc/mounts)
mount -o "remount,$opts,memory_tiered_limits" /sys/fs/cgroup || fail "remount with memory_tiered_limits"
grep ' /sys/fs/cgroup ' /proc/mounts
echo 1 >/sys/kernel/mm/numa/demotion_enabled

R=/run/tierd-fair
mkdir -p "$R"
cat >"$R/tierd.conf" <<EOC
[daemon]
reconcile_interval = 1h
rebalance_interval = 1s
fast_tier_reserve = 48M
[class:shared]
mode = full
[rule:fair]
class = shared
unit = fair-*.service
EOC
# Install tierd into /run, as make install would: the unit's PrivateTmp=yes
# hides a checkout that lives under /tmp.
mkdir -p "$R/sbin" "$R/lib"
cp "$TIERD" "$R/sbin/tierd" && cp -P "$(dirname "$TIERD")"/../lib/libtier.so* "$R/lib/" ||
	fail "cannot copy tierd into $R"
sed -e "s|^ExecStart=.*|ExecStart=$R/sbin/tierd --config $R/tierd.conf -v|" \
	-e '/^ConditionPathExists=/d' "$TOP/etc/tierd.service" >/run/systemd/system/tierd.service
systemctl daemon-reload
systemctl start tierd.service || {
	journalctl -u tierd --no-pager | tail -30; fail "tierd.service did not start"; }
journalctl -u tierd.service -f -o cat --no-pager >"$R/follow" 2>&1 &
jpid=$!

# Two hogs of 120 MB: together more than the 190 MB to share, so each is
# limited to about half, through systemd.
for u in fair-hog1 fair-hog2; do
	systemd-run --unit=$u.service --quiet "$LOAD" 120 default 300 || fail "systemd-run $u"
done
if ! "$WAITFOR" -t 30 "$R/follow" 'Fair shares of'; then
	ffail "$TIERD logged no fair-share round ('Fair shares of') within 30 s"
fi
for u in fair-hog1 fair-hog2; do
	"$WAITFOR" -t 60 "$R/follow" "$u.service: memory.high max -> " ||
		ffail "tierd did not limit $u"
	# tierd may move the value again while we read it: the two must
	# agree within a few rebalance rounds (a raw write never agrees).
	n=0
	while :; do
		high=$(cat "$CG/system.slice/$u.service/memory.high")
		prop=$(systemctl show -p MemoryHigh --value $u.service)
		[ "$prop" = "$high" ] && break
		n=$((n + 1))
		[ $n -ge 10 ] && ffail "$u: MemoryHigh=$prop but memory.high $high: not set through systemd"
		sleep 1
	done
	echo "$u: memory.high $high, MemoryHigh= $prop," \
		"memory.toptier_high $(cat "$CG/system.slice/$u.service/memory.toptier_high")"
done
grep 'fast-tier target' "$R/follow" | tail -n 2

# One leaves: the other's share covers its demand and its MemoryHigh= comes back.
systemctl stop fair-hog2.service
"$WAITFOR" -t 60 "$R/follow" 'fair-hog1.service: memory.high [0-9]* -> max' ||
	ffail "fair-hog1's memory.high was not given back"
prop=$(systemctl show -p MemoryHigh --value fair-hog1.service)
[ "$prop" = infinity ] || ffail "fair-hog1: MemoryHigh=$prop after it was let go"
echo "fair-hog1: MemoryHigh=$prop again after fair-hog2 left"
kill $jpid
systemctl stop fair-hog1.service tierd.service
echo "PASS"
