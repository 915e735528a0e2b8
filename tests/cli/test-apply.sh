#!/bin/sh
# tierctl apply: --dry-run prints the diff and writes nothing; apply writes
# exactly the diff; a second apply has nothing to do.
. "$SRCDIR/tests/cli/lib.sh"

mk_standard_tree
C="--config $T/tierd.conf"

before=$(tree_sum)
tc $C apply --dry-run
expect_rc 0
expect_out "^/system.slice/postgresql@15-main.service: memory.numa_balancing inherit -> full \\(rule db, class latency\\)\$"
expect_out "^/system.slice/memcached.service: memory.numa_balancing inherit -> promote \\(rule pinned, class pinned\\)\$"
expect_out "^/batch.slice/job1: memory.numa_balancing inherit -> off \\(rule batch, class batch\\)\$"
expect_out "^/batch.slice/job1/step: memory.numa_balancing promote -> off \\(rule batch, class batch\\)\$"
expect_no_out "mariadb|cron|user.slice"
expect_out "dry run: .*4 would change"
n=$(grep -c "memory.numa_balancing" "$T/out")
[ "$n" = 4 ] || fail "expected 4 diff lines, got $n"
[ "$(tree_sum)" = "$before" ] || fail "apply --dry-run changed the tree"
cp "$T/out" "$T/dry"

# JSON dry run.
tc --json $C apply --dry-run
expect_rc 0
json_ok "$T/out"
[ "$(tree_sum)" = "$before" ] || fail "apply --dry-run --json changed the tree"
if command -v jq >/dev/null 2>&1; then
	[ "$(jq '.changes | length' "$T/out")" = 4 ] || fail "json: 4 changes"
	[ "$(jq -r '.summary.changed' "$T/out")" = 4 ] || fail "json: summary"
	[ "$(jq '.dry_run' "$T/out")" = true ] || fail "json: dry_run"
fi

# Record every file but the four knobs, apply, compare.
(cd "$CG" && find . -type f ! -path ./system.slice/postgresql@15-main.service/memory.numa_balancing \
	! -path ./system.slice/memcached.service/memory.numa_balancing \
	! -path ./batch.slice/job1/memory.numa_balancing \
	! -path ./batch.slice/job1/step/memory.numa_balancing | LC_ALL=C sort | xargs md5sum) >"$T/rest.before"
tc $C apply
expect_rc 0
grep -v "^dry run" "$T/dry" | sed 's/would change/changed/' >"$T/dry.lines"
grep -v "changed, " "$T/out" >"$T/apply.lines"
grep -v "changed, " "$T/dry.lines" | diff - "$T/apply.lines" >&2 || fail "apply printed a different diff than --dry-run"
expect_out "^11 cgroups, 5 managed, 4 changed, 1 unchanged"
expect_knob /system.slice/postgresql@15-main.service full
expect_knob /system.slice/memcached.service promote
expect_knob /batch.slice/job1 off
expect_knob /batch.slice/job1/step off
(cd "$CG" && find . -type f ! -path ./system.slice/postgresql@15-main.service/memory.numa_balancing \
	! -path ./system.slice/memcached.service/memory.numa_balancing \
	! -path ./batch.slice/job1/memory.numa_balancing \
	! -path ./batch.slice/job1/step/memory.numa_balancing | LC_ALL=C sort | xargs md5sum) >"$T/rest.after"
diff "$T/rest.before" "$T/rest.after" >&2 || fail "apply touched other files"

# Nothing left to do.
after=$(tree_sum)
tc $C apply
expect_rc 0
expect_out "0 changed, 5 unchanged"
expect_no_out "memory.numa_balancing"
[ "$(tree_sum)" = "$after" ] || fail "second apply changed the tree"

# A broken policy: nothing is applied, exit 1.
printf '[class:x]\nmode = sideways\n' >"$T/broken.conf"
mk_cg /batch.slice/job2 inherit
before=$(tree_sum)
tc --config "$T/broken.conf" apply
expect_rc 1
expect_err "broken.conf:2: "
[ "$(tree_sum)" = "$before" ] || fail "a broken policy changed the tree"

# The cgroup root of the policy is used when --cgroup-root is not given.
printf '[daemon]\ncgroup_root = %s\n[class:b]\nmode = off\n[rule:b]\nclass = b\ncgroup = /batch.slice/**\n' "$CG" >"$T/root.conf"
rc=0
"$TIERCTL" --config "$T/root.conf" --sysfs-root "$SYS" --procfs-root "$PROC" apply >"$T/out" 2>"$T/err" || rc=$?
expect_rc 0
expect_out "^/batch.slice/job2: memory.numa_balancing inherit -> off"
exit 0
