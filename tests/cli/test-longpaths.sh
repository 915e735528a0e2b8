#!/bin/sh
# Long paths times many cgroups, fake tree (tests/cli/long-tree.py): a
# chain 249 levels deep of 255-byte names with 100 leaves at its bottom
# (paths up to 64 KB, 14 MB of paths in all), every one managed.  tierd-metrics once wrote each path
# whole into eleven series per cgroup (a 2,252-cgroup tree made a 2.8 GB
# textfile):
#  1. every label value is at most 256 bytes (the start and end of the path
#     around a hash of all of it), distinct per cgroup, the same on the next
#     run; the file holds at most 4 KB per cgroup here;
#  2. --max-cgroups N: series for N cgroups, tierd_managed_cgroups counts all;
#  3. tierctl status (from the files) has one line per cgroup, each cut to
#     the path column's cap; --json has the paths whole.
. "$SRCDIR/tests/cli/lib.sh"

: "${METRICS:?METRICS must name the tierd-metrics binary under test}"
command -v python3 >/dev/null 2>&1 || skip "no python3"

mk_host_two_tier
mk_root
mk_cg /deep inherit
cat >"$T/tierd.conf" <<EOC
[class:deep]
mode = promote
[rule:deep]
class = deep
cgroup = /deep/**
EOC
python3 "$SRCDIR/tests/cli/long-tree.py" "$CG/deep" || fail "cannot build the long-path tree"
N=349

metrics() {
	rc=0
	"$METRICS" --config "$T/tierd.conf" --cgroup-root "$CG" --sysfs-root "$SYS" \
		--procfs-root "$PROC" "$@" >"$T/mout" 2>"$T/merr" || rc=$?
	[ "$rc" = 0 ] || { cat "$T/merr" >&2; fail "tierd-metrics $* exited $rc"; }
}

# 1. Bounded labels, bounded file.
metrics -o "$T/a.prom"
metrics -o "$T/b.prom"
size=$(stat -c %s "$T/a.prom")
[ "$size" -le $((N * 4096)) ] || fail "a textfile of $size bytes for $N cgroups"
cmp -s "$T/a.prom" "$T/b.prom" || fail "two runs on the same tree wrote different files"
python3 - "$T/a.prom" "$N" <<'EOP' || fail "the labels of tierd-metrics"
import re, sys
n = int(sys.argv[2])
cg, longest = set(), 0
for line in open(sys.argv[1]):
    if line.startswith("tierd_managed_cgroups ") and int(line.split()[1]) != n:
        sys.exit("tierd_managed_cgroups: " + line)
    if line.startswith("tierd_exported_cgroups ") and int(line.split()[1]) != n:
        sys.exit("tierd_exported_cgroups: " + line)
    m = re.match(r'tierd_cgroup_mode\{cgroup="([^"]*)",class="deep",mode="inherit"\}', line)
    if m:
        cg.add(m.group(1))
        longest = max(longest, len(m.group(1).encode()))
if len(cg) != n:
    sys.exit("%d distinct cgroup labels, expected %d" % (len(cg), n))
if longest > 256:
    sys.exit("a label of %d bytes" % longest)
if not any(re.search(r"\.\.\.[0-9a-f]{16}\.\.\.0+-leaf099$", c) for c in cg):
    sys.exit("no elided label keeps the leaf's name at its end")
EOP
echo "ok 1 tierd-metrics: $N cgroups of 64 KB paths in $size bytes, labels of 256 bytes at most"

# 2. At most --max-cgroups cgroups get series.
metrics --max-cgroups 10 -o -
grep -qx 'tierd_managed_cgroups 349' "$T/mout" || fail "tierd_managed_cgroups with --max-cgroups"
grep -qx 'tierd_exported_cgroups 10' "$T/mout" || fail "tierd_exported_cgroups with --max-cgroups 10"
n=$(grep -c '^tierd_cgroup_mode{.*mode="inherit"}' "$T/mout")
[ "$n" = 10 ] || fail "$n cgroups with series, --max-cgroups 10"
grep -q '349 managed cgroups, series for the first 10' "$T/merr" || fail "no word of the cap on stderr"
"$METRICS" --max-cgroups 0 -o - >/dev/null 2>&1 && fail "--max-cgroups 0 accepted"
echo "ok 2 --max-cgroups caps the series, tierd_managed_cgroups counts all"

# 3. tierctl status from the files.
tc --no-daemon --config "$T/tierd.conf" status
expect_rc 0
rows=$(grep -c ' deep ' "$T/out")
[ "$rows" = "$N" ] || fail "tierctl status shows $rows rows, expected $N"
long=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$T/out")
[ "$long" -le 300 ] || fail "a status line of $long characters"
tc --no-daemon --config "$T/tierd.conf" --json status
expect_rc 0
python3 -c '
import json, sys
cg = [c for c in json.load(open(sys.argv[1]))["cgroups"] if c["class"] == "deep"]
sys.exit(0 if len(cg) == int(sys.argv[2]) and max(len(c["cgroup"]) for c in cg) >= 64000 else 1)
' "$T/out" "$N" || fail "tierctl --json status lacks the whole paths"
echo "ok 3 tierctl status: $N rows of at most $long characters, --json whole"
exit 0
