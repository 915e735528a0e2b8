#!/bin/sh
# bench/bench-scale.sh: tierd, tierctl and tierd-metrics on large fake trees
# (bench/scale-tree.c), a benchmark, not a test: figures only.
#
#   make bench-scale [BENCH_SCALE_CASES="long:2252 long:10000 plain:100000"]
#
# For each case: a fake host under $TMPDIR (default /dev/shm), a policy whose
# rule manages every cgroup, then
#  - tierd (the plain build, not ASan) started on it: start-up time to
#    "tierd started", its RSS then and its peak (VmHWM) at the end;
#  - ListCgroups(all) through the bus socket, page by page as tierctl asks:
#    the largest reply (bytes of busctl's JSON of it; sd-bus refuses
#    messages over 128 MiB);
#  - tierctl status, the table and --json: time and bytes printed;
#  - tierd-metrics -o FILE: time and the size of the textfile.
# Cases: long:N is N cgroups in chains 250 deep with 255-byte names (leaves
# about 64 KB long, -d 250 -l 255 -f 1000), plain:N is N cgroups two levels
# deep.  Env: TIERD, TIERCTL, METRICS, SCALE_TREE, WAITFOR (the binaries),
# CASES.
set -u

: "${TIERD:?}" "${TIERCTL:?}" "${METRICS:?}" "${SCALE_TREE:?}" "${WAITFOR:?}"
CASES=${CASES:-long:2252 long:10000 plain:100000}
BASE=${TMPDIR:-/dev/shm}
[ -d "$BASE" ] || BASE=/tmp
T=$(mktemp -d "$BASE/tierd-scale.XXXXXX")
PID=
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export TIER_TEST_FAKE_CGROUP=1

ms() { date +%s%3N; }
kb() { awk -v k="$2" '$1 == k":" { print $2 }' "/proc/$1/status"; }

printf '%-13s %8s %9s %9s %12s %11s %11s %11s %11s\n' case start_ms rss_MB peak_MB \
	max_reply status_ms status_out json_out metrics_out
for c in $CASES; do
	kind=${c%%:*} n=${c#*:}
	H=$T/$kind-$n
	case $kind in
	long) "$SCALE_TREE" -n "$n" -d 250 -l 255 -f 1000 "$H" >/dev/null ;;
	plain) "$SCALE_TREE" -n "$n" "$H" >/dev/null ;;
	*) echo "unknown case $c" >&2; exit 2 ;;
	esac || exit 1
	mkdir -p "$H/etc"
	cat >"$H/etc/tierd.conf" <<EOC
[daemon]
reconcile_interval = 1h
rebalance_interval = 1h
[class:all]
mode = promote
[rule:all]
class = all
cgroup = /**
EOC
	t0=$(ms)
	"$TIERD" --foreground --config "$H/etc/tierd.conf" --cgroup-root "$H/cg" \
		--sysfs-root "$H/sys" --procfs-root "$H/proc" --no-proc-connector --no-systemd \
		--no-system-bus --bus-socket "$H/bus" >"$H/log" 2>&1 &
	PID=$!
	"$WAITFOR" -t 900 "$H/log" 'tierd started|Cannot start' >/dev/null || { cat "$H/log"; exit 1; }
	start=$(($(ms) - t0))
	rss=$(kb "$PID" VmRSS)
	# The largest ListCgroups reply, as busctl receives it.
	max=0 off=0
	while :; do
		busctl --address="unix:path=$H/bus" --json=short call org.tierd.Manager1 \
			/org/tierd/Manager1 org.tierd.Manager1 ListCgroups bt true "$off" \
			>"$H/page" 2>"$H/page.err" || {
			# a tierd with ListCgroups(b): one reply, all of it
			busctl --address="unix:path=$H/bus" --json=short call org.tierd.Manager1 \
				/org/tierd/Manager1 org.tierd.Manager1 ListCgroups b true \
				>"$H/page" 2>"$H/page.err" || { max="fail:$(head -c 40 "$H/page.err")"; break; }
			max=$(stat -c %s "$H/page")
			break
		}
		s=$(stat -c %s "$H/page")
		[ "$s" -gt "$max" ] && max=$s
		next=$(sed -n 's/.*\],\([0-9]*\)\]}$/\1/p' "$H/page")
		[ -n "$next" ] && [ "$next" != 0 ] || break
		off=$next
	done
	tc="$TIERCTL --bus-socket $H/bus --daemon --cgroup-root $H/cg --sysfs-root $H/sys"
	tc="$tc --procfs-root $H/proc"
	t0=$(ms)
	$tc status >"$H/status" 2>"$H/status.err" || head -c 300 "$H/status.err" >&2
	st=$(($(ms) - t0))
	$tc --json status >"$H/json" 2>>"$H/status.err" || head -c 300 "$H/status.err" >&2
	peak=$(kb "$PID" VmHWM)
	kill "$PID"; wait "$PID" 2>/dev/null; PID=
	"$METRICS" --config "$H/etc/tierd.conf" --cgroup-root "$H/cg" --sysfs-root "$H/sys" \
		--procfs-root "$H/proc" -o "$H/prom" >/dev/null 2>"$H/metrics.err"
	printf '%-13s %8s %9s %9s %12s %11s %11s %11s %11s\n' "$c" "$start" \
		"$((rss / 1024))" "$((peak / 1024))" "$max" "$st" \
		"$(stat -c %s "$H/status")" "$(stat -c %s "$H/json")" \
		"$(stat -c %s "$H/prom" 2>/dev/null || echo -)"
	rm -rf "$H"
done
