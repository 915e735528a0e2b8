#!/bin/bash
# kernel.sh: build the tierd test kernel from Debian's linux-source-6.12.
#
#   kernel.sh build [FLAVOUR]         bzImage -> $BUILD/kernel/<flavour>/bzImage
#   kernel.sh prepare [FLAVOUR]       unpack (and apply the series), no build
#   kernel.sh config [FLAVOUR]        prepare + .config only (checks the fragments)
#                                     FLAVOUR: stock, patched (default), debug,
#                                     nomemcg, nonumab, nonuma (see below)
#   kernel.sh kselftest               tools/testing/selftests/cgroup/{test_numa_balancing,test_toptier}
#                                     -> $BUILD/kernel/kselftest/ (static)
#   kernel.sh checkpatch              checkpatch.pl --strict on every patch in the series
#   kernel.sh build-each [FLAVOUR]    build every commit of the series in turn
#   kernel.sh export                  src-patched commits -> kernel-patches/ (format-patch)
#
# Layout under $BUILD/kernel (untracked):
#   src-stock/     the tarball, untouched
#   src-patched/   a git repo: the pristine tree (tag "base") + one commit per patch
#   obj-<flavour>  -> src-<flavour>/.obj (the object tree; see below)
#   obj-debug      -> src-patched/.obj-debug: the patched tree with the debug
#                     fragment (tierd-debug.config: lockdep, KASAN, DEBUG_VM, ...)
#   obj-nomemcg, obj-nonumab, obj-nonuma -> src-patched/.obj-<flavour>: the
#                     patched tree with CONFIG_MEMCG=n (tierd-nomemcg.config),
#                     CONFIG_NUMA_BALANCING=n (tierd-nonumab.config) or
#                     CONFIG_NUMA=n with MEMCG=y (tierd-nonuma.config), for
#                     build-each: every patch must build in those configs too
#   <flavour>/bzImage, <flavour>/config
#
# The object tree is a subdirectory of its source tree, reached through the
# obj-<flavour> symlink: Kbuild then uses srctree=".." and every compiler
# command line is the same for both trees, so ccache shares the hits between
# the stock and the patched build.
#
# Environment: BUILD (default <repo>/build), JOBS (2), CCACHE_DIR,
# KERNEL_TARBALL, KERNEL_KEEP_TREE=1 (build src-patched as it is, for
# development), KERNEL_FORCE=1 (rebuild / re-apply even if up to date), V=1.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
KDIR=$BUILD/kernel
PDIR=$TOP/kernel-patches
# The kselftests the series adds, built statically for the VM.
KSELFTESTS="test_numa_balancing test_toptier"
TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
PKG=linux-source-6.12
JOBS=${JOBS:-2}
FRAGMENT=$PDIR/tierd.config

# The source tree a flavour builds from, and its config fragments.
src_of() { case $1 in stock) echo "$KDIR/src-stock" ;; *) echo "$KDIR/src-patched" ;; esac; }
fragments_of() {
	case $1 in
	stock | patched) echo "$FRAGMENT" ;;
	*) echo "$FRAGMENT $PDIR/tierd-$1.config" ;;
	esac
}

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_BASEDIR=$KDIR
export CCACHE_NOHASHDIR=1
export KBUILD_BUILD_USER=tierd KBUILD_BUILD_HOST=tierd
# Do not let the top-level make's flags (-k, -j, jobserver) leak into Kbuild.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS

say() { printf '  KERNEL  %s\n' "$*"; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die() { printf 'kernel.sh: error: %s\n' "$*" >&2; exit 1; }

hash_of() { cat "$@" | sha256sum | cut -c1-16; }

installed_version() {
	dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null || echo unknown
}

check_base_version() {
	local want have
	want=$(sed -n '1p' "$PDIR/BASE" 2>/dev/null || true)
	have=$(installed_version)
	if [ -n "$want" ] && [ "$have" != "$want" ]; then
		warn "installed $PKG is $have, the series was made on $want:" \
			"patches may not apply or may behave differently"
	fi
}

# Patch files of the series, in order (comments and blank lines ignored).
series_files() {
	[ -f "$PDIR/series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$PDIR/series" | grep -v '^$' || true
}

series_hash() {
	local f files=("$PDIR/series")
	for f in $(series_files); do
		[ -f "$PDIR/$f" ] || die "series lists $f, which is not in kernel-patches/"
		files+=("$PDIR/$f")
	done
	[ -f "$PDIR/series" ] || { echo none; return; }
	hash_of "${files[@]}"
}

unpack_stamp() { echo "$(installed_version) $(stat -c '%s %Y' "$TARBALL")"; }

# unpacked DIR: true if DIR holds the installed tarball, extracted.
unpacked() {
	[ -f "$1/.tierd-unpacked" ] && [ "$(cat "$1/.tierd-unpacked")" = "$(unpack_stamp)" ]
}

# unpack DIR: extract the tarball into DIR (replacing it) and stamp it.
unpack() {
	local dir=$1 stamp
	[ -r "$TARBALL" ] || die "$TARBALL not found: install $PKG (make deps)"
	stamp=$(unpack_stamp)
	unpacked "$dir" && return 0
	say "unpack $(basename "$TARBALL") -> ${dir#"$TOP"/}"
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp"
	tar -xf "$TARBALL" --strip-components=1 -C "$dir.tmp"
	echo "$stamp" >"$dir.tmp/.tierd-unpacked"
	mv "$dir.tmp" "$dir"
}

git_p() { git -C "$KDIR/src-patched" "$@"; }

# series_applied: true if src-patched's branch is the series as it is in
# kernel-patches/ (and not KERNEL_FORCE), so prepare_patched has nothing to do.
series_applied() {
	local src=$KDIR/src-patched
	[ -z "${KERNEL_FORCE:-}" ] && [ -f "$src/.tierd-series" ] &&
		[ "$(series_hash)" = "$(sed -n 1p "$src/.tierd-series")" ] &&
		[ "$(git_p rev-parse HEAD 2>/dev/null)" = "$(sed -n 2p "$src/.tierd-series")" ]
}

# tree_current FLAVOUR: true if prepare would leave the source trees as they
# are (only then may a build run beside another flavour's build).
tree_current() {
	unpacked "$KDIR/src-stock" || return 1
	[ "$1" = stock ] && return 0
	unpacked "$KDIR/src-patched" || return 1
	[ -n "${KERNEL_KEEP_TREE:-}" ] || series_applied
}

# The patched tree: a git repo with the pristine source as tag "base" and the
# series applied with git am on branch "tierd". Re-applied when the series
# changes; refuses to throw away commits that were not exported.
prepare_patched() {
	local src=$KDIR/src-patched want head name email p
	unpack "$KDIR/src-stock"
	name=$(git -C "$TOP" config user.name || echo tierd)
	email=$(git -C "$TOP" config user.email || echo tierd@localhost)
	if [ ! -f "$src/.tierd-unpacked" ] ||
	   [ "$(cat "$src/.tierd-unpacked")" != "$(cat "$KDIR/src-stock/.tierd-unpacked")" ]; then
		unpack "$src"
		say "git init ${src#"$TOP"/} (pristine tree = tag base)"
		git_p init -q -b tierd
		git_p config user.name "$name"
		git_p config user.email "$email"
		git_p config core.autocrlf false
		git_p config gc.auto 0
		printf '/.obj/\n/.tierd-*\n' >>"$src/.git/info/exclude"
		git_p add -A -f .
		git_p commit -q -m "Debian $PKG $(installed_version)"
		git_p tag base
		rm -f "$src/.tierd-series"
	fi
	[ -n "${KERNEL_KEEP_TREE:-}" ] && { say "patched tree kept as is (KERNEL_KEEP_TREE)"; return 0; }
	series_applied && return 0
	head=$(git_p rev-parse HEAD)
	want=$(series_hash)
	if [ -z "${KERNEL_FORCE:-}" ]; then
		if [ -n "$(git_p status --porcelain --untracked-files=no)" ]; then
			die "src-patched has uncommitted changes; commit and 'kernel.sh export' them, or KERNEL_FORCE=1 to discard"
		fi
		if [ -f "$src/.tierd-series" ] && [ "$head" != "$(sed -n 2p "$src/.tierd-series")" ]; then
			die "src-patched has commits that are not in kernel-patches/; 'kernel.sh export' them, or KERNEL_FORCE=1 to discard"
		fi
	fi
	say "apply kernel-patches/series ($(series_files | wc -l) patches)"
	git_p am --abort >/dev/null 2>&1 || true
	git_p checkout -q -f -B tierd base
	git_p clean -fdq
	for p in $(series_files); do
		say "  git am $p"
		git_p am -q --whitespace=nowarn "$PDIR/$p" ||
			die "$p does not apply (see 'git -C ${src#"$TOP"/} am --show-current-patch')"
	done
	printf '%s\n%s\n' "$want" "$(git_p rev-parse HEAD)" >"$src/.tierd-series"
}

prepare() {
	check_base_version
	case $1 in
	stock) unpack "$KDIR/src-stock" ;;
	patched) prepare_patched ;;
	debug | nomemcg | nonumab | nonuma) prepare_patched ;;
	*) die "unknown kernel flavour '$1' (stock, patched, debug, nomemcg, nonumab or nonuma)" ;;
	esac
	if [ "$1" != stock ] && [ "$1" != patched ]; then
		grep -qx "/.obj-$1/" "$KDIR/src-patched/.git/info/exclude" ||
			echo "/.obj-$1/" >>"$KDIR/src-patched/.git/info/exclude"
		mkdir -p "$KDIR/src-patched/.obj-$1"
		ln -sfn "src-patched/.obj-$1" "$KDIR/obj-$1"
	else
		mkdir -p "$KDIR/src-$1/.obj"
		ln -sfn "src-$1/.obj" "$KDIR/obj-$1"
	fi
}

kmake() {
	local flavour=$1
	shift
	local lv=""
	[ "$flavour" = patched ] && lv=-tierd
	case $flavour in stock | patched) ;; *) lv=-tierd-$flavour ;; esac
	make -C "$(src_of "$flavour")" O="$KDIR/obj-$flavour" CC="ccache gcc" \
		LOCALVERSION="$lv" ${V:+V=$V} "$@"
}

# configure FLAVOUR: tinyconfig + the fragments, then check every option stuck.
configure() {
	local flavour=$1 obj=$KDIR/obj-$1 stamp bad=() line sym frags
	frags=$(fragments_of "$flavour")
	# shellcheck disable=SC2086
	stamp=$(hash_of $frags)
	if [ -f "$obj/.config" ] && [ "$(cat "$obj/.tierd-config" 2>/dev/null)" = "$stamp" ]; then
		return 0
	fi
	say "[$flavour] config: tinyconfig + $(for f in $frags; do printf '%s ' "${f#"$TOP"/}"; done)"
	kmake "$flavour" -s tinyconfig
	# shellcheck disable=SC2086
	(cd "$(src_of "$flavour")" &&
		scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" $frags >/dev/null)
	kmake "$flavour" -s olddefconfig
	# The last fragment that names an option decides what it must be: the
	# debug and variant fragments turn options of tierd.config off.
	declare -A want=()
	local order=()
	while read -r line; do
		case $line in
		CONFIG_*=*) sym=${line%%=*} ;;
		"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *} ;;
		*) continue ;;
		esac
		[ -n "${want[$sym]+x}" ] || order+=("$sym")
		want[$sym]=$line
	done < <(cat $frags)
	for sym in "${order[@]}"; do
		line=${want[$sym]}
		case $line in
		CONFIG_*=*)
			grep -qx "$line" "$obj/.config" || bad+=("$line (got: $(grep -E "^(# )?${sym}[= ]" "$obj/.config" || echo absent))")
			;;
		*)
			grep -qx "$sym=y" "$obj/.config" && bad+=("$sym should be off")
			;;
		esac
	done
	if [ ${#bad[@]} -gt 0 ]; then
		printf 'kernel.sh: error: options from tierd.config that did not stick in %s:\n' "$obj/.config" >&2
		printf '  %s\n' "${bad[@]}" >&2
		rm -f "$obj/.tierd-config"
		exit 1
	fi
	echo "$stamp" >"$obj/.tierd-config"
}

build() {
	local flavour=${1:-patched} obj out stamp start n
	obj=$KDIR/obj-$flavour
	out=$KDIR/$flavour
	prepare "$flavour"
	configure "$flavour"
	# shellcheck disable=SC2046
	if [ "$flavour" = stock ]; then
		stamp="$(cat "$KDIR/src-stock/.tierd-unpacked") $(hash_of $(fragments_of "$flavour"))"
	else
		stamp="$(git_p rev-parse HEAD) $(hash_of $(fragments_of "$flavour"))"
	fi
	if [ -z "${KERNEL_FORCE:-}" ] && [ -z "${KERNEL_KEEP_TREE:-}" ] &&
	   [ -f "$out/bzImage" ] && [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then
		say "[$flavour] ${out#"$TOP"/}/bzImage is up to date"
		return 0
	fi
	say "[$flavour] build bzImage (make -j$JOBS, ccache in $CCACHE_DIR)"
	start=$(date +%s)
	# Number the Kbuild lines so progress is visible in logs.
	kmake "$flavour" -j"$JOBS" bzImage 2>&1 |
		awk -v f="$flavour" '{ printf "[%s %5d] %s\n", f, NR, $0; fflush() }'
	mkdir -p "$out"
	cp "$obj/arch/x86/boot/bzImage" "$out/bzImage.tmp"
	mv "$out/bzImage.tmp" "$out/bzImage"
	cp "$obj/.config" "$out/config"
	kmake "$flavour" -s kernelrelease >"$out/release"
	echo "$stamp" >"$out/.stamp"
	n=$(( $(date +%s) - start ))
	echo "$n" >"$out/.build-seconds"
	say "[$flavour] ${out#"$TOP"/}/bzImage ($(cat "$out/release")) built in ${n}s"
}

kselftest() {
	local src=$KDIR/src-patched/tools/testing/selftests/cgroup out=$KDIR/kselftest t
	local cflags=(-O2 -Wall -pthread -I"$KDIR/src-patched/tools/testing/selftests")
	prepare patched
	mkdir -p "$out"
	for t in $KSELFTESTS; do
		[ -f "$src/$t.c" ] || die "$src/$t.c missing: is the series applied?"
		say "kselftest $t -> ${out#"$TOP"/}/"
		if ! gcc "${cflags[@]}" -static -o "$out/$t.tmp" \
			"$src/$t.c" "$src/cgroup_util.c" 2>"$out/$t.log"; then
			warn "static link of $t failed (see $out/$t.log), linking dynamically"
			gcc "${cflags[@]}" -o "$out/$t.tmp" "$src/$t.c" "$src/cgroup_util.c"
		fi
		cat "$out/$t.log" >&2
		mv "$out/$t.tmp" "$out/$t"
	done
}

checkpatch() {
	local p rc=0 out summary
	unpack "$KDIR/src-stock"
	[ -n "$(series_files)" ] || die "kernel-patches/series lists no patches"
	# The tree has no upstream history, so checkpatch cannot look up the
	# commits that Fixes: tags name (UNKNOWN_COMMIT_ID); they were checked
	# against upstream's log by hand.
	for p in $(series_files); do
		out=$(cd "$KDIR/src-stock" && scripts/checkpatch.pl --strict --color=never \
			--ignore UNKNOWN_COMMIT_ID --no-summary-file "$PDIR/$p" 2>&1) || true
		summary=$(printf '%s\n' "$out" | grep '^total:' || echo "total: (checkpatch failed)")
		if ! printf '%s\n' "$summary" | grep -q '^total: 0 errors, 0 warnings, 0 checks'; then
			printf '  FAIL    %s: %s\n' "$p" "$summary"
			printf '%s\n' "$out" | grep -v '^total:' | sed 's/^/        /'
			rc=1
		elif ! grep -q '^Signed-off-by: ' "$PDIR/$p"; then
			printf '  FAIL    %s: no Signed-off-by\n' "$p"
			rc=1
		else
			printf '  OK      %s: %s\n' "$p" "$summary"
		fi
	done
	return $rc
}

# Build every commit of the series in turn, incrementally, in a worktree of
# src-patched (src-each; objects in src-each/.obj-each-FLAVOUR), so that a
# build of src-patched can run meanwhile. Fail on the first commit that
# does not build or that adds a compiler warning. The log of each step is
# in $KDIR/build-each/.
#
# KERNEL_BUILD_EACH_SCOPE=dirs builds, for each commit, only the
# directories that hold a .c file the series changes (mm/, kernel/sched/,
# kernel/cgroup/), not the bzImage (`kernel.sh build FLAVOUR` links the
# tip). The series changes mm.h, mm_types.h, memcontrol.h,
# vm_event_item.h, cgroup-defs.h and swap.h, so a full build of each
# commit is about 8 near-full rebuilds per config: hours per flavour on 2
# cores. The directories hold every caller of what the series changes.
# The default scope is the full bzImage. KERNEL_BUILD_EACH_FROM=N starts
# at the Nth commit (after a change to the later patches only),
# KERNEL_BUILD_EACH_TO=N stops after the Nth.
build_each() {
	local flavour=${1:-patched} c n=0 total rc=0 log start scope dirs targets from to commits
	local src=$KDIR/src-each obj
	scope=${KERNEL_BUILD_EACH_SCOPE:-full}
	from=${KERNEL_BUILD_EACH_FROM:-1}
	to=${KERNEL_BUILD_EACH_TO:-0}
	prepare "$flavour"
	configure "$flavour"
	# A worktree of src-patched of its own, so that checking out each
	# commit never disturbs a build of src-patched running meanwhile.
	if [ ! -d "$src" ]; then
		say "git worktree ${src#"$TOP"/} (for build-each)"
		git_p worktree add -q --detach "$src" tierd
	fi
	grep -qxF '/.obj-each-*/' "$KDIR/src-patched/.git/info/exclude" ||
		echo '/.obj-each-*/' >>"$KDIR/src-patched/.git/info/exclude"
	obj=$src/.obj-each-$flavour
	mkdir -p "$obj"
	cmp -s "$KDIR/obj-$flavour/.config" "$obj/.config" ||
		cp "$KDIR/obj-$flavour/.config" "$obj/.config"
	total=$(git_p rev-list --count base..tierd)
	dirs=$(git_p diff --name-only base..tierd -- '*.c' | grep -v '^tools/' |
		xargs -r -n1 dirname | sort -u | sed 's|$|/|' | tr '\n' ' ')
	mkdir -p "$KDIR/build-each"
	[ "$scope" = dirs ] && say "[$flavour] scope: $dirs at each commit"
	commits=$(git_p rev-list --reverse base..tierd)
	# The loop below touches only src-each and its object trees: hand the
	# tree and object locks (taken at the bottom of this script) to a lock
	# of build-each's own, so that `kernel.sh build` (make check's VM cases)
	# need not wait an hour for a build-each running meanwhile. (src-each
	# shares src-patched's objects; gc.auto is 0, so a re-applied series
	# leaves the commits listed above in place.)
	exec 8>"$KDIR/.lock-each"
	take_lock 8 x "another build-each to finish ($KDIR/.lock-each)"
	flock -u 7
	flock -u 9
	for c in $commits; do
		n=$((n + 1))
		[ "$n" -ge "$from" ] || continue
		[ "$to" -gt 0 ] && [ "$n" -gt "$to" ] && break
		log=$KDIR/build-each/$flavour-$(printf '%02d' "$n").log
		say "[$flavour $n/$total] $(git_p log -1 --format='%h %s' "$c")"
		git -C "$src" checkout -q --detach "$c"
		targets=bzImage
		[ "$scope" = dirs ] && targets=$dirs
		start=$(date +%s)
		# shellcheck disable=SC2086
		if ! make -C "$src" O="$obj" CC="ccache gcc" LOCALVERSION=-tierd-each \
			-j"$JOBS" $targets >"$log" 2>&1; then
			tail -n 30 "$log" >&2
			say "[$flavour $n/$total] FAILED to build (log: ${log#"$TOP"/})"
			rc=1
			break
		fi
		if grep -q 'warning:' "$log"; then
			grep -B2 -A6 'warning:' "$log" >&2
			say "[$flavour $n/$total] builds, but with compiler warnings (log: ${log#"$TOP"/})"
			rc=1
			break
		fi
		say "[$flavour $n/$total] builds: $targets ($(($(date +%s) - start))s, $(grep -c '^  CC ' "$log") objects recompiled)"
	done
	return $rc
}

# src-patched commits (base..HEAD) -> kernel-patches/*.patch + series. The
# cover letter keeps the subject and text of the current 0000 patch.
export_series() {
	local src=$KDIR/src-patched tmp
	[ -d "$src/.git" ] || die "no $src git repo"
	tmp=$(mktemp -d)
	git_p format-patch -q --cover-letter --no-signature --zero-commit -o "$tmp" base..HEAD
	if [ -f "$PDIR/0000-cover-letter.patch" ]; then
		python3 - "$PDIR/0000-cover-letter.patch" "$tmp/0000-cover-letter.patch" <<'EOF'
import re, sys
old = open(sys.argv[1]).read()
new = open(sys.argv[2]).read()
subj = re.search(r'^Subject: \[PATCH[^\]]*\] (.*(?:\n [^\n]*)*)', old, re.M).group(1)
hdr_end = old.index('\n\n') + 2
m = re.search(r'^\S.* \(\d+\):$', old[hdr_end:], re.M)
blurb = old[hdr_end:hdr_end + m.start()] if m else old[hdr_end:]
new = new.replace('*** SUBJECT HERE ***', subj, 1)
new = new.replace('*** BLURB HERE ***\n', blurb.rstrip('\n') + '\n', 1)
open(sys.argv[2], 'w').write(new)
EOF
	fi
	# Replace only this series' files: other series (series-*) may keep
	# their patches in the same directory.
	local f
	for f in $(series_files); do
		rm -f "$PDIR/$f"
	done
	rm -f "$PDIR/0000-cover-letter.patch"
	(cd "$tmp" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-') >"$tmp/series"
	mv "$tmp"/*.patch "$tmp/series" "$PDIR/"
	rmdir "$tmp"
	printf '%s\n%s\n' "$(series_hash)" "$(git_p rev-parse HEAD)" >"$src/.tierd-series"
	say "exported $(series_files | wc -l) patches + cover letter to kernel-patches/"
}

cmd=${1:-build}
shift || true

# Locks (flock(1) from util-linux), so that kernel.sh runs side by side:
#  - $KDIR/.lock, the source trees: shared while a run reads them (a build
#    compiles from them), exclusive only while prepare changes them (unpack,
#    re-applying the series) or export records the series;
#  - $KDIR/.lock-obj-FLAVOUR, one flavour's object tree and output directory:
#    two builds in one object tree would corrupt it.
# So make check's patched VM cases (an up-to-date patched kernel) do not wait
# for the debug kernel building meanwhile, and a series change waits for
# every build of the old one to end before it re-applies.
mkdir -p "$KDIR"
exec 9>"$KDIR/.lock"

# take_lock FD MODE WHAT: flock -MODE on FD, saying so if it has to wait.
take_lock() {
	if ! flock -n "-$2" "$1"; then
		say "waiting for $3"
		flock "-$2" "$1"
	fi
}

# lock_tree FLAVOUR: the tree lock, shared; prepared under the exclusive one
# first if the trees must change for FLAVOUR.
lock_tree() {
	take_lock 9 s "another kernel.sh run to finish changing the source trees ($KDIR/.lock)"
	tree_current "$1" && return 0
	flock -u 9
	take_lock 9 x "the kernel builds running to finish before the source trees change ($KDIR/.lock)"
	# The flavour's own object bits (prepare's tail) come under its lock.
	case $1 in stock) unpack "$KDIR/src-stock" ;; *) check_base_version; prepare_patched ;; esac
	# flock(2) converts by unlocking and relocking: another run may change
	# the trees in between, to the same kernel-patches/ (one checkout).
	flock -s 9
}

# lock_obj FLAVOUR: FLAVOUR's object tree and output directory.
lock_obj() {
	exec 7>"$KDIR/.lock-obj-$1"
	take_lock 7 x "another kernel.sh run on the $1 object tree ($KDIR/.lock-obj-$1)"
}

case $cmd in
build | prepare | config | build-each)
	flavour=${1:-patched}
	case $flavour in
	stock | patched | debug | nomemcg | nonumab | nonuma) ;;
	*) die "unknown kernel flavour '$flavour' (stock, patched, debug, nomemcg, nonumab or nonuma)" ;;
	esac
	lock_tree "$flavour"
	lock_obj "$flavour"
	case $cmd in
	build) build "$flavour" ;;
	prepare) prepare "$flavour" ;;
	config) prepare "$flavour" && configure "$flavour" ;;
	build-each) build_each "$flavour" ;;
	esac ;;
kselftest) lock_tree patched; lock_obj kselftest; kselftest ;;
checkpatch) lock_tree stock; checkpatch ;;
export) take_lock 9 x "the kernel builds running to finish ($KDIR/.lock)"; export_series ;;
*) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
