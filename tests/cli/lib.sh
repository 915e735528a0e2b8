# tests/cli/lib.sh: shared helpers for the tierctl CLI tests (sourced).
#
# Builds a fake host in a temp dir, in the kernel's own file formats:
#   $T/cg     a cgroup v2 tree (memory.numa_balancing, memory.current,
#             memory.stat, memory.numa_stat, ...)
#   $T/sys    sysfs: devices/system/node/nodeN/meminfo and
#             devices/virtual/memory_tiering/memory_tierN/nodelist
#   $T/proc   procfs: meminfo, vmstat, sys/kernel/numa_balancing
# and runs $TIERCTL (the binary under test) against it.
#
# Tests call fail "message" on a failed check; they exit 0 on success and
# 77 with a reason to skip.

set -u

: "${TIERCTL:?TIERCTL must name the tierctl binary under test}"
: "${SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"

T=$(mktemp -d "${TMPDIR:-/tmp}/tierctl-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
CG=$T/cg
SYS=$T/sys
PROC=$T/proc
# The fake tree stands in for a cgroup2 mount (tier_cgroup_root_find()).
export TIER_TEST_FAKE_CGROUP=1

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 77
}

# tc ARGS...: run tierctl against the fake tree; output in $T/out, $T/err,
# status in $rc.
tc() {
	rc=0
	"$TIERCTL" --cgroup-root "$CG" --sysfs-root "$SYS" --procfs-root "$PROC" \
		"$@" >"$T/out" 2>"$T/err" || rc=$?
	return 0
}

# expect_rc N: the last tc exited with N.
expect_rc() {
	if [ "$rc" != "$1" ]; then
		echo "--- stdout" >&2; cat "$T/out" >&2
		echo "--- stderr" >&2; cat "$T/err" >&2
		fail "expected exit $1, got $rc"
	fi
}

# expect_out REGEX / expect_err REGEX: grep -E in stdout / stderr.
expect_out() {
	grep -Eq -- "$1" "$T/out" || { cat "$T/out" >&2; fail "stdout lacks /$1/"; }
}
expect_err() {
	grep -Eq -- "$1" "$T/err" || { cat "$T/err" >&2; fail "stderr lacks /$1/"; }
}
expect_no_out() {
	if grep -Eq -- "$1" "$T/out"; then cat "$T/out" >&2; fail "stdout has /$1/"; fi
}

# json_ok FILE: FILE is one valid JSON document.
json_ok() {
	if command -v jq >/dev/null 2>&1; then
		jq . "$1" >/dev/null || fail "invalid JSON in $1"
	else
		python3 -m json.tool "$1" >/dev/null || fail "invalid JSON in $1"
	fi
}

# tree_sum: checksum of every file's path and content under the cgroup tree.
tree_sum() {
	(cd "$CG" && find . -type f | LC_ALL=C sort | while read -r f; do
		printf '%s ' "$f"; cat "$f"; done) | md5sum | cut -d' ' -f1
}

# mk_node N MEMTOTAL_KB MEMFREE_KB [CPULIST]
mk_node() {
	d=$SYS/devices/system/node/node$1
	mkdir -p "$d"
	used=$(($2 - $3))
	cat >"$d/meminfo" <<EOM
Node $1 MemTotal:       $2 kB
Node $1 MemFree:        $3 kB
Node $1 MemUsed:        $used kB
Node $1 SwapCached:            0 kB
Node $1 Active:           123456 kB
Node $1 Inactive:         654321 kB
Node $1 Active(anon):      12345 kB
Node $1 Inactive(anon):    54321 kB
Node $1 Active(file):     111111 kB
Node $1 Inactive(file):   600000 kB
Node $1 Unevictable:           0 kB
Node $1 Mlocked:               0 kB
Node $1 Dirty:                 8 kB
Node $1 Writeback:             0 kB
Node $1 FilePages:        711111 kB
Node $1 Mapped:            65432 kB
Node $1 AnonPages:         66666 kB
Node $1 Shmem:              1234 kB
Node $1 KernelStack:        2048 kB
Node $1 PageTables:         1024 kB
Node $1 SecPageTables:         0 kB
Node $1 NFS_Unstable:          0 kB
Node $1 Bounce:                0 kB
Node $1 WritebackTmp:          0 kB
Node $1 KReclaimable:      40000 kB
Node $1 Slab:              60000 kB
Node $1 SReclaimable:      40000 kB
Node $1 SUnreclaim:        20000 kB
Node $1 AnonHugePages:         0 kB
Node $1 ShmemHugePages:        0 kB
Node $1 ShmemPmdMapped:        0 kB
Node $1 FileHugePages:         0 kB
Node $1 FilePmdMapped:         0 kB
Node $1 Unaccepted:            0 kB
Node $1 HugePages_Total:     0
Node $1 HugePages_Free:      0
Node $1 HugePages_Surp:      0
EOM
	printf '%s\n' "${4:-}" >"$d/cpulist"
}

# mk_tier ID NODELIST
mk_tier() {
	d=$SYS/devices/virtual/memory_tiering/memory_tier$1
	mkdir -p "$d"
	printf '%s\n' "$2" >"$d/nodelist"
}

# mk_host_two_tier: node 0 (16 GiB, CPUs) in tier 4, node 1 (8 GiB, no CPUs)
# in tier 22, as QEMU with HMAT sets it up.
mk_host_two_tier() {
	mkdir -p "$SYS/devices/system/node" "$PROC/sys/kernel"
	mk_node 0 16777216 12582912 0-1
	mk_node 1 8388608 8000000 ""
	printf '0-1\n' >"$SYS/devices/system/node/online"
	printf '0-1\n' >"$SYS/devices/system/node/possible"
	printf '0-1\n' >"$SYS/devices/system/node/has_memory"
	printf '0\n' >"$SYS/devices/system/node/has_cpu"
	printf '0-1\n' >"$SYS/devices/system/node/has_normal_memory"
	mk_tier 4 0
	mk_tier 22 1
	printf '2\n' >"$PROC/sys/kernel/numa_balancing"
	cat >"$PROC/meminfo" <<EOM
MemTotal:       25165824 kB
MemFree:        20582912 kB
MemAvailable:   21000000 kB
EOM
	cat >"$PROC/vmstat" <<EOM
nr_free_pages 5145728
pgpromote_success 0
pgdemote_kswapd 0
numa_pte_updates 0
numa_hint_faults 0
EOM
}

# mk_host_one_tier: one node, one tier.
mk_host_one_tier() {
	mkdir -p "$SYS/devices/system/node" "$PROC/sys/kernel"
	mk_node 0 16777216 12582912 0-1
	printf '0\n' >"$SYS/devices/system/node/online"
	printf '0\n' >"$SYS/devices/system/node/possible"
	printf '0\n' >"$SYS/devices/system/node/has_memory"
	printf '0\n' >"$SYS/devices/system/node/has_cpu"
	mk_tier 4 0
	printf '1\n' >"$PROC/sys/kernel/numa_balancing"
}

# mk_root: the cgroup root (no memory.numa_balancing, no memory.current).
mk_root() {
	mkdir -p "$CG"
	printf 'cpuset cpu io memory hugetlb pids rdma misc\n' >"$CG/cgroup.controllers"
	printf 'cpu io memory pids\n' >"$CG/cgroup.subtree_control"
	: >"$CG/cgroup.procs"
	write_memstat "$CG" 1048576 524288
}

# write_memstat DIR FAST_BYTES SLOW_BYTES: memory.stat and memory.numa_stat
# with anon split between node 0 and node 1.
write_memstat() {
	fast=$2 slow=$3
	total=$((fast + slow))
	cat >"$1/memory.stat" <<EOM
anon $total
file 0
kernel 8192
kernel_stack 0
pagetables 4096
sec_pagetables 0
percpu 0
sock 0
vmalloc 0
shmem 0
zswap 0
zswapped 0
file_mapped 0
file_dirty 0
file_writeback 0
swapcached 0
anon_thp 0
file_thp 0
shmem_thp 0
inactive_anon $total
active_anon 0
inactive_file 0
active_file 0
unevictable 0
slab_reclaimable 0
slab_unreclaimable 0
slab 0
workingset_refault_anon 0
workingset_refault_file 0
workingset_activate_anon 0
workingset_activate_file 0
workingset_restore_anon 0
workingset_restore_file 0
workingset_nodereclaim 0
pgscan 0
pgsteal 0
pgscan_kswapd 0
pgscan_direct 0
pgscan_khugepaged 0
pgsteal_kswapd 0
pgsteal_direct 0
pgsteal_khugepaged 0
pgfault 100
pgmajfault 0
pgrefill 0
pgactivate 0
pgdeactivate 0
pglazyfree 0
pglazyfreed 0
zswpin 0
zswpout 0
zswpwb 0
thp_fault_alloc 0
thp_collapse_alloc 0
thp_swpout 0
thp_swpout_fallback 0
numa_pages_migrated 0
numa_pte_updates 0
numa_hint_faults 0
pgdemote_kswapd 0
pgdemote_direct 0
pgdemote_khugepaged 0
pgpromote_success 0
EOM
	cat >"$1/memory.numa_stat" <<EOM
anon N0=$fast N1=$slow
file N0=0 N1=0
kernel_stack N0=0 N1=0
pagetables N0=4096 N1=0
sec_pagetables N0=0 N1=0
shmem N0=0 N1=0
file_mapped N0=0 N1=0
file_dirty N0=0 N1=0
file_writeback N0=0 N1=0
swapcached N0=0 N1=0
anon_thp N0=0 N1=0
file_thp N0=0 N1=0
shmem_thp N0=0 N1=0
inactive_anon N0=$fast N1=$slow
active_anon N0=0 N1=0
inactive_file N0=0 N1=0
active_file N0=0 N1=0
unevictable N0=0 N1=0
slab_reclaimable N0=0 N1=0
slab_unreclaimable N0=0 N1=0
EOM
}

# mk_cg PATH [MODE [FAST SLOW]]: a non-root cgroup with the memory
# controller and the tierd knob set to MODE (default inherit). MODE "-"
# leaves the knob out (a kernel without the patches).
mk_cg() {
	d=$CG$1
	mkdir -p "$d"
	: >"$d/cgroup.procs"
	printf 'cpu io memory pids\n' >"$d/cgroup.controllers"
	: >"$d/cgroup.subtree_control"
	fast=${3:-4096} slow=${4:-0}
	printf '%s\n' $((fast + slow + 4096)) >"$d/memory.current"
	printf '0\n' >"$d/memory.min"
	printf '0\n' >"$d/memory.low"
	printf 'max\n' >"$d/memory.high"
	printf 'max\n' >"$d/memory.max"
	printf '0\n' >"$d/memory.swap.current"
	write_memstat "$d" "$fast" "$slow"
	if [ "${2:-inherit}" != "-" ]; then
		printf '%s\n' "${2:-inherit}" >"$d/memory.numa_balancing"
	fi
}

# knob PATH: the knob file's content.
knob() {
	cat "$CG$1/memory.numa_balancing"
}

# expect_knob PATH VALUE: the fake knob file holds exactly VALUE. A value
# with a tail of the old content means the write did not truncate: the
# kernel does not care, a regular file does.
expect_knob() {
	v=$(knob "$1")
	[ "$v" = "$2" ] && return 0
	case $v in
	"$2"*) fail "$1/memory.numa_balancing holds '$v', not '$2': the write did not truncate the file (open without O_TRUNC)" ;;
	esac
	fail "$1/memory.numa_balancing holds '$v', not '$2'"
}

# mk_policy FILE: the policy most tests use.
mk_policy() {
	cat >"$1" <<'EOM'
[daemon]
#dry_run = no

[class:latency]
mode = full
weight = 400
toptier_min = 4G
toptier_max = 12G

[class:pinned]
mode = promote
toptier_max = 50%

[class:batch]
mode = off
weight = 50

[rule:db]
class = latency
cgroup = /system.slice/postgresql*.service
unit = mariadb.service

[rule:pinned]
class = pinned
cgroup = /system.slice/memcached.service

[rule:batch]
class = batch
cgroup = /batch.slice/**
EOM
}

# mk_standard_tree: a two-tier host and a tree where the policy above
# changes exactly four knobs:
#   /system.slice/postgresql@15-main.service  inherit -> full
#   /system.slice/memcached.service           inherit -> promote
#   /batch.slice/job1                         inherit -> off
#   /batch.slice/job1/step                    promote -> off
# and leaves /system.slice/mariadb.service (already full) and the unmanaged
# cgroups alone.
mk_standard_tree() {
	mk_host_two_tier
	mk_root
	mk_cg /system.slice inherit
	mk_cg /system.slice/postgresql@15-main.service inherit 3221225472 1073741824
	mk_cg /system.slice/mariadb.service full 1048576 0
	mk_cg /system.slice/memcached.service inherit 0 2097152
	mk_cg /system.slice/cron.service off
	mk_cg /batch.slice inherit
	mk_cg /batch.slice/job1 inherit 4096 8192
	mk_cg /batch.slice/job1/step promote
	mk_cg /user.slice inherit
	mk_cg /user.slice/user-1000.slice promote
	mk_policy "$T/tierd.conf"
}
