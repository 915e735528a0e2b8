#!/bin/sh
# bench/daemon/vm-bench.sh: in the two-tier VM (patched kernel, real cgroupfs,
# TCG): mkdir -> memory.numa_balancing written, p50/p99 over a burst of 1000
# cgroups, tierd against a loop that rescans every 5 s (tierctl apply).
# Run with: make bench-daemon-vm
set -u
TOP=${TIERD_VM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${TIERD_VM_BUILD:-$TOP/build}
CG=/sys/fs/cgroup
T=$(mktemp -d /tmp/tierd-vmbench.XXXXXX)
N=${1:-1000}
mkdir "$CG/bench" && echo +memory >"$CG/bench/cgroup.subtree_control"
[ -e "$CG/bench/memory.numa_balancing" ] || { echo "SKIP: kernel lacks memory.numa_balancing"; exit 77; }
cat >"$T/tierd.conf" <<EOC
[class:batch]
mode = off
[rule:batch]
class = batch
cgroup = /bench/**
EOC
mkdir "$CG/bench/t" "$CG/bench/p"
echo +memory >"$CG/bench/t/cgroup.subtree_control"
echo +memory >"$CG/bench/p/cgroup.subtree_control"

"$BUILD/bin/tierd" --foreground --config "$T/tierd.conf" --no-systemd >"$T/log" 2>&1 &
pid=$!
"$BUILD/test/tierd-waitfor" -t 30 "$T/log" 'tierd started' || exit 1
printf 'tierd (inotify):          burst of %s: ' "$N"
"$BUILD/test/mkdir-latency" -m -t 300 "$CG/bench/t" off "$N"
rc1=$?
awk '{ printf "tierd CPU during the burst and setup: %d ms\n", ($14 + $15) * 10 }' /proc/$pid/stat
kill $pid; wait $pid

( while :; do "$BUILD/bin/tierctl" --config "$T/tierd.conf" apply >/dev/null 2>&1; sleep 5; done ) &
loop=$!
printf 'rescan every 5 s (tierctl): burst of %s: ' "$N"
"$BUILD/test/mkdir-latency" -m -t 300 "$CG/bench/p" off "$N"
rc2=$?
kill $loop
[ $rc1 = 0 ] && [ $rc2 = 0 ]
