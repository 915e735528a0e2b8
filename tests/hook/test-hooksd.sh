#!/bin/sh
# etc/oci-hooks.d/50-tierd.json.in: valid oci-hooks(5) 1.0.0 JSON, injected
# at createRuntime only for containers with the annotation, and the hook
# accepts exactly the arguments it is given there.
. "$SRCDIR/tests/hook/lib.sh"
PY=/usr/bin/python3
[ -x $PY ] || skip "no /usr/bin/python3"

sed -e "s|@HOOK_PATH@|$HOOK|" -e "s|@SYSCONFDIR@|$T/etc|" \
	"$SRCDIR/etc/oci-hooks.d/50-tierd.json.in" >"$T/50-tierd.json"
$PY - "$T/50-tierd.json" >"$T/args" <<'EOP' || fail "hooks.d JSON check failed"
import json, re, sys
h = json.load(open(sys.argv[1]))
assert h["version"] == "1.0.0", h["version"]
assert h["stages"] == ["createRuntime"], h["stages"]
assert h["hook"]["path"].startswith("/"), "path must be absolute"
assert h["hook"]["args"][0] == "tierd-oci-hook"
assert isinstance(h["hook"].get("timeout", 1), int) and h["hook"].get("timeout", 1) > 0
ann = h["when"]["annotations"]
assert len(ann) == 1
(k, v), = ann.items()
assert re.search(k, "tierd.io/class") and not re.search(k, "tierd.io/classes") \
    and not re.search(k, "xtierd.io/class")
assert re.search(v, "latency") and not re.search(v, "")
args = h["hook"]["args"]
# the annotation the hook reads is the one the filter matches
assert args[args.index("--annotation") + 1] == "tierd.io/class"
print("\n".join(args[1:]))
EOP

# The hook with the shipped arguments (plus test roots; later options win).
mk_policy
mkdir -p "$T/etc/tierd"
cp "$T/tierd.conf" "$T/etc/tierd/tierd.conf"
CRUN=/machine.slice/libpod-3f1d2c4b5a697e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d.scope
mk_cg "$CRUN"
state crun >"$T/s"
# shellcheck disable=SC2046
"$HOOK" $(cat "$T/args") --cgroup-root "$CG" <"$T/s" >"$T/out" 2>"$T/err" || fail "exit $?: $(cat "$T/err")"
expect_quiet
expect_file "$CRUN" memory.numa_balancing full
# and it is fail-open: an unknown class does not stop the container
sed 's|"tierd.io/class": "latency"|"tierd.io/class": "gold"|' "$T/s" >"$T/s2"
# shellcheck disable=SC2046
"$HOOK" $(cat "$T/args") --cgroup-root "$CG" <"$T/s2" >"$T/out" 2>"$T/err" || fail "not fail-open"
expect_err "unknown class 'gold'"

# The per-class file (CRI-O: matched on the pod's annotation, which the
# container's state does not carry): class from --class.
sed -e "s|@HOOK_PATH@|$HOOK|" -e "s|@SYSCONFDIR@|$T/etc|" -e "s|@CLASS@|batch|g" \
	"$SRCDIR/etc/oci-hooks.d/50-tierd-class.json.in" >"$T/51-batch.json"
$PY - "$T/51-batch.json" >"$T/args" <<'EOP' || fail "per-class hooks.d JSON check failed"
import json, re, sys
h = json.load(open(sys.argv[1]))
assert h["version"] == "1.0.0" and h["stages"] == ["createRuntime"]
(k, v), = h["when"]["annotations"].items()
assert re.search(k, "tierd.io/class")
assert re.search(v, "batch") and not re.search(v, "batch2") and not re.search(v, "xbatch")
args = h["hook"]["args"]
assert args[args.index("--class") + 1] == "batch"
print("\n".join(args[1:]))
EOP
mk_cg "$CRUN"
sed 's|"tierd.io/class": "latency"|"example.com/other": "x"|' "$T/s" >"$T/s2"
# shellcheck disable=SC2046
"$HOOK" $(cat "$T/args") --cgroup-root "$CG" <"$T/s2" >"$T/out" 2>"$T/err" || fail "exit $?: $(cat "$T/err")"
expect_quiet
expect_file "$CRUN" memory.numa_balancing off

# The Kubernetes manifests parse as YAML, where PyYAML is available, and
# the ConfigMap's policy (main file + drop-ins, as the DaemonSet mounts it)
# loads: the hook finds its classes.
if $PY -c 'import yaml' 2>/dev/null; then
	for f in "$SRCDIR"/etc/kubernetes/*.yaml; do
		$PY -c 'import sys, yaml; list(yaml.safe_load_all(open(sys.argv[1])))' "$f" ||
			fail "$f is not valid YAML"
	done
	$PY - "$SRCDIR/etc/kubernetes" "$T/k8s" <<'EOP' || fail "ConfigMap/DaemonSet mismatch"
import os, sys, yaml
d, out = sys.argv[1], sys.argv[2]
cm = [x for x in yaml.safe_load_all(open(os.path.join(d, "tierd-configmap.yaml")))
      if x["kind"] == "ConfigMap"][0]
ds = list(yaml.safe_load_all(open(os.path.join(d, "tierd-daemonset.yaml"))))[0]
vol = [v for v in ds["spec"]["template"]["spec"]["volumes"] if v["name"] == "policy"][0]
items = {i["key"]: i["path"] for i in vol["configMap"]["items"]}
assert set(items) == set(cm["data"]), "every ConfigMap key needs a volume item: %s vs %s" % (
    sorted(items), sorted(cm["data"]))
for key, path in items.items():
    os.makedirs(os.path.dirname(os.path.join(out, path)), exist_ok=True)
    open(os.path.join(out, path), "w").write(cm["data"][key])
for c in ds["spec"]["template"]["spec"]["containers"]:
    sc = c["securityContext"]
    assert sc["privileged"] is False and sc["allowPrivilegeEscalation"] is False
    assert sc["readOnlyRootFilesystem"] is True and sc["capabilities"]["drop"] == ["ALL"]
    # tierd reads trusted.* xattrs (annotation= rules): CAP_SYS_ADMIN and
    # nothing else; every other container adds nothing.
    want = ["SYS_ADMIN"] if c["name"] == "tierd" else None
    assert sc["capabilities"].get("add") == want, (c["name"], sc["capabilities"])
EOP
	for cls in latency pinned standard batch; do
		mk_cg "$CRUN"
		sed "s|\"tierd.io/class\": \"latency\"|\"tierd.io/class\": \"$cls\"|" "$T/s" >"$T/s2"
		"$HOOK" --fail-closed --config "$T/k8s/tierd.conf" --cgroup-root "$CG" <"$T/s2" \
			>"$T/out" 2>"$T/err" || fail "k8s policy, class $cls: $(cat "$T/err")"
	done
	expect_file "$CRUN" memory.numa_balancing off
fi
exit 0
