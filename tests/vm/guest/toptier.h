/* toptier.h: the VM cases of the tier-aware memcg limits (toptier.c). */
#ifndef TIERD_TOPTIER_H
#define TIERD_TOPTIER_H

/* toptier-exchange: a hot set moving into a cgroup at its top-tier ceiling,
 * with /sys/kernel/mm/numa/toptier_exchange off, then on. */
int case_toptier_exchange(const char *name);

/* toptier-charge-cost: the charge path with memory_tiered_limits off and
 * on (a measurement). */
int case_toptier_charge_cost(const char *name);

#endif
