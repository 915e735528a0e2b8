#!/bin/sh
# Names from the tree in tierd's output, host, fake tree: a cgroup whose name
# holds a newline, an ESC sequence and a byte that is not UTF-8 is escaped
# in the log (one printable line per record), and on the bus it is valid
# UTF-8, so listing the tree does not fail because of it.
. "$(dirname "$0")/lib-host.sh"

command -v busctl >/dev/null 2>&1 || skip "no busctl"

mk_fast_db_host
start_tierd
wait_mode fast/a full

evil=$(printf 'evil\nline\033[31m\377x')
mk_cgroup "fast/$evil"
wait_mode "fast/$evil" full
wait_log 'evil.*memory.numa_balancing inherit -> full'
esc=$(printf '\033')
grep -q "$esc" "$LOG" && fail "a raw ESC in the log"
LC_ALL=C grep -q "$(printf '\377')" "$LOG" && fail "a byte that is not UTF-8 in the log"
grep -q '^line' "$LOG" && fail "a cgroup name broke a log line"
grep -qF 'fast/evil\nline\x1b[31m\xffx: memory.numa_balancing inherit -> full' "$LOG" ||
	{ grep -a evil "$LOG" | cat -v; fail "the name is not escaped as expected"; }
# On the bus it is valid UTF-8 (the byte as U+FFFD), and the listing of
# the whole tree does not fail because of it.
bc ListCgroups b true >"$T/list" || fail "ListCgroups fails with a name that is not UTF-8"
grep -q '/fast/a' "$T/list" || fail "ListCgroups lacks /fast/a"
echo "ok 1 names from the tree are escaped in the log, valid on the bus"

stop_tierd
exit 0
