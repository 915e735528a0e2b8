#!/bin/bash
# vm-podman.sh DESTDIR TIERD [MANAGER]: podman runs containers through the hooks.d
# file that `make install` puts in place, inside the two-tier VM (run by
# tests/vm/run-vm as the guest test, patched kernel). DESTDIR holds
# `make install-hook DESTDIR=...` from the host (default PREFIX, /usr/local);
# TIERD is the tierd binary for the rule case.
#
# The host's root is read-only here: lib-podman.sh puts overlays with a
# tmpfs upper layer on /etc, /usr/local and /usr/share/containers, DESTDIR
# is copied over /, and podman then finds the hook where `make install`
# puts it. Images are built offline: a busybox root file
# system through `podman import`. Exit 0 pass, 1 fail, 77 skip.
set -u

DESTDIR=${1:?usage: vm-podman.sh DESTDIR TIERD [cgroupfs|systemd]}
TIERD=${2:?usage: vm-podman.sh DESTDIR TIERD [cgroupfs|systemd]}
MANAGER=${3:-cgroupfs}
CG=/sys/fs/cgroup
T=/tmp/vm-podman
IMG=localhost/tierd-bb
TIERD_PID=
FAILS=0

fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
die() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
ok() { echo "ok: $*"; }

# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[ -n "$TIERD_PID" ] && kill "$TIERD_PID" 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT

. "$(dirname "$0")/lib-podman.sh"
grep -qw memory "$CG/cgroup.subtree_control" || skip "memory controller not enabled on $CG"
if [ "$MANAGER" = systemd ]; then
	[ -d /run/systemd/system ] || skip "not booted with systemd (run-vm --systemd)"
fi
podman_setup "$T" "$MANAGER"

# What `make install` put in DESTDIR, where it puts it.
(cd "$DESTDIR" && find . -type f -exec cp --parents {} / \;) || die "cannot copy $DESTDIR over /"
ls /usr/share/containers/oci/hooks.d/*.json >/dev/null 2>&1 || die "no hooks.d files in $DESTDIR"
mkdir -p /etc/tierd
cat >/etc/tierd/tierd.conf <<'CONF'
[daemon]
cgroup_root = /sys/fs/cgroup

[class:batch]
mode = off

[class:db]
mode = promote

[rule:ruled]
class = db
cgroup = /libpod_parent/**
cgroup = /machine.slice/libpod-*.scope
cgroup = /machine.slice/libpod-*.scope/**
CONF

echo "vm-podman: cgroup manager $MANAGER, kernel $(uname -r), $(podman --version), crun $(crun --version | head -1 | cut -d' ' -f3), runc $(runc --version | head -1 | cut -d' ' -f3)"
echo "vm-podman: hooks.d: $(ls /usr/share/containers/oci/hooks.d | tr '\n' ' ')"

podman_image_busybox "$T" "$IMG"

# The container's first process prints the memory.numa_balancing that
# governs it before anything else: the value the hook (createRuntime) left.
# That is the effective one, the most restrictive of its own cgroup and
# their ancestors (crun with the systemd manager runs the init in a child of
# the scope the hook writes), so the container sees the host's cgroup tree
# (--cgroupns=host) and walks up from its /proc/self/cgroup path.
FIRST='p=$(sed -n "s/^0:://p" /proc/self/cgroup); e=inherit
while [ -n "$p" ] && [ "$p" != / ]; do
	case $(cat /sys/fs/cgroup$p/memory.numa_balancing 2>/dev/null) in
	off) e=off ;; promote) [ $e = off ] || e=promote ;; full) [ $e = inherit ] && e=full ;;
	esac
	p=${p%/*}
done
echo $e'

# run RUNTIME ARGS... -- CMD: podman run, output in $out, status in $prc.
run() {
	local rt=$1
	shift
	prc=0
	out=$("${P[@]}" run --rm --runtime "$rt" --network=none --cgroupns=host "$@" 2>&1) || prc=$?
}

for rt in crun runc; do
	command -v "$rt" >/dev/null || { fail "$rt is not installed"; continue; }

	# 1. The annotation names a class: the knob is set before the
	#    container's first process runs.
	run "$rt" --annotation tierd.io/class=batch "$IMG" sh -c "$FIRST"
	if [ "$prc" = 0 ] && [ "$(echo "$out" | tail -n 1)" = off ]; then
		ok "$rt: annotation batch: the container's first process reads 'off'"
	else
		fail "$rt: annotation batch: exit $prc, output: $out"
	fi

	# 2. No annotation, no tierd: the hook does nothing (inherit).
	run "$rt" "$IMG" sh -c "$FIRST"
	if [ "$prc" = 0 ] && [ "$(echo "$out" | tail -n 1)" = inherit ]; then
		ok "$rt: no annotation: 'inherit'"
	else
		fail "$rt: no annotation: exit $prc, output: $out"
	fi

	# 3. A class the policy does not have, fail-open (the installed file):
	#    the container starts, without a class.
	run "$rt" --annotation tierd.io/class=gold "$IMG" sh -c "$FIRST"
	if [ "$prc" = 0 ] && [ "$(echo "$out" | tail -n 1)" = inherit ]; then
		ok "$rt: unknown class, fail-open: starts with 'inherit'"
	else
		fail "$rt: unknown class, fail-open: exit $prc, output: $out"
	fi
done

# 4. fail-closed with --allow-class: a hooks directory of our own, the
#    installed file with those two options changed.
mkdir -p "$T/hooks-closed"
sed -e 's/"--fail-open"/"--fail-closed", "--allow-class", "db"/' \
	/usr/share/containers/oci/hooks.d/50-tierd.json >"$T/hooks-closed/50-tierd.json"
for rt in crun runc; do
	prc=0
	out=$("${P[@]}" --hooks-dir "$T/hooks-closed" run --rm --runtime "$rt" --network=none \
		--annotation tierd.io/class=batch "$IMG" sh -c "echo STARTED" 2>&1) || prc=$?
	# runc relays the hook's message; crun names the hook and its exit code.
	if [ "$prc" != 0 ] && ! echo "$out" | grep -q STARTED &&
	   echo "$out" | grep -q -e "class 'batch' .* is not allowed" -e "error executing hook"; then
		ok "$rt: class outside --allow-class, fail-closed: podman refuses (exit $prc)"
	else
		fail "$rt: fail-closed: exit $prc, output: $out"
	fi
	prc=0
	out=$("${P[@]}" --hooks-dir "$T/hooks-closed" run --rm --runtime "$rt" --network=none \
		--cgroupns=host --annotation tierd.io/class=db "$IMG" sh -c "$FIRST" 2>&1) || prc=$?
	if [ "$prc" = 0 ] && [ "$(echo "$out" | tail -n 1)" = promote ]; then
		ok "$rt: allowed class db, fail-closed: 'promote'"
	else
		fail "$rt: allowed class, fail-closed: exit $prc, output: $out"
	fi
done

# 5. No annotation, a policy rule, tierd running: the container's cgroup
#    appears under podman's parent (libpod_parent) and tierd puts it in
#    class db. The container waits for it (bounded) and prints what it saw.
"$TIERD" --config /etc/tierd/tierd.conf --no-systemd --no-system-bus -f >"$T/tierd.log" 2>&1 &
TIERD_PID=$!
WAIT="i=0; while [ \$i -lt 300 ]; do v=\$($FIRST); [ \"\$v\" = promote ] && break; sleep 0.1; i=\$((i+1)); done; echo \$v"
for rt in crun runc; do
	run "$rt" "$IMG" sh -c "$WAIT"
	if [ "$prc" = 0 ] && [ "$(echo "$out" | tail -n 1)" = promote ]; then
		ok "$rt: rule (tierd): 'promote'"
	else
		fail "$rt: rule (tierd): exit $prc, output: $out"
		tail -n 20 "$T/tierd.log"
	fi
done

[ "$FAILS" = 0 ] || { echo "vm-podman: $FAILS failed"; exit 1; }
echo "vm-podman: all passed"
