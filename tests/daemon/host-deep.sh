#!/bin/sh
# A hostile subtree costs itself alone (design.md, "Trust"), host, fake tree:
# a chain of cgroups 300 levels deep, its path far over PATH_MAX, beside
# normal cgroups.  The startup reconcile still applies the policy to the
# rest, a new normal cgroup still gets its class, and the chain costs a few
# (rate-limited) log lines, not one per level or per pass.
. "$(dirname "$0")/lib-host.sh"

command -v busctl >/dev/null 2>&1 || skip "no busctl"

mk_fast_db_host
# The chain: 300 levels of 40-character names (about 12,000 bytes of path),
# made one level at a time by fds (no single path is ever that long).
mkdir "$CG/deep"
python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
for i in range(300):
    os.mkdir("d" * 40, dir_fd=fd)
    nfd = os.open("d" * 40, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
    os.close(fd)
    fd = nfd
' "$CG/deep" || fail "cannot build the deep chain"
mk_secret_db

start_tierd
wait_mode fast/a full 20
wait_mode apps/db promote
mk_cgroup fast/new
wait_mode fast/new full
n=$(grep -c 'dddddddddd' "$LOG")
[ "$n" -le 10 ] || { grep 'dddddddddd' "$LOG" | cut -c1-200 | head -20; fail "$n log lines about the chain"; }
grep -q 'deeper than 256 levels' "$LOG" || fail "the skipped chain is not mentioned"
kill -0 "$TIERD_PID" || fail "tierd died"
echo "ok 1 a 300-deep chain costs itself alone ($n log lines)"

stop_tierd
exit 0
