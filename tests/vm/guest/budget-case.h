/* budget-case.h: the VM case of the promotion budget on the patched kernel
 * (budget.c). */
#ifndef TIERD_BUDGET_CASE_H
#define TIERD_BUDGET_CASE_H

/* knob-tierd-budget: tierd's knob backend writes a class's promote_budget
 * to memory.promote_rate_max (patch 19 of the series); the budgeted
 * cgroup's promotion stays under the budget's ceiling and the budget bites,
 * its neighbour without one is never refused and promotes its set. */
int case_knob_tierd_budget(const char *name);

#endif
