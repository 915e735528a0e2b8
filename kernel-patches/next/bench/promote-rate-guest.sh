#!/bin/bash
# promote-rate-guest.sh [ROUNDS]: in the two-tier VM, measure promotion
# rates of 64 MB hot sets (small pages, populated on the slow node) in
# cgroups with and without memory.promote_rate_max, kernel.numa_balancing=2.
# Prints SAMPLE lines (uptime, promoted pages per cgroup) and one RESULT
# line per cgroup and case: the rate over the middle 80% of the set
# (10% -> 90% promoted) and the time from start to 90%.
set -u
here=$(dirname "$0")
hot=$here/hotset
mb=${TIERD_HOTSET_MB:-64}
pages=$((mb * 256))
rounds=${1:-1}
cgr=/sys/fs/cgroup
slow=1
max_s=${TIERD_CASE_SECONDS:-40}

echo 2 >/proc/sys/kernel/numa_balancing || exit 77
[ -e $cgr/cgroup.subtree_control ] || exit 77
echo +memory >$cgr/cgroup.subtree_control

stat_of() { awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print -1 }' "$cgr/$1/memory.stat"; }
ev_of() { awk -v k="$2" '$1 == k { print $2 }' "$cgr/$1/$3"; }

# run_case NAME "CG:BUDGET ..." LEAVES...: create the cgroups (parents
# first), set the budgets, start a hot set in each leaf, sample.
run_case() {
	local name=$1 spec=$2
	shift 2
	local leaves="$*" cg b pids="" t0 t done line
	for cg in $spec; do
		b=${cg#*:}
		cg=${cg%%:*}
		case $cg in */*) echo +memory >$cgr/${cg%/*}/cgroup.subtree_control ;; esac
		mkdir -p $cgr/$cg
		if [ -e $cgr/$cg/memory.promote_rate_max ]; then
			echo "$b" >$cgr/$cg/memory.promote_rate_max || echo "case $name: cannot set $cg to $b"
		elif [ "$b" != max ]; then
			echo "case $name: no memory.promote_rate_max"; exit 77
		fi
	done
	t0=$(cut -d' ' -f1 /proc/uptime)
	for cg in $leaves; do
		sh -c "echo \$\$ >$cgr/$cg/cgroup.procs && exec $hot $mb $slow" >/dev/null &
		pids="$pids $!"
	done
	: >/tmp/samples
	while :; do
		t=$(cut -d' ' -f1 /proc/uptime)
		line="$t"
		done=1
		for cg in $leaves; do
			v=$(stat_of $cg pgpromote_success)
			line="$line $v"
			[ "$v" -ge $((pages * 9 / 10)) ] || done=0
		done
		echo "$line" >>/tmp/samples
		echo "SAMPLE $name $line"
		[ $done = 1 ] && break
		awk -v t="$t" -v t0="$t0" -v m="$max_s" 'BEGIN { exit !(t - t0 > m) }' && break
		sleep 0.5
	done
	i=1
	for cg in $leaves; do
		i=$((i + 1))
		awk -v c=$i -v p=$pages -v t0="$t0" -v cg="$cg" -v name="$name" \
		    -v ref="$(stat_of $cg pgpromote_refused_rate)" \
		    -v ev="$(ev_of $cg promote_rate_max memory.events)" '
			{ t = $1; v = $c; last_t = t; last_v = v
			  if (!t10 && v >= p / 10) { t10 = t; v10 = v }
			  if (!t90 && v >= p * 9 / 10) { t90 = t; v90 = v } }
			END {
				if (!t90) { t90 = last_t; v90 = last_v; cut = " (not reached)" }
				rate = (t10 && t90 > t10) ? (v90 - v10) * 4096 / (t90 - t10) / 1048576 : 0
				printf "RESULT %s %s promoted %d/%d rate10-90 %.2f MB/s t90 %.1f s%s refused %s events %s\n",
					name, cg, last_v, p, rate, t90 - t0, cut, ref, ev
			}' /tmp/samples
	done
	for p in $pids; do kill -9 $p; done
	wait 2>/dev/null
	for cg in $(echo $spec | tr ' ' '\n' | cut -d: -f1 | sort -r); do
		rmdir $cgr/$cg 2>/dev/null
	done
	sleep 1
}

r=0
while [ $r -lt "$rounds" ]; do
	r=$((r + 1))
	echo "== round $r"
	for c in ${TIERD_CASES:-off on tree tree64}; do
		case $c in
		# No budget anywhere (static key off): two neighbours
		off) run_case off "a:max b:max" a b ;;
		# An 8M/s budget beside a neighbour without one
		on) run_case on "a:8M b:max" a b ;;
		# A parent with 8M/s, its child with none of its own, a neighbour
		tree) run_case tree "p:8M p/c:max b:max" p/c b ;;
		# The same child with 64M/s of its own: still the parent's 8M/s
		tree64) run_case tree64 "p:8M p/c:64M b:max" p/c b ;;
		# The same with 2M/s, for a host too loaded for 8M/s to bite
		on2) run_case on2 "a:2M b:max" a b ;;
		tree2) run_case tree2 "p:2M p/c:64M b:max" p/c b ;;
		esac
	done
done
echo "vmstat: $(grep -E 'pgpromote_(success|refused_rate)' /proc/vmstat | tr '\n' ' ')"
