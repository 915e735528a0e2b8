#!/bin/sh
# apps-table.sh DIR: the tables of the real-application runs from the serial
# logs DIR/SCENARIO-SETUP.log that bench-apps.sh wrote (SCENARIO place,
# noisy, bgsave; SETUP stock-none, stock-damon, patched-knob).  DIR/standin
# lists the setups the patched kernel stood in for the stock one.
set -u
dir=${1:?usage: apps-table.sh DIR}
setups="stock-none stock-damon patched-knob"
standin=$(cat "$dir/standin" 2>/dev/null | cut -d' ' -f1 | sort -u | tr '\n' ' ')

for sc in place noisy bgsave; do
	files=
	for su in $setups; do
		[ -s "$dir/$sc-$su.log" ] && files="$files $dir/$sc-$su.log"
	done
	[ -n "$files" ] || continue
	# shellcheck disable=SC2086
	awk -v sc="$sc" -v standin=" $standin" '
	function mb(b) { return sprintf("%.0f", b / 1048576) }
	function label(su,    l) {
		l = su
		if (su == "stock-none") l = "stock, no tierd"
		if (su == "stock-damon") l = "stock + tierd (damon)"
		if (su == "patched-knob") l = "patched + tierd (knob)"
		if (index(standin, " " su " ")) l = l " [patched kernel standing in]"
		return l
	}
	function kv(line, key,    n, a, i, p) {
		n = split(line, a, " ")
		for (i = 1; i <= n; i++) {
			p = index(a[i], "=")
			if (p && substr(a[i], 1, p - 1) == key) return substr(a[i], p + 1)
		}
		return "-"
	}
	FNR == 1 {
		f = FILENAME; sub(/.*\//, "", f); sub(/\.log$/, "", f)
		su = substr(f, length(sc) + 2); S[++ns] = su
	}
	/^APPS-INFO scenario=/ { info[su] = $0 }
	/^APPS-INFO (redis_keys|hog_keys)=/ { info2[su] = $0 }
	/^APPS-SAMPLE / {
		t = kv($0, "t"); app = kv($0, "app")
		if (t + 0 < 0) next
		# the first sample at or after every 20 s mark
		mark = int((t + 0) / 20) * 20
		if (!((su, app, mark) in fast)) {
			fast[su, app, mark] = kv($0, "fast"); slow[su, app, mark] = kv($0, "slow")
			if (mark > maxmark) maxmark = mark
		}
		if (!(app in seen)) { seen[app] = 1; apps[++na] = app }
	}
	/^APPS-RUN / { run[su] = $0 }
	/^APPS-RESULT / { res[su, kv($0, "app")] = $0 }
	/^APPS-EVENT .*BGSAVE done/ { bgline[su] = $0 }
	END {
		for (i = 1; i <= ns; i++) {
			su = S[i]
			printf "  %-28s %s\n", label(su) ":", "kernel " kv(info[su], "kernel") ", fast node " \
				kv(info[su], "fast_node_mb") " MB, slow node " kv(info[su], "slow_node_mb") " MB, " \
				kv(info[su], "smp") " vCPUs, THP " kv(info[su], "thp") ", redis " kv(info[su], "redis") \
				", memcached " kv(info[su], "memcached")
		}
		print ""
		# fast/slow over time
		printf "  %-6s", "t (s)"
		for (i = 1; i <= ns; i++) printf "| %-*s", 13 * na, label(S[i])
		printf "\n  %-6s", ""
		for (i = 1; i <= ns; i++) { printf "| "; for (j = 1; j <= na; j++) printf "%-13s", apps[j] }
		printf "\n"
		for (m = 0; m <= maxmark; m += 20) {
			printf "  %-6s", m
			for (i = 1; i <= ns; i++) {
				printf "| "
				for (j = 1; j <= na; j++) {
					if ((S[i], apps[j], m) in fast)
						printf "%-13s", mb(fast[S[i], apps[j], m]) "/" mb(slow[S[i], apps[j], m])
					else printf "%-13s", ""
				}
			}
			printf "\n"
		}
		printf "  (cells: MB on the fast / slow node, anon + file of memory.numa_stat, first sample\n"
		printf "   at or after t seconds from the placement check)\n\n"
		# at the end, per app
		printf "  %-26s", "at the end"
		for (i = 1; i <= ns; i++) printf "| %-26s", label(S[i])
		printf "\n"
		for (j = 1; j <= na; j++) {
			printf "  %-26s", apps[j] " fast/slow MB"
			for (i = 1; i <= ns; i++) {
				r = res[S[i], apps[j]]
				c = (r == "") ? "-" : mb(kv(r, "fast")) "/" mb(kv(r, "slow"))
				if (sc == "noisy" && r != "" && kv(r, "target") + 0 > 0)
					c = c sprintf(" (%s, %d%%)", "target " mb(kv(r, "target")), 100 * kv(r, "fast") / kv(r, "target"))
				printf "| %-26s", c
			}
			printf "\n"
		}
		n = split("t90 promoted_pages demoted_pages other_migrated_pages hint_faults kernel_cpu_s kdamond_cpu_s tierd_cpu_s", K, " ")
		for (k = 1; k <= n; k++) {
			name = K[k]
			if (name == "t90") name = (sc == "noisy") ? "victim 90% of target (s)" : "redis 90% fast (s)"
			if (name == "promoted_pages") name = "promoted (pgpromote)"
			if (name == "demoted_pages") name = "demoted (pgdemote)"
			if (name == "other_migrated_pages") name = "other migrated (DAMON)"
			if (name == "hint_faults") name = "NUMA hint faults"
			if (name == "kernel_cpu_s") name = "kernel CPU s"
			if (name == "kdamond_cpu_s") name = "kdamond CPU s"
			if (name == "tierd_cpu_s") name = "tierd CPU s"
			printf "  %-26s", name
			for (i = 1; i <= ns; i++) {
				if (K[k] == "t90") {
					v = kv(res[S[i], (sc == "noisy") ? "victim" : "redis"], "t90")
					if (v == "-") v = "never in " sprintf("%.0f", kv(run[S[i]], "secs")) " s"
					if (sc == "noisy") v = v " (best " kv(run[S[i]], "victim_best_pct") "%)"
				} else v = kv(run[S[i]], K[k])
				printf "| %-26s", v
			}
			printf "\n"
		}
		if (sc == "noisy") {
			printf "  %-26s", "Jain (fast/target)"
			for (i = 1; i <= ns; i++) printf "| %-26s", kv(run[S[i]], "jain")
			printf "\n  %-26s", "victim GET/s *"
			for (i = 1; i <= ns; i++) printf "| %-26s", kv(run[S[i]], "victim_rps")
			printf "\n  %-26s", "hogs get/s (sum) *"
			for (i = 1; i <= ns; i++) printf "| %-26s", kv(run[S[i]], "hogs_rps")
		} else {
			printf "  %-26s", "redis GET/s *"
			for (i = 1; i <= ns; i++) printf "| %-26s", kv(run[S[i]], "redis_rps")
			printf "\n  %-26s", "memcached get/s *"
			for (i = 1; i <= ns; i++) printf "| %-26s", kv(run[S[i]], "memcached_rps")
		}
		if (sc == "bgsave") {
			printf "\n  %-26s", "BGSAVE at / done (s)"
			for (i = 1; i <= ns; i++) printf "| %-26s", kv(run[S[i]], "bgsave_at") " / " kv(run[S[i]], "bgsave_done")
			printf "\n  %-26s", "child CoW MB, secs"
			for (i = 1; i <= ns; i++) printf "| %-26s", sprintf("%.1f", kv(run[S[i]], "bgsave_cow_bytes") / 1048576) ", " kv(run[S[i]], "bgsave_secs")
			printf "\n  %-26s", "promoted/migrated *2"
			for (i = 1; i <= ns; i++) printf "| %-26s", kv(run[S[i]], "promoted_during_bgsave") " / " kv(run[S[i]], "migrated_during_bgsave")
		}
		if (sc == "bgsave") printf "\n  *2 pages promoted (pgpromote_success) / migrated (pgmigrate_success) while the child lived"
		printf "\n  * under TCG a request rate is a CPU-cost figure (emulated CPU, emulated memory),\n"
		printf "    not a memory-speed one: the slow node is no slower to an emulated load\n"
	}' $files | {
		case $sc in
		place) echo "Scenario 1, placement by class: redis (class promote) and memcached (class off), both loaded on the slow node" ;;
		noisy) echo "Scenario 2, noisy neighbours (Hahn's shape): memcached hogs fill the fast tier, then a redis victim arrives on the slow node" ;;
		bgsave) echo "Scenario 3, snapshots: scenario 1 with a redis BGSAVE (fork, copy-on-write) during the promotion" ;;
		esac
		cat
		echo
	}
done
