#!/bin/sh
export TIERD_CASES="${1:-on tree64 on}"
exec /work/main/build/budget-bench/promote-rate-guest.sh 1
