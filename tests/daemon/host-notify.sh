#!/bin/sh
# sd_notify carries only tierd's own assignments (issue 24, item 10): a
# drop-in whose file name holds newlines and "WATCHDOG=trigger",
# "STOPPING=1", "MAINPID=1" breaks the reload, and the error (with the file
# name) goes into STATUS=.  Each datagram the fake NOTIFY_SOCKET receives
# must hold those only as escaped text of STATUS=, never as assignments.
. "$(dirname "$0")/lib-host.sh"

command -v python3 >/dev/null 2>&1 || skip "no python3 for the fake NOTIFY_SOCKET"

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

# The fake notify socket: one line "A <assignment>" per assignment, then
# "--" after each datagram.
NOTIFY=$T/notify
RECORD=$T/notify.log
: >"$RECORD"
python3 - "$NOTIFY" "$RECORD" <<'EOP' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a") as out:
    out.write("bound\n")
    out.flush()
    while True:
        d = s.recv(65536)
        for a in d.decode("utf-8", "replace").split("\n"):
            out.write("A " + a + "\n")
        out.write("--\n")
        out.flush()
EOP
PY_PID=$!
trap 'kill $PY_PID 2>/dev/null; cleanup' EXIT
"$WAITFOR" -t 10 "$RECORD" '^bound$' || fail "the fake notify socket did not appear"

NOTIFY_SOCKET=$NOTIFY start_tierd
wait_mode fast full
"$WAITFOR" -t 10 "$RECORD" '^A READY=1$' || fail "no READY=1 datagram"

# A drop-in with a hostile name and a syntax error: the reload fails and
# STATUS= names the file.
bad="$(printf 'x\nWATCHDOG=trigger\nSTOPPING=1\nMAINPID=1\ny.conf')"
printf '[rule:broken\n' >"$T/etc/tierd.conf.d/$bad"
wait_log 'keeping the previous policy'
"$WAITFOR" -t 10 "$RECORD" '^A STATUS=.*last reload FAILED' ||
	fail "no STATUS= with the failed reload"

if grep -E '^A (WATCHDOG|STOPPING|MAINPID)=' "$RECORD" >/dev/null; then
	cat "$RECORD" >&2
	fail "a drop-in's name added assignments to the sd_notify datagram"
fi
grep -q '^A STATUS=.*WATCHDOG=trigger' "$RECORD" ||
	{ cat "$RECORD" >&2; fail "STATUS= does not show the file name (escaped)"; }
stop_tierd
echo "ok 1 a drop-in's name reaches STATUS= escaped, never as an assignment"
