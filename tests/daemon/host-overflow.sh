#!/bin/sh
# Lost events are rescanned at most once per holdoff (issue 24, item 14).
# The cgroup inotify queue is overflowed for real: tierd is stopped
# (SIGSTOP) while more files than fs.inotify.max_queued_events appear in
# the watched root, then continued.
#  1. with --rescan-holdoff 3600, three overflows in a row cost no full
#     pass beyond the one at startup: the rescan waits for the holdoff and
#     the later overflows join it;
#  2. with --rescan-holdoff 0, an overflow is rescanned right away.
. "$(dirname "$0")/lib-host.sh"

command -v python3 >/dev/null 2>&1 || skip "no python3 to make many files quickly"
MAXQ=$(cat /proc/sys/fs/inotify/max_queued_events 2>/dev/null) || skip "no max_queued_events"
[ "$MAXQ" -le 100000 ] || skip "max_queued_events is $MAXQ: too many files to make"

mk_fake_host
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
[class:fast]
mode = full
[rule:fast]
class = fast
cgroup = /fast
EOC
mk_cgroup fast

# overflow K: stop tierd, queue more events than the kernel keeps, continue,
# wait until tierd has seen its Kth overflow, remove the files again.
overflow() {
	kill -STOP "$TIERD_PID"
	python3 - "$CG" "$MAXQ" "$1" <<'EOP'
import os, sys
d, n, k = sys.argv[1], int(sys.argv[2]) + 64, sys.argv[3]
for i in range(n):
    os.close(os.open("%s/ovf.%s.%d" % (d, k, i), os.O_CREAT | os.O_WRONLY, 0o644))
EOP
	kill -CONT "$TIERD_PID"
	"$WAITFOR" -t 60 -n "$1" "$LOG" 'cgroup inotify queue overflowed' ||
		fail "tierd did not see overflow $1"
	python3 - "$CG" "$MAXQ" "$1" <<'EOP'
import os, sys
d, n, k = sys.argv[1], int(sys.argv[2]) + 64, sys.argv[3]
for i in range(n):
    os.unlink("%s/ovf.%s.%d" % (d, k, i))
EOP
}
passes() {
	grep -c 'Observing the whole cgroup tree' "$LOG"
}

start_tierd --rescan-holdoff 3600
wait_mode fast full
[ "$(passes)" = 1 ] || fail "$(passes) full passes at startup"
overflow 1
wait_log 'deferred by'
overflow 2
overflow 3
# The removals queued after overflow 3 are read, then the count: still one.
mk_cgroup after
wait_log '/after: created'
[ "$(passes)" = 1 ] || fail "$(passes) full passes: overflows were not held off"
wait_log 'joins it'
stop_tierd
echo "ok 1 three overflows within the holdoff cost no extra full pass"

start_tierd --rescan-holdoff 0
overflow 1
"$WAITFOR" -t 30 -n 2 "$LOG" 'Observing the whole cgroup tree' ||
	fail "no rescan after an overflow with a holdoff of 0"
grep -q 'Observing the whole cgroup tree (inotify queue overflow)' "$LOG" ||
	fail "the rescan does not say why"
stop_tierd
echo "ok 2 without a holdoff, an overflow is rescanned right away"
