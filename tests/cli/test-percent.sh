#!/bin/sh
# One definition of a percentage: toptier_min = 50% is 50% of the fast tier
# less fast_tier_reserve, in explain (the plan) and in the fair-share target
# tierd enforces (tier_share_compute()) alike. explain used to say 8.0G of
# a 16 GiB fast tier while the enforced share used 7.9G.
. "$SRCDIR/tests/cli/lib.sh"

mk_host_two_tier		# fast tier: node 0, 16 GiB
mk_root
mk_cg /system.slice inherit
# demand 2G, below the minimum: the target is the minimum itself
mk_cg /system.slice/db.service inherit 1073741824 1073741824

# json_num KEY: the first number after "KEY": in $T/out
json_num() {
	tr -d ' \n' <"$T/out" | sed -n "s/.*\"$1\":\\([0-9]*\\).*/\\1/p"
}

check() {	# RESERVE-LINE EXPECTED-BYTES
	printf '[daemon]\n%s\n[class:half]\nmode = full\ntoptier_min = 50%%\n[rule:db]\nclass = half\ncgroup = /system.slice/db.service\n' \
		"$1" >"$T/p.conf"
	tc --json --config "$T/p.conf" explain /system.slice/db.service
	expect_rc 0
	x=$(json_num bytes)
	tc --json --config "$T/p.conf" status
	expect_rc 0
	s=$(json_num target_bytes)
	[ "$x" = "$2" ] || fail "$1: explain says $x bytes for 50%, expected $2"
	[ "$s" = "$2" ] || fail "$1: the enforced share is $s bytes for 50%, expected $2"
}

check "" $(( ((16 << 30) - (256 << 20)) / 2 ))			# default reserve 256M
check "fast_tier_reserve = 1G" $(( ((16 << 30) - (1 << 30)) / 2 ))
check "fast_tier_reserve = 0" $((8 << 30))
exit 0
