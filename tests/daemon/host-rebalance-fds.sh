#!/bin/sh
# A fair-share round opens each sharer once (issue 24, "a rebalance works on
# the fds the share already opened"): libtier's share reads the usage and,
# for tierd, the knobs it enforces through one directory fd per cgroup.
# Before, the round opened every sharer twice, the second time from the
# cgroup root (N + 2 opens of the root, 2 of each cgroup, per round).
# Counted with strace around one round that a new cgroup starts; skips
# without strace or where it cannot attach.
. "$(dirname "$0")/lib-host.sh"

command -v strace >/dev/null 2>&1 || skip "no strace"
mk_fake_host
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
rebalance_interval = 1h
[class:fast]
mode = full
toptier_min = 10%
[rule:fast]
class = fast
cgroup = /fast/**
EOC
mk_cgroup fast
for c in a b c d e; do
	mk_cgroup fast/$c
done
start_tierd --no-system-bus
wait_log 'Rebalanced [0-9]+ cgroups \(startup\)'

strace -e trace=openat,openat2 -p "$TIERD_PID" -o "$T/strace" 2>"$T/strace.err" &
SP=$!
"$WAITFOR" -t 10 "$T/strace.err" 'attached' ||
	{ kill $SP 2>/dev/null; skip "strace cannot attach here: $(cat "$T/strace.err")"; }
n0=$(grep -c 'Rebalanced' "$LOG")
mk_cgroup fast/f
wait_log 'Rebalanced 6 cgroups'
kill $SP
wait $SP 2>/dev/null
rounds=$(($(grep -c 'Rebalanced' "$LOG") - n0))
[ "$rounds" -ge 1 ] || fail "no round while traced"

# Each of the cgroups that were there opens once per round, not twice.
for c in a b c d e; do
	n=$(grep -c "openat2([0-9]*, \"fast/$c\"" "$T/strace")
	[ "$n" -eq "$rounds" ] ||
		fail "/fast/$c opened $n times in $rounds round(s), expected $rounds"
done
# The root: once for the share, once for the round's other reads, not once
# more per sharer.
n=$(grep -c "openat(AT_FDCWD, \"$CG\", " "$T/strace")
[ "$n" -le $((3 * rounds)) ] || fail "the cgroup root opened $n times in $rounds round(s)"
echo "ok 1 each sharer opened once per round ($rounds round(s), root $n)"

stop_tierd
echo "PASS host-rebalance-fds"
