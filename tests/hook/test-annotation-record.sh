#!/bin/sh
# Issue 24 item 1: annotation rules under tierd.service, which does not grant
# CAP_SYS_ADMIN, so the kernel hides the trusted.* xattr the hook sets. The
# hook (root) also records the class in a root-owned file named by the
# cgroup directory's inode ($TIER_TEST_ANNOTATION_DIR here,
# /run/tierd/annotations on a host), which libtier reads without the
# capability. On the fake tree:
#  - the hook writes the record (path line, KEY=VALUE), 0600, atomically;
#    --dry-run writes none;
#  - tierctl explain with CAP_SYS_ADMIN dropped (setpriv) finds the class
#    through the record; without the record it says unmanaged (the bug);
#  - hostile records are ignored: owned by another user, group/world
#    writable, a symlink, a hard link, in a symlinked or world-writable
#    directory, or named after another cgroup;
#  - the next hook run removes the records of cgroups that are gone (or whose
#    path names another directory now) and leaves untrusted files alone.
. "$SRCDIR/tests/hook/lib.sh"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
[ "$(id -u)" = 0 ] || skip "needs root (records are root's; chown for the hostile cases)"
command -v setpriv >/dev/null 2>&1 || skip "no setpriv (util-linux)"
[ -n "${TIERCTL:-}" ] && [ -x "$TIERCTL" ] || skip "no tierctl (TIERCTL)"
/usr/bin/python3 -c "import os, sys; os.setxattr(sys.argv[1], 'trusted.t', b'1')" "$CG" 2>/dev/null ||
	skip "$T does not take trusted.* xattrs"
NOCAP="setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin --"
v=$($NOCAP /usr/bin/python3 -c "import os, sys; print(os.listxattr(sys.argv[1]))" "$CG")
case $v in *trusted.t*) skip "trusted.* xattrs stay visible without CAP_SYS_ADMIN here" ;; esac

mk_policy
mk_host_two_tier
A=$TIER_TEST_ANNOTATION_DIR
ID=3f1d2c4b5a697e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d
CRUN=/machine.slice/libpod-$ID.scope
mk_cg "$CRUN"
ino() { stat -c %i "$1"; }

# explain_nocap CGROUP REGEX: tierctl explain without CAP_SYS_ADMIN prints REGEX.
explain_nocap() {
	rc=0
	$NOCAP "$TIERCTL" --config "$T/tierd.conf" --cgroup-root "$CG" --sysfs-root "$SYS" \
		--procfs-root "$PROC" explain "$1" >"$T/ex" 2>&1 || rc=$?
	grep -Eq -- "$2" "$T/ex" || { cat "$T/ex" >&2; fail "${3:-explain $1}: lacks /$2/ (exit $rc)"; }
}

# --dry-run records nothing.
sample crun --dry-run
expect_rc 0
[ ! -e "$A" ] || [ -z "$(ls -A "$A")" ] || fail "--dry-run wrote a record"

sample crun
expect_rc 0
expect_quiet
I=$(ino "$CG$CRUN")
R=$A/$I
[ -f "$R" ] || { ls -la "$A" >&2; fail "no record $R"; }
printf '%s\ntierd.io/class=latency\n' "$CRUN" | cmp -s - "$R" || { cat "$R" >&2; fail "record content"; }
[ "$(stat -c %u:%a "$R")" = 0:600 ] || fail "record is $(stat -c %u:%a "$R"), expected 0:600"
[ "$(stat -c %u:%a "$A")" = 0:700 ] || fail "record directory is $(stat -c %u:%a "$A"), expected 0:700"
ls -a "$A" | grep -q '\.tmp$' && fail "a temporary file was left in $A"

explain_nocap "$CRUN" "^matched by: +annotation = tierd.io/class=latency" "with the record"
grep -Eq "^class: +latency" "$T/ex" || { cat "$T/ex"; fail "class latency"; }
echo "without CAP_SYS_ADMIN, with the record: class latency"

# The record is what makes it work: without it the xattr alone is hidden.
mv "$R" "$T/saved"
explain_nocap "$CRUN" "unmanaged" "xattr only"
echo "without CAP_SYS_ADMIN, xattr only: unmanaged (the bug the record fixes)"

# hostile KIND SETUP...: a record tampered with is ignored.
hostile() {
	kind=$1
	shift
	rm -rf "$A"
	mkdir -m 0700 "$A"
	cp "$T/saved" "$R"
	chmod 0600 "$R"
	"$@" || fail "$kind: setup failed"
	explain_nocap "$CRUN" "unmanaged" "$kind"
}
hostile "owned by another user" chown 65534 "$R"
hostile "group-writable" chmod 0620 "$R"
hostile "world-writable" chmod 0602 "$R"
hostile "a symlink" sh -c "mv '$R' '$T/elsewhere' && ln -s '$T/elsewhere' '$R'"
hostile "a hard link" ln "$R" "$T/second-link"
rm -f "$T/second-link"
hostile "directory owned by another user" chown 65534 "$A"
hostile "directory world-writable" chmod 0777 "$A"
hostile "named after another cgroup" sh -c "mv '$R' '$A/$((I + 1))'"
rm -rf "$A" "$T/elsewhere"
mkdir -m 0700 "$T/real-dir"
cp "$T/saved" "$T/real-dir/$I"
ln -s "$T/real-dir" "$A"
explain_nocap "$CRUN" "unmanaged" "symlinked directory"
rm -rf "$A" "$T/real-dir"
echo "hostile records ignored: other owner, g/o-writable, symlink, hard link, bad directory, other cgroup"

# A hook that cannot trust the directory says so, and still applies the class.
mkdir -m 0777 "$A"
mk_cg "$CRUN"
sample crun
expect_rc 0
expect_err "cannot record tierd.io/class=latency in $A \(not owned by root, or writable by others\)"
expect_file "$CRUN" memory.numa_balancing full
rm -rf "$A"

# Pruning: records of removed cgroups go at the next hook run; a record whose
# path is another directory now goes too; untrusted files stay.
sample crun
expect_rc 0
mk_cg /machine.slice/gone.scope
mk_cg /machine.slice/renewed.scope
python3 - "$A" "$(ino "$CG/machine.slice/gone.scope")" "$(ino "$CG/machine.slice/renewed.scope")" <<'EOP'
import os, sys
d = sys.argv[1]
for ino, path in ((sys.argv[2], "/machine.slice/gone.scope"), (sys.argv[3], "/machine.slice/renewed.scope")):
    fd = os.open(os.path.join(d, ino), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, (path + "\ntierd.io/class=batch\n").encode())
    os.close(fd)
EOP
G=$(ino "$CG/machine.slice/gone.scope")
N=$(ino "$CG/machine.slice/renewed.scope")
rm -r "$CG/machine.slice/gone.scope"
mv "$CG/machine.slice/renewed.scope" "$CG/machine.slice/old.scope"
mk_cg /machine.slice/renewed.scope
[ "$(ino "$CG/machine.slice/renewed.scope")" != "$N" ] || skip "the file system reused the inode"
printf '/machine.slice/nothing\nk=v\n' >"$A/999999999"
chown 65534 "$A/999999999"
rm -r "$CG$CRUN"
mk_cg "$CRUN"
sample crun -v
expect_rc 0
expect_err "removed [0-9]+ record\(s\) of removed cgroups"
# By content, not by name: tmpfs may give the new container directory the
# inode number of gone.scope or of the old renewed.scope, and so the name
# of a record that is rightly there.
has_record() { grep -qlx -- "$1" "$A"/* 2>/dev/null; }
has_record /machine.slice/gone.scope && fail "the record of a removed cgroup was not pruned"
has_record /machine.slice/renewed.scope &&
	fail "the record of a cgroup whose path names another directory was not pruned"
[ -e "$A/999999999" ] || fail "an untrusted file was removed"
[ -f "$A/$(ino "$CG$CRUN")" ] || fail "the new container's record is missing"
echo "pruned: removed cgroup, path reused; kept: untrusted file, live record"
exit 0
