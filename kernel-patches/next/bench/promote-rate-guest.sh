#!/bin/bash
# promote-rate-guest.sh [ROUNDS]: in the two-tier VM, measure promotion
# rates of 64 MB hot sets (small pages, populated on the slow node) in
# cgroups with and without memory.promote_rate_max, kernel.numa_balancing=2.
# Prints SAMPLE lines (uptime, promoted pages per cgroup) and one RESULT
# line per cgroup and case:
#   rate10-90  (pages at the first sample at or above 90% - at the first
#              at or above 10%) / (time between those samples), MB/s
#   lsq        least-squares slope of the samples from 10% to 90%, MB/s
#   t90        seconds from the start of the workloads to 90%
#   first      seconds to the first promoted page, and the pages promoted
#              by the first sample after it (the carry-over burst)
#   ceiling    (budgeted cgroups) the largest (v_j - v_i) / ((ceil(t_j -
#              t_i) + 3) x budget) over all pairs of samples: the bound
#              "over any T seconds at most T + 3 seconds' budget" holds
#              while it is <= 1 (the samples are 0.25 s apart, so T is an
#              upper bound of the span the promotions took)
# Sampling is fork-free (bash builtins, a FIFO read with a timeout as the
# sleep) so that it takes little of the guest's two vCPUs; the first
# version forked five programs a sample and sampled every 1.3-1.5 s.
# TIERD_CASES picks the cases (default "off on tree tree64").
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
rm -f /tmp/tick
mkfifo /tmp/tick || exit 1
exec 9<>/tmp/tick

# stat_v CG KEY: R = the value of KEY in CG's memory.stat (-1: none)
stat_v() {
	local k v
	R=-1
	while read -r k v; do
		if [ "$k" = "$2" ]; then
			R=$v
			return
		fi
	done <"$cgr/$1/memory.stat"
}
stat_of() { stat_v "$1" "$2"; echo "$R"; }
ev_of() { awk -v k="$2" '$1 == k { print $2 }' "$cgr/$1/$3"; }

# run_case NAME "CG:BUDGET ..." LEAF:BUDGET_PAGES...: create the cgroups
# (parents first), set the budgets, start a hot set in each leaf, sample.
# BUDGET_PAGES is the budget that bounds the leaf (its own or an
# ancestor's, pages per second; 0: none) for the ceiling check.
run_case() {
	local name=$1 spec=$2
	shift 2
	local leaves="" bud="" cg b pids="" t0 up cs0 cs done line l
	for l in "$@"; do
		leaves="$leaves ${l%%:*}"
		bud="$bud ${l#*:}"
	done
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
	read -r t0 _ </proc/uptime
	cs0=$((10#${t0/./}))
	for cg in $leaves; do
		sh -c "echo \$\$ >$cgr/$cg/cgroup.procs && exec $hot $mb $slow" >/dev/null &
		pids="$pids $!"
	done
	: >/tmp/samples
	while :; do
		read -r up _ </proc/uptime
		line="$up"
		done=1
		for cg in $leaves; do
			stat_v $cg pgpromote_success
			line="$line $R"
			[ "$R" -ge $((pages * 9 / 10)) ] || done=0
		done
		echo "$line" >>/tmp/samples
		echo "SAMPLE $name $line"
		[ $done = 1 ] && break
		[ $((10#${up/./} - cs0)) -gt $((max_s * 100)) ] && break
		read -r -t 0.25 -u 9 _
	done
	i=1
	set -- $bud
	for cg in $leaves; do
		i=$((i + 1))
		awk -v c=$i -v p=$pages -v t0="$t0" -v cg="$cg" -v name="$name" -v bp="$1" \
		    -v ref="$(stat_of $cg pgpromote_refused_rate)" \
		    -v ev="$(ev_of $cg promote_rate_max memory.events)" '
			function ceil(x) { return x == int(x) ? x : int(x) + 1 }
			{ n++; T[n] = $1; V[n] = $c; last_t = $1; last_v = $c
			  if (!tf && $c > 0) { tf = $1; vf = $c }
			  if (!t10 && $c >= p / 10) { t10 = $1; v10 = $c }
			  if (!t90 && $c >= p * 9 / 10) { t90 = $1; v90 = $c }
			  if ($c >= p / 10 && (!t90 || $1 == t90)) {
				  k++; sx += $1; sy += $c; sxx += $1 * $1; sxy += $1 * $c } }
			END {
				if (!t90) { t90 = last_t; v90 = last_v; cut = " (not reached)" }
				rate = (t10 && t90 > t10) ? (v90 - v10) * 4096 / (t90 - t10) / 1048576 : 0
				d = k * sxx - sx * sx
				lsq = (k > 1 && d > 0) ? (k * sxy - sx * sy) / d * 4096 / 1048576 : 0
				worst = 0
				if (bp > 0)
					for (a = 1; a <= n; a++)
						for (b = a + 1; b <= n; b++) {
							r = (V[b] - V[a]) / ((ceil(T[b] - T[a]) + 3) * bp)
							if (r > worst) { worst = r; wa = a; wb = b }
						}
				printf "RESULT %s %s promoted %d/%d rate10-90 %.2f MB/s lsq %.2f MB/s t90 %.1f s%s first %.1f s %d pages refused %s events %s",
					name, cg, last_v, p, rate, lsq, t90 - t0, cut, tf ? tf - t0 : -1, vf, ref, ev
				if (bp > 0)
					printf " ceiling %.3f (%d pages in %.2f s, bound %d)", worst,
						V[wb] - V[wa], T[wb] - T[wa], (ceil(T[wb] - T[wa]) + 3) * bp
				printf "\n"
			}' /tmp/samples
		shift
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
		off) run_case off "a:max b:max" a:0 b:0 ;;
		# An 8M/s budget beside a neighbour without one
		on) run_case on "a:8M b:max" a:2048 b:0 ;;
		# A parent with 8M/s, its child with none of its own, a neighbour
		tree) run_case tree "p:8M p/c:max b:max" p/c:2048 b:0 ;;
		# The same child with 64M/s of its own: still the parent's 8M/s
		tree64) run_case tree64 "p:8M p/c:64M b:max" p/c:2048 b:0 ;;
		# The same with 2M/s, for a host too loaded for 8M/s to bite
		on2) run_case on2 "a:2M b:max" a:512 b:0 ;;
		tree2) run_case tree2 "p:2M p/c:64M b:max" p/c:512 b:0 ;;
		esac
	done
done
echo "vmstat: $(grep -E 'pgpromote_(success|refused_rate)' /proc/vmstat | tr '\n' ' ')"
