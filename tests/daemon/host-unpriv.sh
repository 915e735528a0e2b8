#!/bin/sh
# Unprivileged callers of the bus API (design.md, "Trust": cheap, cached,
# read-only answers), host, fake tree; nobody calls the private socket,
# opened up for it (setpriv): it gets what the last full pass saw (a
# process that exec'd something else since is not seen), never the exe path
# an exe= rule matched, and at most a burst of calls; root gets answers
# computed now and is not limited.
. "$(dirname "$0")/lib-host.sh"

command -v busctl >/dev/null 2>&1 || skip "no busctl"

mk_fast_db_host
mk_secret_db
start_tierd
wait_mode apps/db promote

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	echo "ok 1 # skip: needs root and setpriv"
	stop_tierd
	exit 0
fi
nb() {
	setpriv --reuid=65534 --regid=65534 --clear-groups busctl --timeout=10 \
		--address="unix:path=$T/bus" call org.tierd.Manager1 /org/tierd/Manager1 \
		org.tierd.Manager1 "$@"
}
bc Explain s /apps/db >"$T/root" || fail "root Explain"
grep -q 'matched .*/usr/sbin/secretd' "$T/root" || { cat "$T/root"; fail "root does not see what matched"; }
chmod 0711 "$T"
chmod 0666 "$T/bus"
# The process execs something else: no event tells tierd.  Root's answer is
# computed now; nobody's comes from the last full pass.
ln -sfn /usr/bin/other "$PROC/4242/exe"
bc Explain s /apps/db >"$T/root"
grep -q 'unmanaged' "$T/root" || { cat "$T/root"; fail "root's Explain is not live"; }
nb Explain s /apps/db >"$T/nobody" 2>&1 || { cat "$T/nobody"; fail "nobody's Explain failed"; }
grep -q 'class db, rule db' "$T/nobody" || { cat "$T/nobody"; fail "nobody's Explain is not the cached one"; }
grep -q 'secretd' "$T/nobody" && { cat "$T/nobody"; fail "nobody sees an exe path"; }
nb ExplainCgroup s /apps/db >"$T/nobody" 2>&1 || { cat "$T/nobody"; fail "nobody's ExplainCgroup"; }
grep -q '"class" "db"' "$T/nobody" || { cat "$T/nobody"; fail "nobody's ExplainCgroup lacks the class"; }
grep -q 'secretd' "$T/nobody" && { cat "$T/nobody"; fail "nobody sees an exe path (ExplainCgroup)"; }
nb DryRun t 0 >"$T/nobody" 2>&1 || { cat "$T/nobody"; fail "nobody's DryRun"; }
grep -q "^a(ssssss)t 0 0$" "$T/nobody" || { cat "$T/nobody"; fail "nobody's DryRun is not the last pass's"; }
nb ListCgroups bt false 0 | grep -q '"/apps/db" "db" "db"' || fail "nobody's ListCgroups"
nb Explain s /no/such >"$T/nobody" 2>&1 && fail "nobody's Explain of a missing cgroup succeeded"
grep -q 'No cgroup /no/such' "$T/nobody" || { cat "$T/nobody"; fail "no NoSuchCgroup for nobody"; }
# A burst: nobody is refused beyond the rate (BUS_RL_BURST 20, then 10 a
# second), root never.  The calls go out 30 at a time, so that the burst
# outruns the refill however slow the host is; batches until one is refused,
# at most 20 (a bound, not a clock).
limited=0 ok=0 batch=0 calls=0
while [ "$limited" = 0 ] && [ $batch -lt 20 ]; do
	# In a subshell, whose wait is for the callers only, not tierd (dash's
	# "wait PID..." on 30 finished jobs hung here).
	(
		i=0
		while [ $i -lt 30 ]; do
			{ nb Status >"$T/nobody.$i" 2>&1; echo $? >"$T/nobody.$i.rc"; } &
			i=$((i + 1))
		done
		wait
	)
	i=0
	while [ $i -lt 30 ]; do
		if [ "$(cat "$T/nobody.$i.rc")" = 0 ]; then
			ok=$((ok + 1))
		elif grep -q 'Too many calls' "$T/nobody.$i"; then
			limited=$((limited + 1))
		else
			cat "$T/nobody.$i"
			fail "nobody's Status failed for another reason"
		fi
		i=$((i + 1))
	done
	calls=$((calls + 30)) batch=$((batch + 1))
done
[ "$limited" -gt 0 ] || fail "$calls calls from nobody, 30 at a time, were all answered"
[ "$ok" -gt 0 ] || fail "nobody got no answer at all"
i=0
while [ $i -lt 60 ]; do
	bc Status >/dev/null || fail "root was refused"
	i=$((i + 1))
done
echo "ok 1 unprivileged callers: cached answers, no exe paths, $limited of $calls calls refused"
stop_tierd
exit 0
