#!/bin/sh
# tierctl get/set: configured and effective modes, inheritance, errors.
. "$SRCDIR/tests/cli/lib.sh"

mk_standard_tree

tc get /system.slice/mariadb.service
expect_rc 0
expect_out "^/system.slice/mariadb.service: configured full, effective full\$"

# Effective mode: the most restrictive of the cgroup and its ancestors.
tc set /batch.slice promote
expect_rc 0
expect_out "^/batch.slice: memory.numa_balancing inherit -> promote\$"
expect_knob /batch.slice promote
tc get /batch.slice/job1
expect_rc 0
expect_out "^/batch.slice/job1: configured inherit, effective promote \\(set by /batch.slice\\)\$"
tc set batch.slice/job1/ off
expect_rc 0
expect_knob /batch.slice/job1 off
tc get /batch.slice/job1/step
expect_rc 0
expect_out "configured promote, effective off \\(set by /batch.slice/job1\\)"
tc set /batch.slice/job1 off
expect_rc 0
expect_out "already off"

# A child cannot widen its parent.
tc set /batch.slice/job1/step full
expect_rc 0
tc get /batch.slice/job1/step
expect_out "configured full, effective off"

# Nothing restricts: effective full.
tc get /user.slice
expect_out "^/user.slice: configured inherit, effective full\$"

tc --json get /batch.slice/job1/step
expect_rc 0
json_ok "$T/out"
if command -v jq >/dev/null 2>&1; then
	[ "$(jq -r .configured "$T/out")" = full ] || fail "json configured"
	[ "$(jq -r .effective "$T/out")" = off ] || fail "json effective"
fi

# --json may follow the command; "--" ends options.
tc get --json -- /batch.slice
expect_rc 0
json_ok "$T/out"
expect_out '"configured": "promote"'

# A kernel with memory.numa_balancing.effective: its value is the effective
# mode; the walk still names the source when it agrees, none when not.
printf 'off\n' >"$CG/batch.slice/job1/step/memory.numa_balancing.effective"
tc get /batch.slice/job1/step
expect_rc 0
expect_out "^/batch.slice/job1/step: configured full, effective off \\(set by /batch.slice/job1\\)\$"
printf 'promote\n' >"$CG/batch.slice/job1/step/memory.numa_balancing.effective"
tc get /batch.slice/job1/step
expect_rc 0
expect_out "^/batch.slice/job1/step: configured full, effective promote\$"
printf 'promote\n' >"$CG/user.slice/memory.numa_balancing.effective"
tc get /user.slice
expect_rc 0
expect_out "^/user.slice: configured inherit, effective promote\$"
rm -f "$CG/batch.slice/job1/step/memory.numa_balancing.effective" \
	"$CG/user.slice/memory.numa_balancing.effective"

# The root has no knob.
tc get /
expect_rc 0
expect_out "^/: configured -, effective full"
tc set / off
expect_rc 2

# Errors.
tc get /no/such/cgroup
expect_rc 3
expect_err "^tierctl: cgroup /no/such/cgroup not found: No such file or directory\$"
tc set /no/such off
expect_rc 3
tc set /batch.slice sideways
expect_rc 2
expect_err "invalid mode 'sideways'"
tc get /batch.slice/../etc
expect_rc 2
tc get
expect_rc 2
tc set /batch.slice
expect_rc 2

# A knob holding garbage is reported, not crashed on.
printf 'bogus\n' >"$CG/user.slice/memory.numa_balancing"
tc get /user.slice
[ "$rc" = 5 ] || [ "$rc" = 1 ] || fail "garbage knob: exit $rc"
exit 0
