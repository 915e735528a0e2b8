#!/bin/bash
# vm-image.sh ARCHIVE IMAGE: the tierd image of `make image` under podman
# in the two-tier VM, run as etc/kubernetes/tierd-daemonset.yaml runs it
# (tests/kube/daemonset-to-podman.py turns the manifest's tierd container
# into podman arguments: read-only root, no privileges, every capability
# dropped but what the manifest adds, the node's cgroup tree at
# /host/sys/fs/cgroup, the ConfigMap's files at /etc/tierd, tmpfs /run and
# /tmp). Cgroups made on the VM's own tree the way the kubelet and the
# runtime make them must get the ConfigMap policy's classes. Run by
# tests/vm/run-vm as the guest test. Exit 0 pass, 1 fail, 77 skip.
set -u

ARCHIVE=${1:?usage: vm-image.sh ARCHIVE IMAGE}
IMAGE=${2:?usage: vm-image.sh ARCHIVE IMAGE}
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
CG=/sys/fs/cgroup
T=/tmp/vm-image
FAILS=0

fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
die() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }

# shellcheck disable=SC2317 # called by the trap
cleanup() {
	"${P[@]}" rm -f -t 2 tierd >/dev/null 2>&1
}

. "$TOP/tests/hook/lib-podman.sh"
grep -qw memory "$CG/cgroup.subtree_control" || { echo "SKIP: no memory controller"; exit 77; }
podman_setup "$T"
trap cleanup EXIT

"${P[@]}" load -q -i "$ARCHIVE" >/dev/null || die "podman load $ARCHIVE failed"
# Debian's python3 with python3-yaml (make deps), whatever else is on PATH.
/usr/bin/python3 "$TOP/tests/kube/daemonset-to-podman.py" \
	"$TOP/etc/kubernetes/tierd-daemonset.yaml" "$TOP/etc/kubernetes/tierd-configmap.yaml" \
	tierd "$IMAGE" "$T/k8s" >"$T/args" || die "cannot translate the DaemonSet"
mapfile -t ARGS <"$T/args"
echo "vm-image: podman run ${ARGS[*]}"

# The kubelet's and the runtime's cgroups (cgroupfs driver), before tierd
# starts: a burstable pod's container, a best-effort pod, and a burstable
# container the hook put in class batch (its trusted.tierd.io/class xattr,
# which only root with CAP_SYS_ADMIN can write).
mkdir -p "$CG/kubepods/burstable/pod-a/ctr" "$CG/kubepods/besteffort/pod-b/ctr" \
	"$CG/kubepods/burstable/pod-c/ctr" || die "mkdir"
for d in kubepods kubepods/burstable kubepods/besteffort kubepods/burstable/pod-a \
	kubepods/besteffort/pod-b kubepods/burstable/pod-c; do
	echo +memory >"$CG/$d/cgroup.subtree_control" || die "cannot enable memory in $d"
done
setfattr -n trusted.tierd.io/class -v batch "$CG/kubepods/burstable/pod-c/ctr" ||
	die "cannot set trusted.tierd.io/class"

"${P[@]}" run -d --name tierd "${ARGS[@]}" >/dev/null || die "podman run failed"

# want CGROUP VALUE WHY: wait (bounded) for tierd in the container to set it.
want() {
	local i=0 v
	while [ $i -lt 150 ]; do
		v=$(cat "$CG/$1/memory.numa_balancing")
		[ "$v" = "$2" ] && { ok "$1: $2 ($3)"; return 0; }
		sleep 0.2
		i=$((i + 1))
	done
	fail "$1: memory.numa_balancing is '$v', want '$2' ($3)"
}
want kubepods/burstable/pod-a/ctr promote "rule burstable, class standard"
want kubepods/besteffort/pod-b/ctr off "rule besteffort, class batch"
want kubepods/burstable/pod-c/ctr off "annotation rule: trusted.tierd.io/class=batch"
# A pod that appears while tierd runs (inotify through the bind mount).
mkdir "$CG/kubepods/besteffort/pod-d" && echo +memory >"$CG/kubepods/besteffort/pod-d/cgroup.subtree_control" &&
	mkdir "$CG/kubepods/besteffort/pod-d/ctr" || die "mkdir pod-d"
want kubepods/besteffort/pod-d/ctr off "new cgroup, rule besteffort"

if [ "$FAILS" != 0 ]; then
	echo "vm-image: tierd's output:"
	"${P[@]}" logs tierd 2>&1 | tail -n 30
	exit 1
fi
echo "vm-image: all passed"
