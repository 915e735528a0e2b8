#!/bin/sh
# abi.sh: the ABI of libtier.so.2 as abigail-tools see it.
#
#   abi.sh dump SO HEADER OUT       abidw of SO, public types only: the types
#                                   HEADER (lib/tier.h) declares and the
#                                   exported functions reach, no locations,
#                                   hashed type ids (a stable, diffable file)
#
# HEADER must be spelled as the compiler saw it in the debug info: make
# compiles lib/*.c from the top directory, so that is "lib/tier.h" run from
# there (abidw compares the paths as strings; an absolute path would match
# nothing and every public type would count as private).
#   abi.sh check BASELINE SO HEADER dump SO and abidiff it against BASELINE;
#                                   exit 1 with abidiff's report on any
#                                   change (a symbol added, removed or
#                                   changed, a public struct or enum that
#                                   changed), 77 if abigail-tools are missing
#
# An intended change is recorded with `make abi-update`, which rewrites
# lib/libtier.abi (commit it with the change that needs it).
set -u

ABIDW_FLAGS="--drop-private-types --drop-undefined-syms --no-corpus-path --no-comp-dir-path
	--no-show-locs --no-elf-needed --type-id-style hash"

need_tools() {
	for t in abidw abidiff; do
		command -v "$t" >/dev/null 2>&1 || { echo "no $t (Debian: abigail-tools)"; exit 77; }
	done
}

dump() {
	# shellcheck disable=SC2086 # the flags are words
	abidw --header-file "$2" $ABIDW_FLAGS --out-file "$3" "$1" || return 1
	# A header path that matches nothing in the debug info drops every
	# public type and would make the check blind: refuse such a dump.
	if ! grep -q "<enumerator name='TIER_MODE_OFF'" "$3"; then
		echo "$2 matches no type in the debug info of $1 (spelled as the compiler saw it?)"
		return 1
	fi
}

case ${1:-} in
dump)
	[ $# -eq 4 ] || { echo "usage: $0 dump SO HEADER OUT" >&2; exit 2; }
	need_tools
	dump "$2" "$3" "$4" || exit 1
	;;
check)
	[ $# -eq 4 ] || { echo "usage: $0 check BASELINE SO HEADER" >&2; exit 2; }
	need_tools
	[ -f "$2" ] || { echo "no baseline $2: run 'make abi-update'"; exit 1; }
	tmp=$(mktemp) || exit 1
	trap 'rm -f "$tmp"' EXIT
	dump "$3" "$4" "$tmp" || exit 1
	if abidiff "$2" "$tmp"; then
		echo "ok: $3 has the ABI of $2"
		exit 0
	else
		rc=$?
		echo "abidiff exit $rc: the ABI of $3 differs from $2."
		echo "If the change is intended (a new symbol in a new version node, an"
		echo "accessor added), run 'make abi-update' and commit lib/libtier.abi."
		exit 1
	fi
	;;
*)
	echo "usage: $0 dump SO HEADER OUT | check BASELINE SO HEADER" >&2
	exit 2
	;;
esac
