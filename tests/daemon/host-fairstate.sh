#!/bin/sh
# What fairness holds survives a restart (host, fake tree with tier-aware
# limits): two cgroups that want 800M of fast tier each get 512M, enforced
# by lowering memory.high from the 2G someone had set to 1G; tierd keeps
# the value to give back in its run directory (fair-state, 0600, root's).
#  1. killed (SIGKILL) and started again with a policy under which neither
#     is limited any more: the 2G come back, not tierd's own 1G;
#  2. a value someone wrote while tierd was down is what is given back;
#  3. a clean SIGTERM gives back what fairness holds and removes the file;
#  4. a state file others can write to is not believed.
. "$(dirname "$0")/lib-host.sh"

mk_fake_host
G=2147483648 L=1073741824
mkdir -p "$PROC/self"
printf '30 22 0:26 / %s rw - cgroup2 cgroup2 rw,memory_tiered_limits\n' "$CG" >"$PROC/self/mountinfo"
# fair_cgroup PATH: 400M on the fast node, 400M on the slow one, memory.high 2G.
fair_cgroup() {
	s=$T/stage/fair.$$
	rm -rf "$s"
	mkdir -p "$s"
	fill_cgroup "$s"
	printf '%s\n' $G >"$s/memory.high"
	printf '838860800\n' >"$s/memory.current"
	printf 'max\n' >"$s/memory.toptier_high"
	printf 'anon N0=419430400 N1=419430400\nfile N0=0 N1=0\n' >"$s/memory.numa_stat"
	mv "$s" "$CG/$1"
}
policy() {
	cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
rebalance_interval = 1h
fast_tier_reserve = 0
[class:gold]
mode = full
[rule:gold]
class = gold
cgroup = $1
EOC
}
high_of() {
	cat "$CG/$1/memory.high"
}
wait_high() {
	"$WAITFOR" -t 10 "$CG/$1/memory.high" "^$2\$" ||
		fail "$1: memory.high is $(high_of "$1"), expected $2"
}
kill9() {
	kill -KILL "$TIERD_PID"
	wait "$TIERD_PID" 2>/dev/null
	TIERD_PID=
}

mk_cgroup gold
fair_cgroup gold/a
fair_cgroup gold/b
policy '/gold/*'

# Both limited: memory.high 2G -> 1G, and the file says what to give back.
start_tierd
wait_high gold/a $L
wait_high gold/b $L
[ -f "$T/fair-state" ] || fail "no fair-state file in the run directory"
[ "$(stat -c '%a %u' "$T/fair-state")" = "600 $(id -u)" ] ||
	fail "fair-state is $(stat -c '%a %u' "$T/fair-state")"
grep -q "^/gold/a 1 0 .* $L $G -\$" "$T/fair-state" || { cat "$T/fair-state"; fail "fair-state lacks /gold/a"; }

# 1. Killed; started again with /gold/b unmanaged: alone, /gold/a is no
#    longer limited.  Both get their 2G back.
kill9
[ "$(high_of gold/a)" = $L ] || fail "memory.high changed while tierd was dead"
policy '/gold/a'
start_tierd
wait_high gold/a $G
wait_high gold/b $G
wait_log 'Fairness held 2 cgroups before this start'
stop_tierd
echo "ok 1 after SIGKILL and a restart, the saved memory.high is given back"

# 2. Limited again, killed; someone sets 3G while tierd is down: that stays.
policy '/gold/*'
start_tierd
wait_high gold/a $L
kill9
printf '3221225472\n' >"$CG/gold/a/memory.high"
policy '/gold/a'
start_tierd
wait_high gold/b $G
[ "$(high_of gold/a)" = 3221225472 ] || fail "/gold/a: memory.high $(high_of gold/a), expected 3221225472"
stop_tierd
printf '%s\n' $G >"$CG/gold/a/memory.high"
echo "ok 2 a value written while tierd was down is kept"

# 3. A clean stop gives back what fairness holds and leaves no file.
policy '/gold/*'
start_tierd
wait_high gold/a $L
wait_high gold/b $L
stop_tierd
[ "$(high_of gold/a)" = $G ] || fail "/gold/a: memory.high $(high_of gold/a) after SIGTERM, expected $G"
[ "$(high_of gold/b)" = $G ] || fail "/gold/b: memory.high $(high_of gold/b) after SIGTERM, expected $G"
[ -e "$T/fair-state" ] && fail "fair-state left behind by a clean stop"
grep -q 'Giving back what fairness holds of 2 cgroups' "$LOG" || fail "the stop does not say so"
echo "ok 3 SIGTERM gives back what fairness held"

# 4. A state file others could have written: ignored, with a warning.
start_tierd
wait_high gold/a $L
kill9
chmod 0666 "$T/fair-state"
policy '/gold/a'
start_tierd
wait_log 'fair-state is writable by everyone'
[ "$(high_of gold/b)" = $L ] || fail "a world-writable state file was believed"
stop_tierd
echo "ok 4 a state file others can write to is ignored"
exit 0
