#!/bin/sh
# First contact: no policy yet (status says what is missing and what to do;
# status --all lists cgroups without one), get --json on a kernel without
# the knob, short options, "did you mean", and a status table whose columns
# are capped (--wide and --json show everything).
. "$SRCDIR/tests/cli/lib.sh"

mk_standard_tree
C="--config $T/tierd.conf"

# 1. No policy file: a hint, no table promised or printed.
tc --config "$T/none.conf" status
expect_rc 5
expect_err "no policy at $T/none.conf, so nothing is managed: write one \(tierd.conf\(5\)"
expect_err "'tierctl status --all' lists every cgroup without one"
expect_no_out "."

# 2. status --all needs no policy: every cgroup, none managed.
tc --config "$T/none.conf" status --all
expect_rc 0
expect_err "no policy at $T/none.conf: every cgroup is unmanaged"
expect_out "^CGROUP +CLASS +CONFIGURED "
expect_out "^/system.slice/postgresql@15-main.service +- +inherit +full "
expect_out "^/batch.slice/job1/step +- +promote +promote "
n=$(($(wc -l <"$T/out") - 1))
[ "$n" = 11 ] || fail "expected 11 cgroups without a policy, got $n"
tc --config "$T/none.conf" -j status -a
expect_rc 0
json_ok "$T/out"
grep -q '"class": *"latency"' "$T/out" && fail "a class without a policy"
# A policy with errors is still an error, --all or not.
printf '[class:x]\nmode = sideways\n' >"$T/bad.conf"
tc --config "$T/bad.conf" status --all
expect_rc 1

# 3. get --json on a kernel without memory.numa_balancing: JSON that says so.
mk_cg /old -
tc --json get /old
expect_rc 4
json_ok "$T/out"
expect_out '"supported": *false'
expect_out '"configured": *null'
expect_out '"error": *"kernel does not support memory.numa_balancing'
expect_err "kernel does not support memory.numa_balancing"
tc get --json /system.slice
expect_rc 0
json_ok "$T/out"
expect_out '"supported": *true'
expect_out '"configured": *"inherit"'

# 4. Short options: -h -V -j -c, apply -n, status -a -w.
rc=0; "$TIERCTL" -h >"$T/out" 2>"$T/err" || rc=$?
expect_rc 0
expect_out "^usage: tierctl"
expect_out "-j, --json"
rc=0; "$TIERCTL" -V >"$T/out" 2>"$T/err" || rc=$?
expect_rc 0
expect_out "^tierctl [0-9]"
tc -c "$T/tierd.conf" -j status
expect_rc 0
json_ok "$T/out"
before=$(tree_sum)
tc -c "$T/tierd.conf" apply -n
expect_rc 0
[ "$(tree_sum)" = "$before" ] || fail "apply -n wrote"
expect_out "postgresql@15-main.service"
tc $C status -a
expect_rc 0
n=$(($(wc -l <"$T/out") - 1))
[ "$n" = 12 ] || fail "status -a: expected 12 cgroups, got $n"
tc $C status -x
expect_rc 2
expect_err "status: unknown option '-x'"
tc -Z status
expect_rc 2
expect_err "unknown option '-Z'"

# 5. A mistyped verb gets the nearest one; nonsense gets none.
tc stauts
expect_rc 2
expect_err "unknown command 'stauts'; did you mean 'status'\?"
tc aply
expect_rc 2
expect_err "did you mean 'apply'\?"
tc frobnicate
expect_rc 2
expect_err "unknown command 'frobnicate' \(see tierctl --help\)"
grep -q "did you mean" "$T/err" && fail "a suggestion for nonsense"

# 6. Column caps: a long cgroup path (and class name) is cut with "...",
# keeping the leaf; --wide and --json show it whole.
long=/long.slice/$(printf 'x%.0s' $(seq 1 150))-leaf.scope
mk_cg /long.slice inherit
mk_cg "$long" inherit
cat >>"$T/tierd.conf" <<'EOM'

[class:a-class-name-that-goes-on-and-on-and-on]
mode = off

[rule:long]
class = a-class-name-that-goes-on-and-on-and-on
cgroup = /long.slice/**
EOM
tc $C status
expect_rc 0
expect_out "^\.\.\.x+-leaf\.scope +a-class-name-that\.\.\. +inherit "
awk 'length($0) > 160 { bad = 1 } END { exit bad }' "$T/out" ||
	fail "a status line is longer than 160 columns"
grep -q -- "$long" "$T/out" && fail "the long path is shown whole without --wide"
tc $C status --wide
expect_rc 0
grep -q -- "^$long  *a-class-name-that-goes-on-and-on-and-on  " "$T/out" ||
	{ cat "$T/out" >&2; fail "--wide does not show the path whole"; }
tc $C status -w
expect_rc 0
grep -q -- "^$long " "$T/out" || fail "-w does not show the path whole"
tc $C --json status
expect_rc 0
json_ok "$T/out"
grep -q -- "\"$long\"" "$T/out" || fail "--json does not show the path whole"
exit 0
