#!/bin/sh
# An edit saved while a reload runs is applied (issue 24, item 15).  The
# reload recreated the config watcher, so what was queued in the old one
# was lost: here a drop-in written while the reload parses a large one
# (after the drop-ins were listed) must still be loaded, by the reload its
# event triggers.
. "$(dirname "$0")/lib-host.sh"

command -v python3 >/dev/null 2>&1 || skip "no python3 to write the large drop-in"

mk_fake_host
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
[class:fast]
mode = full
[class:slow]
mode = off
[rule:fast]
class = fast
cgroup = /a
EOC
# 12 MB of comments: the reload takes a while to parse it.
python3 - "$T/etc/tierd.conf.d/00-big.conf" <<'EOP'
import sys
with open(sys.argv[1], "w") as f:
    line = "# " + "x" * 97 + "\n"
    f.write(line * 120000)
EOP
mk_cgroup a
mk_cgroup b
start_tierd
wait_mode a full

kill -HUP "$TIERD_PID"
wait_log 'Reloading the policy from .*(SIGHUP)'
cat >"$T/etc/tierd.conf.d/50-new.conf" <<EOC
[rule:slow]
class = slow
cgroup = /b
EOC
wait_mode b off 30
stop_tierd
echo "ok 1 a drop-in saved during a reload is loaded"
