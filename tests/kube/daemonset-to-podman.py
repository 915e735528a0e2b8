#!/usr/bin/env python3
"""daemonset-to-podman.py: run a container of the tierd DaemonSet under
podman the way the kubelet would, from the manifest itself.

    daemonset-to-podman.py DAEMONSET CONFIGMAPS CONTAINER IMAGE WORKDIR

Prints the `podman run` arguments (one per line, after `run`) for CONTAINER
of the DaemonSet in DAEMONSET: its command, user, privileges
(privileged, allowPrivilegeEscalation, capabilities drop/add,
readOnlyRootFilesystem, hostPID, hostNetwork) and volumes (hostPath ->
bind mount at the same host path, configMap -> its data projected into
WORKDIR as the volume's items say, emptyDir -> tmpfs). IMAGE replaces the
manifest's image after checking that they are the same name. Anything in
the spec this translation does not know is an error, so a manifest change
cannot silently go untested.
"""
import os
import sys

import yaml


def die(msg):
    sys.stderr.write("daemonset-to-podman: %s\n" % msg)
    sys.exit(2)


def main():
    if len(sys.argv) != 6:
        die("usage: daemonset-to-podman.py DAEMONSET CONFIGMAPS CONTAINER IMAGE WORKDIR")
    ds_file, cm_file, cname, image, work = sys.argv[1:]
    ds = [d for d in yaml.safe_load_all(open(ds_file)) if d and d.get("kind") == "DaemonSet"]
    if len(ds) != 1:
        die("%s: want exactly one DaemonSet" % ds_file)
    cms = {d["metadata"]["name"]: d for d in yaml.safe_load_all(open(cm_file))
           if d and d.get("kind") == "ConfigMap"}
    pod = ds[0]["spec"]["template"]["spec"]
    known_pod = {"automountServiceAccountToken", "enableServiceLinks", "hostPID", "hostNetwork",
                 "priorityClassName", "tolerations", "securityContext", "containers", "volumes"}
    unknown = set(pod) - known_pod
    if unknown:
        die("pod spec keys this test does not translate: %s" % ", ".join(sorted(unknown)))
    ctrs = [c for c in pod["containers"] if c["name"] == cname]
    if len(ctrs) != 1:
        die("no container %s" % cname)
    c = ctrs[0]
    if c["image"] != image:
        die("the manifest's image is %s, make image builds %s: update the manifest"
            % (c["image"], image))
    psc = pod.get("securityContext", {})
    sc = c.get("securityContext", {})
    args = ["--rm", "--network=host" if pod.get("hostNetwork") else "--network=none"]
    if pod.get("hostPID"):
        args.append("--pid=host")
    if "runAsUser" in psc or "runAsUser" in sc:
        uid = sc.get("runAsUser", psc.get("runAsUser"))
        gid = sc.get("runAsGroup", psc.get("runAsGroup", uid))
        args.append("--user=%d:%d" % (uid, gid))
    if sc.get("privileged"):
        args.append("--privileged")
    if sc.get("allowPrivilegeEscalation") is False:
        args.append("--security-opt=no-new-privileges")
    if sc.get("readOnlyRootFilesystem"):
        args.append("--read-only")
        args.append("--read-only-tmpfs=false")
    caps = sc.get("capabilities", {})
    for cap in caps.get("drop", []):
        args.append("--cap-drop=%s" % cap)
    for cap in caps.get("add", []):
        args.append("--cap-add=%s" % cap)
    vols = {v["name"]: v for v in pod.get("volumes", [])}
    for m in c.get("volumeMounts", []):
        v = vols.get(m["name"])
        if v is None:
            die("volumeMount %s has no volume" % m["name"])
        ro = ":ro" if m.get("readOnly") else ""
        if "hostPath" in v:
            args.append("--volume=%s:%s%s" % (v["hostPath"]["path"], m["mountPath"], ro or ":rw"))
        elif "configMap" in v:
            cm = cms.get(v["configMap"]["name"])
            if cm is None:
                die("no ConfigMap %s" % v["configMap"]["name"])
            d = os.path.join(work, m["name"])
            items = v["configMap"].get("items") or [{"key": k, "path": k} for k in cm["data"]]
            for it in items:
                if it["key"] not in cm["data"]:
                    die("ConfigMap %s has no key %s" % (v["configMap"]["name"], it["key"]))
                p = os.path.join(d, it["path"])
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "w") as f:
                    f.write(cm["data"][it["key"]])
            args.append("--volume=%s:%s:ro" % (d, m["mountPath"]))
        elif "emptyDir" in v:
            args.append("--tmpfs=%s" % m["mountPath"])
        else:
            die("volume %s: kind not translated" % m["name"])
    cmd = c.get("command") or []
    if not cmd:
        die("container %s has no command" % cname)
    args.append("--entrypoint=%s" % cmd[0])
    args.append(image)
    args.extend(cmd[1:] + c.get("args", []))
    print("\n".join(args))


main()
