#!/bin/sh
# Issue item 13: names from the input (container id, class, cgroupsPath,
# bundle path, cgroup names) with newlines, ESC sequences or bytes that are
# not UTF-8 are escaped in the hook's messages: every line on stderr is one
# "tierd-oci-hook: ..." line, with no control character and valid UTF-8.
. "$SRCDIR/tests/hook/lib.sh"
PY=/usr/bin/python3
[ -x $PY ] || skip "no /usr/bin/python3"

mk_policy
CRUN=/machine.slice/libpod-3f1d2c4b5a697e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d.scope
mk_cg "$CRUN"

# mk_state BUNDLE ID CLASS CGROUPSPATH: state and config.json with these
# values (Python literals, so bytes that are not UTF-8 can be given).
mk_state() {
	$PY - "$DATA/crun" "$@" "$T/s" <<'EOP' || fail "mk_state"
import ast, json, os, sys
src, bundle, cid, cls, cgp, out = sys.argv[1:]
lit = lambda s: ast.literal_eval(s)
bundle, cid, cls, cgp = lit(bundle), lit(cid), lit(cls), lit(cgp)
def raw(s):
    # json.dumps of text that may carry raw bytes (surrogateescape)
    return json.dumps(s.decode("utf-8", "surrogateescape"), ensure_ascii=False) \
        .encode("utf-8", "surrogateescape")
st = json.load(open(os.path.join(src, "state.json")))
cfg = json.load(open(os.path.join(src, "config.json")))
os.makedirs(bundle, exist_ok=True)
cfg["linux"]["cgroupsPath"] = "@CGP@"
open(os.path.join(bundle, b"config.json"), "wb").write(
    json.dumps(cfg).encode().replace(b'"@CGP@"', raw(cgp)))
st["annotations"]["tierd.io/class"] = "@CLS@"
st["id"], st["bundle"] = "@ID@", "@BUNDLE@"
open(out, "wb").write(json.dumps(st).encode().replace(b'"@CLS@"', raw(cls))
    .replace(b'"@ID@"', raw(cid)).replace(b'"@BUNDLE@"', raw(bundle)))
EOP
}

# clean NAME: stderr is only whole, printable, UTF-8 hook lines.
clean() {
	$PY - "$T/err" "$1" <<'EOP' || { cat -v "$T/err" >&2; fail "$1: raw bytes on stderr"; }
import sys
data = open(sys.argv[1], "rb").read()
data.decode("utf-8")
lines = data.split(b"\n")
assert lines[-1] == b"", "no final newline"
for l in lines[:-1]:
    assert l.startswith(b"tierd-oci-hook: "), l
    assert not any(c < 0x20 or c == 0x7f for c in l), l
    assert b"\xc2\x9b" not in l, l
EOP
}

T_B=$(printf '%s' "$T/b" | $PY -c 'import sys; print(repr(sys.stdin.buffer.read()))')
EVIL_ID="b'evil\\n\\x1b[31mRED\\xff\\x9b2J'"
ESC_ID='evil\\n\\x1b\[31mRED\\xff\\x9b2J'

# --- an unknown class with an OSC title sequence, an id with a newline
mk_state "$T_B" "$EVIL_ID" "b'gold\\x1b]0;pwned\\x07'" "b'machine.slice:libpod:3f1d2c4b5a697e8d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d'"
hook <"$T/s"
expect_rc 0
clean "unknown class"
expect_err "^tierd-oci-hook: container $ESC_ID: unknown class 'gold\\\\x1b\]0;pwned\\\\x07'"

# --- a cgroupsPath with a newline and ESC that does not exist
mk_state "$T_B" "b'c1'" "b'latency'" "b'/machine.slice/x\\ny\\x1b[2J\\xfe'"
hook <"$T/s"
expect_rc 0
clean "cgroupsPath"
expect_err "linux.cgroupsPath '/machine.slice/x\\\\ny\\\\x1b\[2J\\\\xfe' -> .* does not exist"

# --- ... that does exist: every message about it, escaped
NAME=$(printf 'x\ny\033[2J\376')
mk_cg "/machine.slice/$NAME"
hook --verbose <"$T/s"
expect_rc 0
clean "existing cgroup"
expect_err "/machine.slice/x\\\\ny\\\\x1b\[2J\\\\xfe: memory.numa_balancing inherit -> full"
[ "$(cat "$CG/machine.slice/$NAME/memory.numa_balancing")" = full ] || fail "not applied"

# --- a bundle with a newline in its path (missing, then malformed config)
mk_state "b'$T/bun\\ndle\\x1b[0m'" "b'c2'" "b'latency'" "b'/x'"
rm "$T/bun
dle$(printf '\033')[0m/config.json"
hook <"$T/s"
expect_rc 0
clean "bundle path"
expect_err "cannot read $T/bun\\\\ndle\\\\x1b\[0m/config.json: No such file or directory"
printf '{"linux":' >"$T/bun
dle$(printf '\033')[0m/config.json"
hook <"$T/s"
clean "malformed config"
expect_err "malformed $T/bun\\\\ndle\\\\x1b\[0m/config.json: unexpected end of input"

# --- a parser's message naming an annotation key with control characters
printf '{"id":"c3","annotations":{"k\\u001b[1m":7}}' >"$T/s"
hook --annotation "$(printf 'k\033[1m')" <"$T/s"
expect_rc 0
clean "annotation key"
expect_err 'malformed OCI state JSON on stdin: "annotations.k\\x1b\[1m" is not a string'
exit 0
