#!/bin/sh
# fault-cost-vm.sh BIN [ROUNDS [FAULT-COST ARGS...]]: run in the two-tier VM
# (as a tests/vm/run-vm command). BIN is the static fault-cost binary. One
# warm-up run, then ROUNDS (5) rounds: on a kernel with cgroup2's
# memory_tiered_limits (listed in /sys/kernel/cgroup/features) one run with
# the option off and one with it on, the order swapped every round; on a
# kernel without it one run a round, labelled "stock". The other cgroup2
# options are kept; the option is left off at the end.
set -u
bin=$1
rounds=${2:-5}
shift
[ $# -gt 0 ] && shift
cg=/sys/fs/cgroup
opt=memory_tiered_limits

# The cgroup2 options of $cg without the VFS ones and without $opt.
base_opts() {
	awk -v m="$cg" '$2 == m && $3 == "cgroup2" { print $4 }' /proc/mounts |
		tr ',' '\n' | grep -Ev "^(rw|ro|nosuid|nodev|noexec|relatime|noatime|nodiratime|seclabel|$opt)\$" |
		paste -sd, -
}

remount() {
	o=$(base_opts)
	[ "$1" = on ] && o=${o:+$o,}$opt
	mount -t cgroup2 -o "remount${o:+,$o}" none "$cg" || return 1
	if grep -q "^[^ ]* $cg cgroup2 .*$opt" /proc/mounts; then now=on; else now=off; fi
	[ "$now" = "$1" ] || { echo "remount $1: /proc/mounts says $now"; return 1; }
}

echo "# $(uname -r), $(nproc) CPUs, $rounds rounds"
if grep -qx "$opt" /sys/kernel/cgroup/features 2>/dev/null; then
	modes="off on"
else
	modes=stock
fi
[ "$modes" = stock ] || remount off || exit 1
"$bin" -l warmup "$@" || exit 1
r=1
while [ "$r" -le "$rounds" ]; do
	order=$modes
	[ $((r % 2)) -eq 0 ] && [ "$modes" != stock ] && order="on off"
	for m in $order; do
		[ "$m" = stock ] || remount "$m" || exit 1
		"$bin" -l "round=$r option=$m" "$@" || exit 1
	done
	r=$((r + 1))
done
[ "$modes" = stock ] || remount off
