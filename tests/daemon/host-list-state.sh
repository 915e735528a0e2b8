#!/bin/sh
# ListCgroups (tierctl status) is answered from tierd's state, for root too
# (issue 24, item 15): root's call observed the whole tree each time.  The
# managed cgroups come from the table every event keeps current; the
# others from the last full pass.  So a cgroup no rule can reach, created
# after that pass (not watched, no event), is listed only after the next
# full pass, while a new managed cgroup is listed at once.
. "$(dirname "$0")/lib-host.sh"

command -v busctl >/dev/null 2>&1 || skip "no busctl"
mk_fast_db_host
mk_cgroup other
start_tierd
wait_mode fast/a full
bc ListCgroups bt true 0 >"$T/list" || fail "ListCgroups failed"
grep -q '"/fast/a" "fast" "fast"' "$T/list" || fail "ListCgroups lacks /fast/a: $(cat "$T/list")"
grep -q '"/other" "" ""' "$T/list" || fail "ListCgroups lacks /other: $(cat "$T/list")"

mk_cgroup other/late
mk_cgroup fast/b
wait_mode fast/b full
bc ListCgroups bt true 0 >"$T/list" || fail "ListCgroups failed"
grep -q '"/fast/b" "fast" "fast"' "$T/list" || fail "the new managed /fast/b is not listed"
grep -q '/other/late' "$T/list" && fail "ListCgroups observed the tree (/other/late is listed)"
bc ListCgroups bt false 0 >"$T/list" || fail "ListCgroups failed"
grep -q '/other' "$T/list" && fail "ListCgroups false lists unmanaged cgroups"
grep -q '"/fast/b" "fast" "fast"' "$T/list" || fail "ListCgroups false lacks /fast/b"

kill -HUP "$TIERD_PID"
wait_log 'Policy reloaded'
bc ListCgroups bt true 0 >"$T/list" || fail "ListCgroups failed"
grep -q '"/other/late" "" ""' "$T/list" || fail "the full pass of the reload did not list /other/late"
stop_tierd
echo "ok 1 ListCgroups answers from the state: the table, then the last full pass"
