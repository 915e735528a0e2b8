#!/bin/sh
# tests/hook/run-old-new.sh OLD_HOOK NEW_HOOK TEST...: run each hook test
# script against two hook binaries (before and after a fix) and print
# "TEST old=RESULT new=RESULT": a regression test must fail with the old
# hook and pass with the new one. For reviews; not part of check-hook.
set -u
old=$1 new=$2
shift 2
: "${SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
export SRCDIR ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98
verdict() {
	case $1 in 0) echo PASS ;; 77) echo SKIP ;; *) echo "FAIL($1)" ;; esac
}
for t in "$@"; do
	HOOK=$old sh "$t" >/tmp/run-old-new.old.log 2>&1; o=$?
	HOOK=$new sh "$t" >/tmp/run-old-new.new.log 2>&1; n=$?
	printf '%s old=%s new=%s\n' "$(basename "$t")" "$(verdict $o)" "$(verdict $n)"
	if [ "$o" != 0 ]; then
		KEEP_GOING=1 HOOK=$old sh "$t" 2>&1 | grep '^FAIL' | sed 's/^/    old: /'
	fi
	if [ "$n" != 0 ]; then sed 's/^/    new: /' /tmp/run-old-new.new.log | tail -n 5; fi
done
