#!/bin/sh
# Only what a rule can reach is watched (issue 24, item 11).  A user's
# subtree of 2,000 cgroups that no rule names cost two inotify watches per
# cgroup (a directory and its cgroup.events); now it costs none, and:
#  1. a cgroup= and a unit= rule still apply at once to new cgroups they
#     match (the slices above them are watched);
#  2. a reload whose rule reaches into the subtree watches that part, and a
#     new cgroup there gets its class at once; the reload back drops those
#     watches again.
# Watches are counted from /proc/PID/fdinfo of tierd's inotify fds.
. "$(dirname "$0")/lib-host.sh"

command -v python3 >/dev/null 2>&1 || skip "no python3 to make the subtree quickly"

mk_fake_host
policy() {
	cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
[class:fast]
mode = full
[rule:db]
class = fast
cgroup = /system.slice/postgresql*.service
unit = mariadb.service
$1
EOC
}
policy ""
mk_cgroup system.slice
mk_cgroup system.slice/postgresql.service
mk_cgroup user.slice
mk_cgroup user.slice/user-1000.slice
U=user.slice/user-1000.slice/user@1000.service
mk_cgroup $U
# 20 x 100 cgroups below the user's manager, each with cgroup.events.
python3 - "$CG/$U" <<'EOP'
import os, sys
base = sys.argv[1]
for i in range(20):
    for j in [None] + list(range(100)):
        d = "%s/a%d" % (base, i) + ("" if j is None else "/b%d" % j)
        os.mkdir(d)
        for f, v in (("cgroup.events", "populated 0\nfrozen 0\n"), ("cgroup.procs", ""),
                     ("memory.numa_balancing", "inherit\n")):
            with open(os.path.join(d, f), "w") as fh:
                fh.write(v)
EOP

watches() {
	cat /proc/"$TIERD_PID"/fdinfo/* 2>/dev/null | grep -c '^inotify wd:'
}

start_tierd
wait_mode system.slice/postgresql.service full
n=$(watches)
echo "# $n inotify watches for $(find "$CG" -type d | wc -l) cgroups"
[ "$n" -le 12 ] || fail "$n inotify watches: the user's subtree is watched"

mk_cgroup system.slice/postgresql-13.service
wait_mode system.slice/postgresql-13.service full
mk_cgroup system.slice/mariadb.service
wait_mode system.slice/mariadb.service full
echo "ok 1 $n watches; new cgroups a rule names get their class at once"

policy "[rule:app]
class = fast
cgroup = /$U/a1/*"
wait_log 'Policy reloaded'
wait_mode $U/a1/b7 full
mk_cgroup $U/a1/new
wait_mode $U/a1/new full
n2=$(watches)
[ "$n2" -gt "$n" ] && [ "$n2" -le $((n + 120)) ] ||
	fail "$n2 watches after the reload (before: $n): not just the part a rule reaches"
policy ""
"$WAITFOR" -t 10 -n 2 "$LOG" 'Policy reloaded' || fail "no second reload"
n3=$(watches)
[ "$n3" -le 14 ] || fail "$n3 watches after narrowing the policy again"
stop_tierd
echo "ok 2 a reload watches what its rules reach ($n2 watches) and drops it again ($n3)"
