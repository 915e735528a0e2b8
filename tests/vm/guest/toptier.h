/* toptier.h: the VM cases of the tier-aware memcg limits (toptier.c). */
#ifndef TIERD_TOPTIER_H
#define TIERD_TOPTIER_H

/* toptier-exchange: a hot set moving into a cgroup at its top-tier ceiling,
 * with /sys/kernel/mm/numa/toptier_exchange off, then on. */
int case_toptier_exchange(const char *name);

/* toptier-large-node: a cgroup at its ceiling on a fast node with more than
 * 1 GiB free walks cold data once (no refusal, no exchange), then reads it
 * hot (exchange). */
int case_toptier_large_node(const char *name);

/* toptier-demote-only: a ceiling with demotion disabled swaps and drops
 * nothing; with it enabled, it demotes. */
int case_toptier_demote_only(const char *name);

/* toptier-offline: a removed cgroup above its ceiling is no longer demoted
 * for it (its worker stops). */
int case_toptier_offline(const char *name);

/* toptier-charge-cost: the charge path with memory_tiered_limits off and
 * on (a measurement). */
int case_toptier_charge_cost(const char *name);

#endif
