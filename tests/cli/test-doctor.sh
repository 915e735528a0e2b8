#!/bin/sh
# tierctl doctor on five fake hosts (issue 22, item 5): a kernel with the
# tierd series, a stock kernel with DAMON, one without, a single-tier host
# and a hybrid host whose memory controller is on cgroup v1; text, JSON
# and the exit code (0: tierd can tier cgroups here, 7: it cannot).
. "$SRCDIR/tests/cli/lib.sh"

command -v jq >/dev/null 2>&1 || skip "jq is not installed"
C="--config $T/tierd.conf"

# jqt FILTER: the filter is true of the JSON in $T/out.
jqt() {
	jq -e "$1" "$T/out" >/dev/null || { cat "$T/out" >&2; fail "JSON: not $1"; }
}

# doctor_both ARGS...: text into $T/out.txt (checked with txt), then JSON
# into $T/out; both with the same exit code.
doctor_both() {
	tc "$@" doctor
	cp "$T/out" "$T/out.txt"
	rc_text=$rc
	tc "$@" doctor --json
	json_ok "$T/out"
	[ "$rc" = "$rc_text" ] || fail "doctor exits $rc_text, doctor --json $rc"
}
txt() {
	grep -Eq -- "$1" "$T/out.txt" || { cat "$T/out.txt" >&2; fail "text lacks /$1/"; }
}
notxt() {
	! grep -Eq -- "$1" "$T/out.txt" || { cat "$T/out.txt" >&2; fail "text has /$1/"; }
}
# metrics_backend BACKEND REQUESTED: tierd-metrics says the same as doctor.
metrics_backend() {
	[ -n "${METRICS:-}" ] || return 0
	"$METRICS" $C --cgroup-root "$CG" --sysfs-root "$SYS" --procfs-root "$PROC" -o - \
		>"$T/metrics" 2>"$T/err" || { cat "$T/err" >&2; fail "tierd-metrics failed"; }
	grep -qx "tierd_backend_info{backend=\"$1\",requested=\"$2\"} 1" "$T/metrics" ||
		{ cat "$T/metrics" >&2; fail "tierd-metrics: no backend $1 (requested $2)"; }
}
mountinfo_v2() {
	mkdir -p "$PROC/self"
	cat >"$PROC/self/mountinfo" <<EOM
22 1 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
26 23 0:24 / $CG rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate$1
EOM
}
damon_sysfs() {
	mkdir -p "$SYS/kernel/mm/damon/admin/kdamonds"
	printf '0\n' >"$SYS/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
}

# 1. The patched kernel: memory.numa_balancing in every cgroup, tiering on.
mk_standard_tree
printf 'full\n' >"$CG/batch.slice/memory.numa_balancing.effective"
mountinfo_v2 ""
doctor_both $C
expect_rc 0
txt "^kernel.numa_balancing = 2: memory tiering"
txt "^memory.numa_balancing: present \(looked in /batch.slice\)"
txt "^memory.numa_balancing.effective: full \(in /batch.slice\)"
txt "^memory_tiered_limits: not mounted"
txt "^memory.stat toptier: not present \(in /batch.slice\)"
txt "^DAMON: +no sysfs interface"
txt "^backend: +knob \(memory.numa_balancing present \(in /batch.slice: a kernel with the tierd series\)\)"
txt "^  yes +mode$"
txt "^  partly +weight, toptier_min, toptier_max"
txt "no memory_tiered_limits: enforced by switching promotion off .*\[classes: latency, pinned, batch\]"
txt "^tierd can tier cgroups here \(backend knob\)"
jqt '.ok == true and .problems == [] and .backend.backend == "knob" and .backend.requested == "auto"'
jqt '.knob == {"present": true, "evidence": "cgroup", "cgroup": "/batch.slice", "effective": "full"}'
jqt '.numa_balancing_sysctl.value == 2 and .memory_tiered_limits == false'
jqt '.toptier_stat.present == false and .damon.present == false'
jqt '.page_cache.read_seen == false and .page_cache.why == "no DAMON sysfs interface"'
jqt '[.tiers[] | .tier] == [4, 22] and .tiers[0].top == true and .tiers[1].nodes == [1]'
jqt '.policy.state == "loaded" and (.policy.keys[] | select(.keys == "mode") | .effect == "yes" and .classes == "latency, pinned, batch")'
metrics_backend knob auto
# ... with the tier-aware limits mounted and the kernel's toptier counter
mountinfo_v2 ",memory_tiered_limits"
printf 'toptier 4096\n' >>"$CG/batch.slice/memory.stat"
doctor_both $C
expect_rc 0
txt "^memory_tiered_limits: mounted"
txt "^memory.stat toptier: present"
txt "^  yes +weight, toptier_min"
txt "^ +enforced through the tier-aware limits .*memory.stat toptier"
jqt '.memory_tiered_limits == true and .toptier_stat.present == true'
# ... kernel.numa_balancing 0: the knob restricts nothing there is
printf '0\n' >"$PROC/sys/kernel/numa_balancing"
doctor_both $C
expect_rc 7
txt "^kernel.numa_balancing = 0: off"
txt "^problem: kernel.numa_balancing = 0: no promotion between tiers"
txt "^  no +mode$"
jqt '.ok == false and (.problems | length) == 1'
printf '2\n' >"$PROC/sys/kernel/numa_balancing"
# ... backend = damon asked for where there is no DAMON: said why, exit 7
printf '[daemon]\nbackend = damon\n' >"$T/damon.conf"
doctor_both --config "$T/damon.conf"
expect_rc 7
txt "^backend: +none \(backend = damon in the policy, but no DAMON sysfs interface"
txt "^problem: backend = damon in the policy, but no DAMON"
jqt '.backend.requested == "damon" and .backend.backend == "none" and .backend.satisfied == false'

# 2. A stock kernel with DAMON: no knob; the DAMON backend.
rm -rf "$CG" "$SYS" "$PROC"
mk_host_two_tier
mk_root
mk_cg /system.slice -
mk_cg /system.slice/postgresql@15-main.service - 3221225472 1073741824
mk_cg /batch.slice -
mk_cg /batch.slice/job1 -
mk_policy "$T/tierd.conf"
mountinfo_v2 ""
damon_sysfs
printf '0\n' >"$PROC/sys/kernel/numa_balancing"
# tierd drives DAMON (tierd-damon.c): the damon backend does the job, and
# modes take effect in part (promotion only: no placement scans).
doctor_both $C
expect_rc 0
txt "^memory.numa_balancing: not present \(looked in /batch.slice\)"
txt "^DAMON: +present, 0 kdamonds, 0 running; DAMON_RECLAIM off, DAMON_LRU_SORT off"
txt "^backend: +damon \(memory.numa_balancing not present \(kernel without the tierd series\); DAMON sysfs present; 2 memory tiers\)$"
txt "^  partly +mode$"
txt "^  partly +weight, toptier_min"
txt "^ +through DAMON: a cgroup above its target gets no promotion and a migrate_cold scheme"
notxt "but not enforced"
notxt "does not drive DAMON"
jqt '.ok == true and .backend.backend == "damon" and .knob.present == false and .knob.effective == null'
jqt '.damon == {"present": true, "kdamonds": [], "damon_reclaim": false, "damon_lru_sort": false}'
metrics_backend damon auto
# page cache read with read(2): no lru_gen (a kernel without MGLRU) is seen;
# MGLRU on is not: a warning for the promote/full classes, not a problem
txt "^page cache via DAMON: yes \(MGLRU off"
jqt '.page_cache.read_seen == true and .page_cache.mglru == false'
mkdir -p "$SYS/kernel/mm/lru_gen"
printf '0x0007\n' >"$SYS/kernel/mm/lru_gen/enabled"
doctor_both $C
expect_rc 0
txt "^page cache via DAMON: no \(MGLRU on: 6.12's folio_mark_accessed\(\) leaves DAMON's idle flag set"
txt "^warning: page cache read with read\(2\) is not promoted here \(page_cache = on in classes latency, pinned\)"
jqt '.ok == true and .page_cache.read_seen == false and .page_cache.mglru == true and (.warnings | length) == 1'
rm -r "$SYS/kernel/mm/lru_gen"
# ... someone's kdamond running, NUMA balancing promoting behind DAMON's back:
# two warnings, no problem (tierd can still run, and says so in its log)
printf '1\n' >"$SYS/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
mkdir -p "$SYS/kernel/mm/damon/admin/kdamonds/0"
printf 'on\n' >"$SYS/kernel/mm/damon/admin/kdamonds/0/state"
printf '4242\n' >"$SYS/kernel/mm/damon/admin/kdamonds/0/pid"
printf '2\n' >"$PROC/sys/kernel/numa_balancing"
doctor_both $C
expect_rc 0
txt "^DAMON: +present, 1 kdamond, 1 running \(0: pid 4242\)"
txt "^warning: kdamond 0 is running \(pid 4242\)"
txt "^warning: kernel.numa_balancing = 2 promotes every cgroup's pages behind DAMON's back"
jqt '.damon.kdamonds == [{"index": 0, "running": true, "pid": 4242}] and (.warnings | length) == 2'
# ... DAMON_RECLAIM on: busy, exit 7
mkdir -p "$SYS/module/damon_reclaim/parameters"
printf 'Y\n' >"$SYS/module/damon_reclaim/parameters/enabled"
doctor_both $C
expect_rc 7
txt "DAMON_RECLAIM on, DAMON_LRU_SORT off"
txt "^problem: DAMON is busy: DAMON_RECLAIM enabled"
jqt '.damon.damon_reclaim == true and .ok == false'
rm -rf "$SYS/module" "$SYS/kernel/mm/damon/admin/kdamonds/0"
printf '0\n' >"$SYS/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
# ... backend = knob asked for on a stock kernel
printf '[daemon]\nbackend = knob\n' >"$T/knob.conf"
doctor_both --config "$T/knob.conf"
expect_rc 7
txt "^problem: backend = knob in the policy, but memory.numa_balancing not present"
jqt '.backend.satisfied == false and .backend.backend == "none"'

# 3. A stock kernel without DAMON: no backend, exit 7.
rm -rf "$SYS/kernel/mm/damon"
doctor_both $C
expect_rc 7
txt "^DAMON: +no sysfs interface"
txt "^backend: +none \(memory.numa_balancing not present .*; no DAMON sysfs interface \(CONFIG_DAMON_SYSFS off\); 2 memory tiers\)"
txt "^problem: no tiering backend"
txt "^  no +mode$"
txt "^  yes +memory_low, memory_high$"
jqt '.ok == false and .backend.backend == "none" and .backend.satisfied == true'
metrics_backend none auto
# ... no policy at all: the key families, a warning
doctor_both --config "$T/none.conf"
expect_rc 7
txt "^policy keys \($T/none.conf not found; the key families\)"
txt "^warning: no policy at $T/none.conf"
jqt '.policy.state == "missing" and (.policy.keys | length) == 4 and all(.policy.keys[]; .classes == null)'
# ... a policy with errors: printed, a problem
printf '[daemon]\nbackend = numa\n' >"$T/bad.conf"
doctor_both --config "$T/bad.conf"
expect_rc 7
expect_err "bad.conf:2: invalid backend 'numa' \(expected auto, knob, damon or none\)"
jqt '.policy.state == "invalid" and any(.problems[]; test("not valid"))'

# 4. A single-tier host with the patched kernel: nothing to tier.
rm -rf "$CG" "$SYS" "$PROC"
mk_host_one_tier
mk_root
mk_cg /system.slice inherit
mk_policy "$T/tierd.conf"
mountinfo_v2 ""
doctor_both $C
expect_rc 7
txt "^memory tiers: +1"
txt "^kernel.numa_balancing = 1: placement only"
txt "^backend: +knob"
txt "^  no +weight, toptier_min"
txt "^ +one memory tier: no fast tier to share"
txt "^problem: one memory tier: nothing to tier"
jqt '.ok == false and (.tiers | length) == 1 and .backend.backend == "knob"'
# ... and with DAMON but no knob: none, not damon
rm -f "$CG/system.slice/memory.numa_balancing"
damon_sysfs
doctor_both $C
expect_rc 7
txt "^backend: +none \(.*DAMON sysfs present, but 1 memory tier: nothing to promote to or demote from\)"

# 5. A hybrid host: memory on cgroup v1 (tests/cli/test-cgroup-root.sh).
rm -rf "$CG" "$SYS" "$PROC"
mk_host_two_tier
damon_sysfs
H=$T/hybrid
mkdir -p "$H/memory" "$H/unified" "$PROC/self"
: >"$H/unified/cgroup.controllers"
cat >"$PROC/self/mountinfo" <<EOM
22 1 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
31 23 0:28 / $H rw,relatime - tmpfs tmpfs rw,mode=755
35 31 0:32 / $H/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / $H/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate
EOM
rc=0
"$TIERCTL" $C --sysfs-root "$SYS" --procfs-root "$PROC" doctor >"$T/out" 2>"$T/err" || rc=$?
cp "$T/out" "$T/out.txt"
expect_rc 7
txt "^cgroup v2: +no memory controller: the memory controller is on cgroup v1 \(hybrid layout"
txt "^memory.numa_balancing: not looked for"
txt "^backend: +none \(no cgroup v2 memory controller: tierd cannot manage cgroups here\)"
txt "^problem: the memory controller is on cgroup v1 \(hybrid layout: the cgroup2 mount $H/unified"
txt "^  no +memory_low, memory_high$"
rc=0
"$TIERCTL" $C --sysfs-root "$SYS" --procfs-root "$PROC" doctor --json >"$T/out" 2>"$T/err" || rc=$?
expect_rc 7
json_ok "$T/out"
jqt '.cgroup.memory_v2 == false and .cgroup.root == null and (.cgroup.error | test("hybrid layout"))'
jqt '.backend.backend == "none" and .knob.evidence == "none" and .ok == false'
jqt 'all(.policy.keys[]; .effect == "no")'

# Usage: doctor takes no arguments.
tc $C doctor extra
expect_rc 2
exit 0
