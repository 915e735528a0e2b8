#!/bin/sh
# tierctl with --bus-socket alone (issue 24, item 4): the policy, the
# cgroups and the tree it reads knobs and residency from are all tierd's.
# tierd runs on a fake tree; tierctl is given no root at all, so before
# Roots() it read the knobs from the tree it found itself (the host's
# /sys/fs/cgroup, or none): an empty table, "not found", or another
# machine's numbers beside tierd's policy.
. "$(dirname "$0")/lib-host.sh"

: "${TIERCTL:?TIERCTL must name the tierctl binary under test}"

# tc ARGS...: tierctl with no root options; output in $T/out, $T/err, $rc.
tc() {
	rc=0
	"$TIERCTL" --bus-socket "$T/bus" "$@" >"$T/out" 2>"$T/err" || rc=$?
}

mk_fake_host
cat >"$CONF" <<EOC
[daemon]
reconcile_interval = 1h
[class:fast]
mode = full
[class:batch]
mode = off
memory_low = 16M
[rule:fast]
class = fast
cgroup = /fast/**
[rule:batch]
class = batch
cgroup = /batch/**
EOC
mk_cgroup fast
mk_cgroup fast/a
mk_cgroup batch
mk_cgroup batch/b
start_tierd --no-system-bus
wait_mode fast/a full
wait_mode batch/b off

# 1. tierd names its roots.
out=$(bc Roots) || fail "Roots() failed"
[ "$out" = "sss \"$CG\" \"$SYS\" \"$PROC\"" ] || fail "Roots() answered: $out"
echo "ok 1 Roots()"

# 2. status: tierd's rows with the modes of tierd's tree.
tc status
expect_rc 0
expect out "^/fast/a +fast +full +full "
expect out "^/batch/b +batch +off +off "
echo "ok 2 status reads tierd's tree"

# 3. explain: the configured and effective mode from tierd's tree.
tc explain /batch/b
expect_rc 0
expect out "^configured mode: +off\$"
expect out "^effective mode: +off"
echo "ok 3 explain reads tierd's tree"

# 4. apply --dry-run: drift in tierd's tree is what it reports.
printf 'promote\n' >"$CG/fast/a/memory.numa_balancing"
tc apply --dry-run
expect_rc 0
expect out "^/fast/a: memory.numa_balancing promote -> full "
expect out "^dry run \\(tierd, $T/bus\\): 5 cgroups, 2 managed, 1 would change, 1 unchanged, 0 failed\$"
echo "ok 4 apply --dry-run counts tierd's tree"

# 5. a root on the command line still wins (here: one that is not there).
rc=0
"$TIERCTL" --daemon --bus-socket "$T/bus" --cgroup-root "$T/nonexistent" status \
	>"$T/out" 2>"$T/err" || rc=$?
expect_rc 5
expect err "$T/nonexistent"
echo "ok 5 --cgroup-root wins"

# 6. tierd's root not there for tierctl (another mount namespace's view;
#    here: moved away): the error says whose root it is and what to give.
mv "$CG" "$T/cg.moved"
tc status
mv "$T/cg.moved" "$CG"
expect_rc 5
expect err "$CG is the cgroup root of tierd \\($T/bus\\); .*--daemon --cgroup-root PATH"
echo "ok 6 tierd's root elsewhere: said"

stop_tierd
echo "PASS host-roots"
