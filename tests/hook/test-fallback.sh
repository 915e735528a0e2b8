#!/bin/sh
# Containers that are not ours are left alone without a word; the cgroup is
# found through /proc/PID/cgroup when config.json names none, or names one
# relative to the runtime's cgroup (and then it must match).
. "$SRCDIR/tests/hook/lib.sh"

mk_policy
CRUN=/machine.slice/libpod-3f1d2c4b5a697e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d.scope
mk_cg "$CRUN"
before=$(tree_sum)

# --- no annotation: exit 0, silent, nothing written (even --fail-closed)
sed '/"tierd.io\/class"/d; s|"org.opencontainers.image.stopSignal": "2",|"org.opencontainers.image.stopSignal": "2"|' \
	"$DATA/crun/state.json" | sed "s|@BUNDLE@|$T/bundle-crun|" >"$T/s"
mkdir -p "$T/bundle-crun"
cp "$DATA/crun/config.json" "$T/bundle-crun/"
hook --fail-closed <"$T/s"
expect_rc 0
expect_quiet
# the state's annotations are authoritative: config.json's are not consulted
[ "$(tree_sum)" = "$before" ] || fail "a container without the annotation changed the tree"

# A state without annotations and without a bundle: nothing to go on, not ours.
printf '{"ociVersion":"1.0.2","id":"x","status":"creating","pid":1}' >"$T/s"
hook --fail-closed <"$T/s"
expect_rc 0
expect_quiet

# A state with the annotation but no bundle: an error.
printf '{"id":"x","pid":1,"annotations":{"tierd.io/class":"batch"}}' >"$T/s"
hook --fail-closed <"$T/s"
expect_rc 1
expect_err "container x: the OCI state has no \"bundle\": cannot read config.json"

# --- /proc/PID/cgroup fallback: config.json without linux.cgroupsPath
mkdir -p "$T/nocgpath" "$PROC/52117"
sed 's|"cgroupsPath": "machine.slice:libpod:[0-9a-f]*",||' "$DATA/crun/config.json" \
	>"$T/nocgpath/config.json"
grep -q cgroupsPath "$T/nocgpath/config.json" && fail "sed on the crun sample"
printf '0::%s\n' "$CRUN" >"$PROC/52117/cgroup"
state crun "$T/nocgpath" >"$T/s"
hook --verbose <"$T/s"
expect_rc 0
expect_file "$CRUN" memory.numa_balancing full

# ... and a relative cgroupsPath (the runtime nests it below its own
# cgroup): the init's cgroup ends in it, or is a child of one that does
REL=/user.slice/user-1000.slice/user@1000.service/libpod/abc
mk_cg "$REL"
mk_cg "$REL/container"
sed 's|"cgroupsPath": "machine.slice:libpod:[0-9a-f]*"|"cgroupsPath": "libpod/abc"|' \
	"$DATA/crun/config.json" >"$T/nocgpath/config.json"
printf '0::%s\n' "$REL" >"$PROC/52117/cgroup"
hook <"$T/s"
expect_rc 0
expect_quiet
expect_file "$REL" memory.numa_balancing full
mk_cg "$REL"
printf '0::%s/container\n' "$REL" >"$PROC/52117/cgroup"
hook <"$T/s"
expect_rc 0
expect_quiet
expect_file "$REL" memory.numa_balancing full
expect_file "$REL/container" memory.numa_balancing inherit

# ... with a cgroup v1 /proc/PID/cgroup and nothing else: the message says both
mk_cg "$CRUN"
printf '12:memory:/x\n1:name=systemd:/x\n' >"$PROC/52117/cgroup"
hook --fail-closed <"$T/s"
expect_rc 1
expect_err "cannot find the container's cgroup: linux.cgroupsPath 'libpod/abc' is relative to the runtime's cgroup; $PROC/52117/cgroup has no cgroup v2 \(0::\) line"
printf '0::/../../escape\n' >"$PROC/52117/cgroup"
hook --fail-closed <"$T/s"
expect_rc 1
expect_err "$PROC/52117/cgroup: unusable path \(outside our cgroup namespace\?\)"

# A malformed systemd cgroupsPath, no pid in the state.
sed 's|"cgroupsPath": "machine.slice:libpod:[0-9a-f]*"|"cgroupsPath": "machine.slice:libpod:a:b"|' \
	"$DATA/crun/config.json" >"$T/nocgpath/config.json"
sed 's|"pid": 52117,||' "$T/s" >"$T/s2"
hook --fail-closed <"$T/s2"
expect_rc 1
expect_err "linux.cgroupsPath 'machine.slice:libpod:a:b' is malformed\$"

exit 0
