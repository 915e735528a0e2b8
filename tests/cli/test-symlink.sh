#!/bin/sh
# A symlink inside the cgroup root (a cgroup directory, a knob file, a
# directory in the middle of a path) is never followed: tierctl set, get,
# explain and apply refuse it with exit 5 and leave the target outside the
# root untouched. (A cgroup2 mount holds no symlinks: someone put it there.)
. "$SRCDIR/tests/cli/lib.sh"

mk_standard_tree
C="--config $T/tierd.conf"

mkdir -p "$T/outside/victim"
printf 'inherit\n' >"$T/outside/victim/memory.numa_balancing"
printf 'inherit\n' >"$T/outside/knob"
printf 'inherit\n' >"$T/outside/knob2"
# a cgroup directory that is a symlink
ln -s "$T/outside/victim" "$CG/system.slice/evil.service"
# a knob that is a symlink
mk_cg /system.slice/linky.service
rm "$CG/system.slice/linky.service/memory.numa_balancing"
ln -s "$T/outside/knob" "$CG/system.slice/linky.service/memory.numa_balancing"
# a symlink in the middle of the path
ln -s "$T/outside" "$CG/evil.slice"
# a managed cgroup the policy would change (inherit -> off), knob a symlink
rm "$CG/batch.slice/job1/memory.numa_balancing"
ln -s "$T/outside/knob2" "$CG/batch.slice/job1/memory.numa_balancing"

untouched() {
	[ "$(cat "$T/outside/victim/memory.numa_balancing")" = inherit ] ||
		fail "$1: the cgroup outside the root was written"
	[ "$(cat "$T/outside/knob")" = inherit ] || fail "$1: the linked knob was written"
	[ "$(cat "$T/outside/knob2")" = inherit ] || fail "$1: the linked knob2 was written"
	[ -L "$CG/system.slice/evil.service" ] && [ -L "$CG/evil.slice" ] &&
		[ -L "$CG/system.slice/linky.service/memory.numa_balancing" ] ||
		fail "$1: a symlink was replaced"
}

tc set /system.slice/evil.service off
expect_rc 5
expect_err "^tierctl: /system.slice/evil.service: cannot open the cgroup: is or goes through a symlink, refused\$"
untouched "set on a symlinked cgroup"

tc set /system.slice/linky.service off
expect_rc 5
expect_err "^tierctl: /system.slice/linky.service: cannot read memory.numa_balancing: is or goes through a symlink, refused\$"
untouched "set on a symlinked knob"

tc set /evil.slice/victim off
expect_rc 5
expect_err "^tierctl: /evil.slice/victim: cannot open the cgroup: is or goes through a symlink, refused\$"
untouched "set below a symlinked directory"

tc get /system.slice/evil.service
expect_rc 5
tc get /system.slice/linky.service
expect_rc 5
tc $C explain /system.slice/evil.service
expect_rc 5
expect_err "symlink, refused"

# apply writes every other change and reports the refused one.
tc $C apply
expect_rc 5
expect_err "^tierctl: /batch.slice/job1: cannot write memory.numa_balancing off: is or goes through a symlink, refused\$"
expect_out "^/system.slice/memcached.service: memory.numa_balancing inherit -> promote"
expect_knob /batch.slice/job1/step off
untouched "apply"
exit 0
