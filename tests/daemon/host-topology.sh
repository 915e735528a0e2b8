#!/bin/sh
# The memory tiers are read again when the first read failed (issue 24,
# item 15): tierd starts on a host whose sysfs has no NUMA nodes yet;
# once they are there, the next fair-share round (after a new cgroup in a
# class) reads them and shares the fast tier, without a reload.
. "$(dirname "$0")/lib-host.sh"

mk_fake_host
mv "$SYS/devices/system/node" "$T/node.later"
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
rebalance_interval = 1h
[class:fast]
mode = full
[rule:fast]
class = fast
cgroup = /fast/*
EOC
mk_cgroup fast
mk_cgroup fast/a
start_tierd
wait_mode fast/a full
grep -q 'Cannot read the memory tiers' "$LOG" || fail "the first read of the tiers did not fail"
grep -q 'Fair shares of' "$LOG" && fail "fair shares without memory tiers"

mv "$T/node.later" "$SYS/devices/system/node"
mk_cgroup fast/b
wait_mode fast/b full
wait_log 'Memory tiers read'
wait_log 'Fair shares of [0-9]+ bytes'
stop_tierd
echo "ok 1 a failed first read of the memory tiers is retried at the next round"
