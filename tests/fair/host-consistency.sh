#!/bin/sh
# One fair share (issue 13): on one fake two-tier host, tierd (its bus API,
# through `tierctl --daemon status --json`), `tierctl --no-daemon status
# --json` and tierd-metrics' textfile report the same fast-tier targets for
# the same cgroups, and those are the weighted max-min shares worked out
# below.  The tree has a nested managed cgroup (part of its ancestor's
# share) and an empty one (no share, not even its minimum): neither may get
# a target from any of the three.
#
# Environment: TIERD, TIERCTL, METRICS (the binaries under test), WAITFOR,
# SRCDIR.  Runs on the host (no VM); `make check-fair-consistency`.
. "$(dirname "$0")/../daemon/lib-host.sh"

: "${TIERCTL:?TIERCTL must name the tierctl binary under test}"
: "${METRICS:?METRICS must name the tierd-metrics binary under test}"
command -v python3 >/dev/null 2>&1 || skip "no python3"

MiB=1048576
mk_fake_host
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
rebalance_interval = 1h
fast_tier_reserve = 256M

[class:gold]
mode = full
weight = 300
toptier_min = 10%

[class:batch]
mode = promote
weight = 100

[class:web]
mode = full
weight = 100
toptier_max = 100M

[rule:gold]
class = gold
cgroup = /gold

[rule:batch]
class = batch
cgroup = /jobs/**

[rule:web]
class = web
cgroup = /web
EOC

# numa_stat CGROUP ANON_N0 ANON_N1 (MiB): node 0 is the fast tier.
numa_stat() {
	printf 'anon N0=%s N1=%s\nfile N0=0 N1=0\n' $(($2 * MiB)) $(($3 * MiB)) \
		>"$CG/$1/memory.numa_stat"
	printf '%s\n' $((($2 + $3) * MiB)) >"$CG/$1/memory.current"
}
mk_cgroup gold
numa_stat gold 200 400
mk_cgroup jobs				# unmanaged parent
mk_cgroup jobs/a
numa_stat jobs/a 100 200
mk_cgroup jobs/a/inner			# managed, below a managed one
numa_stat jobs/a/inner 50 50
mk_cgroup jobs/b			# managed, empty
numa_stat jobs/b 0 500
printf 'populated 0\nfrozen 0\n' >"$CG/jobs/b/cgroup.events"
mk_cgroup web
numa_stat web 50 0
mk_cgroup other				# unmanaged
numa_stat other 900 0

# The shares, by hand.  Capacity 1 GiB - 256M = 768M = 805306368.
#   gold's minimum: 10% of the capacity shared = 80530636;
#   the other 724775732 by 300:100:100: web would get 144955146, above its
#   demand (50M = 52428800): it gets 52428800; the 672346932 left go 3:1:
#   gold +504260199 (below its 600M demand), jobs/a 168086733 (below 300M).
EXPECT='{"/gold": 584790835, "/jobs/a": 168086733, "/web": 52428800,
	 "/jobs/a/inner": null, "/jobs/b": null}'

start_tierd
"$WAITFOR" -t 20 "$LOG" 'Rebalanced [0-9]+ cgroups' || fail "tierd did not rebalance"

# 1. tierd: its ListCgroups targets (the ones it enforces).
"$TIERCTL" --daemon --bus-socket "$T/bus" --cgroup-root "$CG" --sysfs-root "$SYS" \
	--procfs-root "$PROC" --json status >"$T/tierd.json" 2>"$T/err" ||
	{ cat "$T/err" >&2; fail "tierctl --daemon status failed"; }
# 2. tierctl on the files.
"$TIERCTL" --no-daemon --config "$CONF" --cgroup-root "$CG" --sysfs-root "$SYS" \
	--procfs-root "$PROC" --json status >"$T/tierctl.json" 2>"$T/err" ||
	{ cat "$T/err" >&2; fail "tierctl --no-daemon status failed"; }
# 3. tierd-metrics' textfile.
"$METRICS" --config "$CONF" --cgroup-root "$CG" --sysfs-root "$SYS" --procfs-root "$PROC" \
	-o "$T/tierd.prom" 2>"$T/err" || { cat "$T/err" >&2; fail "tierd-metrics failed"; }
stop_tierd

python3 - "$T/tierd.json" "$T/tierctl.json" "$T/tierd.prom" "$EXPECT" <<'EOP' || fail "the three disagree"
import json, re, sys

expect = json.loads(sys.argv[4])

def from_status(path):
    rows = json.load(open(path))["cgroups"]
    return {r["cgroup"]: r["target_bytes"] for r in rows}

def from_metrics(path):
    # Every managed cgroup has a fast/slow bytes sample; a target only if it shares.
    seen, targets = set(), {}
    pat = re.compile(r'^(tierd_cgroup_[a-z_]+)\{cgroup="([^"]*)",class="[^"]*"\} (\d+)$')
    for line in open(path):
        m = pat.match(line.strip())
        if not m:
            continue
        seen.add(m.group(2))
        if m.group(1) == "tierd_cgroup_fast_tier_target_bytes":
            targets[m.group(2)] = int(m.group(3))
    return {c: targets.get(c) for c in seen}

views = {
    "tierd (ListCgroups)": from_status(sys.argv[1]),
    "tierctl --no-daemon": from_status(sys.argv[2]),
    "tierd-metrics": from_metrics(sys.argv[3]),
}
bad = False
for name, got in views.items():
    print("%-20s %s" % (name, json.dumps(got, sort_keys=True)))
    for cg, want in expect.items():
        if cg not in got:
            print("  %s: %s does not list %s" % (name, name, cg))
            bad = True
        elif got[cg] != want:
            print("  %s: %s target %s, expected %s" % (name, cg, got[cg], want))
            bad = True
    for cg in sorted(set(got) - set(expect)):
        print("  %s: unexpected cgroup %s" % (name, cg))
        bad = True
sys.exit(1 if bad else 0)
EOP
echo "ok 1 tierd, tierctl status and tierd-metrics report the same targets"

exit 0
