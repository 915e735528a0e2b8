#!/bin/sh
# vm-hook.sh HOOK: tierd-oci-hook against real cgroups, inside the
# two-tier VM (run by tests/vm/run-vm as the guest test; cgroup2 is mounted
# at /sys/fs/cgroup with the memory controller enabled for children).
#
# Plays the runtime: creates the container's cgroup the way runc/crun do
# with the systemd driver (machine.slice/libpod-ID.scope), moves a process
# into it, writes the bundle's config.json and the OCI state, runs the hook
# and checks what the kernel now reports. Exit 0 pass, 1 fail, 77 skip.
set -u

HOOK=${1:?usage: vm-hook.sh HOOK}
CG=/sys/fs/cgroup
T=$(mktemp -d /tmp/vm-hook.XXXXXX) || exit 1
PIDS=""
ID=3f1d2c4b5a697e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d
SCOPE=/machine.slice/libpod-$ID.scope
RUNC_CG=/machine.slice/runc-tierd-test

# shellcheck disable=SC2317 # called by the trap
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	runc --root /run/runc-tierd delete --force tierd-test >/dev/null 2>&1
	for d in "$CG$SCOPE" "$CG$RUNC_CG" "$CG/machine.slice" "$CG/hook-fallback"; do
		[ -d "$d" ] && rmdir "$d" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*"
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 77
}

# hook ARGS... < STATE: output in $T/err, status in $hrc.
hook() {
	hrc=0
	"$HOOK" --config "$T/tierd.conf" "$@" >"$T/out" 2>"$T/err" || hrc=$?
	cat "$T/err"
}

# A process standing in for the container's init, in cgroup $1; its pid in
# $spawned.
spawn_in() {
	sleep 600 >/dev/null 2>&1 &
	spawned=$!
	PIDS="$PIDS $spawned"
	echo "$spawned" >"$CG$1/cgroup.procs" || fail "cannot move $spawned into $1"
}

grep -qw memory "$CG/cgroup.subtree_control" || skip "memory controller not enabled on $CG"
[ -x "$HOOK" ] || fail "no hook binary at $HOOK"
echo "vm-hook: kernel $(uname -r), hook $HOOK"

cat >"$T/tierd.conf" <<'EOM'
[class:latency]
mode = full

[class:pinned]
mode = promote

[class:batch]
mode = off
memory_high = 64M
EOM

# The runtime's part: the scope under machine.slice, memory delegated.
mkdir -p "$CG/machine.slice" || fail "mkdir machine.slice"
echo +memory >"$CG/machine.slice/cgroup.subtree_control" || fail "enable memory in machine.slice"
mkdir -p "$CG$SCOPE" || fail "mkdir $SCOPE"
spawn_in "$SCOPE"
pid=$spawned
mkdir -p "$T/bundle"
cat >"$T/bundle/config.json" <<EOM
{"ociVersion":"1.0.2","process":{"args":["sleep","600"],"cwd":"/"},"root":{"path":"rootfs"},
 "annotations":{"io.container.manager":"libpod","tierd.io/class":"pinned"},
 "linux":{"cgroupsPath":"machine.slice:libpod:$ID","resources":{"memory":{"limit":268435456}}}}
EOM
state() {
	printf '{"ociVersion":"1.0.2","id":"%s","status":"creating","pid":%s,"bundle":"%s","annotations":{"io.container.manager":"libpod","tierd.io/class":"%s"}}\n' \
		"$ID" "$1" "$T/bundle" "$2" >"$T/state.json"
}

# runc_case MODE CLASS: a real runtime runs the hook. runc creates the
# container (cgroupfs driver, a mount namespace only: the test kernel has no
# other namespaces), runs createRuntime hooks from config.json with the real
# OCI state on stdin, and leaves the container "created" for us to look at.
# $rrc is runc's status, its stderr in $T/runc.err.
runc_case() {
	b=$T/runc-bundle
	mkdir -p "$b/rootfs/bin"
	[ -x "$b/rootfs/bin/busybox" ] || cp "$(command -v busybox)" "$b/rootfs/bin/busybox"
	cat >"$b/config.json" <<EOJ
{"ociVersion":"1.0.2",
 "process":{"terminal":false,"user":{"uid":0,"gid":0},"args":["/bin/busybox","sleep","60"],
            "env":["PATH=/bin"],"cwd":"/"},
 "root":{"path":"rootfs","readonly":true},
 "mounts":[{"destination":"/proc","type":"proc","source":"proc"}],
 "hooks":{"createRuntime":[{"path":"$HOOK","args":["tierd-oci-hook","$1","--config","$T/tierd.conf"],
                            "timeout":20}]},
 "annotations":{"tierd.io/class":"$2"},
 "linux":{"cgroupsPath":"$RUNC_CG","namespaces":[{"type":"mount"}],
          "resources":{"devices":[{"allow":true,"access":"rwm"}]}}}
EOJ
	rrc=0
	runc --root /run/runc-tierd create --bundle "$b" tierd-test </dev/null >/dev/null \
		2>"$T/runc.err" || rrc=$?
}
runc_delete() {
	runc --root /run/runc-tierd delete --force tierd-test >/dev/null 2>&1
}
HAVE_RUNC=0
command -v runc >/dev/null 2>&1 && command -v busybox >/dev/null 2>&1 && HAVE_RUNC=1

if [ ! -e "$CG$SCOPE/memory.numa_balancing" ]; then
	# Stock kernel: the hook must say so, fail-open and fail-closed.
	state "$pid" pinned
	hook --fail-open <"$T/state.json"
	[ "$hrc" = 0 ] || fail "fail-open on a kernel without the knob exited $hrc"
	grep -q "the kernel does not support memory.numa_balancing" "$T/err" || fail "no message"
	hook --fail-closed <"$T/state.json"
	[ "$hrc" = 1 ] || fail "fail-closed on a kernel without the knob exited $hrc"
	if [ "$HAVE_RUNC" = 1 ]; then
		runc_case --fail-closed pinned
		runc_delete
		[ "$rrc" != 0 ] || fail "runc started the container although the fail-closed hook failed"
		grep -q "the kernel does not support memory.numa_balancing" "$T/runc.err" ||
			{ cat "$T/runc.err"; fail "runc did not pass the hook's message on"; }
		runc_case --fail-open pinned
		runc_delete
		[ "$rrc" = 0 ] || { cat "$T/runc.err"; fail "runc create with a fail-open hook: $rrc"; }
		echo "ok: runc: fail-closed stops the container, fail-open lets it start"
	fi
	skip "kernel $(uname -r) has no memory.numa_balancing (the hook reported it correctly)"
fi

# 1. systemd-driver cgroupsPath, class pinned -> promote.
state "$pid" pinned
hook --fail-closed --verbose <"$T/state.json"
[ "$hrc" = 0 ] || fail "hook exited $hrc"
v=$(cat "$CG$SCOPE/memory.numa_balancing")
[ "$v" = promote ] || fail "memory.numa_balancing is '$v', expected promote"
echo "ok 1: $SCOPE memory.numa_balancing = $v"

# The class is recorded for tierd as the trusted.tierd.io/class xattr
# (root only; user.* is not written).
if [ -x /usr/bin/python3 ]; then
	x=$(/usr/bin/python3 -c 'import os,sys; print(os.getxattr(sys.argv[1], "trusted.tierd.io/class").decode())' \
		"$CG$SCOPE" 2>&1) || fail "no trusted.tierd.io/class xattr: $x"
	[ "$x" = pinned ] || fail "xattr is '$x'"
	if /usr/bin/python3 -c 'import os,sys; os.getxattr(sys.argv[1], "user.tierd.io/class")' \
		"$CG$SCOPE" 2>/dev/null; then
		fail "the hook wrote user.tierd.io/class"
	fi
	echo "ok 1b: trusted.tierd.io/class = $x"
fi

# 1c. Not the container's cgroup: the root, and the slice above the scope
# (the init is in the scope), are refused; nothing is written.
cp "$T/bundle/config.json" "$T/config.saved"
for p in / /machine.slice; do
	sed "s|\"cgroupsPath\":\"[^\"]*\"|\"cgroupsPath\":\"$p\"|" "$T/config.saved" \
		>"$T/bundle/config.json"
	echo inherit >"$CG/machine.slice/memory.numa_balancing"
	state "$pid" batch
	hook --fail-closed <"$T/state.json"
	[ "$hrc" = 1 ] || fail "cgroupsPath $p: exit $hrc"
	grep -q "not touching" "$T/err" || fail "cgroupsPath $p: no refusal"
	[ "$(cat "$CG/machine.slice/memory.numa_balancing")" = inherit ] ||
		fail "cgroupsPath $p: machine.slice written"
done
cp "$T/config.saved" "$T/bundle/config.json"
echo "ok 1c: cgroupsPath / and /machine.slice refused"

# 2. Under a parent set to off, the hook still writes the class's value to
# the container's cgroup (the kernel accepts it; the effective value stays
# off, the most restrictive of the cgroup and its ancestors).
echo off >"$CG/machine.slice/memory.numa_balancing" || fail "cannot set machine.slice off"
state "$pid" latency
hook --fail-closed <"$T/state.json"
[ "$hrc" = 0 ] || fail "hook under an 'off' parent exited $hrc"
v=$(cat "$CG$SCOPE/memory.numa_balancing")
[ "$v" = full ] || fail "under an 'off' parent: '$v', expected full"
echo inherit >"$CG/machine.slice/memory.numa_balancing"
echo "ok 2: under a parent set to off the container's knob reads $v (configured)"

# 3. class batch: off and memory.high = 64M, written through the real files.
state "$pid" batch
hook --fail-closed --verbose <"$T/state.json"
[ "$hrc" = 0 ] || fail "hook exited $hrc"
[ "$(cat "$CG$SCOPE/memory.numa_balancing")" = off ] || fail "not off"
[ "$(cat "$CG$SCOPE/memory.high")" = 67108864 ] || fail "memory.high is $(cat "$CG$SCOPE/memory.high")"
echo "ok 3: off, memory.high = 67108864"

# 4. memory.high already set by someone else (kubelet memory QoS): left alone.
echo 134217728 >"$CG$SCOPE/memory.high"
echo inherit >"$CG$SCOPE/memory.numa_balancing"
hook --fail-closed <"$T/state.json"
[ "$hrc" = 0 ] || fail "hook exited $hrc"
[ "$(cat "$CG$SCOPE/memory.high")" = 134217728 ] || fail "memory.high overwritten"
[ "$(cat "$CG$SCOPE/memory.numa_balancing")" = off ] || fail "not off"
grep -q "memory.high is 134217728, set by the runtime; leaving it" "$T/err" || fail "no notice"
echo "ok 4: a memory.high set by the runtime is left alone"

# 5. /proc/PID/cgroup fallback: no cgroupsPath in config.json.
mkdir -p "$CG/hook-fallback" || fail "mkdir hook-fallback"
spawn_in /hook-fallback
pid2=$spawned
sed 's|"cgroupsPath":"machine.slice:libpod:[0-9a-f]*",||' "$T/bundle/config.json" >"$T/c2"
mv "$T/c2" "$T/bundle/config.json"
state "$pid2" latency
hook --fail-closed --verbose <"$T/state.json"
[ "$hrc" = 0 ] || fail "hook exited $hrc"
v=$(cat "$CG/hook-fallback/memory.numa_balancing")
[ "$v" = full ] || fail "fallback: memory.numa_balancing is '$v'"
echo "ok 5: /proc/$pid2/cgroup -> /hook-fallback = $v"

# 6. Unknown class, fail-closed: exit 1, nothing written.
state "$pid2" gold
hook --fail-closed <"$T/state.json"
[ "$hrc" = 1 ] || fail "unknown class, fail-closed: exit $hrc"
grep -q "unknown class 'gold'" "$T/err" || fail "no unknown-class message"
[ "$(cat "$CG/hook-fallback/memory.numa_balancing")" = full ] || fail "knob changed"
echo "ok 6: unknown class refused with --fail-closed"

# 7. The kernel's own EINVAL reaches the message: an invalid value written
# by hand is refused, so the knob's grammar is what the hook relies on.
if echo sideways >"$CG/hook-fallback/memory.numa_balancing" 2>/dev/null; then
	fail "the kernel accepted 'sideways'"
fi
echo "ok 7: the kernel refuses an invalid mode"

# 8. A real runtime: runc runs the hook from config.json with its own OCI
# state; the knob is set while the container is "created", before its
# process runs.
if [ "$HAVE_RUNC" = 1 ]; then
	runc_case --fail-closed pinned
	[ "$rrc" = 0 ] || { cat "$T/runc.err"; fail "runc create: exit $rrc"; }
	v=$(cat "$CG$RUNC_CG/memory.numa_balancing")
	st=$(runc --root /run/runc-tierd state tierd-test | grep -o '"status": "[a-z]*"')
	runc_delete
	[ "$v" = promote ] || fail "runc container: memory.numa_balancing is '$v'"
	echo "ok 8: runc ran the hook; $RUNC_CG = $v while $st"
	runc_case --fail-closed gold
	runc_delete
	[ "$rrc" != 0 ] || fail "runc started a container with an unknown class (fail-closed)"
	grep -q "unknown class 'gold'" "$T/runc.err" || { cat "$T/runc.err"; fail "no message"; }
	echo "ok 9: runc refuses the container with an unknown class (--fail-closed)"
else
	echo "note: runc or busybox not installed, real-runtime checks skipped"
fi

# 10. tierd-metrics on the real tree and the VM's two memory tiers; the
# output parses with the reference Prometheus parser.
METRICS=$(dirname "$HOOK")/tierd-metrics
PROMDUMP=$(dirname "$0")/prom-dump.py
if [ -x "$METRICS" ] && /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null; then
	printf '\n[rule:fallback]\nclass = latency\ncgroup = /hook-fallback\n' >>"$T/tierd.conf"
	"$METRICS" --config "$T/tierd.conf" -o "$T/tierd.prom" || fail "tierd-metrics exited $?"
	/usr/bin/python3 "$PROMDUMP" "$T/tierd.prom" >"$T/dump" || fail "metrics do not parse"
	grep -q '^gauge tierd_memory_tiers{} 2.0$' "$T/dump" || { cat "$T/dump"; fail "not 2 tiers"; }
	grep -q '^gauge tierd_cgroup_mode{cgroup="/hook-fallback",class="latency",mode="full"} 1.0$' \
		"$T/dump" || { cat "$T/dump"; fail "no mode series for /hook-fallback"; }
	grep -q '^gauge tierd_cgroup_fast_tier_bytes{cgroup="/hook-fallback"' "$T/dump" ||
		{ cat "$T/dump"; fail "no residency for /hook-fallback"; }
	echo "ok 10: tierd-metrics: $(grep -c . "$T/dump") samples, 2 tiers, /hook-fallback in class latency"
fi

echo "vm-hook: all checks passed"
exit 0
