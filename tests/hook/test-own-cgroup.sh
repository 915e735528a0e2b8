#!/bin/sh
# Issue item 3: the hook touches the container's own cgroup and nothing
# else. Refused, with a message, in both failure modes, and nothing is
# written anywhere:
#  - the root cgroup: cgroupsPath "/" (and "//"), or "0::/" from /proc;
#  - a cgroup config.json does not name: a cgroupsPath that does not exist
#    while /proc/PID/cgroup names another cgroup (sshd's), or a relative
#    cgroupsPath the init's cgroup does not end in;
#  - an ancestor shared with others: a cgroup whose subtree holds a process
#    that is not the container's init, the slice above the container's
#    scope, or one with more than 64 cgroups below it.
# The /proc fallback is still used when config.json names no cgroup.
. "$SRCDIR/tests/hook/lib.sh"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"

mk_policy
ID=3f1d2c4b5a697e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d
CRUN=/machine.slice/libpod-$ID.scope
SSHD=/system.slice/sshd.service
mk_cg ""			# the root's files, as the fake tree can have them
mk_cg "$CRUN"
mk_cg "$SSHD"
printf '812\n' >"$CG$SSHD/cgroup.procs"
mkdir -p "$PROC/52117"

# reset_knobs: every cgroup's knobs at the kernel's defaults, no xattrs.
reset_knobs() {
	/usr/bin/python3 - "$CG" <<'EOP'
import os, sys
for d, _, files in os.walk(sys.argv[1]):
    if "memory.numa_balancing" in files:
        open(os.path.join(d, "memory.numa_balancing"), "w").write("inherit\n")
        open(os.path.join(d, "memory.low"), "w").write("0\n")
        open(os.path.join(d, "memory.high"), "w").write("max\n")
    for x in os.listxattr(d):
        os.removexattr(d, x)
EOP
}

# tree_state: the tree's files and xattrs.
tree_state() {
	/usr/bin/python3 - "$CG" <<'EOP'
import os, sys
for d, dirs, files in sorted(os.walk(sys.argv[1])):
    for x in sorted(os.listxattr(d)):
        print(d, x, os.getxattr(d, x))
    for f in sorted(files):
        print(d, f, open(os.path.join(d, f)).read().strip())
EOP
}

# refused NAME REGEX: with $T/s on stdin, fail-open exits 0 and
# fail-closed 1, both say REGEX, and nothing in the tree changes.
refused() {
	reset_knobs
	before=$(tree_state)
	hook <"$T/s"
	[ "$(tree_state)" = "$before" ] || fail "$1: the hook wrote to a cgroup not the container's"
	expect_rc 0
	expect_err "$2"
	reset_knobs
	hook --fail-closed <"$T/s"
	[ "$(tree_state)" = "$before" ] || fail "$1 (fail-closed): the hook wrote"
	expect_rc 1
	expect_err "$2"
}

# --- the root: cgroupsPath "/" or "//", /proc "0::/"
printf '0::%s\n' "$CRUN" >"$PROC/52117/cgroup"
with_cgroups_path crun /
refused 'cgroupsPath "/"' "linux.cgroupsPath '/' is the root cgroup: not touching it"
rm "$PROC/52117/cgroup"
refused 'cgroupsPath "/", no /proc' "linux.cgroupsPath '/' is the root cgroup"
with_cgroups_path crun //
refused 'cgroupsPath "//"' "linux.cgroupsPath '//' is the root cgroup"
without_cgroups_path crun
printf '0::/\n' >"$PROC/52117/cgroup"
refused '"0::/"' "the container's init \(pid 52117\) is in the root cgroup: not touching it"

# --- a cgroupsPath that does not exist, and /proc names sshd's cgroup
with_cgroups_path crun /kubepods/gone
printf '0::%s\n' "$SSHD" >"$PROC/52117/cgroup"
refused "nonexistent cgroupsPath, /proc elsewhere" \
	"linux.cgroupsPath '/kubepods/gone' names /kubepods/gone, but the container's init \(pid 52117\) is in $SSHD"
# ... the systemd form, the same
state crun >"$T/s"
refused "systemd cgroupsPath, /proc elsewhere" \
	"names $CRUN, but the container's init \(pid 52117\) is in $SSHD"
# ... a relative cgroupsPath the init's cgroup does not end in
with_cgroups_path crun libpod/abc
refused "relative cgroupsPath, /proc elsewhere" \
	"is in $SSHD .*which is not the relative linux.cgroupsPath 'libpod/abc' nor a child of it"

# --- config.json says nothing and /proc names a cgroup with others in it
without_cgroups_path crun
refused "/proc: a cgroup with another process" \
	"$SSHD: process 812 in $SSHD is not the container's init \(pid 52117\): a cgroup shared with others"

# --- an ancestor: cgroupsPath names the slice above the container's scope
printf '0::%s\n' "$CRUN" >"$PROC/52117/cgroup"
mk_cg /machine.slice
with_cgroups_path crun /machine.slice
refused "the slice above" \
	"linux.cgroupsPath '/machine.slice' names /machine.slice, but the container's init \(pid 52117\) is in $CRUN"
# ... without /proc to tell: another container's process below it
rm "$PROC/52117/cgroup"
mk_cg /machine.slice/libpod-other.scope
printf '4242\n' >"$CG/machine.slice/libpod-other.scope/cgroup.procs"
refused "an ancestor with others below" \
	"/machine.slice: process 4242 in /machine.slice/libpod-other.scope is not the container's init"
rm -r "$CG/machine.slice/libpod-other.scope"
# ... more than 64 cgroups below it
i=0
while [ $i -lt 65 ]; do
	mk_cg "/machine.slice/x-$i.scope"
	i=$((i + 1))
done
refused "65 cgroups below" "/machine.slice: more than 64 cgroups below it: not a new container's cgroup"
rm -r "$CG"/machine.slice/x-*.scope

# --- what still works: the container's own cgroup, with its init in it,
# in a "container" child (crun), or found through /proc alone
printf '52117\n' >"$CG$CRUN/cgroup.procs"
printf '0::%s\n' "$CRUN" >"$PROC/52117/cgroup"
state crun >"$T/s"
hook --fail-closed <"$T/s"
expect_rc 0
expect_file "$CRUN" memory.numa_balancing full
mk_cg "$CRUN"
mk_cg "$CRUN/container"
printf '52117\n' >"$CG$CRUN/container/cgroup.procs"
printf '0::%s/container\n' "$CRUN" >"$PROC/52117/cgroup"
hook --fail-closed <"$T/s"
expect_rc 0
expect_file "$CRUN" memory.numa_balancing full
expect_file "$CRUN/container" memory.numa_balancing inherit
mk_cg "$CRUN"
without_cgroups_path crun
printf '0::%s\n' "$CRUN" >"$PROC/52117/cgroup"
hook --fail-closed <"$T/s"
expect_rc 0
expect_file "$CRUN" memory.numa_balancing full
exit 0
