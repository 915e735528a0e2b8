#!/bin/sh
# bench/hash-startup.sh: tierd's startup over N sibling cgroups whose names
# share one hash under tierd's old djb2 (bench/hash-flood.c -t), with a rule
# that matches them all.  Figures only, not a test.
#
#   TIERD=build/bin/tierd [TIERD_OLD=/path/to/old/tierd] HASH_FLOOD=build/bench/hash-flood \
#   WAITFOR=build/test/tierd-waitfor sh bench/hash-startup.sh [N]
#
# Prints the milliseconds from exec to "tierd started" (the full pass and
# the watches of the whole tree), for each binary given.
. "$(dirname "$0")/../tests/daemon/lib-host.sh"

N=${1:-16384}
: "${HASH_FLOOD:?HASH_FLOOD must name bench/hash-flood}"
mk_fake_host
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
[class:flood]
mode = full
[rule:flood]
class = flood
cgroup = ${HASH_STARTUP_RULE:-/elsewhere/*}
EOC
"$HASH_FLOOD" -t "$CG" -n "$N" || fail "hash-flood -t"
for bin in "$TIERD" ${TIERD_OLD:-}; do
	TIERD=$bin
	t0=$(date +%s%N)
	start_tierd
	t1=$(date +%s%N)
	echo "$bin: $N adversarial siblings: started in $(((t1 - t0) / 1000000)) ms"
	stop_tierd
	# the next run starts from the same tree
	find "$CG" -name memory.numa_balancing -exec sh -c 'for f; do echo inherit >"$f"; done' sh {} +
done
