# tests/kernel/cgroup-selftests.mk: the base tree's own cgroup kselftests
# (test_core, test_memcontrol, test_kmem, test_freezer, test_kill, test_pids,
# test_cpuset) in the two-tier VM, on the stock and the patched kernel
# (issue 10). Included from kernel-patches/kernel.mk.
#
#   make cgroup-selftests        build them statically into
#                                build/kernel/cgroup-selftests/
#   make check-cgroup-selftests  run them in the VM on build/kernel/patched/bzImage
#                                and, if it exists, build/kernel/stock/bzImage;
#                                per-kernel results in
#                                build/kernel/cgroup-selftests/results-<kernel>.txt
#                                and summary.txt; fails if a case that passes on
#                                stock does not pass on patched (with no stock
#                                kernel: if any case fails)
#
# check-cgroup-selftests builds the patched kernel and the tests first (make
# kernel KERNEL=stock for the baseline: make check does not build it, so
# there every case but CGST_KNOWN_FAIL must pass or skip on patched). It is
# in make check (result vm-cgroup-selftests): the series changes the memcg
# charge, reclaim and migration paths that test_memcontrol and test_kmem
# exercise.
#
# One VM run of the seven tests takes about a minute under TCG. Known-racy
# freezer cases are retried and cannot fail the check, test_percpu_basic
# cannot pass with 2 vCPUs: CGST_FLAKY and CGST_KNOWN_FAIL in the script.
#
# Variables: CGST_TIMEOUT (seconds per VM, default 3000), CGST_TESTS (a
# subset), CGST_FLAKY, CGST_KNOWN_FAIL, CGST_LRU_GEN (MGLRU on, the default,
# or off; make check-vm-classic runs them with off too, result
# vmclassic-cgroup-selftests, tests/vm/vm.mk).

CGST_SH      := $(TOP)/tests/kernel/cgroup-selftests.sh
CGST_TIMEOUT ?= 3000
CGST_LRU_GEN ?= on
CGST_ENV     := BUILD=$(BUILD) CGST_TIMEOUT=$(CGST_TIMEOUT) CGST_LRU_GEN=$(CGST_LRU_GEN) \
	$(if $(CGST_TESTS),CGST_TESTS="$(CGST_TESTS)") \
	$(if $(filter undefined,$(origin CGST_FLAKY)),,CGST_FLAKY="$(CGST_FLAKY)") \
	$(if $(filter undefined,$(origin CGST_KNOWN_FAIL)),,CGST_KNOWN_FAIL="$(CGST_KNOWN_FAIL)")

.PHONY: cgroup-selftests check-cgroup-selftests

cgroup-selftests:
	$(Q)env $(CGST_ENV) $(CGST_SH) build

check-cgroup-selftests:
	$(Q)$(MAKE) --no-print-directory kernel KERNEL=patched
	$(Q)$(MAKE) --no-print-directory cgroup-selftests
	$(Q)rc=0; $(call run_test,vm-cgroup-selftests,env $(CGST_ENV) $(CGST_SH) check) || rc=1; \
	cat $(BUILD)/kernel/cgroup-selftests/summary.txt 2>/dev/null; exit $$rc

CHECK_TARGETS += check-cgroup-selftests
