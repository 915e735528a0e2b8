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
bc ListCgroups bt true 0 >"$T/list" || fail "ListCgroups fails with a name that is not UTF-8"
grep -q '/fast/a' "$T/list" || fail "ListCgroups lacks /fast/a"
echo "ok 1 names from the tree are escaped in the log, valid on the bus"

# A noncharacter (U+FFFE) is not UTF-8 as sd-bus takes it: it goes out as
# U+FFFD (each byte), and ListCgroups, DryRun, Status and ExplainCgroup keep
# working for everyone.  A bidi override (U+202E) is valid on the bus but
# escaped in the log, where it would reorder the line.
nc=$(printf 'nc-\357\277\276')
bidi=$(printf 'bidi-\342\200\256gpj.exe')
mk_cgroup "fast/$nc"
mk_cgroup "fast/$bidi"
wait_mode "fast/$nc" full
wait_mode "fast/$bidi" full
bc ListCgroups bt true 0 >"$T/list" || fail "ListCgroups fails with a U+FFFE cgroup"
grep -q '/fast/a' "$T/list" || fail "ListCgroups lacks /fast/a"
# (busctl shows the bytes of a string in octal)
grep -qF '"/fast/nc-\357\277\275\357\277\275\357\277\275"' "$T/list" ||
	{ cat -v "$T/list" >&2; fail "the U+FFFE name is not listed as U+FFFD"; }
bc DryRun t 0 >/dev/null || fail "DryRun fails with a U+FFFE cgroup"
bc Status >/dev/null || fail "Status fails with a U+FFFE cgroup"
bc ExplainCgroup s /fast >/dev/null || fail "ExplainCgroup /fast fails with a U+FFFE child"
bc ExplainCgroup s /fast/a >/dev/null || fail "ExplainCgroup fails with a U+FFFE cgroup"
grep -q "$(printf '\342\200\256')" "$LOG" && fail "a raw U+202E in the log"
grep -qF 'fast/bidi-\xe2\x80\xaegpj.exe: memory.numa_balancing inherit -> full' "$LOG" ||
	{ grep -a bidi "$LOG" | cat -v; fail "the bidi name is not escaped in the log"; }
grep -qF 'fast/nc-\xef\xbf\xbe: memory.numa_balancing inherit -> full' "$LOG" ||
	{ grep -a nc- "$LOG" | cat -v; fail "the U+FFFE name is not escaped in the log"; }
echo "ok 2 a noncharacter costs its own name on the bus, not the reply; bidi escaped in the log"

stop_tierd
exit 0
