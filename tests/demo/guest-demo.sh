#!/bin/sh
# tests/demo/guest-demo.sh: the part of `make demo` that runs inside the
# two-tier VM (started by scripts/demo.sh through tests/vm/run-vm).
#
# Starts tierd with tests/demo/demo.conf, creates three cgroups that tierd
# puts in three classes (full, promote, off), runs the same workload in each
# (memory first placed on the slow tier, then read in a loop) and prints,
# every few seconds, where each workload's memory is and how much the kernel
# promoted.  Ends with a summary.  Exit 0 when the outcome is the expected
# one, 1 when it is not, 77 when the kernel lacks what the demo needs.
set -u

TOP=${TIERD_VM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${TIERD_VM_BUILD:-$TOP/build}
CG=/sys/fs/cgroup
T=/tmp/tierd-demo
MB=${TIERD_DEMO_MB:-48}
MAX_SECONDS=${1:-${TIERD_DEMO_SECONDS:-75}}
INTERVAL=${TIERD_DEMO_INTERVAL:-5}
CLASSES="full promote off"
WAITFOR=$BUILD/test/tierd-waitfor
mkdir -p "$T"

uptime_s() { cut -d' ' -f1 /proc/uptime; }
line() { echo "--------------------------------------------------------------------------"; }

# Where is a cgroup's memory?  memory.numa_stat "anon N0=... N1=..." (bytes);
# node 0 is the fast tier, node 1 the slow one in this VM.
node_mb() { # CGROUP NODE
	awk -v n="N$2=" '$1 == "anon" { for (i = 2; i <= NF; i++) if (index($i, n) == 1)
		{ sub(n, "", $i); printf "%d", $i / 1048576 } }' "$CG/$1/memory.numa_stat"
}
stat_of() { # CGROUP KEY
	awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$CG/$1/memory.stat"
}

echo
line
echo "Inside the VM: kernel $(uname -r), $(nproc) vCPUs"
for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
	[ -r "$t/nodelist" ] || continue
	echo "  ${t##*/}: NUMA node(s) $(cat "$t/nodelist")"
done
echo "  node 0: $(awk '/MemTotal/ { printf "%d MB", $4 / 1024 }' /sys/devices/system/node/node0/meminfo), with the CPUs  -> the FAST tier (DRAM)"
echo "  node 1: $(awk '/MemTotal/ { printf "%d MB", $4 / 1024 }' /sys/devices/system/node/node1/meminfo), no CPUs, slower -> the SLOW tier (think CXL)"

mkdir "$CG/demo-probe" 2>/dev/null
if [ ! -e "$CG/demo-probe/memory.numa_balancing" ]; then
	rmdir "$CG/demo-probe"
	echo "SKIP: this kernel has no memory.numa_balancing: boot the patched kernel (make kernel)"
	exit 77
fi
rmdir "$CG/demo-probe"

# Tiering mode of NUMA balancing (2 = promote hot pages to the fast tier), and
# fast scanning so the demo takes a minute, not ten.
echo 2 >/proc/sys/kernel/numa_balancing
d=/sys/kernel/debug/sched/numa_balancing
tunables="default scan rates (no debugfs sched tunables in this kernel)"
if [ -d "$d" ] && echo 100 >"$d/scan_delay_ms" 2>/dev/null; then
	echo 100 >"$d/scan_period_min_ms" 2>/dev/null
	echo 400 >"$d/scan_period_max_ms" 2>/dev/null
	tunables="fast scans: scan_delay 100 ms, scan period 100-400 ms"
fi
echo "  kernel.numa_balancing = $(cat /proc/sys/kernel/numa_balancing) (promote hot pages from the slow to the fast tier); $tunables"
line

echo
echo "1. Starting tierd with this policy (tests/demo/demo.conf):"
grep -E '^\[(class|rule):|^(mode|cgroup|class) =' "$TOP/tests/demo/demo.conf" |
	awk '/^\[class/ { c = $0; next } /^mode/ { printf "     %-18s mode = %s\n", c, $3; next }
	     /^\[rule/ { r = $0; next } /^class/ { k = $3; next }
	     /^cgroup/ { printf "     %-18s cgroups matching %s -> class %s\n", r, $3, k }'
mkdir "$CG/demo"
echo +memory >"$CG/demo/cgroup.subtree_control"
"$BUILD/bin/tierd" --foreground --config "$TOP/tests/demo/demo.conf" --no-systemd \
	>"$T/tierd.log" 2>&1 &
tierd_pid=$!
"$WAITFOR" -t 30 "$T/tierd.log" 'tierd started' >/dev/null 2>&1 || {
	echo "tierd did not start:"; cat "$T/tierd.log"; exit 1; }
echo "   tierd is running (PID $tierd_pid) and watching the cgroup tree."

echo
echo "2. Creating three cgroups. Nobody configures them: tierd sees each mkdir"
echo "   (inotify) and writes the class's mode into memory.numa_balancing:"
# The time is taken where the reaction happens: demo-load --react does the
# mkdir() and watches the knob (inotify) in one process, so neither process
# start-up nor the VM's 9p root is counted, only tierd's reaction.
for c in $CLASSES; do
	ms=$("$BUILD/demo/tierd-demo-load" --react "$CG/demo/$c" "$c") ||
		{ echo "   tierd did not set /demo/$c"; cat "$T/tierd.log"; exit 1; }
	printf "   mkdir /demo/%-8s -> memory.numa_balancing = %-8s (%s ms later)\n" "$c" \
		"$(cat "$CG/demo/$c/memory.numa_balancing")" "$ms"
done
echo "   tierd's log:"
grep 'memory.numa_balancing inherit' "$T/tierd.log" | sed 's/^/     /'
echo "   Why? Ask the running tierd (tierctl explain, over tierd's bus API):"
"$BUILD/bin/tierctl" explain /demo/promote 2>&1 | sed 's/^/     /'

echo
echo "3. Starting the same workload in each cgroup: $MB MB of memory, first"
echo "   placed on the SLOW tier, then read over and over (all of it is hot)."
for c in $CLASSES; do
	# nice: the workloads spin on every vCPU; the table must still print on time.
	nice -n 10 sh -c "echo \$\$ >$CG/demo/$c/cgroup.procs && exec $BUILD/demo/tierd-demo-load $MB 1" \
		>"$T/$c.out" 2>&1 &
	eval "pid_$c=\$!"
done
for c in $CLASSES; do
	"$WAITFOR" -t 60 "$T/$c.out" '^ready' >/dev/null 2>&1 ||
		{ echo "   workload $c did not start:"; cat "$T/$c.out"; exit 1; }
done
echo "   Now NUMA balancing may move hot pages up, but only as each cgroup's mode"
echo "   allows: full and promote should climb to the fast tier, off should stay."

print_table() { # ELAPSED
	echo
	printf "  after %3ss  %-14s %-8s %10s %10s %10s %13s\n" "$1" workload mode "fast tier" \
		"slow tier" promoted "hint faults"
	for c in $CLASSES; do
		f=$(node_mb "demo/$c" 0) s=$(node_mb "demo/$c" 1)
		p=$(stat_of "demo/$c" pgpromote_success)
		h=$(stat_of "demo/$c" numa_hint_faults)
		printf "             %-14s %-8s %7s MB %7s MB %7s MB %13s\n" "/demo/$c" \
			"$(cat "$CG/demo/$c/memory.numa_balancing")" "${f:-0}" "${s:-0}" \
			"$((p * 4 / 1024))" "$h"
	done
}

echo
echo "4. Every $INTERVAL s: where each workload's memory is (fast = node 0, slow = node 1),"
echo "   how much the kernel promoted (memory.stat pgpromote_success) and how many"
echo "   NUMA hinting faults it took (the scans that find hot pages):"
start=$(uptime_s)
elapsed=0
while :; do
	print_table "$elapsed"
	[ "$elapsed" -ge "$MAX_SECONDS" ] && break
	# Done early once full and promote are (almost) all on the fast tier.
	ff=$(node_mb demo/full 0) pf=$(node_mb demo/promote 0)
	if [ "$elapsed" -ge 20 ] && [ "${ff:-0}" -ge $((MB * 9 / 10)) ] &&
	   [ "${pf:-0}" -ge $((MB * 9 / 10)) ]; then
		break
	fi
	# Wait for the next sample: sleep is the point here (a sampling period).
	sleep "$INTERVAL"
	elapsed=$(awk -v a="$start" -v b="$(uptime_s)" 'BEGIN { printf "%d", b - a }')
done

full_fast=$(node_mb demo/full 0) prom_fast=$(node_mb demo/promote 0) off_fast=$(node_mb demo/off 0)
off_slow=$(node_mb demo/off 1)
for c in $CLASSES; do
	eval "kill \$pid_$c" 2>/dev/null
done
echo
line
echo "Summary after ${elapsed}s:"
pct() { echo $(( ${1:-0} * 100 / MB )); }
echo "  /demo/full    (mode full):    $(pct "$full_fast")% of its memory is now on the fast tier"
echo "  /demo/promote (mode promote): $(pct "$prom_fast")% of its memory is now on the fast tier"
echo "  /demo/off     (mode off):     $(pct "$off_fast")% on the fast tier, ${off_slow:-0} MB still on the slow tier"
ok=1
[ "$(pct "$full_fast")" -ge 50 ] || ok=0
[ "$(pct "$prom_fast")" -ge 50 ] || ok=0
[ "$(pct "$off_fast")" -le 10 ] || ok=0
if [ $ok = 1 ]; then
	echo
	echo "  full and promote moved their hot pages to the fast tier; off stayed on the"
	echo "  slow tier. Same kernel, same kernel.numa_balancing=2, same workload: the"
	echo "  difference is the per-cgroup policy, which tierd applied the moment each"
	echo "  cgroup appeared. (promote does this with promotion-only scans: no task"
	echo "  placement work, for workloads pinned with cpusets.)"
else
	echo
	echo "  UNEXPECTED: wanted full and promote >= 50% on the fast tier and off <= 10%."
	echo "  The kernel or the VM did not behave as designed; see the table above."
fi
line

# Act two: why promote exists. kernel.numa_balancing=3 adds task placement
# to promotion: under full, the kernel keeps marking and faulting on pages
# that are already on the fast tier (placement work the workload pays for in
# hinting faults), under promote it marks only slow-tier pages. The same
# workload runs once per mode, one after the other, so the host-wide
# counter of hinting faults on fast-tier pages (numa_hint_faults_local in
# /proc/vmstat: the CPUs are all on node 0) is that workload's alone; the
# demo's own shell and tierd sit in a cgroup with NUMA balancing off.
vm() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' /proc/vmstat; }
ACT2_SECONDS=${TIERD_DEMO_ACT2_SECONDS:-12}
FAST_MB=${TIERD_DEMO_FAST_MB:-32}
SLOW_MB=${TIERD_DEMO_SLOW_MB:-16}
echo
echo "5. Act two: why pick promote over full? Now kernel.numa_balancing = 3: NUMA"
echo "   balancing also does task placement (moving tasks and pages between nodes"
echo "   for locality), which costs hinting faults. Each workload now has $FAST_MB MB"
echo "   already on the FAST tier and $SLOW_MB MB on the slow tier, all of it hot; it runs"
echo "   ${ACT2_SECONDS} s under full, then ${ACT2_SECONDS} s under promote (tierd sets the modes again)."
mkdir "$CG/demo-quiet"
echo off >"$CG/demo-quiet/memory.numa_balancing"
echo "$tierd_pid" >"$CG/demo-quiet/cgroup.procs"
echo $$ >"$CG/demo-quiet/cgroup.procs"
echo 3 >/proc/sys/kernel/numa_balancing
act2_ok=1
for c in full promote; do
	g=demo/act2-$c
	mkdir "$CG/$g"
	"$WAITFOR" -t 10 "$CG/$g/memory.numa_balancing" "^$c\$" >/dev/null 2>&1 ||
		{ echo "   tierd did not set /$g"; cat "$T/tierd.log"; exit 1; }
	nice -n 10 sh -c "echo \$\$ >$CG/$g/cgroup.procs && exec $BUILD/demo/tierd-demo-load $SLOW_MB 1 $FAST_MB" \
		>"$T/act2-$c.out" 2>&1 &
	apid=$!
	"$WAITFOR" -t 60 "$T/act2-$c.out" '^ready' >/dev/null 2>&1 ||
		{ echo "   workload $g did not start:"; cat "$T/act2-$c.out"; exit 1; }
	l0=$(vm numa_hint_faults_local) h0=$(vm numa_hint_faults)
	sleep "$ACT2_SECONDS"	# the measuring period
	l1=$(vm numa_hint_faults_local) h1=$(vm numa_hint_faults)
	kill "$apid" 2>/dev/null
	wait "$apid" 2>/dev/null
	eval "act2_local_$c=$((l1 - l0)) act2_hint_$c=$((h1 - h0))"
	eval "act2_prom_$c=$(( $(stat_of "$g" pgpromote_success) * 4 / 1024 ))"
	rmdir "$CG/$g" 2>/dev/null
done
echo
printf "   %-34s %12s %12s\n" "" "full" "promote"
printf "   %-34s %12s %12s\n" "hinting faults on fast-tier pages" "$act2_local_full" "$act2_local_promote"
printf "   %-34s %12s %12s\n" "hinting faults in all" "$act2_hint_full" "$act2_hint_promote"
printf "   %-34s %9s MB %9s MB\n" "slow-tier memory promoted" "$act2_prom_full" "$act2_prom_promote"
[ "$act2_local_full" -gt 0 ] && [ "$act2_local_promote" -lt $((act2_local_full / 10 + 1)) ] || act2_ok=0
[ "$act2_prom_full" -gt 0 ] && [ "$act2_prom_promote" -gt 0 ] || act2_ok=0
echo
if [ $act2_ok = 1 ]; then
	echo "  Both modes promoted the hot slow-tier memory, but under full the kernel also"
	echo "  kept faulting on memory that was already on the fast tier, for placement."
	echo "  promote skips that: pick it for a workload that is pinned (cpusets) or"
	echo "  latency-sensitive and only needs its hot pages on DRAM."
else
	echo "  UNEXPECTED: wanted fast-tier faults under full, (almost) none under promote,"
	echo "  and promotions under both."
	ok=0
fi
line
kill "$tierd_pid"
wait "$tierd_pid" 2>/dev/null
[ $ok = 1 ]
