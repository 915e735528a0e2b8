# tests/hook/lib.sh: helpers for the tierd-oci-hook and tierd-metrics tests
# (sourced).
#
# Builds a fake host in a temp dir, in the kernel's file formats:
#   $CG     a cgroup v2 tree (memory.numa_balancing, memory.low/high, ...)
#   $SYS    sysfs: nodes with meminfo, memory tiers
#   $PROC   procfs: PID/cgroup files for the /proc fallback
# $HOOK / $METRICS name the binaries under test (ASan builds from oci-hook.mk and metrics.mk).
# A failed check prints "FAIL: ..." and exits 1; a skip prints the reason
# and exits 77.

set -u

: "${SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
DATA=$SRCDIR/tests/hook/data

T=$(mktemp -d "${TMPDIR:-/tmp}/tierd-hook.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
CG=$T/cg
SYS=$T/sys
PROC=$T/proc
# The fake tree stands in for a cgroup2 mount (tier_cgroup_root_find()).
export TIER_TEST_FAKE_CGROUP=1
# The hook's annotation records (tier_annotation_dir()), not the host's.
export TIER_TEST_ANNOTATION_DIR=$T/annotations
mkdir -p "$CG" "$SYS" "$PROC"

# With KEEP_GOING=1 (tests/hook/run-old-new.sh) a failed check is printed
# and the test goes on, to list every check an old binary fails.
fail() {
	echo "FAIL: $*" >&2
	[ -n "${KEEP_GOING:-}" ] && return 0
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 77
}

# mk_cg PATH [MODE]: a cgroup with the memory controller files; MODE "-"
# leaves memory.numa_balancing out (a kernel without the patches).
mk_cg() {
	d=$CG$1
	mkdir -p "$d"
	: >"$d/cgroup.procs"
	printf '0\n' >"$d/memory.min"
	printf '0\n' >"$d/memory.low"
	printf 'max\n' >"$d/memory.high"
	printf 'max\n' >"$d/memory.max"
	if [ "${2:-inherit}" != "-" ]; then
		printf '%s\n' "${2:-inherit}" >"$d/memory.numa_balancing"
	fi
}

# The policy the hook tests use.
mk_policy() {
	cat >"$T/tierd.conf" <<'EOM'
[daemon]
cgroup_root = /nonexistent/use-the-command-line

[class:latency]
mode = full
weight = 400
toptier_min = 4G

[class:pinned]
mode = promote
memory_low = 1G

[class:batch]
mode = off
weight = 50
memory_high = 8G

[rule:annotated]
class = latency
annotation = tierd.io/class=latency
EOM
}

# state SAMPLE [BUNDLE]: the sample's state.json with its bundle filled in
# (default: the sample's directory in a copy under $T).
state() {
	b=${2:-$T/bundle-$1}
	if [ -z "${2:-}" ]; then
		mkdir -p "$b"
		cp "$DATA/$1/config.json" "$b/config.json"
	fi
	sed "s|@BUNDLE@|$b|" "$DATA/$1/state.json"
}

# sample NAME [ARGS...]: run the hook on a sample's state (see state()).
sample() {
	_s=$1
	shift
	state "$_s" >"$T/state.json"
	hook "$@" <"$T/state.json"
}

# hook ARGS... < STATE: run the hook against the fake tree; output in
# $T/out and $T/err, status in $rc.
hook() {
	rc=0
	"$HOOK" --config "$T/tierd.conf" --cgroup-root "$CG" --procfs-root "$PROC" "$@" \
		>"$T/out" 2>"$T/err" || rc=$?
	return 0
}

expect_rc() {
	if [ "$rc" != "$1" ]; then
		echo "--- stdout" >&2; cat "$T/out" >&2
		echo "--- stderr" >&2; cat "$T/err" >&2
		fail "expected exit $1, got $rc"
	fi
}

# expect_err REGEX: grep -E in stderr. expect_quiet: nothing on either.
expect_err() {
	grep -Eq -- "$1" "$T/err" || { cat "$T/err" >&2; fail "stderr lacks /$1/"; }
}
expect_quiet() {
	if [ -s "$T/out" ] || [ -s "$T/err" ]; then
		cat "$T/out" "$T/err" >&2
		fail "expected no output"
	fi
}

# expect_file CGROUP FILE VALUE
expect_file() {
	v=$(cat "$CG$1/$2")
	[ "$v" = "$3" ] || fail "$1/$2 is '$v', expected '$3'"
}

# tree_sum: checksum of every file under the cgroup tree.
tree_sum() {
	(cd "$CG" && find . -type f | LC_ALL=C sort | while read -r f; do
		printf '%s ' "$f"; cat "$f"; done) | md5sum | cut -d' ' -f1
}

# mk_node N MEMTOTAL_KB MEMFREE_KB: a NUMA node's meminfo.
mk_node() {
	d=$SYS/devices/system/node/node$1
	mkdir -p "$d"
	cat >"$d/meminfo" <<EOM
Node $1 MemTotal:       $2 kB
Node $1 MemFree:        $3 kB
Node $1 MemUsed:        $(($2 - $3)) kB
Node $1 Active:           123456 kB
Node $1 Inactive:         654321 kB
Node $1 FilePages:        711111 kB
Node $1 AnonPages:         66666 kB
Node $1 Shmem:              1234 kB
EOM
}

# mk_host_two_tier: node 0 (16 GiB, CPUs) in memory_tier4, node 1 (8 GiB,
# no CPUs) in memory_tier22, as QEMU with HMAT sets it up.
mk_host_two_tier() {
	mkdir -p "$SYS/devices/system/node"
	mk_node 0 16777216 12582912
	mk_node 1 8388608 8000000
	printf '0-1\n' >"$SYS/devices/system/node/online"
	printf '0-1\n' >"$SYS/devices/system/node/possible"
	printf '0-1\n' >"$SYS/devices/system/node/has_memory"
	printf '0\n' >"$SYS/devices/system/node/has_cpu"
	for t in 4:0 22:1; do
		mkdir -p "$SYS/devices/virtual/memory_tiering/memory_tier${t%:*}"
		printf '%s\n' "${t#*:}" >"$SYS/devices/virtual/memory_tiering/memory_tier${t%:*}/nodelist"
	done
}

# mk_host_one_tier: one node, one tier.
mk_host_one_tier() {
	mkdir -p "$SYS/devices/system/node"
	mk_node 0 16777216 12582912
	printf '0\n' >"$SYS/devices/system/node/online"
	printf '0\n' >"$SYS/devices/system/node/possible"
	printf '0\n' >"$SYS/devices/system/node/has_memory"
	printf '0\n' >"$SYS/devices/system/node/has_cpu"
	mkdir -p "$SYS/devices/virtual/memory_tiering/memory_tier4"
	printf '0\n' >"$SYS/devices/virtual/memory_tiering/memory_tier4/nodelist"
}

# mk_memstat CGROUP ANON_N0 ANON_N1 FILE_N0 FILE_N1 PROMOTED: memory.numa_stat,
# memory.stat (with pgpromote_success) and memory.current.
mk_memstat() {
	d=$CG$1
	cat >"$d/memory.numa_stat" <<EOM
anon N0=$2 N1=$3
file N0=$4 N1=$5
kernel_stack N0=16384 N1=0
pagetables N0=4096 N1=0
shmem N0=0 N1=0
file_mapped N0=0 N1=0
anon_thp N0=0 N1=0
inactive_anon N0=$2 N1=$3
active_anon N0=0 N1=0
inactive_file N0=$4 N1=$5
active_file N0=0 N1=0
unevictable N0=0 N1=0
slab_reclaimable N0=0 N1=0
slab_unreclaimable N0=0 N1=0
EOM
	cat >"$d/memory.stat" <<EOM
anon $(($2 + $3))
file $(($4 + $5))
kernel 20480
shmem 0
pgfault 1234
pgmajfault 0
numa_pages_migrated $6
numa_pte_updates 4096
numa_hint_faults 2048
pgdemote_kswapd 0
pgdemote_direct 0
pgpromote_success $6
EOM
	printf '%s\n' $(($2 + $3 + $4 + $5 + 20480)) >"$d/memory.current"
}

# hook_t SECONDS ARGS... < STATE: hook() under timeout(1); $rc is 124 if it
# had to be killed, $secs the wall time in whole seconds.
hook_t() {
	_limit=$1
	shift
	_t0=$(date +%s)
	rc=0
	timeout -k 2 "$_limit" "$HOOK" --config "$T/tierd.conf" --cgroup-root "$CG" \
		--procfs-root "$PROC" "$@" >"$T/out" 2>"$T/err" || rc=$?
	secs=$(($(date +%s) - _t0))
	return 0
}

# with_cgroups_path SAMPLE VALUE: the sample's state, with its config.json's
# linux.cgroupsPath replaced by VALUE (a JSON string body), in $T/s.
with_cgroups_path() {
	mkdir -p "$T/cgp-$1"
	VALUE=$2 /usr/bin/python3 - "$DATA/$1/config.json" "$T/cgp-$1/config.json" <<'EOP' ||
import json, os, sys
c = json.load(open(sys.argv[1]))
c["linux"]["cgroupsPath"] = json.loads('"' + os.environ["VALUE"] + '"')
json.dump(c, open(sys.argv[2], "w"))
EOP
		fail "with_cgroups_path $1"
	state "$1" "$T/cgp-$1" >"$T/s"
}

# without_cgroups_path SAMPLE: the same without linux.cgroupsPath.
without_cgroups_path() {
	mkdir -p "$T/cgp-$1"
	/usr/bin/python3 - "$DATA/$1/config.json" "$T/cgp-$1/config.json" <<'EOP' ||
import json, sys
c = json.load(open(sys.argv[1]))
del c["linux"]["cgroupsPath"]
json.dump(c, open(sys.argv[2], "w"))
EOP
		fail "without_cgroups_path $1"
	state "$1" "$T/cgp-$1" >"$T/s"
}

# xattr_get DIR NAME: the value, or nothing (status 1) if there is none.
xattr_get() {
	/usr/bin/python3 -c 'import os, sys
try:
    print(os.getxattr(sys.argv[1], sys.argv[2], follow_symlinks=False).decode())
except OSError:
    sys.exit(1)' "$1" "$2"
}
