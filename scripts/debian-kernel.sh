#!/bin/bash
# debian-kernel.sh: Debian's own kernel binary for the two-tier test VM.
#
#   debian-kernel.sh    -> $BUILD/kernel/debian/{vmlinuz,initrd.gz,config,VERSION}
#
# The stock-kernel cases of make check (tierd's DAMON backend, the real
# applications without the series) boot the kernel Debian users run:
# linux-image-<abi>-amd64-unsigned at the version kernel-patches/BASE names
# (the same release the series applies to), with Debian's config (MGLRU on,
# DAMON on, NUMA balancing on by default). It is fetched with apt-get
# download and unpacked here, never installed on the host. Debian builds 9p
# as modules, so an initramfs carries them: tests/vm/rdinit.c (static) as
# /init loads them, mounts the host's / over 9p as run-vm asks and executes
# run-vm's init. run-vm uses an initrd.gz that sits beside the kernel image.
#
# Environment: BUILD (default <repo>/build), DEBIAN_KERNEL_VERSION (default
# kernel-patches/BASE; when that version has left the archive the newest
# 6.12 is used and the script says so), DEBIAN_KERNEL_FORCE=1 (fetch again).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
OUT=$BUILD/kernel/debian
WORK=$OUT/work
# The modules that mount the root (9p over virtio); their dependencies are
# added from the modules' own "depends" (modinfo), loaded first.
ROOT_MODULES="9pnet_virtio 9p"

say() { echo "debian-kernel: $*"; }
die() { echo "debian-kernel: $*" >&2; exit 1; }

want=${DEBIAN_KERNEL_VERSION:-$(sed -n 1p "$TOP/kernel-patches/BASE")}
[ -n "$want" ] || die "no version: kernel-patches/BASE is empty"

stamp_of() {
	echo "$1 $(cat "$TOP/tests/vm/rdinit.c" "$0" | sha256sum | cut -c1-16)"
}

# linux-image-6.12.118+deb12-amd64-unsigned for 6.12.118-1~deb12u1.
pkg_of() { echo "linux-image-${1%%-*}+deb12-amd64-unsigned"; }

has_version() { apt-cache madison "$1" 2>/dev/null | grep -q "| $2 |"; }

pkg=$(pkg_of "$want")
if ! has_version "$pkg" "$want"; then
	say "$pkg $want is not in the package lists; apt-get update"
	apt-get update -qq || die "apt-get update failed"
fi
if ! has_version "$pkg" "$want"; then
	# The security archive keeps only the newest point release.
	newest=$(apt-cache madison linux-source-6.12 2>/dev/null | awk -F'|' 'NR == 1 { gsub(/ /, "", $2); print $2 }')
	[ -n "$newest" ] || die "neither $pkg $want nor any linux-source-6.12 is in the archive"
	say "$pkg $want has left the archive; using $newest (the series is tested on $want)"
	want=$newest
	pkg=$(pkg_of "$want")
	has_version "$pkg" "$want" || die "$pkg $want is not in the archive"
fi

if [ "${DEBIAN_KERNEL_FORCE:-0}" != 1 ] && [ -f "$OUT/initrd.gz" ] && [ -f "$OUT/vmlinuz" ] &&
   [ "$(cat "$OUT/.stamp" 2>/dev/null)" = "$(stamp_of "$want")" ]; then
	say "$pkg $want: up to date ($OUT)"
	exit 0
fi

start=$(date +%s)
rm -rf "$WORK"
mkdir -p "$WORK/pkg" "$WORK/ird/m"
say "$pkg $want: apt-get download"
(cd "$WORK/pkg" && apt-get download -q "$pkg=$want" 2>&1 | grep -v "^W: Download is performed unsandboxed" || true)
deb=$(ls "$WORK"/pkg/*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || die "apt-get download $pkg=$want fetched nothing"

# Unpack only the kernel, its config and the modules the root needs.
list=$WORK/files
dpkg-deb --fsys-tarfile "$deb" | tar -t >"$list"
ko_path() { grep -E "/$1\.ko(\.xz|\.zst|\.gz)?$" "$list" | head -1; }
want_files=$(grep -E '^\./boot/(vmlinuz|config)-' "$list")
[ -n "$want_files" ] || die "$deb has no /boot/vmlinuz-*"

# A module's "depends" from its .modinfo strings (no kmod needed).
depends_of() {
	local cat
	case $1 in
	*.xz) cat="xz -dc" ;;
	*.zst) cat="zstd -dc" ;;
	*.gz) cat="gzip -dc" ;;
	*) cat=cat ;;
	esac
	$cat "$1" | tr '\0' '\n' | sed -n 's/^depends=//p' | head -1 | tr ',' ' '
}

# Module closure, dependencies first.
order=
visit() {
	local m=$1 p d deps
	case " $order " in *" $m "*) return ;; esac
	p=$(ko_path "$m")
	[ -n "$p" ] || die "$deb has no module $m"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$WORK" "$p"
	deps=$(depends_of "$WORK/$p") || die "cannot read $p"
	for d in $deps; do
		visit "$d"
	done
	order="$order $m"
	cp "$WORK/$p" "$WORK/ird/m/"
	echo "${p##*/}" >>"$WORK/ird/modules"
}
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$WORK" $want_files
for m in $ROOT_MODULES; do
	visit "$m"
done
say "initramfs modules (load order):$order"

gcc -static -Os -Wall -Wextra -o "$WORK/ird/init" "$TOP/tests/vm/rdinit.c"
(cd "$WORK/ird" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1 >"$WORK/initrd.gz")

cp "$WORK"/boot/vmlinuz-* "$OUT/vmlinuz"
cp "$WORK"/boot/config-* "$OUT/config"
mv "$WORK/initrd.gz" "$OUT/initrd.gz"
echo "$pkg $want" >"$OUT/VERSION"
stamp_of "$want" >"$OUT/.stamp"
rm -rf "$WORK"
# scripts/summary.sh prints the kernels a run made from this file.
echo $(( $(date +%s) - start )) >"$OUT/.build-seconds"
say "$pkg $want -> $OUT/vmlinuz + initrd.gz ($(du -k "$OUT/initrd.gz" | cut -f1) KB) in $(cat "$OUT/.build-seconds")s"
