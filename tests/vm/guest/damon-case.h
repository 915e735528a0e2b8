/* damon-case.h: the VM cases of the DAMON backend (damon.c), driven through
 * lib/damon.c as tierd will drive it. */
#ifndef TIERD_DAMON_CASE_H
#define TIERD_DAMON_CASE_H

/* damon-promote: a migrate_hot scheme on node 1's physical range, filtered
 * to one cgroup, promotes that cgroup's hot anonymous pages to node 0 and
 * leaves another cgroup's alone, with kernel.numa_balancing 0. */
int case_damon_promote(const char *name);

/* damon-pagecache: a file's page cache read with read(), on node 1: NUMA
 * balancing alone leaves it there, a migrate_hot scheme with an anon filter
 * (and the memcg filter) promotes it. */
int case_damon_pagecache(const char *name);

/* damon-reclaim: a SIGKILLed owner's kdamond is reclaimed by the next one,
 * and nothing else is. */
int case_damon_reclaim(const char *name);

/* damon-tierd: the real tierd with backend = damon drives DAMON: promote's
 * hot set reaches the fast node, off's stays; a burst of memcgs costs few
 * commits; SIGKILL + restart takes our kdamonds (one per tier) back and
 * leaves someone else's alone; SIGTERM stops ours. */
int case_damon_tierd(const char *name);

/* damon-tierd-share: two promote cgroups wanting more fast tier than there
 * is end within 10% of their targets (migrate_cold with a user_input goal,
 * migrate_hot).  run-vm --mem-fast 512M --mem-slow 512M. */
int case_damon_tierd_share(const char *name);

/* damon-tierd-hot: demand = resident vs hot (a cold hog and a hot victim);
 * damon-tierd-budget: promote_budget bounds one cgroup's promotion, its
 * neighbour's is not slowed.  run-vm --mem-fast 512M --mem-slow 512M. */
int case_damon_tierd_hot(const char *name);
int case_damon_tierd_budget(const char *name);

/* damon-tierd-hotset: tierd's hot-set reading of a cgroup with a known hot
 * set (32 of 128 MB) is within 25%, on either backend. */
int case_damon_tierd_hotset(const char *name);

/* Benchmarks (make bench-damon): damon-tierd-bench, one backend's promotion
 * of a hot set from the slow node; damon-tierd-scale, tierd's and its
 * kdamond's CPU with TIERD_SCALE_N memcgs and the sync of a new one. */
int case_damon_tierd_bench(const char *name);
int case_damon_tierd_scale(const char *name);

/* tierctl-doctor: `tierctl doctor` on this kernel, printed. */
int case_tierctl_doctor(const char *name);

/* damon-tierd-pagecache: tierd (backend auto) promotes a promote class's
 * page cache read with read() (page_cache on) and leaves a page_cache = off
 * class's on the slow node; NUMA balancing alone promotes neither. */
int case_damon_tierd_pagecache(const char *name);

#endif
