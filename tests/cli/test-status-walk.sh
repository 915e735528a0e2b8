#!/bin/sh
# tierctl status and tierd-metrics on a deep chain: each cgroup is opened
# from its parent's directory and its effective mode follows from the
# parent's (tier_cgroup_reader_read()), instead of a walk from the root per
# cgroup (one 250 levels deep cost about 1,000 openat() calls; `tierctl
# status` of 2,252 cgroups with 64 KB paths took 28 s).
#  1. the effective modes are the walk's: the same as `tierctl get` of each
#     row, across levels that restrict (promote, then off), a level without
#     the knob (the walk cannot say: no effective mode) and its children;
#  2. tierd-metrics exports the same modes (where a level above has none,
#     the cgroup's own, as it always did);
#  3. the number of openat() calls of both grows with the rows, not rows x
#     depth (counted with strace; that part skips without it).
. "$SRCDIR/tests/cli/lib.sh"

mk_host_two_tier
mk_root
D=120
cat >"$T/tierd.conf" <<'EOC'
[class:c]
mode = inherit
[rule:c]
class = c
cgroup = /chain/**
EOC
C="--config $T/tierd.conf"
mk_cg /chain
p=/chain i=1
while [ $i -le $D ]; do
	p=$p/l$i
	case $i in
	40) mk_cg "$p" promote ;;
	80) mk_cg "$p" off ;;
	118) mk_cg "$p" - ;;	# no knob here: below it the walk cannot say
	*) mk_cg "$p" inherit ;;
	esac
	i=$((i + 1))
done
# a second branch beside the chain, below a promote level
mk_cg /chain/l1/side full
mk_cg /chain/l1/side/x inherit

# 1. The same effective modes as `tierctl get` (which walks from the root).
tc --json $C status
expect_rc 0
json_ok "$T/out"
python3 - "$T/out" >"$T/rows" <<'EOP' || fail "status --json"
import json, sys
rows = json.load(open(sys.argv[1]))["cgroups"]
for r in rows:
    print(r["cgroup"], r.get("effective") or "-")
EOP
[ "$(wc -l <"$T/rows")" = $((D + 2)) ] || { cat "$T/rows" >&2; fail "expected $((D + 2)) rows"; }
n_checked=0
while read -r path eff; do
	"$TIERCTL" --cgroup-root "$CG" --sysfs-root "$SYS" --procfs-root "$PROC" get "$path" \
		>"$T/get" 2>"$T/get.err"
	want=$(sed -n 's/.*, effective \([a-z]*\).*/\1/p' "$T/get")
	[ -n "$want" ] || want=-
	[ "$eff" = "$want" ] || { cat "$T/get" "$T/get.err" >&2; fail "$path: status says $eff, get says $want"; }
	n_checked=$((n_checked + 1))
done <"$T/rows"
grep -q '/l39 full$' "$T/rows" || fail "above the promote level: not full"
grep -q '/l40 promote$' "$T/rows" || fail "the promote level"
grep -q '/l79 promote$' "$T/rows" || fail "below the promote level: not promote"
grep -q '/l80 off$' "$T/rows" || fail "the off level"
grep -q '/l99 off$' "$T/rows" || fail "below the off level: not off"
grep -q '/l118 -$' "$T/rows" || fail "the level without the knob has an effective mode"
grep -q '/l119 -$' "$T/rows" || fail "below the level without the knob: an effective mode"
grep -q '/side full$' "$T/rows" || fail "the side branch"
echo "ok 1 effective modes of $n_checked rows as the walk finds them"

# 2. tierd-metrics: full above the promote level, in the side branch and
# (its own inherit) below the knob-less level; promote; off.
if [ -n "${METRICS:-}" ]; then
	"$METRICS" $C --cgroup-root "$CG" --sysfs-root "$SYS" --procfs-root "$PROC" \
		-o "$T/prom" >/dev/null 2>"$T/metrics.err" || { cat "$T/metrics.err" >&2; fail "tierd-metrics"; }
	for want in full:43 promote:40 off:38; do
		n=$(grep -c "^tierd_cgroup_effective_mode{.*mode=\"${want%:*}\"} 1\$" "$T/prom")
		[ "$n" = "${want#*:}" ] || fail "tierd-metrics: $n cgroups effective ${want%:*}, expected ${want#*:}"
	done
	echo "ok 2 tierd-metrics: the same effective modes"
fi

# 3. openat() calls: a few per row, not one per level per row.
command -v strace >/dev/null 2>&1 || skip "no strace for the count of openat() calls"
# (LeakSanitizer does not work under ptrace: leaks are checked above)
ASAN_OPTIONS=detect_leaks=0 strace -f -c -o "$T/strace" -e trace=openat,openat2 "$TIERCTL" \
	--cgroup-root "$CG" --sysfs-root "$SYS" --procfs-root "$PROC" $C status >"$T/out" 2>&1 ||
	{ [ -s "$T/strace" ] || skip "strace cannot trace here"; cat "$T/out" >&2; fail "status under strace"; }
n=$(awk '$NF == "openat" || $NF == "openat2" { s += $4 } END { print s + 0 }' "$T/strace")
rows=$((D + 2))
# Read from the root, the chain alone cost sum(1..120) levels: over 7,000.
[ "$n" -le $((rows * 12 + 300)) ] ||
	{ cat "$T/strace" >&2; fail "$n openat() calls for $rows rows of a chain $D deep"; }
echo "ok 3 tierctl status: $n openat() calls for $rows rows of a chain $D deep"
[ -n "${METRICS:-}" ] || exit 0
ASAN_OPTIONS=detect_leaks=0 strace -f -c -o "$T/strace" -e trace=openat,openat2 "$METRICS" $C \
	--cgroup-root "$CG" --sysfs-root "$SYS" --procfs-root "$PROC" -o "$T/prom" >"$T/out" 2>&1 ||
	{ cat "$T/out" >&2; fail "tierd-metrics under strace"; }
n=$(awk '$NF == "openat" || $NF == "openat2" { s += $4 } END { print s + 0 }' "$T/strace")
[ "$n" -le $((rows * 12 + 300)) ] ||
	{ cat "$T/strace" >&2; fail "tierd-metrics: $n openat() calls for $rows cgroups of a chain $D deep"; }
echo "ok 4 tierd-metrics: $n openat() calls for $rows cgroups of a chain $D deep"
