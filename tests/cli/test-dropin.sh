#!/bin/sh
# Drop-ins and annotations: rules from tierd.conf.d/*.conf come after the
# main file's, in lexical order; other files there are ignored; explain names
# the drop-in's file and line; annotation matchers use trusted.* xattrs.
. "$SRCDIR/tests/cli/lib.sh"

mk_standard_tree
mkdir -p "$T/tierd.conf.d"
cat >"$T/tierd.conf.d/20-users.conf" <<'EOM'
[class:interactive]
mode = promote

# Overlaps rule batch of the main file, which comes first and wins.
[rule:users]
class = interactive
cgroup = /user.slice/**
cgroup = /batch.slice/**
EOM
cat >"$T/tierd.conf.d/10-annotated.conf" <<'EOM'
[rule:annotated]
class = latency
annotation = tierd.io/class=latency
EOM
printf '[rule:ignored]\nclass = batch\ncgroup = /**\n' >"$T/tierd.conf.d/30-ignored.conf.disabled"
C="--config $T/tierd.conf"

tc check "$T/tierd.conf"
expect_rc 0
expect_out "ok \\(4 classes, 5 rules\\)"

tc $C apply --dry-run
expect_rc 0
expect_no_out "^/user.slice"
expect_out "^/batch.slice/job1: memory.numa_balancing inherit -> off \\(rule batch, class batch\\)\$"
expect_no_out "rule ignored"

tc $C explain /user.slice/user-1000.slice
expect_rc 0
expect_out "^rule: +users \\($T/tierd.conf.d/20-users.conf:5\\)\$"
expect_out "^matched by: +cgroup = /user.slice/\\*\\*"

# Annotations: trusted.KEY xattrs on the cgroup directory (root only).
if python3 -c "import os,sys; os.setxattr(sys.argv[1], b'trusted.tierd.io/class', b'latency')" \
	"$CG/system.slice/cron.service" 2>/dev/null; then
	tc $C explain /system.slice/cron.service
	expect_rc 0
	expect_out "^rule: +annotated "
	expect_out "^matched by: +annotation = tierd.io/class=latency"
	tc $C apply --dry-run
	expect_out "^/system.slice/cron.service: memory.numa_balancing off -> full \\(rule annotated, class latency\\)\$"
else
	echo "note: no trusted xattrs on $T, annotation part skipped"
fi

# Redefining a name in a later file is an error at the later line.
printf '[class:batch]\nmode = full\n' >"$T/tierd.conf.d/40-dup.conf"
tc $C apply --dry-run
expect_rc 1
expect_err "^$T/tierd.conf.d/40-dup.conf:1: "
exit 0
