#!/bin/sh
# Malformed JSON, a missing cgroup, an unknown class, a broken policy, a
# kernel without the knob: each has a clear message; --fail-open (the
# default) exits 0 and --fail-closed exits 1. A bad command line exits 2.
. "$SRCDIR/tests/hook/lib.sh"

mk_policy
CRUN=/machine.slice/libpod-3f1d2c4b5a697e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d.scope
ID=3f1d2c4b5a697e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d
state crun >"$T/good.json"

# each_mode REGEX FILE: run with FILE on stdin in both modes and check the
# message and the status: fail-open (default and explicit) 0, fail-closed 1.
each_mode() {
	hook <"$2"
	expect_rc 0
	expect_err "$1"
	expect_err "starting the container without its tiering class \(--fail-open\)"
	hook --fail-closed --fail-open <"$2"
	expect_rc 0
	expect_err "$1"
	hook --fail-closed <"$2"
	expect_rc 1
	expect_err "$1"
	expect_err "failing the container \(--fail-closed\)"
}

# --- malformed JSON on stdin
printf '{"ociVersion":"1.0.2","id":"abc",' >"$T/bad"
each_mode "^tierd-oci-hook: malformed OCI state JSON on stdin: unexpected end of input\$" "$T/bad"
printf 'not json at all\n' >"$T/bad"
each_mode "^tierd-oci-hook: malformed OCI state JSON on stdin: .* at offset [0-9]+\$" "$T/bad"
printf '{"id":"abc"} trailing\n' >"$T/bad"
each_mode "malformed OCI state JSON on stdin: trailing characters at offset 13" "$T/bad"
printf '["an","array"]' >"$T/bad"
each_mode "malformed OCI state JSON on stdin: the document is not a JSON object" "$T/bad"
printf '{"id":"abc","pid":"41902","bundle":"/x"}' >"$T/bad"
each_mode "malformed OCI state JSON on stdin: \"pid\" is not an integer" "$T/bad"
: >"$T/bad"
each_mode "malformed OCI state JSON on stdin: unexpected end of input" "$T/bad"
head -c 2000000 /dev/zero | tr '\0' ' ' >"$T/bad"
each_mode "cannot read the OCI state from stdin: more than 1 MiB" "$T/bad"

# --- malformed config.json in the bundle
mkdir -p "$T/badbundle"
printf '{"linux":{"cgroupsPath":' >"$T/badbundle/config.json"
sed "s|@BUNDLE@|$T/badbundle|" "$DATA/crun/state.json" >"$T/bad"
each_mode "container 3f1d2c4b5a69.*: malformed $T/badbundle/config.json: unexpected end of input" "$T/bad"
sed "s|@BUNDLE@|$T/nobundle|" "$DATA/crun/state.json" >"$T/bad"
each_mode "cannot read $T/nobundle/config.json: No such file or directory" "$T/bad"

# --- missing cgroup: linux.cgroupsPath names none (and /proc cannot say
# otherwise); /proc names another: that is not the container's
each_mode "^tierd-oci-hook: container $ID: cannot find the container's cgroup: linux.cgroupsPath 'machine.slice:libpod:$ID' -> $CG$CRUN does not exist\$" "$T/good.json"
mkdir -p "$PROC/52117"
printf '0::/machine.slice/elsewhere.scope\n' >"$PROC/52117/cgroup"
each_mode "linux.cgroupsPath 'machine.slice:libpod:$ID' names $CRUN, but the container's init \\(pid 52117\\) is in /machine.slice/elsewhere.scope \\($PROC/52117/cgroup\\): not touching a cgroup that is not the container's" "$T/good.json"
rm -r "$PROC/52117"

# --- unknown class
mk_cg "$CRUN"
sed 's|"tierd.io/class": "latency"|"tierd.io/class": "gold"|' "$T/good.json" >"$T/bad"
each_mode "^tierd-oci-hook: container $ID: unknown class 'gold' \(annotation tierd.io/class\); the policy $T/tierd.conf defines: latency, pinned, batch\$" "$T/bad"
expect_file "$CRUN" memory.numa_balancing inherit
sed 's|"tierd.io/class": "latency"|"tierd.io/class": ""|' "$T/good.json" >"$T/bad"
each_mode "annotation tierd.io/class is empty" "$T/bad"
sed 's|"tierd.io/class": "latency"|"tierd.io/class": 7|' "$T/good.json" >"$T/bad"
each_mode "malformed OCI state JSON on stdin: \"annotations.tierd.io/class\" is not a string" "$T/bad"

# --- a class the hook is not allowed to hand out
hook --allow-class pinned,batch <"$T/good.json"
expect_rc 0
expect_err "class 'latency' \(annotation tierd.io/class\) is not allowed for containers \(--allow-class pinned,batch\)"
expect_file "$CRUN" memory.numa_balancing inherit
hook --allow-class pinned,latency <"$T/good.json"
expect_rc 0
expect_file "$CRUN" memory.numa_balancing full
mk_cg "$CRUN"

# --- a broken policy: every file:line error, then the verdict
cp "$T/tierd.conf" "$T/good.conf"
printf '\n[class:broken]\nmode = sideways\nweight = -3\n' >>"$T/tierd.conf"
each_mode "^tierd-oci-hook: container $ID: $T/tierd.conf:[0-9]+: .*sideways" "$T/good.json"
expect_err "$T/tierd.conf:[0-9]+: .*weight"
expect_err "cannot load the policy $T/tierd.conf: Invalid argument"
rm "$T/tierd.conf"
each_mode "cannot load the policy $T/tierd.conf: No such file or directory" "$T/good.json"
cp "$T/good.conf" "$T/tierd.conf"

# --- a kernel without memory.numa_balancing
rm "$CG$CRUN/memory.numa_balancing"
each_mode "$CRUN: the kernel does not support memory.numa_balancing \(the tierd kernel patches are not applied\)" "$T/good.json"
mk_cg "$CRUN"

# --- a write the kernel refuses (EINVAL, e.g. a parent forbids it): the
# errno reaches the message. A directory in place of the file gives EISDIR.
rm "$CG$CRUN/memory.numa_balancing"
mkdir "$CG$CRUN/memory.numa_balancing"
each_mode "$CRUN: cannot (read|write).* memory.numa_balancing: Is a directory" "$T/good.json"
rmdir "$CG$CRUN/memory.numa_balancing"
mk_cg "$CRUN"

# --- bad command lines: exit 2 whatever the failure mode
for args in "--bogus" "--annotation" "--annotation a=b" "extra-arg" "--fail-open --frobnicate"; do
	# shellcheck disable=SC2086
	hook $args <"$T/good.json"
	expect_rc 2
done
expect_err "Try 'tierd-oci-hook --help'"
hook --help </dev/null
expect_rc 0
grep -q -- "--fail-closed" "$T/out" || fail "--help lacks --fail-closed"
exit 0
