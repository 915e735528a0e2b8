#!/bin/sh
# Install the Debian packages tierd needs to build, test and run its demo.
# Idempotent: apt-get runs only if something is missing.
set -eu

PKGS="build-essential pkg-config clang libclang-rt-14-dev valgrind \
libcgroup-dev libnl-3-dev libnl-genl-3-dev libsystemd-dev libinih-dev check \
linux-source-6.12 bc bison flex libelf-dev libssl-dev cpio xz-utils ccache \
qemu-system-x86 busybox-static systemd dbus python3 groff-base man-db jq \
libjson-c-dev python3-prometheus-client runc abigail-tools \
podman crun python3-yaml attr"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "deps: all packages present"
	exit 0
fi

echo "deps: installing:$missing"
if [ "$(id -u)" != 0 ]; then
	echo "deps: need root to install packages (run as root or install them yourself)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
