#!/bin/bash
# bench/daemon/bench-daemon.sh: tierd against a 5 s polling loop, on a fake
# cgroup tree in a temp dir (tmpfs-backed /tmp on the host; the daemon does the
# same work as on cgroupfs: inotify, read, evaluate, write).
#
#  1. mkdir -> knob written latency, p50/p99 over a burst of 1000 cgroups;
#  2. with 10,000 cgroups: CPU time and RSS of the idle daemon over 60 s
#     (one periodic reconcile of the whole tree included, interval 30 s);
#  3. reload time (SIGHUP: parse + full reconcile of 11,000 cgroups);
#  4. tierctl answered by the daemon over its bus API vs standalone (it
#     reads and evaluates the tree itself), on those 11,000 cgroups;
#  5. the same burst and the same 60 s against the baseline: a loop that
#     rescans the tree every 5 s (`tierctl apply`), the way numad and
#     memtierd find new work.
#
# Usage: bench-daemon.sh [IDLE_SECONDS]   (needs build/bin/tierd, tierctl,
# build/test/mkdir-latency: `make bench-daemon` builds them and runs this)
set -u -o pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
idle=${1:-60}
TIERD=$build/bin/tierd TIERCTL=$build/bin/tierctl LAT=$build/test/mkdir-latency
WAITFOR=$build/test/tierd-waitfor
# tmpfs, like cgroupfs: on ext4 every O_TRUNC write + close starts writeback
# (auto_da_alloc) and the bench would measure the disk.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then TMPDIR=/dev/shm; fi
T=$(mktemp -d "${TMPDIR:-/tmp}/tierd-bench.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$T"' EXIT

fake_host() { # DIR
	local d=$1 n
	mkdir -p "$d/cg" "$d/stage" "$d/proc/sys/kernel"
	for n in 0 1; do
		mkdir -p "$d/sys/devices/system/node/node$n"
		printf 'Node %s MemTotal: 1048576 kB\nNode %s MemFree: 524288 kB\n' $n $n \
			>"$d/sys/devices/system/node/node$n/meminfo"
	done
	printf '0-1\n' >"$d/sys/devices/system/node/has_memory"
	printf '0\n' >"$d/sys/devices/system/node/has_cpu"
	printf 'MemTotal: 2097152 kB\n' >"$d/proc/meminfo"
	printf 'memory\n' >"$d/cg/cgroup.controllers"
	mkdir -p "$d/cg/burst" "$d/cg/idle"
	cat >"$d/tierd.conf" <<EOC
[daemon]
reconcile_interval = 30s
[class:batch]
mode = off
[rule:batch]
class = batch
cgroup = /burst/**
[rule:idle]
class = batch
cgroup = /idle/**
EOC
}

cpu_ticks() { # PID -> utime+stime in clock ticks
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
hwm_kb() { awk '/^VmHWM/ { print $2 }' "/proc/$1/status"; }
hz=$(getconf CLK_TCK)

echo "== tierd (inotify, event-driven)"
D=$T/d
fake_host "$D"
args=(--foreground --config "$D/tierd.conf" --cgroup-root "$D/cg" --sysfs-root "$D/sys"
	--procfs-root "$D/proc" --no-proc-connector --no-systemd --bus-socket "$D/bus"
	--no-system-bus)
"$TIERD" "${args[@]}" >"$D/log" 2>&1 &
pid=$!
"$WAITFOR" -t 30 "$D/log" 'tierd started' || exit 1
printf 'burst of 1000:   '
"$LAT" -t 60 "$D/cg/burst" "$D/stage" 1000
mkdir -p "$D/stage2"
printf 'burst of 10000:  '
"$LAT" -t 300 "$D/cg/idle" "$D/stage2" 10000
c0=$(cpu_ticks $pid) r0=$(rss_kb $pid)
sleep "$idle" # measuring idle cost over a period: the sleep is the measurement
c1=$(cpu_ticks $pid) r1=$(rss_kb $pid)
echo "idle ${idle}s with 11000 cgroups: CPU $(( (c1 - c0) * 1000 / hz )) ms, RSS ${r1} kB (peak $(hwm_kb $pid) kB)"
n0=$(grep -c 'Policy reloaded' "$D/log")
kill -HUP $pid
"$WAITFOR" -t 60 -n $((n0 + 1)) "$D/log" 'Policy reloaded' || exit 1
echo "reload (SIGHUP, parse + reconcile of 11000 cgroups): $(grep 'Policy reloaded' "$D/log" | tail -n 1 | sed 's/.*reloaded in \([0-9.]* ms\).*/\1/')"
# tierctl: the wall time of one call, best of 5.
best_ms() {
	local best= t0 t1 ms i
	for i in 1 2 3 4 5; do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }
		t1=$(date +%s%N)
		ms=$(( (t1 - t0) / 1000000 ))
		[ -z "$best" ] || [ "$ms" -lt "$best" ] && best=$ms
	done
	echo "$best"
}
roots=(--cgroup-root "$D/cg" --sysfs-root "$D/sys" --procfs-root "$D/proc")
viad=("$TIERCTL" --daemon --bus-socket "$D/bus" "${roots[@]}")
alone=("$TIERCTL" --no-daemon --config "$D/tierd.conf" "${roots[@]}")
echo "tierctl with 11000 cgroups, best of 5 (via tierd's bus API / standalone):"
for v in "explain /burst/b0" "apply --dry-run" "status"; do
	# shellcheck disable=SC2086 # word splitting of the verb is intended
	printf '  %-16s %5s ms / %5s ms\n' "$v" "$(best_ms "${viad[@]}" $v)" "$(best_ms "${alone[@]}" $v)"
done
kill $pid; wait $pid; pid=

echo "== baseline: rescan every 5 s (tierctl apply in a loop)"
B=$T/b
fake_host "$B"
tc=("$TIERCTL" --config "$B/tierd.conf" --cgroup-root "$B/cg" --sysfs-root "$B/sys"
	--procfs-root "$B/proc")
(
	while :; do
		"${tc[@]}" apply >/dev/null 2>&1
		sleep 5
	done
) &
pid=$!
printf 'burst of 1000:   '
"$LAT" -t 60 "$B/cg/burst" "$B/stage" 1000
mkdir -p "$B/stage2"
printf 'burst of 10000:  '
"$LAT" -t 300 "$B/cg/idle" "$B/stage2" 10000
kill $pid; wait $pid 2>/dev/null; pid=
# CPU of the loop over the same idle period: run it for that long and count
# its children's time.
s=$(bash -c 'end=$((SECONDS + '"$idle"')); while [ $SECONDS -lt $end ]; do "$@" apply >/dev/null 2>&1; sleep 5; done; times' _ "${tc[@]}" | tail -n 1)
echo "idle ${idle}s with 11000 cgroups: children CPU user/sys: $s"
