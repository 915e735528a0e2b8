#!/bin/sh
# In the VM: a burst of 200 cgroups (10 parents x 19 children + the parents,
# nested with the memory controller enabled at each level, plus a 10-deep
# chain): every one gets the knob, without waiting for a reconcile.
. "$(dirname "$0")/lib-vm.sh"
need_knob
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
[class:pinned]
mode = promote
[rule:pinned]
class = pinned
cgroup = /burst/**
EOC
mkdir "$CG/burst" && enable_memory burst
start_tierd
i=0
while [ $i -lt 10 ]; do
	mkdir "$CG/burst/p$i"
	enable_memory "burst/p$i"
	j=0
	while [ $j -lt 19 ]; do
		mkdir "$CG/burst/p$i/c$j"
		j=$((j + 1))
	done
	i=$((i + 1))
done
# a deep chain, created with one mkdir -p (no subtree_control: only the top
# level has the memory files; the rest must be watched anyway)
chain=burst/d0/d1/d2/d3/d4/d5/d6/d7/d8/d9
mkdir -p "$CG/$chain"
wait_mode burst/p9/c18 promote 30
wait_mode burst/d0 promote
n=0 bad=0
for f in $(find "$CG/burst" -mindepth 2 -name memory.numa_balancing); do
	n=$((n + 1))
	[ "$(cat "$f")" = promote ] || { bad=$((bad + 1)); echo "not applied: $f: $(cat "$f")"; }
done
[ "$n" -ge 200 ] || fail "only $n cgroups with the knob in the burst"
[ "$bad" = 0 ] || fail "$bad of $n cgroups of the burst lack the knob"
# every directory of the chain is watched: a new leaf at the bottom is seen
mkdir "$CG/$chain/leaf" || fail "cannot create a leaf below the chain"
wait_log "/$chain/leaf: created" 30
echo "$n cgroups of the burst all have memory.numa_balancing=promote"
stop_tierd
echo "PASS"
