#!/bin/sh
# run-apps.sh KERNEL SCENARIO SETUP [LOG]: boot the two-tier VM
# (tests/vm/run-vm) on KERNEL (a bzImage) and run the real-application
# scenario (tests/vm/apps/apps-guest.sh SCENARIO SETUP) in it.  LOG keeps
# the serial log (bench/apps/bench-apps.sh reads it).  Every APPS_* variable
# of the environment is passed to the guest (see apps-guest.sh).
# $APPS_VM_TIMEOUT: run-vm's bound (default 400 s); $APPS_MEM_FAST and
# $APPS_MEM_SLOW: the nodes' sizes (256M each).  Skips (77, with the reason)
# without qemu, busybox, the kernel, redis or memcached.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
build=${BUILD:-$top/build}
[ $# -ge 3 ] || { echo "usage: run-apps.sh KERNEL place|bgsave|noisy none|damon|knob [LOG]" >&2; exit 2; }
kernel=$1 scenario=$2 setup=$3 log=${4:-}

command -v qemu-system-x86_64 >/dev/null 2>&1 ||
	{ echo "SKIP: qemu-system-x86_64 not installed (make deps)"; exit 77; }
command -v busybox >/dev/null 2>&1 || { echo "SKIP: busybox not installed (make deps)"; exit 77; }
for p in redis-server redis-benchmark redis-cli memcached; do
	command -v $p >/dev/null 2>&1 || { echo "SKIP: $p not installed (make deps)"; exit 77; }
done
[ -r "$kernel" ] || { echo "SKIP: no kernel at $kernel"; exit 77; }
for f in bin/tierd bin/tierctl apps/mcload test/tierd-waitfor; do
	[ -x "$build/$f" ] || { echo "SKIP: no $build/$f"; exit 77; }
done

envs=
for v in $(env | sed -n 's/^\(APPS_[A-Z0-9_]*\)=.*/\1/p'); do
	case $v in APPS_VM_TIMEOUT|APPS_MEM_FAST|APPS_MEM_SLOW) continue ;; esac
	eval "envs=\"\$envs --env $v=\$$v\""
done
keep=$log
if [ -z "$log" ]; then
	mkdir -p "$build/vm/logs" && log=$(mktemp "$build/vm/logs/apps-$scenario-$setup.XXXXXX") ||
		exit 125
fi
echo "apps: $scenario/$setup on $kernel"
# The console stays quiet (the boot is long); the guest's own lines are
# repeated from the log afterwards.
# shellcheck disable=SC2086
env BUILD="$build" "$top/tests/vm/run-vm" --quiet --timeout "${APPS_VM_TIMEOUT:-400}" \
	--kernel "$kernel" --mem-fast "${APPS_MEM_FAST:-256M}" --mem-slow "${APPS_MEM_SLOW:-256M}" \
	--log "$log" $envs /bin/bash "$top/tests/vm/apps/apps-guest.sh" "$scenario" "$setup" >"$log.out" 2>&1
rc=$?
grep -a -E '^(APPS-(INFO|PLACED|STEP|EVENT|RUN|RESULT|NUMASTAT|SLOWMAP)|PASS|FAIL|SKIP)' "$log" 2>/dev/null
cat "$log.out"
rm -f "$log.out"
[ -z "$keep" ] && [ "$rc" = 0 ] && rm -f "$log"
exit "$rc"
