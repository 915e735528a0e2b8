#!/usr/bin/env python3
"""check-manifests.py: the Kubernetes manifests in etc/kubernetes, parsed
with a real YAML parser (PyYAML) and checked for the fields that matter.
kubectl's client-side dry run needs an API server even for --dry-run=client
(it fetches the OpenAPI schema and the REST mapping), so it cannot run here.

    check-manifests.py MANIFEST_DIR IMAGE IMAGE_ROOT TIERCTL WORKDIR

- every document has apiVersion, kind, metadata.name, and the namespace
  tierd-system (but the Namespace itself);
- the DaemonSet's containers use IMAGE (what `make image` builds), their
  commands name programs that exist in IMAGE_ROOT (the image's tree), every
  volumeMount names a volume, every configMap volume item names a key of
  that ConfigMap, and the selector matches the template's labels;
- the policy the ConfigMap projects into /etc/tierd passes `tierctl check`
  laid out as the pod sees it.
Prints one line per check; exit 1 on the first failure.
"""
import os
import subprocess
import sys

import yaml


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def ok(msg):
    print("ok: " + msg)


def main():
    mdir, image, image_root, tierctl, work = sys.argv[1:6]
    docs = []
    for f in sorted(os.listdir(mdir)):
        if f.endswith(".yaml"):
            for d in yaml.safe_load_all(open(os.path.join(mdir, f))):
                if d is not None:
                    docs.append((f, d))
    if not docs:
        fail("no manifests in %s" % mdir)
    for f, d in docs:
        for k in ("apiVersion", "kind", "metadata"):
            if k not in d:
                fail("%s: a document without %s" % (f, k))
        if "name" not in d["metadata"]:
            fail("%s: %s without metadata.name" % (f, d["kind"]))
        if d["kind"] != "Namespace" and d["metadata"].get("namespace") != "tierd-system":
            fail("%s: %s/%s not in namespace tierd-system" % (f, d["kind"], d["metadata"]["name"]))
    ok("%d documents parse, each with apiVersion, kind, name and namespace" % len(docs))

    cms = {d["metadata"]["name"]: d for _, d in docs if d["kind"] == "ConfigMap"}
    dss = [d for _, d in docs if d["kind"] == "DaemonSet"]
    if len(dss) != 1:
        fail("want one DaemonSet, found %d" % len(dss))
    ds = dss[0]
    tmpl = ds["spec"]["template"]
    sel = ds["spec"]["selector"]["matchLabels"]
    if any(tmpl["metadata"]["labels"].get(k) != v for k, v in sel.items()):
        fail("the DaemonSet's selector does not match its template's labels")
    ok("the DaemonSet's selector matches its pods")
    pod = tmpl["spec"]
    vols = {v["name"]: v for v in pod["volumes"]}
    for c in pod["containers"]:
        if c["image"] != image:
            fail("container %s: image %s, but make image builds %s" % (c["name"], c["image"], image))
        cmd = c["command"]
        progs = [cmd[0]]
        if cmd[0] == "/bin/sh":
            progs += [w for w in " ".join(cmd[2:]).split() if w.startswith("/usr/")]
        for p in progs:
            if not os.path.isfile(os.path.join(image_root, p.lstrip("/"))):
                fail("container %s runs %s, which is not in the image" % (c["name"], p))
        for m in c.get("volumeMounts", []):
            if m["name"] not in vols:
                fail("container %s mounts volume %s, which does not exist" % (c["name"], m["name"]))
        ok("container %s: image %s, runs %s, %d volume mounts resolve"
           % (c["name"], image, " ".join(progs), len(c.get("volumeMounts", []))))
    policy = None
    for v in vols.values():
        if "configMap" not in v:
            continue
        name = v["configMap"]["name"]
        if name not in cms:
            fail("volume %s: no ConfigMap %s" % (v["name"], name))
        items = v["configMap"].get("items") or [{"key": k, "path": k} for k in cms[name]["data"]]
        keys = set(cms[name]["data"])
        for it in items:
            if it["key"] not in keys:
                fail("volume %s: ConfigMap %s has no key %s" % (v["name"], name, it["key"]))
        missing = keys - {it["key"] for it in items}
        if missing:
            fail("ConfigMap %s keys not projected by volume %s: %s"
                 % (name, v["name"], ", ".join(sorted(missing))))
        policy = os.path.join(work, v["name"])
        for it in items:
            p = os.path.join(policy, it["path"])
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as fh:
                fh.write(cms[name]["data"][it["key"]])
        ok("volume %s projects every key of ConfigMap %s" % (v["name"], name))
    if policy is None:
        fail("no configMap volume with the policy")
    r = subprocess.run([tierctl, "check", os.path.join(policy, "tierd.conf")],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail("tierctl check of the ConfigMap's policy:\n" + r.stdout + r.stderr)
    ok("tierctl check: " + r.stdout.strip())


main()
