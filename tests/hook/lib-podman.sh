#!/bin/bash
# lib-podman.sh: podman inside the two-tier VM, for vm-podman.sh and
# tests/kube/vm-image.sh (sourced). The host's root is read-only in the
# guest: /etc, /usr/local, /usr/share/containers, /var/tmp and /var/lib get
# an overlay with a tmpfs upper layer. Defines P (the podman command with
# storage on the guest's tmpfs) and podman_image_busybox.

# podman_setup WORKDIR [CGROUP_MANAGER]: cgroupfs (default) or systemd
# (needs systemd as the VM's init: run-vm --systemd, whose root is already a
# writable overlay).
podman_setup() {
	local d n w=$1 mgr=${2:-cgroupfs}
	command -v podman >/dev/null || { echo "SKIP: podman is not installed (make deps installs it)"; exit 77; }
	[ -e /proc/self/ns/pid ] || { echo "SKIP: kernel without PID namespaces"; exit 77; }
	mkdir -p "$w"
	# podman's overlay storage needs a file system that is not itself an
	# overlay (the --systemd VM's /tmp is on the root overlay).
	mount -t tmpfs tmpfs "$w" || { echo "FAIL: cannot mount a tmpfs on $w"; exit 1; }
	for d in /etc /usr/local /usr/share/containers /var/tmp /var/lib; do
		[ -d "$d" ] || continue
		# Writable already (run-vm --systemd boots from an overlay).
		touch "$d/.tierd-rw" 2>/dev/null && { rm -f "$d/.tierd-rw"; continue; }
		n=$(echo "$d" | tr / _)
		mkdir -p "$w/ov$n/u" "$w/ov$n/w"
		mount -t overlay overlay -o "lowerdir=$d,upperdir=$w/ov$n/u,workdir=$w/ov$n/w" "$d" ||
			{ echo "FAIL: cannot put an overlay on $d"; exit 1; }
	done
	mountpoint -q /dev/shm || { mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm; }
	mountpoint -q /dev/pts || { mkdir -p /dev/pts && mount -t devpts devpts /dev/pts; }
	P=(podman --root "$w/storage" --runroot /run/vm-podman --cgroup-manager "$mgr"
		--events-backend none --storage-driver overlay)
}

# podman_image_busybox WORKDIR NAME: an image from the static busybox,
# without a registry.
podman_image_busybox() {
	local w=$1 c
	mkdir -p "$w/rootfs/bin" "$w/rootfs/sys" "$w/rootfs/proc"
	cp /bin/busybox "$w/rootfs/bin/busybox" || { echo "FAIL: no /bin/busybox"; exit 1; }
	for c in sh cat echo sleep sed; do ln -s busybox "$w/rootfs/bin/$c"; done
	tar -C "$w/rootfs" -cf "$w/rootfs.tar" . || exit 1
	"${P[@]}" import -q "$w/rootfs.tar" "$2" >/dev/null || { echo "FAIL: podman import failed"; exit 1; }
}
