#!/bin/sh
# exe= rules name the host's file (issue 24, item 8): a process that runs
# another file under the rule's path name in a mount namespace of its own
# (here unshare -m and a tmpfs over the rule's directory; as nobody,
# unshare -Urm does the same) does not get the class; the same name run
# from the host's file does.  Real processes and the real /proc, a fake
# cgroup tree whose cgroup.procs name them.
. "$(dirname "$0")/lib-host.sh"

command -v unshare >/dev/null 2>&1 || skip "no unshare"
SLEEP=$(command -v sleep) || skip "no sleep"
mk_fake_host
mkdir -p "$T/bin"
cp "$SLEEP" "$T/bin/dbd"
unshare -m sh -c "mount -t tmpfs none '$T/bin'" 2>/dev/null ||
	skip "cannot mount a tmpfs in a new mount namespace here"

cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
[class:db]
mode = full
[rule:db]
class = db
exe = $T/bin/dbd
EOC
mk_cgroup real
mk_cgroup forged
# The host's file.
"$T/bin/dbd" 600 &
REAL=$!
# Another file under the same name, in its own mount namespace.
unshare -m sh -c "mount -t tmpfs none '$T/bin' && cp '$SLEEP' '$T/bin/dbd' &&
	echo ready >'$T/forged.ready' && exec '$T/bin/dbd' 600" &
FORGED=$!
trap 'kill $REAL $FORGED 2>/dev/null; cleanup' EXIT
"$WAITFOR" -t 10 "$T/forged.ready" '^ready$' || fail "the forged process did not start"
# It execs right after saying so: the exec is seen at once or after a few
# short bounded waits.
i=0
while [ "$(readlink /proc/$FORGED/exe 2>/dev/null)" != "$T/bin/dbd" ] && [ $i -lt 50 ]; do
	"$WAITFOR" -t 0.1 "$CONF" '^never$' >/dev/null 2>&1
	i=$((i + 1))
done
[ "$(readlink /proc/$FORGED/exe)" = "$T/bin/dbd" ] || fail "the forged process did not start"
[ "$(stat -Lc %i /proc/$FORGED/exe)" != "$(stat -c %i "$T/bin/dbd")" ] ||
	fail "the forged process runs the host's file"
printf '%s\n' $REAL >"$CG/real/cgroup.procs"
printf '%s\n' $FORGED >"$CG/forged/cgroup.procs"

PROC=/proc start_tierd
wait_mode real full
[ "$(mode_of forged)" = inherit ] || fail "the forged executable got class db: $(mode_of forged)"
stop_tierd
echo "ok 1 exe= matches the host's file, not the same name in another mount namespace"
