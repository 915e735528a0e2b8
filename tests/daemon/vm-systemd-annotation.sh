#!/bin/sh
# In the VM with systemd as init (run-vm --systemd; run-in-vm.sh boots it for
# vm-systemd*.sh): issue 24 item 1, an annotation= rule under the shipped
# tierd.service, whose capability bounding set has no CAP_SYS_ADMIN, so the
# kernel hides the trusted.* xattr tierd-oci-hook sets. Checks that
#  - tierd runs under the unit without CAP_SYS_ADMIN (CapEff of its process);
#  - with only the xattr (the hook's record removed), tierd sees no
#    annotation: `tierctl explain` answered by tierd says unmanaged (the bug);
#  - with the hook's record in /run/tierd/annotations, tierd finds the class:
#    explain says class batch, rule annotated, and a reload's full pass
#    applies the class (memory.low) to the cgroup;
#  - the hook removes the record of a cgroup that is gone at its next run.
. "$(dirname "$0")/lib-vm.sh"

[ -d /run/systemd/system ] || skip "not booted with systemd (run-vm --systemd)"
HOOKBIN=$BUILD/bin/tierd-oci-hook
TIERCTL=$BUILD/bin/tierctl
[ -x "$HOOKBIN" ] || skip "no $HOOKBIN (make tierd-oci-hook)"
[ -x "$TIERCTL" ] || skip "no $TIERCTL (make tierctl)"

# /tmp is private to the service (PrivateTmp=yes): keep its files in /run.
R=/run/tierd-test
mkdir -p "$R"
cat >"$R/tierd.conf" <<EOC
[daemon]
reconcile_interval = 1h
[class:batch]
memory_low = 10M
[rule:annotated]
class = batch
annotation = tierd.io/class=batch
EOC
# (tierd links libtier statically; a shared one is copied along if there.)
mkdir -p "$R/sbin" "$R/lib"
cp "$BUILD/bin/tierd" "$R/sbin/tierd" || fail "cannot copy tierd into $R"
for so in "$BUILD"/lib/libtier.so*; do
	[ -e "$so" ] && cp -P "$so" "$R/lib/"
done
sed -e "s|^ExecStart=.*|ExecStart=$R/sbin/tierd --config $R/tierd.conf -v|" \
	-e '/^ConditionPathExists=/d' "$TOP/etc/tierd.service" >/run/systemd/system/tierd.service
grep -q '^CapabilityBoundingSet=.*CAP_SYS_ADMIN' /run/systemd/system/tierd.service &&
	fail "the unit grants CAP_SYS_ADMIN: this test is about the unit without it"
systemctl daemon-reload
systemctl start tierd.service || {
	systemctl status tierd.service --no-pager; journalctl -u tierd --no-pager | tail -30
	fail "tierd.service did not start"; }
pid=$(systemctl show -p MainPID --value tierd.service)
eff=$(sed -n 's/^CapEff:[[:space:]]*//p' "/proc/$pid/status")
# CAP_SYS_ADMIN is bit 21
[ $(( 0x$eff >> 21 & 1 )) = 0 ] || fail "tierd runs with CAP_SYS_ADMIN (CapEff $eff)"
echo "tierd.service: pid $pid, CapEff $eff (no CAP_SYS_ADMIN)"

# A container's cgroup with its init, and the OCI state a runtime would pass.
C=tierd-ctr
echo +memory >"$CG/cgroup.subtree_control" 2>/dev/null
mkdir "$CG/$C" || fail "cannot create $CG/$C"
sleep 600 &
init=$!
echo "$init" >"$CG/$C/cgroup.procs" || fail "cannot move $init into $C"
mkdir -p "$R/bundle"
cat >"$R/bundle/config.json" <<EOJ
{"ociVersion": "1.0.2", "linux": {"cgroupsPath": "/$C"},
 "annotations": {"tierd.io/class": "batch"}}
EOJ
printf '{"ociVersion": "1.0.2", "id": "vmtest", "status": "created", "pid": %s, "bundle": "%s", "annotations": {"tierd.io/class": "batch"}}\n' \
	"$init" "$R/bundle" >"$R/state.json"
run_hook() {
	"$HOOKBIN" --fail-closed --config "$R/tierd.conf" -v <"$R/state.json" >"$R/hook.out" 2>&1 ||
		{ cat "$R/hook.out"; fail "the hook failed"; }
}
run_hook
ino=$(stat -c %i "$CG/$C")
rec=/run/tierd/annotations/$ino
[ -f "$rec" ] || { cat "$R/hook.out"; ls -la /run/tierd /run/tierd/annotations; fail "no record $rec"; }
echo "hook: $(tail -1 "$R/hook.out"); record $rec ($(stat -c '%U %a' "$rec")): $(tr '\n' ' ' <"$rec")"
[ "$(cat "$CG/$C/memory.low")" = 10485760 ] || fail "the hook did not apply memory.low"

# explain_tierd REGEX: `tierctl explain` answered by tierd prints REGEX.
explain_tierd() {
	"$TIERCTL" explain "/$C" >"$R/ex" 2>&1 || { cat "$R/ex"; fail "tierctl explain failed"; }
	grep -q '^policy: *tierd (/run/tierd/bus)$' "$R/ex" || { cat "$R/ex"; fail "explain did not ask tierd"; }
	grep -Eq "$1" "$R/ex" || { cat "$R/ex"; fail "tierd's explain lacks /$1/ ($2)"; }
}

# The xattr alone: tierd under the unit cannot see it (root here can).
x=$(python3 -c 'import os, sys; print(os.getxattr(sys.argv[1], "trusted.tierd.io/class").decode())' \
	"$CG/$C" 2>&1) || x=
[ "$x" = batch ] || fail "the hook did not set trusted.tierd.io/class on $C ($x)"
mv "$rec" "$R/saved-record"
explain_tierd 'unmanaged' "xattr only"
echo "xattr only: tierd says unmanaged (trusted.* is hidden without CAP_SYS_ADMIN)"

# The record: tierd finds the class, and its full pass applies it.
run_hook
[ -f "$rec" ] || fail "the hook did not write the record again"
explain_tierd '^class: *batch$' "with the record"
grep -Eq '^matched by: *annotation = tierd.io/class=batch' "$R/ex" || { cat "$R/ex"; fail "matched by"; }
echo "with the record: tierd says class batch, matched by the annotation"
echo 0 >"$CG/$C/memory.low"
systemctl reload tierd.service || fail "systemctl reload failed"
"$WAITFOR" -t 30 "$CG/$C/memory.low" '^10485760$' || {
	journalctl -u tierd --no-pager | tail -20; fail "tierd did not apply the class to /$C"; }
echo "reload: tierd applied memory.low 10485760 to /$C by the annotation rule"

# The record of a removed cgroup goes at the hook's next run.
kill "$init"
wait "$init" 2>/dev/null
rmdir "$CG/$C" || fail "cannot remove $CG/$C"
mkdir "$CG/$C" || fail "cannot create $CG/$C again"
sleep 600 &
init=$!
echo "$init" >"$CG/$C/cgroup.procs" || fail "cannot move $init into $C"
sed -i "s/\"pid\": [0-9]*/\"pid\": $init/" "$R/state.json"
run_hook
ino2=$(stat -c %i "$CG/$C")
[ "$ino2" != "$ino" ] || fail "cgroup2 reused the inode $ino"
[ ! -e "$rec" ] || fail "the record of the removed cgroup ($rec) was not pruned"
[ -f "/run/tierd/annotations/$ino2" ] || fail "no record for the new cgroup"
echo "pruned: the record of the removed cgroup (inode $ino); new one: inode $ino2"
kill "$init"
systemctl stop tierd.service
echo "PASS"
