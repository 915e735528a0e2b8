#!/bin/bash
# bench/daemon/bench-daemon.sh: an old tierd, this tree's tierd and the 5 s
# rescan loop, side by side in one run, on a fake cgroup tree in a temp dir
# (tmpfs-backed: the daemon does the same work as on cgroupfs: inotify,
# read, evaluate, write).  For each:
#
#  1. mkdir -> knob written latency, p50/p99/max, for 1,000 cgroups arriving
#     one per millisecond (the reaction path without a queue in front of
#     it), then a burst of 1,000 and a burst of 10,000 cgroups (renamed in as
#     fast as one process can: a queue forms, and its length is the p99),
#     each on a settled daemon;
#  2. with the 11,000 cgroups of the bursts managed: CPU time over IDLE_SECONDS of the
#     idle daemon and its RSS, once with the policy's default rebalance
#     interval (10 s: the fair-share rounds, which read every managed
#     cgroup's usage, included) and once with rebalance_interval = 1h (what
#     tierd itself costs when nothing changes);
#  3. for tierds: reload time (SIGHUP: parse + full pass of 11,000 cgroups);
#     for this tree's: tierctl answered over the bus API vs standalone;
#  4. the libtier benchmark (bench/bench.c, `make bench`): observe +
#     evaluate + dry-run apply of 10,000 cgroups and 200 rules, observe
#     reported separately.
#
# Usage: bench-daemon.sh [IDLE_SECONDS]
#   needs build/bin/tierd, tierctl, build/test/mkdir-latency, tierd-waitfor
#   (`make bench-daemon` builds them and runs this);
#   TIERD_OLD=PATH   the old tierd to compare with, or
#   OLD_REV=COMMIT   build that commit's tierd in a scratch git worktree under
#                    /tmp (removed at the end) and compare with it;
#   neither: no old column.  TIER_BENCH=PATH: the libtier benchmark binary
#   (default build/bench/tier-bench if it exists).
set -u -o pipefail
# The fake trees stand in for a cgroup2 mount (tier_cgroup_root_find()).
export TIER_TEST_FAKE_CGROUP=1
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
idle=${1:-60}
TIERD=$build/bin/tierd TIERCTL=$build/bin/tierctl LAT=$build/test/mkdir-latency
WAITFOR=$build/test/tierd-waitfor
TIER_BENCH=${TIER_BENCH:-$build/bench/tier-bench}
# tmpfs, like cgroupfs: on ext4 every O_TRUNC write + close starts writeback
# (auto_da_alloc) and the bench would measure the disk.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then TMPDIR=/dev/shm; fi
T=$(mktemp -d "${TMPDIR:-/tmp}/tierd-bench.XXXXXX")
pid= old_wt=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$T"
	if [ -n "$old_wt" ]; then
		git -C "$top" worktree remove --force "$old_wt" >/dev/null 2>&1 || rm -rf "$old_wt"
	fi
}
trap cleanup EXIT

TIERD_OLD=${TIERD_OLD:-}
if [ -z "$TIERD_OLD" ] && [ -n "${OLD_REV:-}" ]; then
	old_wt=$(mktemp -d /tmp/tierd-old.XXXXXX)
	rmdir "$old_wt"
	echo "# building $OLD_REV's tierd in $old_wt"
	git -C "$top" worktree add --detach "$old_wt" "$OLD_REV" >/dev/null 2>&1 ||
		{ echo "cannot check out $OLD_REV" >&2; exit 1; }
	# O=build: a make run with O=DIR passes it down (MAKEFLAGS), TIERD_OLD is build/
	nice make -C "$old_wt" -j2 O=build tierd >"$T/old-build.log" 2>&1 ||
		{ tail "$T/old-build.log" >&2; exit 1; }
	TIERD_OLD=$old_wt/build/bin/tierd
fi

fake_host() { # DIR
	local d=$1 n
	mkdir -p "$d/cg" "$d/stage" "$d/stage2" "$d/stage3" "$d/proc/sys/kernel"
	for n in 0 1; do
		mkdir -p "$d/sys/devices/system/node/node$n"
		printf 'Node %s MemTotal: 1048576 kB\nNode %s MemFree: 524288 kB\n' $n $n \
			>"$d/sys/devices/system/node/node$n/meminfo"
	done
	printf '0-1\n' >"$d/sys/devices/system/node/has_memory"
	printf '0\n' >"$d/sys/devices/system/node/has_cpu"
	printf 'MemTotal: 2097152 kB\n' >"$d/proc/meminfo"
	printf 'memory\n' >"$d/cg/cgroup.controllers"
	mkdir -p "$d/cg/burst" "$d/cg/idle" "$d/cg/paced"
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
[rule:paced]
class = batch
cgroup = /paced/**
EOC
}

cpu_ticks() { # PID -> utime+stime in clock ticks
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
hz=$(getconf CLK_TCK)
# "written N/N  p50 X ms  p90 Y ms  p99 Z ms  max W ms" -> "X / Z / W"
lat_cols() { sed -n 's/.*p50 \([0-9.]*\) ms.*p99 \([0-9.]*\) ms.*max \([0-9.]*\) ms.*/\1 \/ \2 \/ \3/p'; }

declare -A R
# Each burst starts on a settled daemon: the fair-share round after the
# previous burst (which reads the usage of every managed cgroup, hundreds of
# ms with 11,000 of them on a busy host) is over.
settle() { sleep 5; }

# burst KEY LABEL TREE STAGE N [ARGS]: one mkdir-latency run, kept as R[KEY,LABEL]
burst() {
	local key=$1 label=$2 out
	out=$("$LAT" "${@:6}" -t 300 "$3" "$4" "$5") || true
	printf '  %-22s %s\n' "$key" "$out"
	R[$key,$label]=$(echo "$out" | lat_cols)
}

# run_tierd LABEL BINARY: everything above for one tierd.
run_tierd() {
	local label=$1 bin=$2 D=$T/$1 c0 c1 n0
	echo "== tierd: $label ($bin)"
	fake_host "$D"
	local args=(--foreground --config "$D/tierd.conf" --cgroup-root "$D/cg" --sysfs-root "$D/sys"
		--procfs-root "$D/proc" --no-proc-connector --no-systemd --bus-socket "$D/bus"
		--no-system-bus)
	"$bin" "${args[@]}" >"$D/log" 2>&1 &
	pid=$!
	"$WAITFOR" -t 30 "$D/log" 'tierd started' || exit 1
	burst "1000 paced (1/ms)" "$label" "$D/cg/paced" "$D/stage3" 1000 -i 1000
	settle
	burst "burst 1000" "$label" "$D/cg/burst" "$D/stage" 1000
	settle
	burst "burst 10000" "$label" "$D/cg/idle" "$D/stage2" 10000
	# Back to 11,000 managed cgroups, and let the removals settle.
	rm -rf "$D/cg/paced"
	settle
	c0=$(cpu_ticks $pid)
	sleep "$idle" # measuring idle cost over a period: the sleep is the measurement
	c1=$(cpu_ticks $pid)
	R[idle,$label]="$(( (c1 - c0) * 1000 / hz )) ms"
	R[rss,$label]="$(rss_kb $pid) kB"
	echo "  idle ${idle}s, 11000 cgroups, fair rounds every 10 s: CPU ${R[idle,$label]}, RSS ${R[rss,$label]}"
	n0=$(grep -c 'Policy reloaded' "$D/log")
	kill -HUP $pid
	"$WAITFOR" -t 60 -n $((n0 + 1)) "$D/log" 'Policy reloaded' || exit 1
	R[reload,$label]=$(grep 'Policy reloaded' "$D/log" | tail -n 1 | sed 's/.*reloaded in \([0-9.]* ms\).*/\1/')
	echo "  reload (SIGHUP, parse + full pass of 11000 cgroups): ${R[reload,$label]}"
	# rebalance_interval = 1h: the file replaced in one rename, which the
	# config watcher reloads (once); then let it settle.
	sed '/^\[daemon\]/a rebalance_interval = 1h' "$D/tierd.conf" >"$T/tierd.conf.new"
	mv "$T/tierd.conf.new" "$D/tierd.conf"
	"$WAITFOR" -t 60 -n $((n0 + 2)) "$D/log" 'Policy reloaded' || exit 1
	sleep 5
	c0=$(cpu_ticks $pid)
	sleep "$idle"
	c1=$(cpu_ticks $pid)
	R[idle1h,$label]="$(( (c1 - c0) * 1000 / hz )) ms"
	R[rss1h,$label]="$(rss_kb $pid) kB"
	echo "  idle ${idle}s, rebalance_interval = 1h: CPU ${R[idle1h,$label]}, RSS ${R[rss1h,$label]}"
	if [ "$label" = new ]; then
		tierctl_times "$D"
	fi
	kill $pid
	wait $pid
	pid=
}

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
tierctl_times() { # DIR
	local D=$1 v
	local roots=(--cgroup-root "$D/cg" --sysfs-root "$D/sys" --procfs-root "$D/proc")
	local viad=("$TIERCTL" --daemon --bus-socket "$D/bus" "${roots[@]}")
	local alone=("$TIERCTL" --no-daemon --config "$D/tierd.conf" "${roots[@]}")
	echo "  tierctl with 11000 cgroups, best of 5 (via tierd's bus API / standalone):"
	for v in "explain /burst/b0" "apply --dry-run" "status"; do
		# shellcheck disable=SC2086 # word splitting of the verb is intended
		printf '    %-16s %5s ms / %5s ms\n' "$v" "$(best_ms "${viad[@]}" $v)" \
			"$(best_ms "${alone[@]}" $v)"
	done
}

labels=()
if [ -n "$TIERD_OLD" ]; then
	run_tierd old "$TIERD_OLD"
	labels+=(old)
fi
run_tierd new "$TIERD"
labels+=(new)

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
burst "1000 paced (1/ms)" rescan "$B/cg/paced" "$B/stage3" 1000 -i 1000
rm -rf "$B/cg/paced"
burst "burst 1000" rescan "$B/cg/burst" "$B/stage" 1000
burst "burst 10000" rescan "$B/cg/idle" "$B/stage2" 10000
kill $pid
wait $pid 2>/dev/null
pid=
# CPU of the loop over the same idle period: run it for that long and count
# its children's time.
s=$(bash -c 'end=$((SECONDS + '"$idle"')); while [ $SECONDS -lt $end ]; do "$@" apply >/dev/null 2>&1; sleep 5; done; times' _ "${tc[@]}" | tail -n 1)
R[idle,rescan]=$(echo "$s" | awk '{ split($1, u, /[ms]/); split($2, y, /[ms]/);
	printf "%d ms", (u[1] * 60 + u[2] + y[1] * 60 + y[2]) * 1000 }')
R[idle1h,rescan]=${R[idle,rescan]}
R[rss,rescan]="-" R[rss1h,rescan]="-" R[reload,rescan]="-"
echo "  idle ${idle}s with 11000 cgroups: children CPU user/sys: $s (${R[idle,rescan]})"
labels+=(rescan)

echo
echo "== side by side (mkdir -> knob: p50 / p99 / max in ms)"
printf '%-34s' ""
for l in "${labels[@]}"; do printf '%-28s' "$l"; done
echo
for k in "1000 paced (1/ms)" "burst 1000" "burst 10000"; do
	printf '%-34s' "$k"
	for l in "${labels[@]}"; do printf '%-28s' "${R[$k,$l]:--}"; done
	echo
done
for k in "idle:idle ${idle}s CPU (fair rounds 10 s)" "rss:RSS" "idle1h:idle ${idle}s CPU (rebalance 1h)" \
	"rss1h:RSS" "reload:reload (SIGHUP)"; do
	printf '%-34s' "${k#*:}"
	for l in "${labels[@]}"; do printf '%-28s' "${R[${k%%:*},$l]:--}"; done
	echo
done

if [ -x "$TIER_BENCH" ]; then
	echo
	echo "== libtier: observe + evaluate + apply (dry run), 10000 cgroups, 200 rules (make bench)"
	"$TIER_BENCH" -n 10000 -r 200 -i 5 -R 0
fi
