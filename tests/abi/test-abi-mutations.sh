#!/bin/sh
# The ABI check fails on an accidental ABI change and passes on none.
#
# Builds scratch copies of libtier.so.2 from lib/ (the same sources, .sym
# and compiler; -O0 for speed, which does not change the ABI), each with one
# change, and runs scripts/abi.sh check against the committed baseline:
#   control   no change                                   -> must pass
#   private   a member added to struct tier_class, opaque since 2.0
#             (lib/libtier-private.h)                      -> must pass
#   field     a member added to struct tier_amount, the one public
#             layout                                      -> must fail
#   enum      an enumerator added to enum tier_mode        -> must fail
#   attr      a fourth enum tier_attr: builds (2.0's TIER_APPLY_SKIP()
#             bits start at bit 16, apart from the flags), and the
#             check sees the enum change                   -> must fail
#   attr17    a 17th attribute: no TIER_APPLY_SKIP() bit left -> must not build
#   removed   a symbol dropped from libtier.sym           -> must fail
#   added     a new exported function                     -> must fail
#   signature a return type changed (unsigned -> uint64_t) -> must fail
# Environment: CC, LIBTIER_DEP_CFLAGS, LIBTIER_DEP_LIBS (from make).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
CC=${CC:-cc}
for t in abidw abidiff; do
	command -v "$t" >/dev/null 2>&1 || { echo "no $t (Debian: abigail-tools)"; exit 77; }
done
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0 n=0

# mutate NAME EXPECT(pass|fail) [FILE SED-EXPR]...
mutate() {
	name=$1 expect=$2
	shift 2
	d="$tmp/$name"
	n=$((n + 1))
	mkdir -p "$d"
	cp "$top"/lib/*.c "$top"/lib/*.h "$top"/lib/libtier.sym "$d/"
	while [ $# -ge 2 ]; do
		cp "$d/$1" "$d/$1.orig"
		sed -i "$2" "$d/$1"
		if cmp -s "$d/$1" "$d/$1.orig"; then
			echo "not ok $n $name: the mutation did not apply to $1"
			failed=1
			return
		fi
		rm "$d/$1.orig"
		shift 2
	done
	# shellcheck disable=SC2086 # flag lists
	if [ "$expect" = nobuild ]; then
		if $CC -std=gnu11 -D_GNU_SOURCE -O0 -fPIC -fsyntax-only -I"$d" ${LIBTIER_DEP_CFLAGS:-} \
			"$d"/*.c >"$d/build.log" 2>&1; then
			echo "not ok $n $name: the scratch library builds, expected the static assertion"
			failed=1
		elif grep -q "static assertion failed" "$d/build.log"; then
			echo "ok $n $name: does not build ($(grep -m1 -o 'static assertion failed.*' "$d/build.log" | cut -c1-80))"
		else
			cat "$d/build.log"
			echo "not ok $n $name: the build failed, but not on the static assertion"
			failed=1
		fi
		return
	fi
	# shellcheck disable=SC2086 # flag lists
	if ! $CC -std=gnu11 -D_GNU_SOURCE -O0 -g -fPIC -fvisibility=hidden -shared \
		-Wl,-soname,libtier.so.2 -Wl,--version-script="$d/libtier.sym" -Wl,--no-undefined \
		-I"$d" ${LIBTIER_DEP_CFLAGS:-} -o "$d/libtier.so.2" "$d"/*.c \
		${LIBTIER_DEP_LIBS:-} >"$d/build.log" 2>&1; then
		cat "$d/build.log"
		echo "not ok $n $name: the scratch library does not build"
		failed=1
		return
	fi
	"$top/scripts/abi.sh" check "$top/lib/libtier.abi" "$d/libtier.so.2" "$d/tier.h" \
		>"$d/check.log" 2>&1
	rc=$?
	case "$rc:$expect" in
	0:pass | [1-9]*:fail) ok=1 ;;
	*) ok=0 ;;
	esac
	if [ $ok -eq 1 ]; then
		echo "ok $n $name: check exit $rc ($(grep -m1 -E 'summary|^ok' "$d/check.log"))"
	else
		sed 's/^/    /' "$d/check.log"
		echo "not ok $n $name: check exit $rc, expected to $expect"
		failed=1
	fi
}

mutate control pass
mutate private pass libtier-private.h \
	's|^\tstruct tier_amount memory_high;\(.*\)$|&\n\tunsigned added_field;|'
mutate field fail tier.h 's|^\tuint64_t value;$|&\n\tunsigned added_field;|'
mutate enum fail tier.h 's|^\tTIER_MODE_OFF = 3,\(.*\)$|&\n\tTIER_MODE_AUTO = 4,|'
mutate attr fail tier.h 's|^\tTIER_ATTR_MEMORY_HIGH,\(.*\)$|&\n\tTIER_ATTR_MEMORY_MIN,|'
mutate attr17 nobuild tier.h \
	's|^\tTIER_ATTR_MEMORY_HIGH,\(.*\)$|&\n\tTIER_ATTR_X3, TIER_ATTR_X4, TIER_ATTR_X5, TIER_ATTR_X6, TIER_ATTR_X7, TIER_ATTR_X8, TIER_ATTR_X9, TIER_ATTR_X10, TIER_ATTR_X11, TIER_ATTR_X12, TIER_ATTR_X13, TIER_ATTR_X14, TIER_ATTR_X15, TIER_ATTR_X16,|'
mutate removed fail libtier.sym '/^\ttier_plan_entry_weight;$/d'
mutate added fail libtier.sym 's|^\ttier_plan_entry_free;$|&\n\ttier_plan_entry_added;|' \
	evaluate.c '$a _public_ int tier_plan_entry_added(void);\n_public_ int tier_plan_entry_added(void) { return 0; }'
mutate signature fail \
	tier.h 's|^unsigned tier_plan_entry_weight(|uint64_t tier_plan_entry_weight(|' \
	evaluate.c 's|^_public_ unsigned tier_plan_entry_weight(|_public_ uint64_t tier_plan_entry_weight(|'
[ $failed -eq 0 ] && echo "ok: the ABI check passes unchanged and catches each of $((n - 1)) changes"
exit $failed
