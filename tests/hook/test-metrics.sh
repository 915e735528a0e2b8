#!/bin/sh
# tierd-metrics on a fake two-tier host: the textfile parses with the
# reference Prometheus parser and carries, per managed cgroup, fast/slow
# bytes, promotions, the target and the mode; it is replaced atomically.
. "$SRCDIR/tests/hook/lib.sh"
: "${METRICS:?METRICS must name the tierd-metrics binary under test}"
PY=/usr/bin/python3
[ -x $PY ] || skip "no /usr/bin/python3"
$PY -c 'import prometheus_client.parser' 2>/dev/null ||
	skip "python3-prometheus-client is not installed (make deps)"

mk_host_two_tier
mkdir -p "$PROC"
cat >"$T/tierd.conf" <<'EOM'
[daemon]
fast_tier_reserve = 0

[class:latency]
mode = full
weight = 400
toptier_min = 4G

[class:batch]
mode = off
weight = 100
toptier_max = 1G

[rule:db]
class = latency
cgroup = /system.slice/postgresql.service

[rule:batch]
class = batch
cgroup = /batch.slice/**
EOM
mk_cg /system.slice
mk_cg /system.slice/postgresql.service full
mk_memstat /system.slice/postgresql.service 3221225472 1073741824 104857600 0 524288
mk_cg /batch.slice
mk_cg /batch.slice/job1 promote
mk_memstat /batch.slice/job1 0 2147483648 0 0 17
# a name that needs escaping in a label value
mk_cg '/batch.slice/we"ird\name' off
mk_memstat '/batch.slice/we"ird\name' 4096 8192 0 0 0
# an unmanaged cgroup and one without the knob (kernel without the patches)
mk_cg /user.slice
mk_memstat /user.slice 1 2 3 4 5
mk_cg /batch.slice/old -
mk_memstat /batch.slice/old 0 4096 0 0 0
for d in /system.slice /batch.slice; do mk_memstat "$d" 0 0 0 0 0; done

m() {
	rc=0
	"$METRICS" --config "$T/tierd.conf" --cgroup-root "$CG" --sysfs-root "$SYS" \
		--procfs-root "$PROC" "$@" >"$T/out" 2>"$T/err" || rc=$?
}
expect_sample() {
	grep -Fqx -- "$1" "$T/dump" || { cat "$T/dump" >&2; fail "no sample: $1"; }
}

mkdir -p "$T/textfile"
m -o "$T/textfile/tierd.prom"
[ "$rc" = 0 ] || { cat "$T/err" >&2; fail "tierd-metrics exited $rc"; }
[ -s "$T/err" ] && { cat "$T/err" >&2; fail "tierd-metrics wrote to stderr"; }
[ "$(ls -A "$T/textfile")" = tierd.prom ] || fail "temp files left: $(ls -A "$T/textfile")"
[ "$(stat -c %a "$T/textfile/tierd.prom")" = 644 ] || fail "mode is not 0644"
$PY "$SRCDIR/tests/hook/prom-dump.py" "$T/textfile/tierd.prom" >"$T/dump" || { cat "$T/textfile/tierd.prom" >&2; fail "does not parse"; }

PG='cgroup="/system.slice/postgresql.service",class="latency"'
J1='cgroup="/batch.slice/job1",class="batch"'
# The name is we"ird\name: the label value is the name as tierctl shows it
# (we"ird\\name: text_escape() doubles the backslash), and the file carries
# that in the format's escaping (we\"ird\\\\name); the dump shows the
# parser's value with Python's unicode_escape (we"ird\\\\name).
grep -Fq 'tierd_cgroup_fast_tier_bytes{cgroup="/batch.slice/we\"ird\\\\name",class="batch"} 4096' \
	"$T/textfile/tierd.prom" || fail "label value not escaped"
W='cgroup="/batch.slice/we"ird\\\\name",class="batch"'
OLD='cgroup="/batch.slice/old",class="batch"'
expect_sample "gauge tierd_fast_tier_capacity_bytes{} 17179869184.0"
expect_sample "gauge tierd_memory_capacity_bytes{} 25769803776.0"
expect_sample "gauge tierd_memory_tiers{} 2.0"
expect_sample "gauge tierd_managed_cgroups{} 4.0"
expect_sample "gauge tierd_cgroup_fast_tier_bytes{$PG} 3326083072.0"
expect_sample "gauge tierd_cgroup_slow_tier_bytes{$PG} 1073741824.0"
expect_sample "gauge tierd_cgroup_fast_tier_bytes{$J1} 0.0"
expect_sample "gauge tierd_cgroup_slow_tier_bytes{$J1} 2147483648.0"
expect_sample "gauge tierd_cgroup_fast_tier_bytes{$W} 4096.0"
expect_sample "counter tierd_cgroup_promoted_pages_total{$PG} 524288.0"
expect_sample "counter tierd_cgroup_promoted_pages_total{$J1} 17.0"
# targets: postgresql wants what it uses (4.4 GB, above its 4G minimum);
# job1 is capped by toptier_max = 1G; the small ones get their demand.
expect_sample "gauge tierd_cgroup_fast_tier_target_bytes{$PG} 4399824896.0"
expect_sample "gauge tierd_cgroup_fast_tier_target_bytes{$J1} 1073741824.0"
expect_sample "gauge tierd_cgroup_fast_tier_target_bytes{$W} 12288.0"
expect_sample "gauge tierd_cgroup_mode{$PG,mode=\"full\"} 1.0"
expect_sample "gauge tierd_cgroup_mode{$PG,mode=\"off\"} 0.0"
expect_sample "gauge tierd_cgroup_mode{$PG,mode=\"inherit\"} 0.0"
expect_sample "gauge tierd_cgroup_mode{$J1,mode=\"promote\"} 1.0"
expect_sample "gauge tierd_cgroup_effective_mode{$J1,mode=\"promote\"} 1.0"
expect_sample "gauge tierd_cgroup_effective_mode{$W,mode=\"off\"} 1.0"
expect_sample "gauge tierd_cgroup_effective_mode{$PG,mode=\"full\"} 1.0"
# the cgroup without the knob still has bytes, but no mode series
expect_sample "gauge tierd_cgroup_slow_tier_bytes{$OLD} 4096.0"
grep -q 'tierd_cgroup_mode{cgroup="/batch.slice/old"' "$T/dump" && fail "mode series for a cgroup without the knob"
grep -q 'user.slice' "$T/dump" && fail "an unmanaged cgroup is exported"
n=$(grep -c '^gauge tierd_cgroup_mode{' "$T/dump")
[ "$n" = 12 ] || fail "expected 3 cgroups x 4 modes, got $n"
n=$(grep -c '^gauge tierd_cgroup_effective_mode{' "$T/dump")
[ "$n" = 9 ] || fail "expected 3 cgroups x 3 effective modes, got $n"

# Hot sets (demand = hot), from tierd's hot-sets file in --run-dir:
# tierd_cgroup_hot_total_bytes for every reading, tierd_cgroup_hot_bytes
# with tier="fast" and tier="slow" where tierd measured the split (version
# 2 with per-tier values), nothing per tier for "-" or a version 1 file.
sed 's/^mode = \(full\|off\)$/&\ndemand = hot/' "$T/tierd.conf" >"$T/hot.conf"
grep -c '^demand = hot$' "$T/hot.conf" | grep -qx 2 || fail "hot.conf: $(cat "$T/hot.conf")"
mkdir -p "$T/run"
printf 'tierd-hot-sets 2 1\n%s\n%s\n%s\n%s\n' \
	'1073741824 805306368 268435456 /system.slice/postgresql.service' \
	'536870912 - - /batch.slice/job1' \
	'8192 4096 4096 /batch.slice/we"ird\name' \
	'999 1 1 /batch.slice/old' >"$T/run/hot-sets"
m --config "$T/hot.conf" --run-dir "$T/run" -o "$T/hot.prom"
[ "$rc" = 0 ] || { cat "$T/err" >&2; fail "tierd-metrics --run-dir exited $rc"; }
$PY "$SRCDIR/tests/hook/prom-dump.py" "$T/hot.prom" >"$T/dump" || { cat "$T/hot.prom" >&2; fail "hot: does not parse"; }
expect_sample "gauge tierd_cgroup_hot_total_bytes{$PG} 1073741824.0"
expect_sample "gauge tierd_cgroup_hot_bytes{$PG,tier=\"fast\"} 805306368.0"
expect_sample "gauge tierd_cgroup_hot_bytes{$PG,tier=\"slow\"} 268435456.0"
expect_sample "gauge tierd_cgroup_hot_total_bytes{$J1} 536870912.0"
expect_sample "gauge tierd_cgroup_hot_total_bytes{$W} 8192.0"
expect_sample "gauge tierd_cgroup_hot_bytes{$W,tier=\"fast\"} 4096.0"
expect_sample "gauge tierd_cgroup_hot_bytes{$W,tier=\"slow\"} 4096.0"
grep -q 'tierd_cgroup_hot_bytes{cgroup="/batch.slice/job1"' "$T/dump" &&
	fail "per-tier hot samples without a split"
grep -q 'tier="all"' "$T/dump" && fail "a tier=\"all\" sample"
# a line whose split does not add up is skipped: no reading for old
grep -q 'tierd_cgroup_hot.*/batch.slice/old' "$T/dump" && fail "a malformed line was read"
n=$(grep -c '^gauge tierd_cgroup_hot_bytes{' "$T/dump")
[ "$n" = 4 ] || fail "expected 2 cgroups x 2 tiers of hot bytes, got $n"
# the HELP says what the label means
grep -q '^# HELP tierd_cgroup_hot_bytes .*tier' "$T/hot.prom" || fail "no HELP for the tier label"
# version 1 (a tierd from before the split): totals only
printf 'tierd-hot-sets 1 1\n%s\n' '1073741824 /system.slice/postgresql.service' >"$T/run/hot-sets"
m --config "$T/hot.conf" --run-dir "$T/run" -o "$T/hot.prom"
[ "$rc" = 0 ] || { cat "$T/err" >&2; fail "tierd-metrics, version 1: exited $rc"; }
$PY "$SRCDIR/tests/hook/prom-dump.py" "$T/hot.prom" >"$T/dump" || fail "version 1: does not parse"
expect_sample "gauge tierd_cgroup_hot_total_bytes{$PG} 1073741824.0"
grep -q '^gauge tierd_cgroup_hot_bytes{' "$T/dump" && fail "per-tier hot samples from version 1"
# without the file: no hot series at all
rm "$T/run/hot-sets"
m --config "$T/hot.conf" --run-dir "$T/run" -o "$T/hot.prom"
[ "$rc" = 0 ] || fail "tierd-metrics without hot-sets: exited $rc"
grep -q '^tierd_cgroup_hot' "$T/hot.prom" && fail "hot series without a reading"

# Stdout, and a one-tier host: no targets.
rm -r "$SYS"
mkdir -p "$SYS"
mk_host_one_tier
m -o -
[ "$rc" = 0 ] || { cat "$T/err" >&2; fail "tierd-metrics -o - exited $rc"; }
$PY "$SRCDIR/tests/hook/prom-dump.py" "$T/out" >"$T/dump" || fail "stdout does not parse"
expect_sample "gauge tierd_memory_tiers{} 1.0"
grep -q target "$T/dump" && fail "targets on a one-tier host"

# Errors: a broken policy, an unwritable output; the old file stays.
cp "$T/textfile/tierd.prom" "$T/saved"
printf '[class:x]\nmode = sideways\n' >>"$T/tierd.conf"
m -o "$T/textfile/tierd.prom"
[ "$rc" = 1 ] || fail "broken policy: exit $rc"
grep -q "tierd.conf:[0-9]*: .*sideways" "$T/err" || { cat "$T/err" >&2; fail "no file:line error"; }
cmp -s "$T/saved" "$T/textfile/tierd.prom" || fail "the old textfile was touched"
sed -i '/^\[class:x\]$/,$d' "$T/tierd.conf"
m -o "$T/nonexistent-dir/tierd.prom"
[ "$rc" = 1 ] || fail "unwritable output: exit $rc"
grep -q "cannot write $T/nonexistent-dir/tierd.prom: No such file or directory" "$T/err" ||
	{ cat "$T/err" >&2; fail "no message for the unwritable output"; }
m --bogus
[ "$rc" = 2 ] || fail "bad option: exit $rc"

# -o replaces a regular file only: a FIFO, a device node, a symlink or a
# directory at the target is left alone (as root, -o /dev/null used to
# replace the device with a regular file), and no temp file stays.
refused() {
	[ "$rc" = 1 ] || { cat "$T/err" >&2; fail "$1: exit $rc"; }
	grep -Fq "cannot write $2: $3" "$T/err" || { cat "$T/err" >&2; fail "$1: no message"; }
	[ "$(ls -A "$T/textfile" | LC_ALL=C sort | tr '\n' ' ')" = "$4" ] ||
		fail "$1: the directory holds $(ls -A "$T/textfile")"
}
mkfifo "$T/textfile/fifo.prom"
m -o "$T/textfile/fifo.prom"
refused "a FIFO" "$T/textfile/fifo.prom" "it is not a regular file (a device, FIFO or socket); refusing to replace it" \
	"fifo.prom tierd.prom "
[ -p "$T/textfile/fifo.prom" ] || fail "the FIFO was replaced"
if mknod "$T/textfile/null.prom" c 1 3 2>/dev/null; then
	m -o "$T/textfile/null.prom"
	refused "a device node" "$T/textfile/null.prom" "it is not a regular file" \
		"fifo.prom null.prom tierd.prom "
	[ -c "$T/textfile/null.prom" ] || fail "the device node was replaced"
	rm "$T/textfile/null.prom"
fi
printf 'keep\n' >"$T/other"
ln -s "$T/other" "$T/textfile/link.prom"
m -o "$T/textfile/link.prom"
refused "a symlink" "$T/textfile/link.prom" "it is a symlink; refusing to replace it" \
	"fifo.prom link.prom tierd.prom "
[ -L "$T/textfile/link.prom" ] && [ "$(cat "$T/other")" = keep ] || fail "the symlink or its target was touched"
mkdir "$T/textfile/dir.prom"
m -o "$T/textfile/dir.prom"
refused "a directory" "$T/textfile/dir.prom" "it is a directory; refusing to replace it" \
	"dir.prom fifo.prom link.prom tierd.prom "
# a regular file is still replaced
m -o "$T/textfile/tierd.prom"
[ "$rc" = 0 ] || { cat "$T/err" >&2; fail "rewrite: exit $rc"; }
[ "$(ls -A "$T/textfile" | LC_ALL=C sort | tr '\n' ' ')" = "dir.prom fifo.prom link.prom tierd.prom " ] ||
	fail "temp files left: $(ls -A "$T/textfile")"

# Hostile names: a newline, an ESC sequence, a byte that is not UTF-8, a
# noncharacter (U+FFFE), a bidi override (U+202E), a C1 control (CSI). No
# byte of them reaches a label value raw: each is in it as tierctl shows it
# (\n, \x1b, \xff, \xef\xbf\xbe, \xe2\x80\xae, \xc2\x9b as text), so the
# parsed values hold no control character and the file is valid UTF-8.
mk_cg "$(printf '/batch.slice/nl\nname')" off
mk_memstat "$(printf '/batch.slice/nl\nname')" 4096 0 0 0 0
mk_cg "$(printf '/batch.slice/esc\033[31mred')" off
mk_memstat "$(printf '/batch.slice/esc\033[31mred')" 4096 0 0 0 0
mk_cg "$(printf '/batch.slice/bad-\377')" off
mk_memstat "$(printf '/batch.slice/bad-\377')" 4096 0 0 0 0
for n in 'nc-\357\277\276' 'bidi-\342\200\256gpj.exe' 'csi-\302\2332J'; do
	mk_cg "$(printf "/batch.slice/$n")" off
	mk_memstat "$(printf "/batch.slice/$n")" 4096 0 0 0 0
done
# Residency that would wrap: anon 2^64-1 + file 1 on the fast node.
mk_cg /batch.slice/huge off
mk_memstat /batch.slice/huge 0 0 0 0 0
sed -i -e 's/^anon N0=.*/anon N0=18446744073709551615 N1=0/' -e 's/^file N0=.*/file N0=1 N1=0/' \
	"$CG/batch.slice/huge/memory.numa_stat"
m -o "$T/textfile/tierd.prom"
[ "$rc" = 0 ] || { cat "$T/err" >&2; fail "hostile names: exit $rc"; }
$PY "$SRCDIR/tests/hook/prom-dump.py" "$T/textfile/tierd.prom" >"$T/dump" ||
	{ cat -v "$T/textfile/tierd.prom" >&2; fail "hostile names: does not parse"; }
grep -Fq 'tierd_cgroup_fast_tier_bytes{cgroup="/batch.slice/nl\\nname",class="batch"} 4096' \
	"$T/textfile/tierd.prom" || fail "newline not escaped in a label value"
expect_sample 'gauge tierd_cgroup_fast_tier_bytes{cgroup="/batch.slice/nl\\nname",class="batch"} 4096.0'
expect_sample 'gauge tierd_cgroup_fast_tier_bytes{cgroup="/batch.slice/esc\\x1b[31mred",class="batch"} 4096.0'
expect_sample 'gauge tierd_cgroup_fast_tier_bytes{cgroup="/batch.slice/bad-\\xff",class="batch"} 4096.0'
expect_sample 'gauge tierd_cgroup_mode{cgroup="/batch.slice/bad-\\xff",class="batch",mode="off"} 1.0'
expect_sample 'gauge tierd_cgroup_fast_tier_bytes{cgroup="/batch.slice/nc-\\xef\\xbf\\xbe",class="batch"} 4096.0'
expect_sample 'gauge tierd_cgroup_fast_tier_bytes{cgroup="/batch.slice/bidi-\\xe2\\x80\\xaegpj.exe",class="batch"} 4096.0'
expect_sample 'gauge tierd_cgroup_fast_tier_bytes{cgroup="/batch.slice/csi-\\xc2\\x9b2J",class="batch"} 4096.0'
# no control character, raw or as the format's \n, in any parsed value
LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$T/textfile/tierd.prom" &&
	fail "a raw control byte in the textfile"
grep -q '[^\\]\\n' "$T/textfile/tierd.prom" && fail "a newline in a label value"
expect_sample 'gauge tierd_cgroup_fast_tier_bytes{cgroup="/batch.slice/huge",class="batch"} 1.8446744073709552e+19'
grep -Fq 'tierd_cgroup_fast_tier_bytes{cgroup="/batch.slice/huge",class="batch"} 18446744073709551615' \
	"$T/textfile/tierd.prom" || fail "residency not saturated"
# libtier's messages quote names escaped (an unknown knob value here).
printf 'bo\033[5mgus\n' >"$CG/batch.slice/job1/memory.numa_balancing"
m -o -
[ "$rc" = 0 ] || { cat "$T/err" >&2; fail "garbage knob: exit $rc"; }
grep -Fq "unknown value 'bo\x1b[5mgus'" "$T/err" || { cat -v "$T/err" >&2; fail "no escaped warning"; }
if LC_ALL=C grep -q "$(printf '\033')" "$T/err"; then cat -v "$T/err" >&2; fail "raw ESC on stderr"; fi
printf 'promote\n' >"$CG/batch.slice/job1/memory.numa_balancing"

# A chain deeper than 256 levels and one longer than PATH_MAX beside the
# rest: one warning, every other cgroup exported.
deep=/deep.slice
i=0
while [ $i -lt 300 ]; do deep=$deep/d; i=$((i + 1)); done
mkdir -p "$CG$deep"
n=$(printf '%0250d' 0 | tr 0 n)
(
	cd "$CG/batch.slice" || exit 1
	i=0
	while [ $i -lt 20 ]; do
		mkdir "$n" && cd -P "$n" || exit 1
		i=$((i + 1))
	done
	CG=. mk_cg "" promote && CG=. mk_memstat "" 8192 0 0 0 0
) || fail "cannot build the long chain"
long=/batch.slice
i=0
while [ $i -lt 20 ]; do long=$long/$n; i=$((i + 1)); done
m -o "$T/textfile/tierd.prom"
[ "$rc" = 0 ] || { cat "$T/err" >&2; fail "deep tree: exit $rc"; }
grep -Eq "^tierd-metrics: /deep.slice(/d)+: deeper than 256 levels, skipping this subtree\$" "$T/err" &&
	[ "$(wc -l <"$T/err")" = 1 ] || { cat "$T/err" >&2; fail "deep tree: not one warning"; }
$PY "$SRCDIR/tests/hook/prom-dump.py" "$T/textfile/tierd.prom" >"$T/dump" || fail "deep tree: does not parse"
# (one tier now: every byte is fast)
expect_sample "gauge tierd_cgroup_fast_tier_bytes{$PG} 4399824896.0"
expect_sample "gauge tierd_cgroup_fast_tier_bytes{$J1} 2147483648.0"
# (a label over 256 bytes: its start and end around "...HASH...", HASH the
# 64-bit FNV-1a of the whole path, see tierd-metrics(8))
label=$($PY -c '
import sys
s, h = sys.argv[1], 0xcbf29ce484222325
for b in s.encode():
    h = ((h ^ b) * 0x100000001b3) % 2**64
print("%s...%016x...%s" % (s[:116], h, s[-116:]))' "$long")
expect_sample "gauge tierd_cgroup_fast_tier_bytes{cgroup=\"$label\",class=\"batch\"} 8192.0"
expect_sample "gauge tierd_cgroup_mode{cgroup=\"$label\",class=\"batch\",mode=\"promote\"} 1.0"
grep -q deep.slice "$T/dump" && fail "an unmanaged cgroup is exported"
exit 0
