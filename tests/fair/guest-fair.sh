#!/bin/sh
# tests/fair/guest-fair.sh with-tierd|with-tierd-promotion|without [TIERD]:
# the fairness experiment, run
# inside the two-tier VM as the guest's test (tests/fair/run-fair-vm.sh).
#
# The tiered-limits evaluation's pattern: two hogs start first and take the
# fast tier (100 MB each, placed by the kernel: fast while it has room), then
# a late workload starts (64 MB, first placed on the slow tier, as it would
# land with the fast tier taken).  All three read all of their memory all the
# time.  With NUMA balancing in tiering mode (kernel.numa_balancing=2) and
# demotion on, the kernel alone decides who keeps the fast tier; with tierd
# (tests/fair/fair.conf: one class, equal weights) each gets a target, its
# weighted max-min share of the fast tier, and tierd enforces it (tier-aware
# limits when the kernel has them, else the promotion switch).
#
# Every second (or as fast as the VM manages): each workload's fast- and
# slow-tier bytes, its target
# (`tierctl status`: the same share tierd computes, without its hysteresis
# band), promotions and demotions (memory.stat), Jain's index over
# fast/target.  Lines starting with "FAIR " are for bench/fair.  Where the
# kernel has them, also its exact top-tier bytes (memory.stat "toptier"),
# its ceiling (memory.toptier_high and memory.toptier_max) and the pages
# demoted to the ceiling and for the exchange at it (pgdemote_toptier,
# pgdemote_toptier_exchange); "-" where a kernel has no such key or file.
#
# The run lasts 40 to 150 s after the late workload starts (until it held 80%
# for 5 samples).  With tierd it passes when the late workload reaches >= 80%
# of its target (FAIR_PASS_PCT) and still holds it in the last 3 samples;
# without only reports (exit 0).
# 77 when the kernel cannot do the experiment.
set -u

MODE=${1:-with-tierd}
TOP=${TIERD_VM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${TIERD_VM_BUILD:-$TOP/build}
TIERD=${2:-$BUILD/bin/tierd}
TIERCTL=$BUILD/bin/tierctl
LOAD=$BUILD/fair/fair-load
WAITFOR=$BUILD/test/tierd-waitfor
CONF=$TOP/tests/fair/fair.conf
CG=/sys/fs/cgroup
T=/tmp/tierd-fair
HOG_MB=${FAIR_HOG_MB:-100}
LATE_MB=${FAIR_LATE_MB:-64}
LATE_AT=${FAIR_LATE_AT:-12}		# s after the start of hog1
MAX_AFTER_LATE=${FAIR_MAX_AFTER_LATE:-150}	# s the late workload gets at most (a bound, not a goal: TCG on a loaded host)
PASS_PCT=${FAIR_PASS_PCT:-80}
WORKLOADS="hog1 hog2 late"
mkdir -p "$T"

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; [ -r "$T/tierd.log" ] && tail -n 30 "$T/tierd.log"; exit 1; }
# Whole seconds since boot / since $1, without starting a program.
uptime_s() { read -r up _ </proc/uptime; echo "${up%.*}"; }
since() { read -r up _ </proc/uptime; echo $(( ${up%.*} - $1 )); }

[ -d /sys/devices/virtual/memory_tiering ] || skip "kernel without memory tiers"
ntiers=0
for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
	[ -e "$t" ] && ntiers=$((ntiers + 1))
done
[ $ntiers -ge 2 ] || skip "the VM has only one memory tier"
[ -x "$LOAD" ] || skip "no $LOAD (make fair-load)"
[ -x "$TIERCTL" ] || skip "no $TIERCTL"
echo 2 >/proc/sys/kernel/numa_balancing || skip "cannot set kernel.numa_balancing=2"
echo 1 >/sys/kernel/mm/numa/demotion_enabled || skip "cannot enable demotion"

mkdir -p "$CG/fair"
echo +memory >"$CG/fair/cgroup.subtree_control"
mkdir "$CG/fair/probe"
knob=no toptier=no toptier_stat=no
[ -e "$CG/fair/probe/memory.numa_balancing" ] && knob=yes
# The kernel keeps each cgroup at its top-tier ceiling itself (the second
# revision of the tier-aware limits) where memory.stat counts "toptier".
grep -q '^toptier ' "$CG/fair/probe/memory.stat" 2>/dev/null && toptier_stat=yes
# with-tierd-promotion: leave the tier-aware limits off, so tierd enforces
# the targets with the promotion switch (memory.numa_balancing) instead.
if [ -e "$CG/fair/probe/memory.toptier_high" ] && [ "$MODE" != with-tierd-promotion ]; then
	mount -o remount,nsdelegate,memory_tiered_limits "$CG" && toptier=yes
fi
rmdir "$CG/fair/probe"
case $MODE in
with-tierd|with-tierd-promotion) tierd=yes ;;
without) tierd=no ;;
*) echo "usage: guest-fair.sh with-tierd|with-tierd-promotion|without [TIERD]"; exit 2 ;;
esac
if [ $tierd = yes ] && [ $knob = no ] && [ $toptier = no ]; then
	skip "kernel has neither memory.numa_balancing nor tier-aware limits: tierd cannot enforce targets (boot the patched kernel)"
fi
echo "FAIR-INFO mode=$MODE kernel=$(uname -r) knob=$knob tiered_limits=$toptier" \
	"fast_node_mb=$(awk '/MemTotal/ { printf "%d", $4 / 1024 }' /sys/devices/system/node/node0/meminfo)" \
	"slow_node_mb=$(awk '/MemTotal/ { printf "%d", $4 / 1024 }' /sys/devices/system/node/node1/meminfo)" \
	"smp=$(grep -c '^processor' /proc/cpuinfo) toptier_stat=$toptier_stat"
grep ' /sys/fs/cgroup ' /proc/mounts

tierd_pid=
if [ $tierd = yes ]; then
	[ -x "$TIERD" ] || skip "no $TIERD"
	"$TIERD" --foreground --config "$CONF" --cgroup-root "$CG" --no-systemd \
		--no-proc-connector --no-bus-api >"$T/tierd.log" 2>&1 &
	tierd_pid=$!
	"$WAITFOR" -t 30 "$T/tierd.log" 'tierd started|Cannot start' >/dev/null 2>&1 ||
		fail "tierd did not start"
	grep -q 'Cannot start' "$T/tierd.log" && fail "tierd refused to start"
fi

# start NAME MB PLACE: a workload in /fair/NAME; waits until it has allocated.
start() {
	mkdir "$CG/fair/$1" || fail "mkdir /fair/$1"
	sh -c "echo \$\$ >$CG/fair/$1/cgroup.procs && exec $LOAD $2 $3 300" >"$T/$1.out" 2>&1 &
	eval "pid_$1=\$!"
	"$WAITFOR" -t 60 "$T/$1.out" '^ready' >/dev/null 2>&1 || fail "workload $1 did not start"
	echo "FAIR-EVENT t=$(since "$start_s") start $1 ${2}MB placed=$3"
}

# One sample: one tierctl (the targets) and one awk (everything else), as
# starting programs is what costs under TCG.  Per workload: bytes on node 0
# (fast) and node 1 (slow) from memory.numa_stat (anon + file), target,
# memory.stat counters (read once: demoted is the sum of the reclaim's
# pgdemote_kswapd/direct/khugepaged/proactive, which the ceiling's demotions
# go through too, so pgdemote_toptier* are a breakdown, not added), the
# knobs, and where the kernel has them the exact top-tier bytes and the
# ceiling files.  Writes "FAST TARGET" of the late workload to $T/late for
# the loop.
sample() { # ELAPSED
	"$TIERCTL" --json --config "$CONF" --cgroup-root "$CG" status 2>/dev/null |
	awk -v t="$1" -v dir="$CG/fair" -v wls="$WORKLOADS" -v late="$T/late" '
	function first(f,    l) {
		l = "-"
		if ((getline l < f) <= 0) l = "-"
		close(f)
		return l
	}
	# memory.stat f into S (key -> value); "-" for a key it does not have.
	function readstat(f,    l, a) {
		delete S
		while ((getline l < f) > 0) { split(l, a, " "); S[a[1]] = a[2] }
		close(f)
	}
	function key(k) { return (k in S) ? S[k] : "-" }
	function num(k) { return (k in S) ? S[k] + 0 : 0 }
	/"cgroup":/ { c = $2; gsub(/[",]/, "", c) }
	/"target_bytes":/ { v = $2; gsub(/[,]/, "", v); tgt[c] = (v == "null" ? 0 : v) }
	END {
		n = split(wls, W, " "); m = 0; s = 0; q = 0
		for (i = 1; i <= n; i++) {
			w = W[i]; d = dir "/" w
			fast = 0; slow = 0; ok = 0
			while ((getline l < (d "/memory.numa_stat")) > 0) {
				ok = 1
				split(l, a, " ")
				if (a[1] != "anon" && a[1] != "file") continue
				for (j = 2; j in a; j++) {
					split(a[j], kv, "=")
					if (kv[1] == "N0") fast += kv[2]; else slow += kv[2]
				}
				delete a
			}
			close(d "/memory.numa_stat")
			if (!ok) continue
			readstat(d "/memory.stat")
			p = num("pgpromote_success")
			dm = num("pgdemote_kswapd") + num("pgdemote_direct") + num("pgdemote_khugepaged") + \
				num("pgdemote_proactive")
			rf = num("pgpromote_refused_toptier")
			g = ("/fair/" w) in tgt ? tgt["/fair/" w] : 0
			printf "FAIR t=%s %s fast=%d slow=%d target=%d promoted=%d demoted=%d refused=%d mode=%s high=%s",
				t, w, fast, slow, g, p, dm, rf, first(d "/memory.numa_balancing"), first(d "/memory.high")
			printf " toptier=%s toptier_high=%s toptier_max=%s demoted_toptier=%s demoted_exchange=%s\n",
				key("toptier"), first(d "/memory.toptier_high"), first(d "/memory.toptier_max"),
				key("pgdemote_toptier"), key("pgdemote_toptier_exchange")
			if (g > 0) { x = fast / g; m++; s += x; q += x * x }
			if (w == "late") printf "%d %d\n", fast, g > late
		}
		printf "FAIR-JAIN t=%s jain=%.3f n=%d\n", t, (q > 0 ? s * s / (m * q) : 1), m
		nf = "/sys/devices/system/node/node0/meminfo"
		while ((getline l < nf) > 0) {
			split(l, a, " ")
			if (a[3] == "MemFree:") free = a[4]
			if (a[3] == "FilePages:") file = a[4]
		}
		close(nf)
		printf "FAIR-NODE t=%s fast_free_kb=%d fast_file_kb=%d\n", t, free, file
	}'
}

start_s=$(uptime_s)
start hog1 "$HOG_MB" default
start hog2 "$HOG_MB" default
# A tierd that never rebalances is a failure, not a skip: this test is what
# shows the rebalancer works.
if [ $tierd = yes ] &&
   ! "$WAITFOR" -t 15 "$T/tierd.log" 'Fair shares of' >/dev/null 2>&1; then
	eval "kill \$pid_hog1 \$pid_hog2" 2>/dev/null
	kill "$tierd_pid" 2>/dev/null
	fail "$TIERD logged no fair-share round ('Fair shares of') within 15 s"
fi
late_started=0 reached=0 held=0 elapsed=0 late_t0=0 best=0
while :; do
	elapsed=$(since "$start_s")
	if [ $late_started = 0 ] && [ "$elapsed" -ge "$LATE_AT" ]; then
		start late "$LATE_MB" 1
		late_started=1 late_t0=$(since "$start_s")
		elapsed=$late_t0
	fi
	sample "$elapsed"
	fast_late=0 target_late=0
	[ -r "$T/late" ] && read -r fast_late target_late <"$T/late"
	if [ $late_started = 1 ] && [ "${target_late:-0}" -gt 0 ]; then
		pct=$(( fast_late * 100 / target_late ))
		[ "$pct" -gt "$best" ] && best=$pct
		if [ "$pct" -ge "$PASS_PCT" ]; then
			held=$((held + 1))
			[ $reached = 0 ] && reached=1 &&
				echo "FAIR-EVENT t=$elapsed late reached ${pct}% of its target $((elapsed - late_t0))s after its start"
		else
			held=0
		fi
		# Done once the late workload held >= 80% for 5 samples and 40 s
		# passed (so the runs compare over time), or out of time: the
		# VM's speed depends on the host under TCG.
		[ "$held" -ge 5 ] && [ $((elapsed - late_t0)) -ge 40 ] && break
		[ $((elapsed - late_t0)) -ge "$MAX_AFTER_LATE" ] && break
	fi
	# A sampling period: sleeping is the point here.
	sleep 1
done

echo "FAIR-RESULT mode=$MODE late_best_pct=$best late_reached=$reached held=$held" \
	"after=$((elapsed - late_t0))s"
for w in $WORKLOADS; do
	eval "kill \$pid_$w" 2>/dev/null
done
if [ -n "$tierd_pid" ]; then
	echo "--- tierd log (fair lines)"
	grep -E 'target|memory.high|numa_balancing|Fair' "$T/tierd.log" | tail -n 40
	kill "$tierd_pid"
	wait "$tierd_pid" 2>/dev/null
fi
wait 2>/dev/null
if [ $tierd = yes ]; then
	if [ $reached != 1 ] || [ "$held" -lt 3 ]; then
		fail "the late workload reached ${best}% of its fast-tier target at best and holds" \
			"${PASS_PCT}% for $held samples at the end (wanted >= ${PASS_PCT}% in the last 3)"
	fi
	echo "PASS: with tierd the late workload reached >= ${PASS_PCT}% of its target"
fi
exit 0
