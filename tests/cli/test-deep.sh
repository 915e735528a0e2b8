#!/bin/sh
# A cgroup chain deeper than libtier's walk limit (256 levels) and one whose
# path is longer than PATH_MAX, beside the usual tree: status, apply and
# explain still see every other cgroup, and the skipped subtree costs one
# warning on stderr, not the whole host.
. "$SRCDIR/tests/cli/lib.sh"

mk_standard_tree
C="--config $T/tierd.conf"

# 300 levels below an unmanaged slice (plain directories, like a hostile
# delegate's mkdir -p).
deep=/deep.slice
i=0
while [ $i -lt 300 ]; do deep=$deep/d; i=$((i + 1)); done
mkdir -p "$CG$deep"

# 20 levels of 250-byte names below /batch.slice (managed by batch.slice/**):
# a path of 5032 bytes. Built by cd, as no path to it fits in PATH_MAX.
n=$(printf '%0250d' 0 | tr 0 n)
(
	cd "$CG/batch.slice" || exit 1
	i=0
	while [ $i -lt 20 ]; do
		mkdir "$n" && cd -P "$n" || exit 1
		CG=. mk_cg "" off 8192 0
		i=$((i + 1))
	done
) || fail "cannot build the long chain"
long=/batch.slice
i=0
while [ $i -lt 20 ]; do long=$long/$n; i=$((i + 1)); done

one_warning() {
	expect_err "^tierctl: libtier: /deep.slice(/d)+: deeper than 256 levels, skipping this subtree\$"
	[ "$(wc -l <"$T/err")" = 1 ] || { cat "$T/err" >&2; fail "$1: expected one line on stderr"; }
}

# (--wide: the long path whole, not cut to the column cap)
tc $C status --wide
expect_rc 0
one_warning status
expect_out "^/system.slice/postgresql@15-main.service +latency +inherit +full +3.0G +1.0G +- +4.0G +75%\$"
expect_out "^/system.slice/mariadb.service +latency "
expect_out "^/system.slice/memcached.service +pinned "
expect_out "^/batch.slice/job1 +batch "
expect_out "^/batch.slice/job1/step +batch "
grep -Fq "$long  batch    off" "$T/out" || fail "status lacks the long cgroup"
# header + 5 + 20 levels of the long chain
[ "$(wc -l <"$T/out")" = 26 ] || { cat "$T/out" >&2; fail "expected 25 rows"; }

tc --json $C status
expect_rc 0
one_warning "status --json"
json_ok "$T/out"

tc $C apply --dry-run
expect_rc 0
one_warning "apply --dry-run"
expect_out "^/batch.slice/job1: memory.numa_balancing inherit -> off"
expect_out "^dry run: [0-9]+ cgroups, 25 managed, 4 would change, 21 unchanged, 0 failed\$"

# The long path as an argument.
tc $C explain "$long"
expect_rc 0
expect_out "^rule: +batch "
expect_out "^configured mode: +off\$"
tc set "$long" promote
expect_rc 0
tc get "$long"
expect_rc 0
grep -Fq "$long: configured promote, effective off (set by /batch.slice/$n)" "$T/out" ||
	{ cat "$T/out" >&2; fail "get of the long path"; }
exit 0
