#!/bin/sh
# `make demo` printed "mkdir /demo/full -> memory.numa_balancing = full
# (219 ms later)": the start of mkdir and waitfor processes over the VM's 9p
# root, timed by the shell, not tierd. tierd-demo-load --react (what
# tests/demo/guest-demo.sh now runs) does the mkdir and watches the knob in
# one process. Here a stand-in for tierd (inotify through ctypes: told of
# the mkdir, it writes the knob) reacts; the time printed must be a number
# of milliseconds, the knob the mode, and a mode that never comes a failure.
. "$SRCDIR/tests/cli/lib.sh"

[ -n "${DEMO_LOAD:-}" ] || fail "DEMO_LOAD (tierd-demo-load under test) not set"
command -v python3 >/dev/null 2>&1 || skip "python3 not found"

mkdir -p "$T/demo"
# writer DIR MODE: when a directory appears in DIR, write MODE to its
# memory.numa_balancing (once), as tierd does on a cgroup's mkdir.
writer() {
	python3 - "$1" "$2" <<'EOF' &
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
IN_CREATE, IN_ISDIR = 0x100, 0x40000000
fd = libc.inotify_init()
if fd < 0 or libc.inotify_add_watch(fd, sys.argv[1].encode(), IN_CREATE) < 0:
    sys.exit("writer: inotify failed")
print("ready", flush=True)
while True:
    buf = os.read(fd, 4096)
    i = 0
    while i < len(buf):
        wd, mask, cookie, n = struct.unpack_from("iIII", buf, i)
        name = buf[i + 16:i + 16 + n].rstrip(b"\0").decode()
        i += 16 + n
        if mask & IN_ISDIR:
            with open(os.path.join(sys.argv[1], name, "memory.numa_balancing"), "w") as f:
                f.write(sys.argv[2] + "\n")
            sys.exit(0)
EOF
	WRITER=$!
}

writer "$T/demo" full >"$T/writer.out"
"$WAITFOR" -t 10 "$T/writer.out" '^ready$' >/dev/null 2>&1 ||
	fail "the stand-in writer did not start"
rc=0
"$DEMO_LOAD" --react "$T/demo/full" full >"$T/out" 2>"$T/err" || rc=$?
wait "$WRITER"
expect_rc 0
expect_out '^[0-9]+\.[0-9]{2}$'
[ "$(cat "$T/demo/full/memory.numa_balancing")" = full ] || fail "knob not written"

# A knob that never gets the mode: exit 1 with the reason, no number (the
# bound is demo-load's own 10 s; no writer here).
rc=0
"$DEMO_LOAD" --react "$T/demo/promote" promote >"$T/out" 2>"$T/err" || rc=$?
expect_rc 1
expect_err "memory.numa_balancing did not become promote"
expect_no_out "."
exit 0
