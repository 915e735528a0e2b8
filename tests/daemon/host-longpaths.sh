#!/bin/sh
# Long paths at scale, host, fake tree: a chain 249 levels deep of 255-byte
# names with 100 leaves at its bottom (tests/cli/long-tree.py: each leaf's
# path about 64 KB, 14 MB of paths in all), every one managed.  Once, one ListCgroups reply held every
# path (ENOBUFS from sd-bus past 128 MiB, for every caller, after building
# it all) and DryRun likewise; now both come in pages:
#  1. ListCgroups(all, offset) pages: each page at most BUS_LIST_PAGE_BYTES
#     (4 MiB) of strings plus one row, more than one page here, every
#     managed cgroup listed exactly once over the pages;
#  2. tierctl status, through tierd, reads every page: the table has one
#     line per cgroup, each cut to the path column's cap; --json has them
#     whole;
#  3. DryRun(offset) pages as well: 100 leaves set back behind tierd's back
#     are 100 changes over several pages in tierctl apply --dry-run.
. "$(dirname "$0")/lib-host.sh"

command -v busctl >/dev/null 2>&1 || skip "no busctl"
command -v python3 >/dev/null 2>&1 || skip "no python3"
: "${TIERCTL:?TIERCTL must name the tierctl binary under test}"

mk_fake_host
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
[class:deep]
mode = promote
[rule:deep]
class = deep
cgroup = /deep/**
EOC
mk_cgroup deep
python3 "$SRCDIR/tests/cli/long-tree.py" "$CG/deep" || fail "cannot build the long-path tree"
N=349	# 249 levels below /deep (which /deep/** does not match), 100 leaves

start_tierd
wait_log "Reconciled .* \\($N in a class" 120

# 1. The pages of ListCgroups.
pages() { # METHOD ALL
	off=0 i=0
	while :; do
		busctl --timeout=60 --json=short --address="unix:path=$T/bus" call \
			org.tierd.Manager1 /org/tierd/Manager1 org.tierd.Manager1 "$1" bt "$2" "$off" \
			>"$T/page.$i" || fail "$1 at offset $off failed"
		off=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["data"][1])' <"$T/page.$i")
		i=$((i + 1))
		[ "$off" != 0 ] || break
		[ $i -lt 1000 ] || fail "$1 never ends"
	done
	echo "$i"
}
np=$(pages ListCgroups false)
[ "$np" -ge 2 ] || fail "$np page(s) for 14 MB of paths"
python3 - "$T" "$np" "$N" <<'EOP' || fail "ListCgroups pages"
import json, sys
t, np, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
seen = []
for i in range(np):
    rows = json.load(open("%s/page.%d" % (t, i)))["data"][0]
    size = sum(len(p) + len(c) + len(r) + 16 for p, c, r, _ in rows)
    longest = max(len(p) for p, _, _, _ in rows)
    if size > (4 << 20) + longest + 1024:
        sys.exit("page %d holds %d bytes" % (i, size))
    seen += [p for p, c, _, _ in rows if c == "deep"]
if len(seen) != n or len(set(seen)) != n:
    sys.exit("%d rows, %d distinct, expected %d" % (len(seen), len(set(seen)), n))
if max(len(p) for p in seen) < 64000:
    sys.exit("the longest path listed is %d bytes" % max(len(p) for p in seen))
EOP
echo "ok 1 ListCgroups: $N cgroups of 64 KB paths in $np pages of at most 4 MiB"

# 2. tierctl status reads every page.
TC="$TIERCTL --daemon --bus-socket $T/bus --cgroup-root $CG --sysfs-root $SYS --procfs-root $PROC"
$TC status >"$T/status" 2>"$T/status.err" || { cat "$T/status.err"; fail "tierctl status"; }
rows=$(grep -c ' deep ' "$T/status")
[ "$rows" = "$N" ] || fail "tierctl status shows $rows rows, expected $N"
long=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$T/status")
[ "$long" -le 300 ] || fail "a status line of $long characters (the path column is not capped)"
$TC --json status >"$T/json" 2>"$T/status.err" || { cat "$T/status.err"; fail "tierctl --json status"; }
python3 - "$T/json" "$N" <<'EOP' || fail "tierctl --json status"
import json, sys
cg = [c for c in json.load(open(sys.argv[1]))["cgroups"] if c["class"] == "deep"]
if len(cg) != int(sys.argv[2]) or max(len(c["cgroup"]) for c in cg) < 64000:
    sys.exit("%d cgroups, longest %d" % (len(cg), max(len(c["cgroup"]) for c in cg)))
EOP
echo "ok 2 tierctl status: $N rows of at most $long characters; --json has every path whole"

# 3. DryRun pages: the leaves set back to inherit are changes again.
python3 "$SRCDIR/tests/cli/long-tree.py" "$CG/deep" memory.numa_balancing=inherit ||
	fail "cannot reset the leaves"
busctl --timeout=60 --json=short --address="unix:path=$T/bus" call org.tierd.Manager1 \
	/org/tierd/Manager1 org.tierd.Manager1 DryRun t 0 >"$T/dry" || fail "DryRun failed"
next=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["data"][1])' <"$T/dry")
[ "$next" != 0 ] || fail "DryRun of 100 changes of 64 KB paths came in one page"
$TC apply --dry-run >"$T/apply" 2>"$T/apply.err"
changes=$(grep -c 'memory.numa_balancing inherit -> promote' "$T/apply")
[ "$changes" = 100 ] || { tail -3 "$T/apply"; cat "$T/apply.err"; fail "apply --dry-run: $changes changes, expected 100"; }
echo "ok 3 DryRun: 100 changes of 64 KB paths over pages"
stop_tierd
exit 0
