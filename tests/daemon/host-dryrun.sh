#!/bin/sh
# One question, one answer: `tierctl apply --dry-run` asked of the running
# tierd and worked out from the files gives the same exit status, the same
# JSON schema and the same summary, on a kernel with memory.numa_balancing
# (exit 0) and on one without it (exit 4; tierd's answer used to be exit 0,
# "0 changes", in a JSON schema of its own).
. "$(dirname "$0")/lib-host.sh"

: "${TIERCTL:?TIERCTL must name the tierctl binary under test}"
command -v python3 >/dev/null 2>&1 || skip "python3 not found"

mk_fake_host
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h

[class:fast]
mode = full

[class:batch]
mode = off
memory_low = 16M

[rule:fast]
class = fast
cgroup = /fast/**

[rule:batch]
class = batch
cgroup = /batch/**
EOC
for c in fast fast/a fast/b batch batch/b other; do
	mkdir -p "$CG/$c"
	fill_cgroup "$CG/$c"
done

# both NAME: the dry run from tierd ($T/NAME.d.*) and from the files
# ($T/NAME.f.*), text and JSON, with their exit statuses.
both() {
	for how in d f; do
		if [ $how = d ]; then
			set -- --daemon --bus-socket "$T/bus"
		else
			set -- --no-daemon --config "$CONF"
		fi
		for fmt in txt json; do
			j=; [ $fmt = json ] && j=--json
			rc=0
			"$TIERCTL" $j "$@" --cgroup-root "$CG" --sysfs-root "$SYS" \
				--procfs-root "$PROC" apply --dry-run \
				>"$T/$NAME.$how.$fmt" 2>"$T/$NAME.$how.$fmt.err" || rc=$?
			echo $rc >"$T/$NAME.$how.$fmt.rc"
		done
	done
}

# same NAME RC: both answers exit RC, have the same JSON keys and summary,
# the same changes, and the same summary line (but for "(tierd, SOCKET)").
same() {
	for f in d.txt d.json f.txt f.json; do
		[ "$(cat "$T/$1.$f.rc")" = "$2" ] || {
			cat "$T/$1.$f" "$T/$1.$f.err" >&2
			fail "$1: $f exited $(cat "$T/$1.$f.rc"), expected $2"; }
	done
	python3 - "$T/$1.d.json" "$T/$1.f.json" <<'EOF' || fail "$1: the JSON answers differ"
import json, sys
d, f = (json.load(open(p)) for p in sys.argv[1:3])
assert sorted(d) == sorted(f), (sorted(d), sorted(f))
assert d["summary"] == f["summary"], (d["summary"], f["summary"])
key = lambda c: (c["cgroup"], c["attribute"])
assert sorted(d["changes"], key=key) == sorted(f["changes"], key=key), (d["changes"], f["changes"])
assert d["dry_run"] is True and f["dry_run"] is True
assert f["source"] is None and d["source"]
EOF
	dl=$(tail -n 1 "$T/$1.d.txt" | sed 's/^dry run (tierd, [^)]*): /dry run: /')
	fl=$(tail -n 1 "$T/$1.f.txt")
	[ "$dl" = "$fl" ] || fail "$1: summary lines differ: '$dl' vs '$fl'"
}

start_tierd
wait_mode fast/a full
wait_mode batch/b off
# Drift: one knob and one limit off their policy.
printf 'promote\n' >"$CG/fast/a/memory.numa_balancing"
printf '0\n' >"$CG/batch/b/memory.low"
NAME=patched both
same patched 0
grep -q "2 would change" "$T/patched.f.txt" || { cat "$T/patched.f.txt"; fail "patched: not 2 changes"; }
echo "ok 1 with the knob: same exit, schema and summary"

# A kernel without the knob: every managed cgroup's knob gone.
for c in fast fast/a fast/b batch batch/b other; do
	rm -f "$CG/$c/memory.numa_balancing"
done
NAME=stock both
same stock 4
grep -q "kernel does not support memory.numa_balancing" "$T/stock.d.txt.err" ||
	fail "stock: tierd's answer does not say why"
echo "ok 2 without the knob: exit 4 from both, same schema and summary"
stop_tierd
exit 0
