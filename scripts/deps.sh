#!/bin/sh
# Install the Debian packages tierd needs to build, test and run its demo.
# Idempotent: apt-get runs only if something is missing.
set -eu

# The kernel series is made against one Debian source version
# (kernel-patches/BASE): install that one, so that a new point release in
# the archive cannot break a series that applied yesterday. Fall back to
# the newest version (kernel.sh warns) if the archive no longer has it.
TOP=$(cd "$(dirname "$0")/.." && pwd)
KPKG=linux-source-6.12
KBASE=$(sed -n 1p "$TOP/kernel-patches/BASE" 2>/dev/null || true)

PKGS="build-essential pkg-config clang libclang-rt-14-dev valgrind \
libnl-3-dev libnl-genl-3-dev libsystemd-dev check \
linux-source-6.12 bc bison flex libelf-dev libssl-dev cpio xz-utils ccache \
qemu-system-x86 busybox-static systemd dbus python3 groff-base man-db jq \
libjson-c-dev python3-prometheus-client runc abigail-tools \
podman crun python3-yaml attr redis-server redis-tools memcached"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

khave=$(dpkg-query -W -f='${Version}' "$KPKG" 2>/dev/null || true)
if [ -n "$KBASE" ] && [ "$khave" != "$KBASE" ]; then
	case " $missing " in *" $KPKG "*) ;; *) missing="$missing $KPKG" ;; esac
fi

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
case " $missing " in
*" $KPKG "*)
	if [ -n "$KBASE" ] && apt-cache madison "$KPKG" | grep -q "| $KBASE |"; then
		missing=$(echo "$missing" | sed "s/ $KPKG\( \|$\)/ $KPKG=$KBASE\1/")
	else
		echo "deps: $KPKG $KBASE (kernel-patches/BASE) is not in the archive; installing the newest" >&2
	fi
	;;
esac
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends --allow-downgrades $missing

# redis-server and memcached are only for the VM's real-application runs
# (bench/apps, tests/vm/apps: the guest starts its own); their packages
# enable and start a service, which must not run on this host. Only for
# the packages installed just now: a redis someone runs here already is theirs.
for s in redis-server memcached; do
	case " $missing " in *" $s "*) ;; *) continue ;; esac
	if [ -d /run/systemd/system ]; then
		systemctl disable --now "$s.service" >/dev/null 2>&1 || true
	else
		# no systemd running (a container): remove the wants links offline,
		# stop a SysV-started one
		systemctl disable "$s.service" >/dev/null 2>&1 || true
		invoke-rc.d "$s" stop >/dev/null 2>&1 || true
		update-rc.d "$s" disable >/dev/null 2>&1 || true
	fi
	echo "deps: $s installed for the VM runs, its service disabled on this host"
done
