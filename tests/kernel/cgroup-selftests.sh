#!/bin/bash
# cgroup-selftests.sh: the base tree's own cgroup kselftests, in the
# two-tier VM, on the stock and the patched kernel (issue 10).
#
#   cgroup-selftests.sh build    compile TESTS statically from
#                                build/kernel/src-patched/tools/testing/selftests/cgroup
#                                into build/kernel/cgroup-selftests/ (the flags of
#                                scripts/kernel.sh's kselftest())
#   cgroup-selftests.sh guest [TEST...]
#                                inside the VM (a tests/vm/run-vm command): set up
#                                what the tests need, run them, print one
#                                "CGST-CASE: <test> <case> <PASS|FAIL|SKIP>" line a case
#   cgroup-selftests.sh check    on the host: run the guest mode in the VM on
#                                build/kernel/patched/bzImage and, if it exists, on
#                                build/kernel/stock/bzImage; write
#                                build/kernel/cgroup-selftests/results-<kernel>.txt
#                                and fail if a case that passes on stock fails on
#                                patched (with no stock kernel: if any case fails)
#   cgroup-selftests.sh compare  only the verdict and summary.txt, from the results
#                                of the last check
#
# Why test_memcontrol failed 11 of its 14 cases in this VM, three causes:
# built at -O2 (gcc deletes alloc_anon(): max, oom_events, the three
# oom_group cases, and min/low lose their anon pressure; see build()), page
# cache made on tmpfs (current_peak, min, low, high, max, reclaim) and lo
# down (sock). What the guest sets up for them and the others:
#  - a chroot on a scratch ext4 file system (a loop device over a sparse
#    file in /tmp), cwd /work, with the host's /usr and /etc read-only and
#    the guest's /proc, /sys and /dev bound in. test_memcontrol makes its
#    page cache with open(".", O_TMPFILE), ftruncate() and read(): on the
#    guest's read-only 9p root O_TMPFILE fails, and on tmpfs read() of a
#    hole copies the shared zero page and charges nothing, so memory.current
#    never reaches the 50M the cases wait for ("failed to allocate 52428800
#    for memcg reclaim test"). On ext4 the read allocates real, clean,
#    charged page cache without I/O, so the loop file stays small.
#    test_kmem_basic stat()s 100000 names under "/" and wants the negative
#    dentries charged as slab: 9p (cache=loose) and tmpfs drop negative
#    dentries at once, ext4 keeps them: hence a chroot, not just a cwd.
#  - the loopback interface up: test_memcontrol's sock case connects to
#    "localhost" and the guest's init leaves lo down.
#  - swap on zram when the kernel has CONFIG_ZRAM (test_memcg_swap_max_peak
#    skips without swap, test_memcg_reclaim then reclaims file pages only).
#    A swap file on tmpfs cannot be used (tmpfs has neither swap_activate
#    nor bmap: swapon fails, "swapfile has holes"), and swap on the ext4
#    scratch file system or on a loop device over a tmpfs file would put
#    swapped-out pages back into RAM through a block device that itself
#    needs memory to write, in the middle of memcg OOM tests: not done.
#
# Environment: BUILD (default <repo>/build), CGST_TIMEOUT (VM timeout, s),
# CGST_TEST_TIMEOUT (per test in the guest, s), CGST_TESTS (the tests),
# CGST_KERNEL (the patched bzImage, default build/kernel/patched/bzImage),
# CGST_LRU_GEN (on|off: run-vm --lru-gen; off writes results-*-classic.txt
# and summary-classic.txt, the MGLRU-off run of make check-vm-classic).
#
# A run in which the kernel reported a problem (run-vm exit 126: a WARNING,
# BUG, lockdep or KASAN report, see tests/vm/run-vm), timed out (124) or
# gave no result (125) fails the check, whatever the cases' results.
set -u -o pipefail

TESTS=${CGST_TESTS:-"test_core test_memcontrol test_kmem test_freezer test_kill test_pids test_cpuset"}

top=$(cd "$(dirname "$0")/../.." && pwd)

LRU_GEN=${CGST_LRU_GEN:-}
case $LRU_GEN in
''|on) SUFFIX= ;;
off) SUFFIX=-classic ;;
*) echo "cgroup-selftests.sh: CGST_LRU_GEN=$LRU_GEN: want on or off" >&2; exit 2 ;;
esac

say() { printf '  CGST    %s\n' "$*"; }
die() { printf 'cgroup-selftests.sh: %s\n' "$*" >&2; exit 1; }

build() {
	local build=${BUILD:-$top/build}
	local src=$build/kernel/src-patched/tools/testing/selftests/cgroup
	local out=$build/kernel/cgroup-selftests t
	# As scripts/kernel.sh kselftest(): static, so the guest needs nothing
	# but the kernel; fall back to a dynamic link (the guest's root is the
	# host's /, so the host's libc is there too). But not -O2: the
	# selftests' Makefile builds without optimisation, and at -O2 gcc
	# deletes test_memcontrol's alloc_anon() (malloc, stores, free: dead),
	# so the cases that must hit memory.max (max, oom_events, the three
	# oom_group ones) or that press on memory.min/low never allocate.
	local cflags=(-O0 -g -Wall -pthread -I"$build/kernel/src-patched/tools/testing/selftests")
	[ -f "$src/cgroup_util.c" ] ||
		die "$src missing: prepare the patched tree first (make kernel KERNEL=patched)"
	mkdir -p "$out" || exit 1
	# Most of these tests do not call ksft_print_header(), which makes
	# stdout line buffered: into a pipe their "ok N" lines would sit in a
	# full buffer, be printed again by every child that exit()s after a
	# fork, and be lost when a test is killed. Link in a constructor that
	# does what ksft_print_header() does.
	cat >"$out/linebuf.c.tmp" <<-'EOF'
	#include <stdio.h>
	__attribute__((constructor)) static void cgst_linebuf(void)
	{
		setvbuf(stdout, NULL, _IOLBF, 0);
	}
	EOF
	if cmp -s "$out/linebuf.c.tmp" "$out/linebuf.c"; then
		rm -f "$out/linebuf.c.tmp"
	else
		mv "$out/linebuf.c.tmp" "$out/linebuf.c" || exit 1
	fi
	for t in $TESTS; do
		[ -f "$src/$t.c" ] || die "$src/$t.c missing"
		if [ -x "$out/$t" ] && [ -z "$(find "$src/$t.c" "$src/cgroup_util.c" \
			"$src/cgroup_util.h" "$src/../kselftest.h" "$out/linebuf.c" "$0" -newer "$out/$t" 2>/dev/null)" ]; then
			continue
		fi
		say "build $t -> ${out#"$top"/}/"
		if ! gcc "${cflags[@]}" -static -o "$out/$t.tmp" \
			"$src/$t.c" "$src/cgroup_util.c" "$out/linebuf.c" >"$out/$t.log" 2>&1; then
			echo "WARNING: static link of $t failed (see $out/$t.log), linking dynamically" >&2
			gcc "${cflags[@]}" -o "$out/$t.tmp" "$src/$t.c" "$src/cgroup_util.c" "$out/linebuf.c" ||
				die "cannot build $t"
		fi
		grep -v 'statically linked applications requires at runtime' "$out/$t.log" |
			grep -v 'in function .\(getaddrinfo\|tcp_client\)' >&2
		mv "$out/$t.tmp" "$out/$t" || exit 1
	done
}

# --- inside the VM ----------------------------------------------------------

guest_setup() {
	local bb=busybox img=/tmp/cgst-ext4.img d
	root=/tmp/cgst
	chrooted=0
	# sock: lo must be up for "localhost".
	ip link set lo up 2>/dev/null || $bb ip link set lo up 2>/dev/null ||
		echo "cgst: warning: cannot bring lo up (test_memcg_sock will fail)"
	# The root the tests run in: ext4 on a loop device over a sparse tmpfs
	# file, with the host's /usr and /etc (read-only) and the guest's /proc,
	# /sys (cgroup2 included) and /dev bound in. ext4, not 9p or tmpfs: see
	# the header (page cache; test_kmem_basic's negative dentries of
	# "/something-non-existent-...", which 9p and tmpfs drop at once).
	mkdir -p "$root"
	if truncate -s 512M "$img" && mkfs.ext4 -q -F -N 16384 -O ^has_journal -E nodiscard,lazy_itable_init=0 "$img" &&
	   { mount -o loop "$img" "$root" 2>/dev/null || $bb mount -o loop "$img" "$root"; }; then
		for d in proc sys dev usr etc work tmp "${bin#/}"; do
			mkdir -p "$root/$d" || return 1
		done
		for d in bin sbin lib lib64; do
			if [ -L "/$d" ]; then
				ln -s "$(readlink "/$d")" "$root/$d"
			elif [ -d "/$d" ]; then
				mkdir -p "$root/$d" && mount --rbind "/$d" "$root/$d" &&
					mount -o remount,bind,ro "$root/$d"
			fi
		done
		chmod 1777 "$root/work" "$root/tmp"
		if mount -t proc proc "$root/proc" && mount --rbind /sys "$root/sys" &&
		   mount --rbind /dev "$root/dev" &&
		   mount --bind /usr "$root/usr" && mount -o remount,bind,ro "$root/usr" &&
		   mount --bind /etc "$root/etc" && mount -o remount,bind,ro "$root/etc" &&
		   mount --bind "$bin" "$root$bin"; then
			chrooted=1
			echo "cgst: running in a chroot at $root: ext4 on a loop device, cwd /work"
		else
			echo "cgst: warning: cannot set up the chroot at $root"
		fi
	else
		echo "cgst: warning: no ext4 scratch file system (CONFIG_BLK_DEV_LOOP, CONFIG_EXT4_FS?):" \
			"running in /tmp (tmpfs): test_memcontrol's page cache cases and test_kmem_basic will fail"
	fi
	# Swap: zram if the kernel has it.
	swap=none
	if [ ! -e /sys/block/zram0 ] && [ -r /sys/class/zram-control/hot_add ]; then
		cat /sys/class/zram-control/hot_add >/dev/null
	fi
	if [ -e /sys/block/zram0/disksize ]; then
		if echo 256M >/sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null &&
		   swapon /dev/zram0; then
			swap="zram0 256M ($(tr -d '\n' </sys/block/zram0/comp_algorithm 2>/dev/null))"
		else
			echo "cgst: warning: zram present but swapon on it failed"
		fi
	else
		echo "cgst: no swap: the kernel has no zram (CONFIG_ZRAM);" \
			"test_memcg_swap_max_peak will skip, test_memcg_reclaim reclaims file only"
	fi
	echo "cgst: swap: $swap"
	echo "cgst: memory: $(grep -E '^(MemTotal|MemFree|SwapTotal)' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
}

# run_one TEST: run it (in the chroot if there is one), bounded.
run_one() {
	if [ "$chrooted" = 1 ]; then
		chroot "$root" /usr/bin/timeout -k 5 "$per" /usr/bin/env -C /work "$bin/$1"
	else
		(cd /tmp && timeout -k 5 "$per" "$bin/$1")
	fi
}

# parse_tap TEST FILE: kselftest TAP ("ok N name", "not ok N name",
# "ok N # SKIP name", "1..0 # SKIP reason" for the whole test) -> one
# "CGST-CASE: TEST CASE STATUS" line a case.
parse_tap() {
	awk -v t="$1" '
		/^ok [0-9]+ # (SKIP|XFAIL) / { print "CGST-CASE: " t " " $5 " SKIP"; n++; next }
		/^ok [0-9]+ / { print "CGST-CASE: " t " " $3 " PASS"; n++; next }
		/^not ok [0-9]+ / { print "CGST-CASE: " t " " $4 " FAIL"; n++; next }
		/^1\.\.0 # SKIP/ { print "CGST-CASE: " t " - SKIP"; n++; next }
		END { if (!n) print "CGST-CASE: " t " - NORESULT" }
	' "$2"
}

guest() {
	local t rc out res fails c n summary=/tmp/cgst-summary failed=0
	bin=${TIERD_VM_BUILD:?not inside run-vm}/kernel/cgroup-selftests
	per=${CGST_TEST_TIMEOUT:-900}
	[ $# -gt 0 ] && TESTS=$*
	guest_setup
	: >"$summary"
	for t in $TESTS; do
		if [ ! -x "$bin/$t" ]; then
			echo "CGST-CASE: $t - NOTBUILT" >>"$summary"
			failed=1
			continue
		fi
		echo "cgst: === $t (at $(cut -d' ' -f1 /proc/uptime)s)"
		out=/tmp/cgst-$t.out res=/tmp/cgst-$t.res
		run_one "$t" 2>&1 | tee "$out"
		rc=$?
		echo "cgst: === $t exit $rc (at $(cut -d' ' -f1 /proc/uptime)s)"
		parse_tap "$t" "$out" >"$res"
		case $rc in
		124|137) echo "CGST-CASE: $t - TIMEOUT" >>"$res" ;;
		esac
		# A failure of a known-flaky case only (CGST_FLAKY): run the test
		# again, up to 4 more times; a case that then passes is FLAKY (a
		# pass that needed retries), one that never passes stays FAIL.
		fails=$(awk '$4 == "FAIL" { print $2 " " $3 }' "$res")
		while [ -n "$fails" ] && ! grep -q ' \(NORESULT\|TIMEOUT\)$' "$res"; do
			while read -r c; do
				in_list "$c" "$CGST_FLAKY" || break 2
			done <<<"$fails"
			for n in 2 3 4 5; do
				echo "cgst: === $t again (attempt $n) for the flaky $(echo "$fails" | cut -d' ' -f2 | tr '\n' ' ')"
				run_one "$t" >"$out.$n" 2>&1
				# (No <(...) here: the guest has no /dev/fd.)
				parse_tap "$t" "$out.$n" >"$res.$n"
				while read -r c; do
					if grep -q "^CGST-CASE: $c PASS$" "$res.$n"; then
						sed -i "s/^CGST-CASE: $c FAIL$/CGST-CASE: $c FLAKY/" "$res"
						echo "cgst: $c passed at attempt $n"
					fi
				done <<<"$fails"
				fails=$(awk '$4 == "FAIL" { print $2 " " $3 }' "$res")
				[ -z "$fails" ] && break
			done
			break
		done
		cat "$res" >>"$summary"
		grep -q ' \(FAIL\|NORESULT\|TIMEOUT\)$' "$res" && failed=1
	done
	swapoff -a 2>/dev/null
	# The summary last, when the tests are over and the console is quiet.
	sleep 1
	echo "cgst: summary"
	cat "$summary"
	return $failed
}

# --- on the host ------------------------------------------------------------

run_kernel() {
	# run_kernel NAME BZIMAGE: run the guest mode in the VM, write results-NAME.txt.
	local name=$1$SUFFIX kernel=$2 out=$BUILD/kernel/cgroup-selftests rc log
	log=$out/vm-$name.log
	say "VM on $name kernel ($kernel${LRU_GEN:+, MGLRU $LRU_GEN}), log in ${log#"$top"/}"
	# $TESTS split on purpose: one argument a test.
	# shellcheck disable=SC2086
	nice -n 10 env BUILD="$BUILD" "$top/tests/vm/run-vm" -q --timeout "${CGST_TIMEOUT:-3000}" \
		${LRU_GEN:+--lru-gen "$LRU_GEN"} --kernel "$kernel" --log "$log" \
		"$top/tests/kernel/cgroup-selftests.sh" guest $TESTS >"$out/run-vm-$name.out"
	rc=$?
	cat "$out/run-vm-$name.out"
	grep -a '^CGST-CASE: ' "$log" | sed 's/^CGST-CASE: //' | sort -u >"$out/results-$name.txt"
	{
		echo "# $name kernel: $kernel"
		echo "# run-vm exit $rc, $(date -u +%FT%TZ)"
		grep -a '^cgst: \(swap\|memory\|working\)' "$log" | sed 's/^/# /'
	} >"$out/results-$name.hdr"
	say "$name: $(awk '{c[$3]++} END {for (k in c) printf "%s %d  ", k, c[k]}' "$out/results-$name.txt")(run-vm exit $rc)"
	[ -s "$out/results-$name.txt" ] || { echo "no results from the $name kernel (run-vm exit $rc)"; return 1; }
	case $rc in
	124|125|126)
		echo "the run on the $name kernel failed: run-vm exit $rc (124 timeout, 125 no" \
			"result, 126 the kernel reported a problem: the lines are above)"
		return 1 ;;
	esac
	return 0
}

# CGST_FLAKY: cases with a timing race in the test itself, in base 6.12
# code the series does not touch (kernel/signal.c, kernel/cgroup/freezer.c,
# kernel/ptrace.c). When only such cases fail, the guest runs the test up
# to 4 more times; a case that passes on a retry is FLAKY, which counts as
# a pass; one that never passes stays a FAIL but does not fail the check
# (the race widens with the host's load: at a load of 5 on 2 cores the
# ptrace case failed 5 attempts in a row once). CGST_FLAKY= (empty) makes
# them count.
#  - test_freezer test_cgfreezer_ptrace reads cgroup.events right after
#    PTRACE_DETACH: the tracee leaves the frozen count when it wakes from
#    ptrace_stop() and rejoins it a moment later in do_freezer_trap(), so
#    "frozen 0" is seen in that window (6 runs in 15 under TCG; polling
#    for 1 ms more always saw "frozen 1").
#  - test_freezer test_cgfreezer_migrate moves a task into a frozen cgroup
#    and reads cgroup.events 10 times back to back after the first event
#    (cg_wait_for() does not read the inotify event, so later waits return
#    at once): if the task has not reached do_freezer_trap() by then, the
#    case fails (1 run in 26).
#  - test_memcontrol test_memcg_reclaim and test_memcg_sock, since the test
#    kernels have MGLRU, DAMON and zram built in as Debian's config has
#    them (2026-12-04): reclaim fails without any kernel log line in 1 of 3
#    to 2 of 3 full runs on the patched kernel, with MGLRU on and off, and
#    in 1 of 4 runs of test_memcontrol alone on the stock 6.12.118 kernel
#    of the same config; sock failed once in those 4 stock runs. reclaim is
#    reclaim_until(): memory.reclaim returned 0 and memory.current was
#    still more than 3% above the goal (the files the test reclaims are
#    read back by then). Base code and a base test: a retry decides.
# CGST_KNOWN_FAIL: cases that cannot pass in this VM; without a stock
# baseline they do not fail the check, with one the comparison decides.
#  - test_kmem test_percpu_basic wants memory.current of 1000 empty memcgs
#    within 64 pages per CPU of their percpu charge, but each memcg also
#    charges ~4K of slab (the kernfs nodes of its files): 4M against 512K
#    with 2 vCPUs; it would need about 17.
CGST_FLAKY=${CGST_FLAKY-"test_freezer/test_cgfreezer_ptrace test_freezer/test_cgfreezer_migrate
test_memcontrol/test_memcg_reclaim test_memcontrol/test_memcg_sock"}
CGST_KNOWN_FAIL=${CGST_KNOWN_FAIL-"test_kmem/test_percpu_basic"}

in_list() {
	# in_list "TEST CASE" LIST
	local x
	for x in $2; do
		[ "${x%%/*} ${x#*/}" = "$1" ] && return 0
	done
	return 1
}

# compare: the verdict from results-patched.txt (and results-stock.txt when
# there is a stock kernel), and summary.txt.
compare() {
	BUILD=${BUILD:-$top/build}
	local out=$BUILD/kernel/cgroup-selftests stock=$BUILD/kernel/stock/bzImage
	local rc=0 c r k patched=results-patched$SUFFIX.txt stockres=results-stock$SUFFIX.txt
	[ -f "$out/$patched" ] || die "no $out/$patched"
	if [ -r "$stock" ] && [ -f "$out/$stockres" ]; then
		# Every case that passes on stock (PASS, or FLAKY: passed after
		# retries) must pass on patched.
		while read -r c; do
			r=$(awk -v c="$c" '$1 " " $2 == c { print $3 }' "$out/$patched")
			case $r in
			PASS|FLAKY) ;;
			FAIL) if in_list "$c" "$CGST_FLAKY"; then
					echo "NOT COUNTED: $c passes on stock, failed 5 attempts on patched (CGST_FLAKY)"
				else
					echo "REGRESSION: $c passes on stock, FAIL on patched"; rc=1
				fi ;;
			*) echo "REGRESSION: $c passes on stock, ${r:-no result} on patched"; rc=1 ;;
			esac
		done < <(awk '$3 == "PASS" || $3 == "FLAKY" { print $1 " " $2 }' "$out/$stockres")
	else
		echo "no stock kernel at $stock: no baseline, every case must pass or skip on patched"
		while IFS=$'\t' read -r c r; do
			if in_list "$c" "$CGST_KNOWN_FAIL"; then
				echo "KNOWN: $c $r (cannot pass in this VM, not counted)"
			elif [ "$r" = FAIL ] && in_list "$c" "$CGST_FLAKY"; then
				echo "NOT COUNTED: $c failed 5 attempts (CGST_FLAKY)"
			else
				echo "FAIL: $c $r"
				rc=1
			fi
		done < <(awk '$3 !~ /^(PASS|SKIP|FLAKY)$/ { print $1 " " $2 "\t" $3 }' "$out/$patched")
	fi
	grep ' FLAKY$' "$out/$patched" | sed 's/^/FLAKY (passed after retries): /'
	{
		for k in patched stock; do
			[ -f "$out/results-$k$SUFFIX.txt" ] || continue
			[ "$k" = stock ] && [ ! -r "$stock" ] && continue
			cat "$out/results-$k$SUFFIX.hdr" 2>/dev/null
			sed "s/^/$k$SUFFIX /" "$out/results-$k$SUFFIX.txt"
		done
	} >"$out/summary$SUFFIX.txt"
	say "summary in ${out#"$top"/}/summary$SUFFIX.txt"
	return $rc
}

check() {
	BUILD=${BUILD:-$top/build}
	local patched=${CGST_KERNEL:-$BUILD/kernel/patched/bzImage} stock=$BUILD/kernel/stock/bzImage rc=0
	local k
	[ -r "$patched" ] || die "no $patched (make kernel KERNEL=patched)"
	for k in patched stock; do
		rm -f "$BUILD/kernel/cgroup-selftests/results-$k$SUFFIX."{txt,hdr}
	done
	build || exit 1
	run_kernel patched "$patched" || rc=1
	if [ -r "$stock" ]; then
		run_kernel stock "$stock" || rc=1
	fi
	compare || rc=1
	return $rc
}

mode=${1:-}
[ $# -gt 0 ] && shift
case $mode in
build) build ;;
guest) guest "$@" ;;
check) check ;;
compare) compare ;;
*) sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 2 ;;
esac
