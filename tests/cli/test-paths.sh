#!/bin/sh
# Every cgroup argument is normalised once (libtier's
# tier_cgroup_path_normalize): "//a/b/" is "/a/b", the path the rules match,
# for explain, get and set alike.
. "$SRCDIR/tests/cli/lib.sh"

mk_standard_tree
C="--config $T/tierd.conf"

tc $C explain /system.slice/memcached.service
expect_rc 0
cp "$T/out" "$T/canonical"
expect_out "^rule: +pinned "
for p in //system.slice/memcached.service/ /system.slice//memcached.service// \
	system.slice/memcached.service/ ///system.slice///memcached.service; do
	tc $C explain "$p"
	expect_rc 0
	cmp -s "$T/out" "$T/canonical" || { diff "$T/canonical" "$T/out" >&2; fail "explain '$p' differs"; }
done

tc set //batch.slice/job1/ off
expect_rc 0
expect_out "^/batch.slice/job1: memory.numa_balancing inherit -> off\$"
expect_knob /batch.slice/job1 off
tc get //batch.slice//job1/step//
expect_rc 0
expect_out "^/batch.slice/job1/step: configured promote, effective off \\(set by /batch.slice/job1\\)\$"
tc get //
expect_rc 0
expect_out "^/: configured -, effective full"

tc get /batch.slice/./job1
expect_rc 2
expect_err "invalid cgroup path"
tc $C explain //batch.slice/..//
expect_rc 2
exit 0
