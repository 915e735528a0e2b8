#!/bin/sh
# Host test of tierd against a fake cgroup tree (no VM, no root needed):
# startup reconcile, a new cgroup, a nested burst, a removed cgroup, a
# reload with a broken drop-in (old policy kept, FILE:LINE logged), a good
# edit picked up by inotify, dry-run, and a clean exit under ASan.
. "$(dirname "$0")/lib-host.sh"

mk_fake_host
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h

[class:fast]
mode = full

[class:pinned]
mode = promote
memory_low = 64M

[class:batch]
mode = off

[rule:fast]
class = fast
cgroup = /fast/**

[rule:pinned]
class = pinned
cgroup = /pinned*

[rule:batch]
class = batch
cgroup = /batch/**
EOC

# 1. A cgroup that exists before the daemon starts: the startup reconcile.
mk_cgroup fast
mk_cgroup fast/old
mk_cgroup other
start_tierd
wait_mode fast/old full
[ "$(mode_of other)" = inherit ] || fail "an unmanaged cgroup was written"
echo "ok 1 startup reconcile"

# 2. A new cgroup gets its class at once (inotify, no reconcile for 1h).
mk_cgroup fast/new1
wait_mode fast/new1 full
mk_cgroup pinned-a
wait_mode pinned-a promote
"$WAITFOR" -t 5 "$CG/pinned-a/memory.low" '^67108864$' || fail "memory.low not written"
echo "ok 2 new cgroup"

# 3. A nested burst: a whole tree appears at once (3 levels x 6 = 258 dirs),
#    then 100 siblings one by one.
mk_cgroup batch
mk_cgroup_tree batch/tree 3 6
for p in batch/tree batch/tree/c0 batch/tree/c5/c5 batch/tree/c3/c2/c1 batch/tree/c5/c5/c5; do
	wait_mode "$p" off
done
n=$(find "$CG/batch/tree" -name memory.numa_balancing | wc -l)
bad=$(find "$CG/batch/tree" -name memory.numa_balancing -exec grep -L '^off$' {} + | wc -l)
[ "$bad" = 0 ] || fail "$bad of $n cgroups of the burst lack the knob"
i=0
while [ $i -lt 100 ]; do
	mk_cgroup "fast/s$i"
	i=$((i + 1))
done
wait_mode fast/s99 full
bad=$(for i in $(seq 0 99); do echo "$i $(mode_of "fast/s$i")"; done | grep -v " full$" | tee -a "$T/bad" | wc -l)
[ "$bad" = 0 ] || fail "$bad of 100 sibling cgroups lack the knob"
echo "ok 3 nested burst ($n nested + 100 siblings)"

# 4. A cgroup removed right after it appeared: no error, the daemon goes on.
mk_cgroup fast/gone
rm -rf "$CG/fast/gone"
mk_cgroup fast/after-gone
wait_mode fast/after-gone full
grep -q 'fast/gone.*failed' "$LOG" && fail "a vanished cgroup was reported as an error"
kill -0 "$TIERD_PID" || fail "tierd died"
echo "ok 4 removed cgroup"

# 5. A broken drop-in + SIGHUP: every FILE:LINE error logged, old policy kept.
cat >"$T/etc/tierd.conf.d/50-broken.conf" <<EOC
[class:broken]
mode = sideways

[rule:broken]
class = nosuchclass
cgroup = /x
EOC
kill -HUP "$TIERD_PID"
wait_log 'keeping the previous policy'
grep -q '50-broken.conf:2: ' "$LOG" || fail "no FILE:LINE error for the bad mode"
grep -q '50-broken.conf:5: ' "$LOG" || fail "no FILE:LINE error for the unknown class"
mk_cgroup fast/after-bad-reload
wait_mode fast/after-bad-reload full
echo "ok 5 bad reload keeps the old policy"

# 6. A good edit is picked up by inotify on the config files (no SIGHUP).
rm -f "$T/etc/tierd.conf.d/50-broken.conf"
sed 's/^mode = full$/mode = promote/' "$CONF" >"$CONF.new" && mv "$CONF.new" "$CONF"
wait_log 'Policy reloaded'
wait_mode fast/old promote
wait_mode fast/s42 promote
echo "ok 6 config change reloads"

# 7. The bus API (org.tierd.Manager1 on the private socket), through busctl.
if command -v busctl >/dev/null 2>&1; then
	bc() {
		busctl --address="unix:path=$T/bus" call org.tierd.Manager1 /org/tierd/Manager1 \
			org.tierd.Manager1 "$@"
	}
	bc Status | grep -q 'cgroups, .* in a class' || fail "bus Status"
	bc Explain s /fast/old | grep -q 'class fast, rule fast' || fail "bus Explain"
	bc DryRun t 0 | grep -q '^a(ssssss)t 0 0$' || fail "bus DryRun is not empty on an applied tree"
	printf 'promote\n' >"$CG/fast/old/memory.numa_balancing.new" &&
		mv "$CG/fast/old/memory.numa_balancing.new" "$CG/fast/old/memory.numa_balancing"
	sed 's/^mode = promote$/mode = full/' "$CONF" >"$CONF.new" && mv "$CONF.new" "$CONF"
	bc Reload | grep -q '^bs true' || fail "bus Reload"
	bc Explain s /nope 2>&1 | grep -q 'No cgroup' || fail "bus Explain of a missing cgroup"
	echo "ok 7 bus API"
else
	echo "ok 7 # skip: no busctl"
fi

stop_tierd
echo "ok 7b clean exit"

# 8. Dry run: logs what it would write, writes nothing.
mk_cgroup batch/dry
start_tierd --dry-run
wait_log 'batch/dry: would set memory.numa_balancing inherit -> off'
mk_cgroup batch/dry2
wait_log 'batch/dry2: would set'
[ "$(mode_of batch/dry)" = inherit ] || fail "dry run wrote batch/dry"
[ "$(mode_of batch/dry2)" = inherit ] || fail "dry run wrote batch/dry2"
stop_tierd
echo "ok 8 dry run"

# 9. A broken policy at startup: refuse to start, with FILE:LINE.
printf '[class:x]\nmode = nope\n' >"$T/etc/bad.conf"
rc=0
"$TIERD" --foreground --config "$T/etc/bad.conf" --cgroup-root "$CG" --sysfs-root "$SYS" \
	--procfs-root "$PROC" --no-proc-connector --no-systemd --bus-socket "$T/bus" \
	>"$T/bad.log" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "tierd with a bad policy exited $rc, expected 1"
grep -q 'bad.conf:2: ' "$T/bad.log" || { cat "$T/bad.log"; fail "no FILE:LINE at startup"; }
echo "ok 9 bad policy at startup"

# 10. No proc connector (in a new network namespace the kernel side of the
#     connector is absent; since Linux 6.6 dropping CAP_NET_ADMIN no longer
#     takes it away): run without it, say so once.
if [ "$(id -u)" = 0 ] && unshare --net true 2>/dev/null; then
	: >"$LOG"
	unshare --net \
		"$TIERD" --foreground --config "$CONF" --cgroup-root "$CG" --sysfs-root "$SYS" \
		--procfs-root "$PROC" --no-systemd --no-bus-api --bus-socket "$T/bus" >>"$LOG" 2>&1 &
	TIERD_PID=$!
	wait_log 'tierd started'
	[ "$(grep -c 'proc connector) unavailable' "$LOG")" = 1 ] ||
		fail "a missing proc connector was not reported exactly once"
	mk_cgroup fast/no-connector
	wait_mode fast/no-connector full
	stop_tierd
	echo "ok 10 runs without the proc connector"
else
	echo "ok 10 # skip: needs root and unshare --net"
fi

# 11. exe= rules and cgroup.events: a process (fake: $PROC/4242/exe) appears
#     in a cgroup's cgroup.procs and the cgroup becomes populated.
cat >"$T/etc/exe.conf" <<EOC
[daemon]
reconcile_interval = 1h
[class:db]
mode = promote
[rule:db]
class = db
exe = /usr/sbin/mysqld
EOC
mk_cgroup apps
mk_cgroup apps/db
mkdir -p "$PROC/4242"
ln -sf /usr/sbin/mysqld "$PROC/4242/exe"
CONF_SAVE=$CONF CONF=$T/etc/exe.conf
start_tierd
CONF=$CONF_SAVE
[ "$(mode_of apps/db)" = inherit ] || fail "apps/db set before it had a process"
printf '4242\n' >"$CG/apps/db/cgroup.procs"
printf 'populated 1\nfrozen 0\n' >"$CG/apps/db/cgroup.events"
wait_mode apps/db promote
grep -q 'apps/db: memory.numa_balancing inherit -> promote (.*processes moved in)' "$LOG" ||
	fail "not applied through cgroup.events"
rm -rf "$CG/apps/db"
mk_cgroup apps/db2
wait_log 'apps/db2: created'
stop_tierd
echo "ok 11 exe rule through cgroup.events"

# 12. cgroup.events drives cleanup: a cgroup that empties leaves the fair
#     share of the fast tier at once (a 1 h rebalance interval: no timer
#     does it), and joins again when processes come back.
cat >"$T/etc/fair.conf" <<EOC
[daemon]
reconcile_interval = 1h
rebalance_interval = 1h
fast_tier_reserve = 0
[class:gold]
mode = full
toptier_min = 25%
[rule:gold]
class = gold
cgroup = /gold/*
EOC
mk_cgroup gold
mk_cgroup gold/a
mk_cgroup gold/b
CONF_SAVE=$CONF CONF=$T/etc/fair.conf
start_tierd
CONF=$CONF_SAVE
grep -q '/gold/a: fast-tier target 256.0M' "$LOG" || fail "no startup target for /gold/a"
target_of() {
	"$TIERCTL" --daemon --bus-socket "$T/bus" --cgroup-root "$CG" --sysfs-root "$SYS" \
		--procfs-root "$PROC" --json status |
		python3 -c 'import json,sys; print({c["cgroup"]: c["target_bytes"] for c in json.load(sys.stdin)["cgroups"]}[sys.argv[1]])' "$1"
}
[ "$(target_of /gold/b)" = 268435456 ] || fail "/gold/b target $(target_of /gold/b) before"
printf 'populated 0\nfrozen 0\n' >"$CG/gold/b/cgroup.events"
wait_log '/gold/b: empty now \(cgroup.events\), leaving the fair share'
wait_log 'Rebalanced 1 cgroups \(cgroup change\)'
[ "$(target_of /gold/b)" = None ] || fail "/gold/b still has a target after it emptied"
printf 'populated 1\nfrozen 0\n' >"$CG/gold/b/cgroup.events"
wait_log 'Rebalanced 2 cgroups \(cgroup change\)'
[ "$(target_of /gold/b)" = 268435456 ] || fail "/gold/b did not get its target back"
stop_tierd
echo "ok 12 an emptied cgroup leaves the fair share (cgroup.events)"
exit 0
