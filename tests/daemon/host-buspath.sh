#!/bin/sh
# Cgroup paths from the bus are normalised once, at the boundary
# (tier_cgroup_path_normalize()), host, fake tree: Explain and ExplainCgroup
# of "//fast//a/" answer exactly as for "/fast/a"; a ".." component or a
# relative path is InvalidArgs.
. "$(dirname "$0")/lib-host.sh"

command -v busctl >/dev/null 2>&1 || skip "no busctl"

mk_fast_db_host
mk_secret_db
start_tierd
wait_mode fast/a full

bc Explain s /fast/a >"$T/plain" || fail "Explain /fast/a"
bc Explain s //fast//a/ >"$T/odd" || fail "Explain //fast//a/"
cmp -s "$T/plain" "$T/odd" || { cat "$T/plain" "$T/odd"; fail "//fast//a/ is explained differently"; }
bc ExplainCgroup s /fast/a >"$T/plain"
bc ExplainCgroup s ///fast/a// >"$T/odd"
cmp -s "$T/plain" "$T/odd" || { cat "$T/plain" "$T/odd"; fail "ExplainCgroup differs"; }
bc Explain s /fast/../apps/db >"$T/dots" 2>&1 && fail "a .. component was accepted"
grep -q 'Not an absolute cgroup path' "$T/dots" || { cat "$T/dots"; fail "no InvalidArgs for .."; }
bc Explain s fast/a >"$T/dots" 2>&1 && fail "a relative path was accepted"
echo "ok 1 bus paths are normalised"

stop_tierd
exit 0
