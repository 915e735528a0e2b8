#!/bin/bash
# scripts/image.sh: `make image`, an OCI image of tierd for the DaemonSet in
# etc/kubernetes/, built offline from this machine's Debian packages and the
# project's own build.
#
#   scripts/image.sh IMAGE OUT_DIR MAKE_ARGS...
#
# 1. make install DESTDIR=OUT_DIR/root (tierd, tierctl, tierd-metrics, the
#    hook, libtier, the default policy);
# 2. the shared libraries those programs load (ldd), the dynamic loader, and
#    busybox-static as /bin/sh (the metrics sidecar is a shell loop);
# 3. ld.so.cache for /usr/local/lib (ldconfig -r);
# 4. podman import of the tree as IMAGE, and podman save of it as an OCI
#    archive OUT_DIR/tierd.oci.tar (for `podman load`, `ctr images import`
#    or `skopeo copy` to a registry: docs/kubernetes.md).
# Prints the image's name and size.
set -euo pipefail

image=${1:?usage: image.sh IMAGE OUT_DIR MAKE_ARGS...}
out=${2:?usage: image.sh IMAGE OUT_DIR MAKE_ARGS...}
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
root=$out/root

say() { printf '  IMAGE   %s\n' "$*"; }
die() { printf 'image.sh: error: %s\n' "$*" >&2; exit 1; }

command -v podman >/dev/null || die "podman is not installed (make deps)"
[ -x /bin/busybox ] || die "no /bin/busybox (busybox-static; make deps)"

rm -rf "$root" "$out/tierd.oci.tar"
mkdir -p "$root"
say "make install DESTDIR=${root#"$top"/}"
make -C "$top" --no-print-directory -s "$@" install DESTDIR="$root" PREFIX=/usr/local >/dev/null
# Headers, pkg-config and man pages are for hosts, not for the image.
rm -rf "$root/usr/local/include" "$root/usr/local/lib/pkgconfig" "$root/usr/local/share/man" \
	"$root/lib/systemd" "$root/usr/share/dbus-1"

# copy FILE: FILE's content at the same path (symlinks followed: the image
# has no usr-merge links, so every path a program asks for is a file).
copy() {
	mkdir -p "$root$(dirname "$1")"
	cp -L "$1" "$root$1"
}

bins=$(find "$root/usr/local/bin" "$root/usr/local/sbin" "$root/usr/local/libexec" -type f)
libs=$(for b in $bins; do
	LD_LIBRARY_PATH=$root/usr/local/lib ldd "$b" | awk '$3 ~ /^\// { print $3 } $1 ~ /^\/.*ld-linux/ { print $1 }'
done | grep -v "^$root" | sort -u)
say "$(echo "$libs" | wc -l) shared libraries from the host"
for l in $libs; do
	copy "$l"
done
# The x86-64 loader's path in ELF headers is /lib64/ld-linux-x86-64.so.2.
[ -e /lib64/ld-linux-x86-64.so.2 ] && copy /lib64/ld-linux-x86-64.so.2
mkdir -p "$root/bin" "$root/etc/ld.so.conf.d" "$root/run" "$root/tmp" "$root/host/sys/fs/cgroup"
cp /bin/busybox "$root/bin/busybox"
for a in sh sleep cat ls; do ln -sf busybox "$root/bin/$a"; done
echo /usr/local/lib >"$root/etc/ld.so.conf.d/local.conf"
echo 'include /etc/ld.so.conf.d/*.conf' >"$root/etc/ld.so.conf"
ldconfig -r "$root"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"

# Check the programs run in the tree (no library missing).
chroot "$root" /usr/local/sbin/tierd --version >/dev/null || die "tierd does not run in the image tree"
chroot "$root" /usr/local/bin/tierctl --version >/dev/null 2>&1 ||
	chroot "$root" /usr/local/bin/tierctl --help >/dev/null || die "tierctl does not run in the image tree"

say "podman import -> $image"
tar --numeric-owner --owner=0 --group=0 -C "$root" -cf "$out/root.tar" .
podman rmi -f "$image" >/dev/null 2>&1 || true
podman import -q \
	--change 'ENTRYPOINT ["/usr/local/sbin/tierd"]' \
	--change 'CMD ["--foreground", "--config=/etc/tierd/tierd.conf", "--no-systemd"]' \
	--change "LABEL org.opencontainers.image.title=tierd" \
	--change "LABEL org.opencontainers.image.description=per-workload memory tiering daemon" \
	"$out/root.tar" "$image" >/dev/null
rm -f "$out/root.tar"
podman save -q --format oci-archive -o "$out/tierd.oci.tar" "$image"
size=$(podman image inspect --format '{{.Size}}' "$image")
printf '%s\n' "$image" >"$out/name"
say "image $image: $((size / 1024 / 1024)) MiB ($size bytes); archive ${out#"$top"/}/tierd.oci.tar ($(($(stat -c %s "$out/tierd.oci.tar") / 1024 / 1024)) MiB)"
