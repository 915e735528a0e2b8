#!/bin/sh
# tierctl check: the sample policy is clean; a broken one gives every
# FILE:LINE error and exit 1; usage errors exit 2.
. "$SRCDIR/tests/cli/lib.sh"

# The shipped sample policy passes.
tc check "$SRCDIR/etc/tierd.conf"
expect_rc 0
expect_out "^$SRCDIR/etc/tierd.conf: ok \\(3 classes, 3 rules\\)\$"

# The drop-in example passes once it is a .conf next to the sample.
mkdir -p "$T/etc/tierd.conf.d"
cp "$SRCDIR/etc/tierd.conf" "$T/etc/tierd.conf"
cp "$SRCDIR/etc/tierd.conf.d/50-kubernetes.conf.example" "$T/etc/tierd.conf.d/50-kubernetes.conf"
tc check "$T/etc/tierd.conf"
expect_rc 0
expect_out "ok \\(4 classes, 5 rules\\)"

# A broken file: every problem, each as FILE:LINE: message, exit 1.
cat >"$T/bad.conf" <<'EOM'
[class:good]
mode = full

[class:bad]
mode = fast
weight = 0
toptier_min = 16Q

[rule:orphan]
class = nosuchclass
cgroup = /x

[rule:nomatcher]
class = good

[bogus]
EOM
tc check "$T/bad.conf"
expect_rc 1
expect_err "^$T/bad.conf:5: "
expect_err "^$T/bad.conf:6: "
expect_err "^$T/bad.conf:7: "
expect_err "^$T/bad.conf:10: "
expect_err "^$T/bad.conf:13: |^$T/bad.conf:14: "
expect_err "^$T/bad.conf:16: "
expect_no_out "ok"
n=$(grep -c "^$T/bad.conf:[0-9]*: " "$T/err")
[ "$n" -ge 6 ] || fail "expected at least 6 errors, got $n"

# Several files: each reported, exit 1 if any is bad.
tc check "$SRCDIR/etc/tierd.conf" "$T/bad.conf"
expect_rc 1
expect_out "etc/tierd.conf: ok"
expect_err "^$T/bad.conf:5: "

# --json: one document with the errors.
tc --json check "$T/bad.conf" "$SRCDIR/etc/tierd.conf"
expect_rc 1
json_ok "$T/out"
if command -v jq >/dev/null 2>&1; then
	[ "$(jq '.files[0].ok' "$T/out")" = false ] || fail "json: bad.conf not ok"
	[ "$(jq '.files[1].ok' "$T/out")" = true ] || fail "json: sample ok"
	[ "$(jq '.files[0].errors[0].line' "$T/out")" = 5 ] || fail "json: first error line"
	[ "$(jq '.files[1].rules' "$T/out")" = 3 ] || fail "json: rule count"
fi

# A file that does not exist: a system error, named.
tc check "$T/nonexistent.conf"
expect_rc 5
expect_err "nonexistent.conf"

# Duplicate names across a drop-in: the drop-in's line is reported.
mkdir -p "$T/dup.conf.d"
printf '[class:a]\n[rule:r]\nclass = a\ncgroup = /x\n' >"$T/dup.conf"
printf '# comment\n[class:a]\nmode = off\n' >"$T/dup.conf.d/10-dup.conf"
printf '[class:ignored\n' >"$T/dup.conf.d/README"
tc check "$T/dup.conf"
expect_rc 1
expect_err "^$T/dup.conf.d/10-dup.conf:2: "

# Usage errors: exit 2.
tc check
expect_rc 2
tc frobnicate
expect_rc 2
expect_err "unknown command"
tc --no-such-option check "$T/dup.conf"
expect_rc 2
"$TIERCTL" >/dev/null 2>&1 && fail "no command must fail"
"$TIERCTL" --help | grep -q "^usage: tierctl" || fail "--help"
"$TIERCTL" --version | grep -q "^tierctl " || fail "--version"
"$TIERCTL" check --help | grep -q "usage: tierctl \\[OPTIONS\\] check" || fail "check --help"
exit 0
