#!/bin/sh
# The hook on the state and config.json of runc (cgroupfs path), crun under
# podman (systemd slice), CRI-O (nested kubepods slices) and containerd
# (systemd driver, class only in config.json): each gets its class's knob.
. "$SRCDIR/tests/hook/lib.sh"

mk_policy

# runc, cgroupfs driver: a plain path. Class pinned: promote + memory.low 1G.
RUNC=/kubepods/burstable/pod0b5ed2f3-5a51-4d6e-9a32-1f2b4a6c8d10/c3a4b2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3
mk_cg "$RUNC"
sample runc
expect_rc 0
expect_quiet
expect_file "$RUNC" memory.numa_balancing promote
expect_file "$RUNC" memory.low 1073741824
expect_file "$RUNC" memory.high max
expect_file "$RUNC" memory.min 0

# crun under podman, systemd driver: machine.slice:libpod:ID. Class latency.
CRUN=/machine.slice/libpod-3f1d2c4b5a697e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d.scope
mk_cg "$CRUN"
sample crun --verbose
expect_rc 0
expect_file "$CRUN" memory.numa_balancing full
expect_err "container 3f1d2c4b5a69.*: $CRUN: memory.numa_balancing inherit -> full \(class latency\)"
expect_err "class latency applied"

# CRI-O, systemd driver, nested kubepods slices. CRI-O matches hooks.d
# "when" against the pod's annotations, but the container's state carries
# only its own: the generic hook finds no annotation and does nothing, the
# per-class hook file (--class batch) applies off + memory.high 8G.
CRIO=/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod8d1c6b6a_2f4e_4b0a_9c3d_7e5f1a2b3c4d.slice/crio-9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d.scope
mk_cg "$CRIO"
before=$(tree_sum)
sample crio
expect_rc 0
expect_quiet
[ "$(tree_sum)" = "$before" ] || fail "the generic hook wrote without the annotation"
sample crio --class batch
expect_rc 0
expect_quiet
expect_file "$CRIO" memory.numa_balancing off
expect_file "$CRIO" memory.high 8589934592
expect_file "$CRIO" memory.low 0

# containerd, systemd driver; the state has no annotations member, so the
# class comes from config.json.
CTRD=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0b5ed2f3_5a51_4d6e_9a32_1f2b4a6c8d10.slice/cri-containerd-c3a4b2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3.scope
mk_cg "$CTRD"
sample containerd
expect_rc 0
expect_quiet
expect_file "$CTRD" memory.numa_balancing full

# Running again changes nothing and says so with --verbose.
before=$(tree_sum)
sample crio --class batch --verbose
expect_rc 0
expect_err "memory.numa_balancing already off"
expect_err "memory.high already 8589934592"
[ "$(tree_sum)" = "$before" ] || fail "second run wrote something"

# Kubelet memory QoS / the runtime already set memory.high: left alone.
printf '4294967296\n' >"$CG$CRIO/memory.high"
printf 'inherit\n' >"$CG$CRIO/memory.numa_balancing"
sample crio --class batch
expect_rc 0
expect_err "memory.high is 4294967296, set by the runtime; leaving it \(the class asks for 8589934592\)"
expect_file "$CRIO" memory.high 4294967296
expect_file "$CRIO" memory.numa_balancing off

# A reservation set by the runtime (podman --memory-reservation) wins too.
printf '536870912\n' >"$CG$RUNC/memory.low"
printf 'inherit\n' >"$CG$RUNC/memory.numa_balancing"
sample runc
expect_rc 0
expect_err "memory.low is 536870912, set by the runtime"
expect_file "$RUNC" memory.low 536870912
expect_file "$RUNC" memory.numa_balancing promote

# linux.resources.unified sets memory.numa_balancing: the container's own
# choice, the hook leaves the knob alone.
mkdir -p "$T/unified"
sed 's|"unified":{"memory.oom.group":"1"}|"unified":{"memory.oom.group":"1","memory.numa_balancing":"promote"}|' \
	"$DATA/crio/config.json" >"$T/unified/config.json"
grep -q '"memory.numa_balancing":"promote"' "$T/unified/config.json" || fail "sed on the crio sample"
printf 'promote\n' >"$CG$CRIO/memory.numa_balancing"
state crio "$T/unified" >"$T/s"
hook --class batch <"$T/s"
expect_rc 0
expect_err "memory.numa_balancing is set by the container's linux.resources.unified, leaving it"
expect_file "$CRIO" memory.numa_balancing promote

# --dry-run: says what it would write, writes nothing.
mk_cg "$CRUN"
before=$(tree_sum)
sample crun --dry-run
expect_rc 0
expect_err "memory.numa_balancing inherit -> full \(class latency\) \(dry run\)"
[ "$(tree_sum)" = "$before" ] || fail "--dry-run wrote something"

# --class and an annotation that disagree: --class (what the runtime
# matched) wins, with a notice.
mk_cg "$CRUN"
sample crun --class pinned
expect_rc 0
expect_err "annotation tierd.io/class is 'latency' but this hook is for class 'pinned' \(--class\); using 'pinned'"
expect_file "$CRUN" memory.numa_balancing promote

# A custom annotation key.
mk_cg "$CRUN"
sed 's|"tierd.io/class": "latency"|"example.com/tier": "batch"|' "$DATA/crun/state.json" |
	sed "s|@BUNDLE@|$T/bundle-crun|" >"$T/s"
hook --annotation example.com/tier <"$T/s"
expect_rc 0
expect_file "$CRUN" memory.numa_balancing off

# The policy's drop-in directory is read: a class defined only there.
mkdir -p "$T/tierd.conf.d"
printf '[class:dropin]\nmode = promote\n' >"$T/tierd.conf.d/50-extra.conf"
mk_cg "$CRUN"
sed 's|"tierd.io/class": "latency"|"tierd.io/class": "dropin"|' "$DATA/crun/state.json" |
	sed "s|@BUNDLE@|$T/bundle-crun|" >"$T/s"
hook <"$T/s"
expect_rc 0
expect_file "$CRUN" memory.numa_balancing promote
rm -r "$T/tierd.conf.d"
exit 0
