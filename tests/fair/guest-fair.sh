#!/bin/sh
# tests/fair/guest-fair.sh with-tierd|without: the fairness experiment, run
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
# Every second: each workload's fast- and slow-tier bytes, its target
# (`tierctl status`: the same share tierd computes, without its hysteresis
# band), promotions and demotions (memory.stat), Jain's index over
# fast/target.  Lines starting with "FAIR " are for bench/fair.
#
# with-tierd passes when the late workload reaches >= 80% of its target
# (FAIR_PASS_PCT) and holds it for 3 samples; without only reports (exit 0).
# 77 when the kernel cannot do the experiment.
set -u

MODE=${1:-with-tierd}
TOP=${TIERD_VM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${TIERD_VM_BUILD:-$TOP/build}
TIERD=${FAIR_TIERD:-$BUILD/bin/tierd}
TIERCTL=$BUILD/bin/tierctl
LOAD=$BUILD/fair/fair-load
WAITFOR=$BUILD/test/tierd-waitfor
CONF=$TOP/tests/fair/fair.conf
CG=/sys/fs/cgroup
T=/tmp/tierd-fair
HOG_MB=${FAIR_HOG_MB:-100}
LATE_MB=${FAIR_LATE_MB:-64}
LATE_AT=${FAIR_LATE_AT:-12}		# s after the start of hog1
MAX_AFTER_LATE=${FAIR_MAX_AFTER_LATE:-70}	# s the late workload gets
PASS_PCT=${FAIR_PASS_PCT:-80}
WORKLOADS="hog1 hog2 late"
mkdir -p "$T"

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; [ -r "$T/tierd.log" ] && tail -n 30 "$T/tierd.log"; exit 1; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(uptime_s)" 'BEGIN { printf "%d", b - a }'; }

# Bytes of a cgroup on node N: anon + file of memory.numa_stat.
node_bytes() { # CGROUP NODE
	awk -v n="N$2=" '$1 == "anon" || $1 == "file" { for (i = 2; i <= NF; i++)
		if (index($i, n) == 1) { sub(n, "", $i); s += $i } } END { printf "%d", s }' \
		"$CG/$1/memory.numa_stat" 2>/dev/null
}
stat_of() { # CGROUP KEY...: sum of memory.stat keys
	c=$1; shift
	awk -v keys=" $* " 'index(keys, " " $1 " ") { s += $2 } END { printf "%d", s }' \
		"$CG/$c/memory.stat" 2>/dev/null
}

[ -d /sys/devices/virtual/memory_tiering ] || skip "kernel without memory tiers"
[ "$(ls -d /sys/devices/virtual/memory_tiering/memory_tier* 2>/dev/null | wc -l)" -ge 2 ] ||
	skip "the VM has only one memory tier"
[ -x "$LOAD" ] || skip "no $LOAD (make fair-load)"
[ -x "$TIERCTL" ] || skip "no $TIERCTL"
echo 2 >/proc/sys/kernel/numa_balancing || skip "cannot set kernel.numa_balancing=2"
echo 1 >/sys/kernel/mm/numa/demotion_enabled || skip "cannot enable demotion"

mkdir -p "$CG/fair"
echo +memory >"$CG/fair/cgroup.subtree_control"
mkdir "$CG/fair/probe"
knob=no toptier=no
[ -e "$CG/fair/probe/memory.numa_balancing" ] && knob=yes
if [ -e "$CG/fair/probe/memory.toptier_high" ]; then
	mount -o remount,nsdelegate,memory_tiered_limits "$CG" && toptier=yes
fi
rmdir "$CG/fair/probe"
if [ "$MODE" = with-tierd ] && [ $knob = no ] && [ $toptier = no ]; then
	skip "kernel has neither memory.numa_balancing nor tier-aware limits: tierd cannot enforce targets (boot the patched kernel)"
fi
echo "FAIR-INFO mode=$MODE kernel=$(uname -r) knob=$knob tiered_limits=$toptier" \
	"fast_node_mb=$(awk '/MemTotal/ { printf "%d", $4 / 1024 }' /sys/devices/system/node/node0/meminfo)" \
	"slow_node_mb=$(awk '/MemTotal/ { printf "%d", $4 / 1024 }' /sys/devices/system/node/node1/meminfo)"
grep ' /sys/fs/cgroup ' /proc/mounts

tierd_pid=
if [ "$MODE" = with-tierd ]; then
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

sample() { # ELAPSED
	"$TIERCTL" --json --config "$CONF" --cgroup-root "$CG" status 2>/dev/null |
		jq -r '.cgroups[] | "\(.cgroup) \(.target_bytes)"' >"$T/targets"
	jain_in=
	for w in $WORKLOADS; do
		[ -d "$CG/fair/$w" ] || continue
		f=$(node_bytes "fair/$w" 0) s=$(node_bytes "fair/$w" 1)
		tg=$(awk -v c="/fair/$w" '$1 == c { print $2 }' "$T/targets")
		case $tg in ''|null) tg=0 ;; esac
		p=$(stat_of "fair/$w" pgpromote_success)
		d=$(stat_of "fair/$w" pgdemote_kswapd pgdemote_direct pgdemote_khugepaged)
		rf=$(stat_of "fair/$w" pgpromote_refused_toptier)
		m=$(cat "$CG/fair/$w/memory.numa_balancing" 2>/dev/null || echo -)
		h=$(cat "$CG/fair/$w/memory.high")
		echo "FAIR t=$1 $w fast=$f slow=$s target=$tg promoted=$p demoted=$d refused=$rf mode=$m high=$h"
		[ "$tg" -gt 0 ] && jain_in="$jain_in $f/$tg"
		eval "fast_$w=$f target_$w=$tg"
	done
	echo "$jain_in" | awk -v t="$1" '{ n = 0; s = 0; q = 0
		for (i = 1; i <= NF; i++) { split($i, a, "/"); x = a[1] / a[2]; n++; s += x; q += x * x }
		printf "FAIR-JAIN t=%s jain=%.3f n=%d\n", t, (q > 0 ? s * s / (n * q) : 1), n }'
}

start_s=$(uptime_s)
start hog1 "$HOG_MB" default
start hog2 "$HOG_MB" default
late_started=0 reached=0 held=0 elapsed=0 late_t0=0 best=0
while :; do
	elapsed=$(since "$start_s")
	if [ $late_started = 0 ] && [ "$elapsed" -ge "$LATE_AT" ]; then
		start late "$LATE_MB" 1
		late_started=1 late_t0=$(since "$start_s")
		elapsed=$late_t0
	fi
	sample "$elapsed"
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
		# Enough: held 3 samples (and 10 s more of history), or out of time.
		[ "$held" -ge 13 ] && break
		[ "$MODE" = with-tierd ] && [ "$held" -ge 3 ] && [ $((elapsed - late_t0)) -ge 40 ] && break
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
if [ "$MODE" = with-tierd ]; then
	[ $reached = 1 ] && [ "$held" -ge 3 ] ||
		fail "the late workload reached only ${best}% of its fast-tier target (wanted >= ${PASS_PCT}% for 3 s)"
	echo "PASS: with tierd the late workload reached >= ${PASS_PCT}% of its target"
fi
exit 0
