#!/bin/bash
# tests/vm/apps/apps-guest.sh SCENARIO SETUP: Debian's redis-server and
# memcached in the two-tier VM, each in a cgroup of its own, their data
# placed on the slow tier (or, for the noisy neighbours' hogs, wherever the
# kernel puts it), with or without tierd.  The guest's test of run-vm
# (tests/vm/apps/run-apps.sh boots it; bench/apps/bench-apps.sh and the
# check-apps-vm target call that).
#
# SCENARIO
#   place   a "promote" redis and an "off" memcached side by side, both
#           loaded on the slow node (cpuset.mems = 1 while they load, then
#           both nodes), each read uniformly over all of its data
#   bgsave  place, with a redis BGSAVE (fork, copy-on-write) APPS_BGSAVE_AT
#           seconds into the measurement
#   noisy   Hahn's shape: APPS_HOGS memcached hogs load first, wherever the
#           kernel puts them (the fast node while it has room), and are read
#           uniformly over all of their data; then a redis victim is loaded
#           on the slow node and redis-benchmark reads its hot set (the cold
#           set beside it is never read again); one class, equal weights
# SETUP
#   none    no tierd: kernel.numa_balancing=2 (tiering mode), demotion on
#   damon   tierd, [daemon] backend = damon (tierd sets numa_balancing 0)
#   knob    tierd, backend = knob, numa_balancing=2, cgroup2 remounted with
#           memory_tiered_limits where the kernel has it
#
# Every APPS_SAMPLE_SECS (2) seconds: "APPS-SAMPLE t= app= fast= slow=
# target= promoted=" per app (anon + file + shmem of memory.numa_stat on
# node 0 and node 1; target from tierctl status: the share tierd computes,
# also without tierd running).  At the end "APPS-RESULT ..." per app and
# "APPS-RUN ..." for the run (see bench/apps/README.md for the fields).
#
# APPS_CHECK=1 (make check): assert outcomes, not timings, and stop as soon
# as they are decided:
#   place/bgsave with tierd: redis (promote) reaches >= APPS_PCT% of its bytes on
#     the fast node within APPS_DURATION seconds; memcached (off) keeps <= 10%
#     of its bytes there
#   noisy with tierd: the victim reaches >= APPS_PCT% of its target within
#     APPS_DURATION; without tierd: it does not within APPS_DURATION
# 77 with the reason when the VM or kernel cannot run the scenario.
set -u

SCENARIO=${1:-place}
SETUP=${2:-none}
TOP=${TIERD_VM_TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
BUILD=${TIERD_VM_BUILD:-$TOP/build}
TIERD=$BUILD/bin/tierd
TIERCTL=$BUILD/bin/tierctl
MCLOAD=$BUILD/apps/mcload
WAITFOR=$BUILD/test/tierd-waitfor
CG=/sys/fs/cgroup
A=$CG/apps
T=/tmp/apps
CHECK=${APPS_CHECK:-0}
# The share of redis's bytes (place) or of the victim's target (noisy) that
# counts as arrived: 90 for the figures; make check asks 70 (see apps.mk).
PCT=${APPS_PCT:-90}
SAMPLE=${APPS_SAMPLE_SECS:-2}
VAL=${APPS_VALUE_BYTES:-4000}		# one 4 KB jemalloc / slab-class object per value
REDIS_MB=${APPS_REDIS_MB:-48}		# place: redis data set, all of it read
MC_MB=${APPS_MC_MB:-48}			# place: memcached data set, all of it read
HOGS=${APPS_HOGS:-3}			# noisy: memcached hogs
HOG_MB=${APPS_HOG_MB:-64}		# noisy: data per hog, all read
VICTIM_HOT_MB=${APPS_VICTIM_HOT_MB:-64}	# noisy: the victim's hot set
VICTIM_COLD_MB=${APPS_VICTIM_COLD_MB:-16}	# noisy: its cold set, loaded first
PRE=${APPS_PRE_SECS:-16}		# noisy: hogs alone before the victim arrives
DURATION=${APPS_DURATION:-120}		# measurement after the placement
BOUND=$DURATION				# check mode: the assertions' bound
BGSAVE_AT=${APPS_BGSAVE_AT:-6}
RESERVE=${APPS_RESERVE:-48M}
mkdir -p "$T"

skip() { echo "SKIP: $*"; cleanup; exit 77; }
fail() {
	echo "FAIL: $*"
	[ -r "$T/tierd.log" ] && tail -n 30 "$T/tierd.log" | sed 's/^/  tierd| /'
	cleanup
	exit 1
}
now() { local up; read -r up _ </proc/uptime; echo "$up"; }
# seconds (one decimal) since $1
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
mb() { echo $(( $1 * 1024 * 1024 )); }
nkeys() { echo $(( $1 * 1024 * 1024 / (VAL + 96) )); }	# keys for MB with per-item overhead

pids=()
tierd_pid=
cleanup() {
	local p
	[ -n "$tierd_pid" ] && kill -CONT "$tierd_pid" 2>/dev/null
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	[ -n "$tierd_pid" ] && kill "$tierd_pid" 2>/dev/null && wait "$tierd_pid" 2>/dev/null
	tierd_pid=
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	pids=()
}

# --- what the VM and kernel have ---------------------------------------------
[ -d /sys/devices/virtual/memory_tiering ] || skip "kernel without memory tiers"
ls -d /sys/devices/virtual/memory_tiering/memory_tier* 2>/dev/null | grep -q . || skip "no memory tiers"
[ "$(ls -d /sys/devices/virtual/memory_tiering/memory_tier* | wc -l)" -ge 2 ] ||
	skip "the VM has only one memory tier"
for p in redis-server redis-cli redis-benchmark memcached; do
	command -v $p >/dev/null || skip "$p not installed on the host (make deps)"
done
for f in "$MCLOAD" "$TIERCTL" "$WAITFOR"; do
	[ -x "$f" ] || skip "no $f (make bench-apps-tools)"
done
grep -qw cpuset $CG/cgroup.controllers || skip "kernel without the cpuset controller (placement)"
echo 1 >/sys/kernel/mm/numa/demotion_enabled || skip "cannot enable demotion"
knob=no tiered=no
mkdir -p $A || fail "mkdir $A"
echo "+memory +cpuset" >$A/cgroup.subtree_control || fail "enable memory and cpuset below /apps"
mkdir $A/probe
[ -e $A/probe/memory.numa_balancing ] && knob=yes
[ -e $A/probe/memory.toptier_high ] && tiered=yes
rmdir $A/probe
case $SETUP in
none)
	echo 2 >/proc/sys/kernel/numa_balancing || skip "cannot set kernel.numa_balancing=2" ;;
damon)
	[ -d /sys/kernel/mm/damon/admin ] || skip "kernel without DAMON sysfs"
	# tierd sets it to 0 itself (numa_balancing_sysctl = off)
	echo 2 >/proc/sys/kernel/numa_balancing ;;
knob)
	[ $knob = yes ] || skip "kernel without memory.numa_balancing (boot the patched kernel)"
	echo 2 >/proc/sys/kernel/numa_balancing || skip "cannot set kernel.numa_balancing=2"
	if [ $tiered = yes ]; then
		mount -o remount,nsdelegate,memory_tiered_limits $CG || fail "remount with memory_tiered_limits"
	fi ;;
*) echo "usage: apps-guest.sh place|bgsave|noisy none|damon|knob"; exit 2 ;;
esac
[ $SETUP = none ] || [ -x "$TIERD" ] || skip "no $TIERD"
fast_mb=$(awk '/MemTotal/ { printf "%d", $4 / 1024 }' /sys/devices/system/node/node0/meminfo)
slow_mb=$(awk '/MemTotal/ { printf "%d", $4 / 1024 }' /sys/devices/system/node/node1/meminfo)
thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
echo "APPS-INFO scenario=$SCENARIO setup=$SETUP kernel=$(uname -r) knob=$knob tiered_limits=$tiered" \
	"fast_node_mb=$fast_mb slow_node_mb=$slow_mb smp=$(grep -c '^processor' /proc/cpuinfo)" \
	"thp=${thp:-none} lru_gen=$(cat /sys/kernel/mm/lru_gen/enabled 2>/dev/null || echo -)" \
	"redis=$(redis-server --version | sed 's/.* v=\([^ ]*\).*/\1/') memcached=$(memcached -V | cut -d' ' -f2)" \
	"check=$CHECK"

# --- the policy ---------------------------------------------------------------
backend=$SETUP
[ $SETUP = none ] && backend=auto
{
	echo "[daemon]"
	echo "backend = $backend"
	[ $SETUP = damon ] && echo "numa_balancing_sysctl = off"
	echo "reconcile_interval = 10s"
	echo "rebalance_interval = 2s"
	echo "fast_tier_reserve = $RESERVE"
	echo "hysteresis = 5%"
	echo
	if [ "$SCENARIO" = noisy ]; then
		echo "[class:shared]"
		echo "mode = promote"
		echo "weight = 100"
		echo
		echo "[rule:apps]"
		echo "class = shared"
		echo "cgroup = /apps/*"
	else
		echo "[class:hot]"
		echo "mode = promote"
		echo
		echo "[class:cold]"
		echo "mode = off"
		echo
		echo "[rule:redis]"
		echo "class = hot"
		echo "cgroup = /apps/redis"
		echo
		echo "[rule:memcached]"
		echo "class = cold"
		echo "cgroup = /apps/memcached"
	fi
} >$T/tierd.conf

if [ $SETUP != none ]; then
	"$TIERD" --foreground --config $T/tierd.conf --cgroup-root $CG --no-systemd \
		--no-proc-connector --no-bus-api >$T/tierd.log 2>&1 &
	tierd_pid=$!
	"$WAITFOR" -t 30 $T/tierd.log 'tierd started|Cannot start' >/dev/null 2>&1 ||
		fail "tierd did not start"
	grep -q 'Cannot start' $T/tierd.log && fail "tierd refused to start"
	if [ $SETUP = damon ]; then
		for _ in $(seq 50); do
			[ "$(cat /proc/sys/kernel/numa_balancing)" = 0 ] && break
			sleep 0.2
		done
	fi
fi
echo "APPS-INFO numa_balancing=$(cat /proc/sys/kernel/numa_balancing) backend=$backend" \
	"tierd=${tierd_pid:-none} cgroup2=$(awk '$2 == "/sys/fs/cgroup" { print $4 }' /proc/mounts)"

# --- the applications ---------------------------------------------------------
# tierd is stopped (SIGSTOP) while an application loads: with the damon
# backend its migrate_hot scheme would promote the pages as they are written
# (DAMON's migration does not look at cpuset.mems), and the placement could
# not be checked. It sees the new cgroups when it continues, as it would an
# application that started before it.
tierd_pause() { [ -n "$tierd_pid" ] && kill -STOP "$tierd_pid"; return 0; }
tierd_resume() { [ -n "$tierd_pid" ] && kill -CONT "$tierd_pid"; return 0; }
# mkcg NAME PLACE: /apps/NAME; PLACE slow: cpuset.mems 1 (everything the
# application allocates while it loads lands on the slow node).
mkcg() {
	mkdir $A/$1 || fail "mkdir /apps/$1"
	[ "$2" = slow ] && { echo 1 >$A/$1/cpuset.mems || fail "cpuset.mems of /apps/$1"; }
	return 0
}
# release NAME: both nodes again; the pages stay where they are (widening
# the mask migrates nothing), new allocations go where the CPU is.
release() { echo 0-1 >$A/$1/cpuset.mems || fail "cpuset.mems 0-1 of /apps/$1"; }

# start_redis NAME
start_redis() {
	mkdir -p $T/$1
	sh -c "echo \$\$ >$A/$1/cgroup.procs && exec redis-server --port 0 --unixsocket $T/$1.sock \
		--save '' --appendonly no --dir $T/$1 --daemonize no --logfile $T/$1.log" &
	pids+=($!)
	eval "pid_$1=\$!"
	for _ in $(seq 100); do
		redis-cli -s $T/$1.sock ping >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	fail "redis-server /apps/$1 did not start ($(tail -n 3 $T/$1.log))"
}
# start_memcached NAME MB
start_memcached() {
	sh -c "echo \$\$ >$A/$1/cgroup.procs && exec memcached -s $T/$1.sock -m $(( $2 * 2 )) -t 1 \
		-u root" >$T/$1.log 2>&1 &
	pids+=($!)
	eval "pid_$1=\$!"
	for _ in $(seq 100); do
		[ -S $T/$1.sock ] && return 0
		sleep 0.2
	done
	fail "memcached /apps/$1 did not start ($(tail -n 3 $T/$1.log))"
}
# redis_load NAME FORMAT NKEYS
redis_load() {
	"$MCLOAD" redis-gen "$2" 0 "$3" "$VAL" | redis-cli -s $T/$1.sock --pipe >$T/$1.load 2>&1 ||
		fail "loading redis /apps/$1: $(tail -n 2 $T/$1.load)"
	grep -q 'errors: 0' $T/$1.load || fail "loading redis /apps/$1: $(tail -n 2 $T/$1.load)"
	echo "APPS-STEP up=$(now) loaded /apps/$1 ($2)"
}
mc_load() {
	"$MCLOAD" set $T/$1.sock k "$2" "$VAL" || fail "loading memcached /apps/$1"
	echo "APPS-STEP up=$(now) loaded /apps/$1"
}

# redis_bench NAME NKEYS: redis-benchmark GETs over key:0..NKEYS-1, in
# chunks (each prints its rate), until killed.
redis_bench() {
	(
		while :; do
			redis-benchmark -s $T/$1.sock -t get -n 20000 -r "$2" -c 4 -P 8 --csv 2>/dev/null |
				awk -F'"' '$2 == "GET" { print "RB", $4; fflush() }'
		done
	) >$T/$1.bench &
	pids+=($!)
}

# anon + file (shmem included) bytes of a cgroup on node 0 and node 1
numa_of() { # NAME -> "fast slow"
	awk '$1 == "anon" || $1 == "file" {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "N0") f += kv[2]; else s += kv[2] }
	} END { printf "%d %d\n", f, s }' $A/$1/memory.numa_stat
}

# Placement check before measuring: >= 90% of NAME's bytes on the slow node.
check_slow() {
	local f s
	read -r f s <<<"$(numa_of "$1")"
	echo "APPS-PLACED app=$1 fast=$f slow=$s up=$(now)"
	[ $(( s * 10 )) -ge $(( (f + s) * 9 )) ] ||
		fail "/apps/$1 was not placed on the slow node: fast $f, slow $s bytes"
}

# Where a process's slow-node pages are: its mappings with pages on node 1,
# largest first (numa_maps: "N1=pages"; kernelpagesize_kB for THP).
slow_maps() { # NAME PID
	awk -v app="$1" '{
		n1 = 0; n0 = 0; kind = "anon"
		for (i = 3; i <= NF; i++) {
			if ($i ~ /^N1=/) n1 = substr($i, 4)
			if ($i ~ /^N0=/) n0 = substr($i, 4)
			if ($i ~ /^file=/) kind = substr($i, 6)
			if ($i == "heap" || $i == "stack") kind = $i
		}
		if (n1 > 0) printf "%d %d %s %s\n", n1, n0, $1, kind
	}' /proc/$2/numa_maps 2>/dev/null | sort -rn | head -n 6 |
	while read -r n1 n0 addr kind; do
		echo "APPS-SLOWMAP app=$1 addr=$addr n1_pages=$n1 n0_pages=$n0 map=$kind"
	done
}
# memory.numa_stat's anon, file and shmem lines of a cgroup, on one line
numa_split() { # NAME
	awk -v app="$1" '$1 == "anon" || $1 == "file" || $1 == "shmem" || $1 == "anon_thp" {
		l = l " " $1 ":" $2 "," $3 } END { print "APPS-NUMASTAT app=" app l }' $A/$1/memory.numa_stat
}

vmstat() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' /proc/vmstat; }
kernel_ticks() { awk '$1 == "cpu" { print $4 + $7 + $8 }' /proc/stat; }	# system + irq + softirq
task_ticks() { # PID: utime + stime
	[ -r /proc/$1/stat ] || { echo 0; return; }
	sed 's/.*) //' /proc/$1/stat | awk '{ print $12 + $13 }'
}
kdamond_ticks() {
	local p n=0
	for p in $(pgrep -x 'kdamond.*' 2>/dev/null || true); do
		n=$(( n + $(task_ticks "$p") ))
	done
	echo $n
}
hz=$(getconf CLK_TCK)

# One sample of every app: fast, slow, target, promoted (memory.stat).
# Writes "APP FAST TARGET" lines to $T/last for the loop.
sample() { # T APPS...
	local t=$1
	shift
	"$TIERCTL" --json --config $T/tierd.conf --cgroup-root $CG status 2>/dev/null |
	awk -v t="$t" -v dir="$A" -v apps="$*" -v last="$T/last" '
	/"cgroup":/ { c = $2; gsub(/[",]/, "", c) }
	/"target_bytes":/ { v = $2; gsub(/[,]/, "", v); tgt[c] = (v == "null" ? 0 : v) }
	END {
		n = split(apps, W, " "); m = 0; s = 0; q = 0
		printf "" > last
		for (i = 1; i <= n; i++) {
			w = W[i]; d = dir "/" w; fast = 0; slow = 0; p = 0
			while ((getline l < (d "/memory.numa_stat")) > 0) {
				split(l, a, " ")
				if (a[1] != "anon" && a[1] != "file") continue
				for (j = 2; j in a; j++) {
					split(a[j], kv, "=")
					if (kv[1] == "N0") fast += kv[2]; else slow += kv[2]
				}
				delete a
			}
			close(d "/memory.numa_stat")
			while ((getline l < (d "/memory.stat")) > 0) {
				split(l, a, " ")
				if (a[1] == "pgpromote_success") p = a[2]
			}
			close(d "/memory.stat")
			g = ("/apps/" w) in tgt ? tgt["/apps/" w] : 0
			printf "APPS-SAMPLE t=%s app=%s fast=%d slow=%d target=%d promoted=%d\n", t, w, fast, slow, g, p
			printf "%s %d %d %d\n", w, fast, slow, g >> last
			if (g > 0) { x = fast / g; m++; s += x; q += x * x }
		}
		close(last)
		if (m > 0) {
			printf "APPS-JAIN t=%s jain=%.3f n=%d\n", t, (q > 0 ? s * s / (m * q) : 1), m
			printf "%.3f\n", (q > 0 ? s * s / (m * q) : 1) > (last ".jain")
			close(last ".jain")
		}
	}'
}
field() { awk -v a="$1" -v c="$2" '$1 == a { print $c }' $T/last; }

# The counters at the start of the measurement.
mark_start() {
	t0=$(now)
	k0=$(kernel_ticks) d0=$(kdamond_ticks)
	td0=0
	[ -n "$tierd_pid" ] && td0=$(task_ticks "$tierd_pid")
	prom0=$(vmstat pgpromote_success) mig0=$(vmstat pgmigrate_success)
	dem0=$(( $(vmstat pgdemote_kswapd) + $(vmstat pgdemote_direct) + $(vmstat pgdemote_khugepaged) ))
	hf0=$(vmstat numa_hint_faults)
}
report_run() { # EXTRA...
	local k1 d1 td1=0 prom mig dem hf el
	el=$(since "$t0")
	k1=$(kernel_ticks) d1=$(kdamond_ticks)
	[ -n "$tierd_pid" ] && td1=$(task_ticks "$tierd_pid")
	prom=$(( $(vmstat pgpromote_success) - prom0 ))
	dem=$(( $(vmstat pgdemote_kswapd) + $(vmstat pgdemote_direct) + $(vmstat pgdemote_khugepaged) - dem0 ))
	mig=$(( $(vmstat pgmigrate_success) - mig0 ))
	hf=$(( $(vmstat numa_hint_faults) - hf0 ))
	echo "APPS-RUN scenario=$SCENARIO setup=$SETUP secs=$el promoted_pages=$prom demoted_pages=$dem" \
		"migrated_pages=$mig other_migrated_pages=$(( mig - prom - dem )) hint_faults=$hf" \
		"kernel_cpu_s=$(awk -v a=$((k1 - k0)) -v h=$hz 'BEGIN { printf "%.1f", a / h }')" \
		"kdamond_cpu_s=$(awk -v a=$((d1 - d0)) -v h=$hz 'BEGIN { printf "%.2f", a / h }')" \
		"tierd_cpu_s=$(awk -v a=$((td1 - td0)) -v h=$hz 'BEGIN { printf "%.2f", a / h }')" "$@"
}
# redis-benchmark's mean rate over the chunks it finished
redis_rps() { awk '$1 == "RB" && $2 > 0 { n += 20000; t += 20000 / $2 } END { printf "%.0f", (t > 0 ? n / t : 0) }' "$1"; }
mc_rps() { awk '/^MCLOAD-TOTAL/ { sub(/.*rps=/, ""); print; f = 1 } END { if (!f) print 0 }' "$1"; }
# memcached's rate so far: the interval lines after the measurement started
mc_rps_live() { awk '/^MCLOAD t=/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } n++; s += v["rps"] } END { printf "%.0f", (n ? s / n : 0) }' "$1"; }

rc=0
case $SCENARIO in
place|bgsave)
	tierd_pause
	mkcg redis slow
	mkcg memcached slow
	start_redis redis
	start_memcached memcached "$MC_MB"
	rkeys=$(nkeys "$REDIS_MB") mkeys=$(nkeys "$MC_MB")
	redis_load redis 'key:%012d' "$rkeys"
	mc_load memcached "$mkeys"
	release redis
	release memcached
	check_slow redis
	check_slow memcached
	tierd_resume
	echo "APPS-INFO redis_keys=$rkeys memcached_keys=$mkeys value_bytes=$VAL" \
		"redis_used_memory=$(redis-cli -s $T/redis.sock info memory | awk -F: '/^used_memory:/ { print $2 + 0 }')" \
		"redis_thp=$(awk '/^THP_enabled/ { print $2 }' /proc/$pid_redis/status 2>/dev/null || echo -)"
	mark_start
	redis_bench redis "$rkeys"
	"$MCLOAD" get 0 k "$mkeys" "$VAL" $T/memcached.sock >$T/mcload.out 2>&1 &
	pids+=($!)
	t90=- bgsave_t=- bg_done=- prom_bg0=0 prom_bg=- mig_bg0=0 mig_bg=- held=0
	while :; do
		el=$(since "$t0")
		sample "$el" redis memcached
		rf=$(field redis 2) rs=$(field redis 3)
		mf=$(field memcached 2) ms=$(field memcached 3)
		if [ "$t90" = - ] && [ $(( rf * 100 )) -ge $(( (rf + rs) * PCT )) ]; then
			t90=$el
			echo "APPS-EVENT t=$el redis reached $PCT% of its bytes on the fast node"
		fi
		if [ "$SCENARIO" = bgsave ] && [ "$bgsave_t" = - ] && awk -v a="$el" -v b="$BGSAVE_AT" 'BEGIN { exit !(a >= b) }'; then
			prom_bg0=$(vmstat pgpromote_success) mig_bg0=$(vmstat pgmigrate_success)
			redis-cli -s $T/redis.sock bgsave >/dev/null
			bgsave_t=$el
			echo "APPS-EVENT t=$el BGSAVE"
		fi
		if [ "$bgsave_t" != - ] && [ "$bg_done" = - ] &&
		   redis-cli -s $T/redis.sock info persistence | grep -q '^rdb_bgsave_in_progress:0'; then
			bg_done=$el
			prom_bg=$(( $(vmstat pgpromote_success) - prom_bg0 ))
			mig_bg=$(( $(vmstat pgmigrate_success) - mig_bg0 ))
			echo "APPS-EVENT t=$el BGSAVE done; promoted $prom_bg, migrated $mig_bg pages while the child lived"
		fi
		if [ "$CHECK" = 1 ]; then
			# decided: redis at 90% (and the BGSAVE done) or out of time
			if [ "$t90" != - ] && { [ "$SCENARIO" = place ] || [ "$bg_done" != - ]; }; then
				held=$((held + 1))
				[ $held -ge 2 ] && break
			fi
		fi
		awk -v a="$el" -v b="$DURATION" 'BEGIN { exit !(a >= b) }' && break
		sleep "$SAMPLE"
	done
	rps_r=$(redis_rps $T/redis.bench)
	rps_m=$(mc_rps_live $T/mcload.out)
	cow=- bgtime=-
	if [ "$SCENARIO" = bgsave ]; then
		cow=$(redis-cli -s $T/redis.sock info persistence | awk -F: '/^rdb_last_cow_size:/ { print $2 + 0 }')
		bgtime=$(redis-cli -s $T/redis.sock info persistence | awk -F: '/^rdb_last_bgsave_time_sec:/ { print $2 + 0 }')
	fi
	report_run "redis_rps=$rps_r memcached_rps=$rps_m bgsave_at=$bgsave_t bgsave_done=$bg_done" \
		"bgsave_cow_bytes=$cow bgsave_secs=$bgtime promoted_during_bgsave=$prom_bg" \
		"migrated_during_bgsave=$mig_bg"
	numa_split redis
	numa_split memcached
	slow_maps redis "$pid_redis"
	echo "APPS-RESULT app=redis class=promote fast=$rf slow=$rs t90=$t90 rps=$rps_r"
	echo "APPS-RESULT app=memcached class=off fast=$mf slow=$ms t90=- rps=$rps_m"
	if [ "$CHECK" = 1 ] && [ $SETUP != none ]; then
		if [ "$t90" = - ]; then
			echo "FAIL: redis (promote) did not reach $PCT% of its bytes on the fast node in ${BOUND}s: fast $rf, slow $rs"
			rc=1
		else
			echo "PASS: redis (promote) reached $PCT% of its bytes on the fast node after ${t90}s"
		fi
		if [ $(( mf * 10 )) -gt $(( mf + ms )) ]; then
			echo "FAIL: memcached (off) has more than 10% of its bytes on the fast node: fast $mf, slow $ms"
			rc=1
		else
			echo "PASS: memcached (off) stayed on the slow node: fast $mf, slow $ms bytes"
		fi
		if [ "$SCENARIO" = bgsave ] && [ "$bg_done" = - ]; then
			echo "FAIL: the BGSAVE did not finish"
			rc=1
		fi
	fi
	;;
noisy)
	hogs=
	hkeys=$(nkeys "$HOG_MB")
	for i in $(seq "$HOGS"); do
		mkcg hog$i default
		start_memcached hog$i "$HOG_MB"
		mc_load hog$i "$hkeys"
		hogs="$hogs hog$i"
	done
	socks=
	for h in $hogs; do socks="$socks $T/$h.sock"; done
	# shellcheck disable=SC2086
	"$MCLOAD" get 0 k "$hkeys" "$VAL" $socks >$T/mcload.out 2>&1 &
	pids+=($!)
	ts=$(now)
	while :; do
		el=$(since "$ts")
		sample "-$(awk -v a="$PRE" -v b="$el" 'BEGIN { printf "%.1f", a - b }')" $hogs
		awk -v a="$el" -v b="$PRE" 'BEGIN { exit !(a >= b) }' && break
		sleep "$SAMPLE"
	done
	vhot=$(nkeys "$VICTIM_HOT_MB") vcold=$(nkeys "$VICTIM_COLD_MB")
	tierd_pause
	mkcg victim slow
	start_redis victim
	redis_load victim 'cold:%d' "$vcold"
	redis_load victim 'key:%012d' "$vhot"
	release victim
	check_slow victim
	tierd_resume
	echo "APPS-INFO hog_keys=$hkeys victim_hot_keys=$vhot victim_cold_keys=$vcold value_bytes=$VAL" \
		"victim_thp=$(awk '/^THP_enabled/ { print $2 }' /proc/$pid_victim/status 2>/dev/null || echo -)"
	mark_start
	redis_bench victim "$vhot"
	t90=- best=0 held=0
	while :; do
		el=$(since "$t0")
		sample "$el" $hogs victim
		vf=$(field victim 2) vt=$(field victim 4)
		if [ "${vt:-0}" -gt 0 ]; then
			pct=$(( vf * 100 / vt ))
			[ "$pct" -gt "$best" ] && best=$pct
			if [ "$t90" = - ] && [ "$pct" -ge "$PCT" ]; then
				t90=$el
				echo "APPS-EVENT t=$el the victim reached $PCT% of its target"
			fi
		fi
		if [ "$CHECK" = 1 ] && [ "$t90" != - ]; then
			held=$((held + 1))
			[ $held -ge 2 ] && break
		fi
		awk -v a="$el" -v b="$DURATION" 'BEGIN { exit !(a >= b) }' && break
		sleep "$SAMPLE"
	done
	rps_v=$(redis_rps $T/victim.bench)
	rps_h=$(mc_rps_live $T/mcload.out)
	jain=$(cat $T/last.jain 2>/dev/null)
	report_run "victim_rps=$rps_v hogs_rps=$rps_h victim_best_pct=$best jain=${jain:--}"
	for h in $hogs victim; do numa_split $h; done
	slow_maps victim "$pid_victim"
	for h in $hogs victim; do
		f=$(field $h 2) s=$(field $h 3) g=$(field $h 4)
		r=$rps_h
		[ $h = victim ] && r=$rps_v
		echo "APPS-RESULT app=$h fast=$f slow=$s target=$g t90=$([ $h = victim ] && echo "$t90" || echo -) rps=$r"
	done
	if [ "$CHECK" = 1 ]; then
		if [ $SETUP != none ]; then
			if [ "$t90" = - ]; then
				echo "FAIL: with tierd the victim did not reach $PCT% of its target in ${BOUND}s (best ${best}%)"
				rc=1
			else
				echo "PASS: with tierd the victim reached $PCT% of its target after ${t90}s"
			fi
		else
			if [ "$t90" != - ]; then
				echo "FAIL: without tierd the victim reached $PCT% of its target (after ${t90}s): the scenario does not show the noisy neighbours"
				rc=1
			else
				echo "PASS: without tierd the victim stayed below $PCT% of its target for ${BOUND}s (best ${best}%)"
			fi
		fi
	fi
	;;
*)
	echo "usage: apps-guest.sh place|bgsave|noisy none|damon|knob"
	cleanup
	exit 2 ;;
esac

if [ -n "$tierd_pid" ]; then
	echo "--- tierd log (targets, limits, DAMON)"
	grep -E 'target|memory.high|numa_balancing|DAMON|rror' $T/tierd.log | tail -n 25 | sed 's/^/  tierd| /'
fi
cleanup
exit $rc
