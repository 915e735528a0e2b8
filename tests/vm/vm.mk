# tests/vm/vm.mk: the two-tier VM tests of the kernel series (issue 3).
#
#   make check-vm        build the patched kernel and the kselftest, then run
#                        every VM case with tests/vm/run-vm (one result each)
#   make vm-guest        only build the guest test program
#   make vm-matrix       run the cases on the stock and the patched kernel and
#                        write the table to build/vm/matrix.md
#   make vm-run VM_TEST=anon-promote-full [VM_KERNEL=path]   one case, verbose
#   make vm-behaviour-matrix  measure mode x knob x VMA kind on VM_KERNEL and
#                        write the table to build/vm/behaviour-matrix.md
#   make check-vm-debug  the debug kernel (make kernel KERNEL=debug), VM_DEBUG_CASES
#   make check-vm-smp8   the patched kernel with 8 vCPUs, VM_SMP8_CASES
#   make vm-charge-cost  measure the charge path with memory_tiered_limits off
#                        and on (toptier-charge-cost, VM_CC_SMP vCPUs)
#
#   make check-vm-classic the reclaim-sensitive cases again with MGLRU off
#                        (run-vm --lru-gen off): VM_CLASSIC_CASES, results
#                        vmclassic-CASE
#
# Variables: VM_CASES (the cases to run), VM_TIMEOUT (seconds per VM),
# VM_KERNEL (bzImage for check-vm; default the patched build), VM_LRU_GEN
# (on|off: MGLRU in the vm-, vmdebug- and vm8- runs; default on, what the
# test kernels and Debian's boot with).

VM_DIR      := $(BUILD)/vm
VM_GUEST    := $(VM_DIR)/tierd-vmtest
VM_SRCS     := tests/vm/guest/tierd-vmtest.c tests/vm/guest/vmlib.c tests/vm/guest/toptier.c \
	tests/vm/guest/damon.c tests/vm/guest/budget.c
VM_KERNEL   ?= $(BUILD)/kernel/patched/bzImage
VM_STOCK_KERNEL ?= $(BUILD)/kernel/stock/bzImage
VM_TIMEOUT  ?= 240
VM_TEST     ?= topology

# The guest program runs from the host's root over 9p: link it statically,
# and never with sanitizers (nothing in the VM would report them).
VM_CFLAGS   := -O2 -g -std=gnu11 $(WARNINGS) -D_GNU_SOURCE -pthread $(LIBTIER_CFLAGS)
VM_LDFLAGS  := -static -pthread

VM_CASES ?= topology anon-promote-full anon-promote-promote anon-promote-off \
	promote-no-toptier-faults file-ro-promote shmem-promote cow-shared-promote \
	pid-inactive-promote pid-inactive-large knob-hierarchy knob-einval global-off \
	toptier-exchange toptier-large-node toptier-demote-only toptier-offline damon-promote \
	damon-reclaim knob-tierd-budget \
	kselftest

VM_LRU_GEN ?= on
RUN_VM_BASE := env BUILD=$(BUILD) $(TOP)/tests/vm/run-vm --timeout $(VM_TIMEOUT)
RUN_VM := $(RUN_VM_BASE) --lru-gen $(VM_LRU_GEN)

.PHONY: vm-guest check-vm check-vm-cases check-vm-harness vm-matrix vm-run

vm-guest: $(VM_GUEST)

# One object per source, so each has its .d (-MMD) for the headers.
VM_OBJS     := $(patsubst tests/vm/guest/%.c,$(BUILD)/obj/vm/%.o,$(VM_SRCS))

$(BUILD)/obj/vm/%.o: tests/vm/guest/%.c tests/vm/vm.mk
	@mkdir -p $(@D)
	@echo "  CC      $@"
	$(Q)$(CC) $(VM_CFLAGS) $(DEPFLAGS) -c -o $@ $<

-include $(VM_OBJS:.o=.d)

$(VM_GUEST): $(VM_OBJS) $(LIBTIER_INTERNAL_PLAIN_A)
	@mkdir -p $(@D)
	@echo "  CCLD    $@"
	$(Q)$(CC) $(VM_CFLAGS) -o $@ $(VM_OBJS) $(LIBTIER_INTERNAL_PLAIN_A) $(VM_LDFLAGS)

# The kernel and the kselftest come from kernel-patches/kernel.mk.
check-vm: vm-guest
	$(Q)$(MAKE) --no-print-directory kernel KERNEL=patched
	$(Q)$(MAKE) --no-print-directory kselftest-numa
	$(Q)rc=0; $(MAKE) --no-print-directory -j1 -k check-vm-cases || rc=1; \
	echo "VM tests ($(VM_KERNEL)):"; \
	for c in harness $(VM_CASES); do \
		printf '  %-32s %s\n' "vm-$$c" "$$(cat $(BUILD)/results/vm-$$c.result 2>/dev/null)"; \
	done; exit $$rc

check-vm-cases: check-vm-harness $(addprefix check-vm-,$(VM_CASES))

# run-vm itself: exit status, skip reason, timeout, kept log, guest mounts.
check-vm-harness:
	$(Q)$(call run_test,vm-harness,env BUILD=$(BUILD) $(TOP)/tests/vm/harness-test.sh $(VM_KERNEL))

check-vm-%: vm-guest
	$(Q)$(call run_test,vm-$*,$(RUN_VM) --kernel $(VM_KERNEL) $*)

# The case that runs the real tierd needs it built (its rule is in
# controller/tierd/tierd.mk, included after this file: hence the path).
check-vm-knob-tierd-budget: $(BUILD)/bin/tierd

# The same cases on the debug kernel (tierd-debug.config: lockdep, KASAN,
# DEBUG_VM, DEBUG_ATOMIC_SLEEP; `make kernel KERNEL=debug`) and with 8 vCPUs
# on the patched kernel, where per-CPU batching shows. A BUG, WARNING, KASAN
# or lockdep report fails a case (run-vm exits 126). The debug kernel runs
# about three times slower under TCG: its cases get three times the guest's
# time bounds. Results vmdebug-CASE and vm8-CASE; each list is chosen to
# cover the series' paths (promotion-only scans and their trace reasons,
# the knob, the fault path, the kselftest) and to keep a cold make check
# under an hour. promote-no-toptier-faults (90 s on the debug kernel) runs
# on the patched kernel only: the kselftest's test_nb_promote_toptier takes
# the same paths on the debug kernel. toptier-exchange (4.6 min there) too:
# test_toptier runs on the debug kernel (check-kselftest-toptier-debug in
# kernel-patches/kernel.mk) and its refusal and exchange cases take the
# charge, reservation, demotion and exchange paths.
VM_DEBUG_KERNEL  ?= $(BUILD)/kernel/debug/bzImage
VM_DEBUG_CASES   ?= lkdtm-warn topology trace-numab cow-shared-promote knob-hierarchy \
	kselftest toptier-demote-only
VM_DEBUG_TIMEOUT ?= 600
VM_SMP8_CASES    ?= anon-promote-full anon-promote-promote pid-inactive-promote \
	cow-shared-promote kselftest
VM_SMP8_TIMEOUT  ?= 480

.PHONY: check-vm-debug check-vm-smp8

# $(call vm_suite,TITLE,RESULT-PREFIX,CASES,KERNEL-FLAVOUR): build that
# kernel and the kselftest, run check-PREFIX-CASE for every case, list them.
define vm_suite
	$(Q)$(MAKE) --no-print-directory kernel KERNEL=$(4)
	$(Q)$(MAKE) --no-print-directory kselftest-numa
	$(Q)rc=0; $(MAKE) --no-print-directory -j1 -k $(addprefix check-$(2)-,$(3)) || rc=1; \
	echo "$(1):"; \
	for c in $(3); do \
		printf '  %-32s %s\n' "$(2)-$$c" "$$(cat $(BUILD)/results/$(2)-$$c.result 2>/dev/null)"; \
	done; exit $$rc
endef

check-vm-debug: vm-guest
	$(call vm_suite,VM tests on the debug kernel ($(VM_DEBUG_KERNEL)),vmdebug,$(VM_DEBUG_CASES),debug)

# trace-numab runs anon-promote-promote, file-ro-promote and
# pid-inactive-promote with the sched_skip_vma_numa event on, and checks
# each is traced with its promotion-only reason.
check-vmdebug-trace-numab: vm-guest
	$(Q)$(call run_test,vmdebug-trace-numab,env BUILD=$(BUILD) $(TOP)/tests/vm/run-vm \
		--timeout $(VM_DEBUG_TIMEOUT) --time-scale 3 --lru-gen $(VM_LRU_GEN) \
		--kernel $(VM_DEBUG_KERNEL) $(TOP)/tests/vm/trace-numab.sh)

# lkdtm-warn: the splat check bites on a real WARN(): LKDTM's WARNING crash
# type in the guest must make run-vm exit 126 (tests/vm/harness-test.sh
# --lkdtm; skips without LKDTM).
check-vmdebug-lkdtm-warn:
	$(Q)$(call run_test,vmdebug-lkdtm-warn,env BUILD=$(BUILD) HARNESS_TIMEOUT=$(VM_DEBUG_TIMEOUT) \
		$(TOP)/tests/vm/harness-test.sh --lkdtm $(VM_DEBUG_KERNEL))

check-vmdebug-%: vm-guest
	$(Q)$(call run_test,vmdebug-$*,env BUILD=$(BUILD) $(TOP)/tests/vm/run-vm \
		--timeout $(VM_DEBUG_TIMEOUT) --time-scale 3 --lru-gen $(VM_LRU_GEN) \
		--kernel $(VM_DEBUG_KERNEL) $*)

check-vm-smp8: vm-guest
	$(call vm_suite,VM tests with 8 vCPUs ($(VM_KERNEL)),vm8,$(VM_SMP8_CASES),patched)

check-vm8-%: vm-guest
	$(Q)$(call run_test,vm8-$*,env BUILD=$(BUILD) $(TOP)/tests/vm/run-vm \
		--timeout $(VM_SMP8_TIMEOUT) --time-scale 2 --smp 8 --lru-gen $(VM_LRU_GEN) \
		--kernel $(VM_KERNEL) $*)

# The reclaim-sensitive cases again on the patched kernel with MGLRU off
# (the classic two-list LRU: shrink_node_memcgs() instead of MGLRU's
# shrink_one()), results vmclassic-CASE. The series' ceiling demotion,
# top-tier min/low and exchange all go through reclaim; the promotion cases
# do not, and run with MGLRU on only. tests/vm/README.md gives each case's
# time and the reasons for the split.
#   toptier-exchange     the guest case: refusal at the ceiling, exchange
#   kselftest-toptier    test_toptier: ceilings, demotion, hard min, exchange
#   cgroup-selftests     the base tree's test_memcontrol only (memory.min/low,
#                        memory.high/max, memory.reclaim: the memcg reclaim
#                        paths the series changes; VM_CLASSIC_CGST_TESTS); the
#                        other six tests do not reclaim from the LRU
VM_CLASSIC_CASES ?= toptier-exchange kselftest-toptier cgroup-selftests
VM_CLASSIC_CGST_TESTS ?= test_memcontrol

.PHONY: check-vm-classic
check-vm-classic: vm-guest
	$(call vm_suite,VM tests with MGLRU off ($(VM_KERNEL)),vmclassic,$(VM_CLASSIC_CASES),patched)

check-vmclassic-kselftest-toptier: vm-guest
	$(Q)$(call run_test,vmclassic-kselftest-toptier,env BUILD=$(BUILD) $(TOP)/tests/vm/run-vm \
		--timeout 900 --lru-gen off --kernel $(VM_KERNEL) \
		$(TOP)/tests/kernel/kselftest-vm.sh test_toptier)

check-vmclassic-cgroup-selftests:
	$(Q)$(MAKE) --no-print-directory cgroup-selftests
	$(Q)$(call run_test,vmclassic-cgroup-selftests,env $(CGST_ENV) CGST_LRU_GEN=off \
		CGST_TESTS="$(VM_CLASSIC_CGST_TESTS)" CGST_KERNEL=$(VM_KERNEL) $(CGST_SH) check)

check-vmclassic-%: vm-guest
	$(Q)$(call run_test,vmclassic-$*,$(RUN_VM_BASE) --lru-gen off --kernel $(VM_KERNEL) $*)

# The whole VM suite with MGLRU off: every case of VM_CASES and test_toptier
# (not in make check, which runs VM_CLASSIC_CASES: about 6 minutes more; on
# 2026-12-07 all 21 passed at a30a8ff). The cases that need other node sizes
# get them (VM_LARGE_MEM, VM_DO_MEM below).
.PHONY: check-vm-classic-all
check-vm-classic-all: vm-guest
	$(call vm_suite,every VM test with MGLRU off ($(VM_KERNEL)),vmclassic,$(VM_CASES) kselftest-toptier,patched)
check-vmclassic-toptier-large-node: vm-guest
	$(Q)$(call run_test,vmclassic-toptier-large-node,$(RUN_VM_BASE) --lru-gen off $(VM_LARGE_MEM) \
		--kernel $(VM_KERNEL) toptier-large-node)
check-vmclassic-toptier-demote-only check-vmclassic-toptier-offline: check-vmclassic-toptier-%: vm-guest
	$(Q)$(call run_test,vmclassic-toptier-$*,$(RUN_VM_BASE) --lru-gen off $(VM_DO_MEM) \
		--kernel $(VM_KERNEL) toptier-$*)

# Cases that need other node sizes than run-vm's 256M + 256M.
# toptier-large-node: node 0 with more than 1 GiB free
# (pgdat_free_space_enough(), where NUMA balancing promotes without its hot
# threshold) and a slow node as large, so that memory.high leaves room for
# the workload; 58-72 s of VM time on the patched kernel.
# toptier-demote-only (30 s): the top tier at most 1/8 of the memory, so
# that the ceiling is far below the usage while memory.high is above it.
# On the debug kernel KASAN takes most of a 256M fast node: 1024M there.
VM_LARGE_MEM := --mem-fast 2304M --mem-slow 2304M
VM_DO_MEM    := --mem-slow 2304M

.PHONY: check-vm-toptier-large
check-vm-toptier-large: check-vm-toptier-large-node

check-vm-toptier-large-node: vm-guest
	$(Q)$(call run_test,vm-toptier-large-node,$(RUN_VM) $(VM_LARGE_MEM) --kernel $(VM_KERNEL) \
		toptier-large-node)

check-vm-toptier-demote-only: vm-guest
	$(Q)$(call run_test,vm-toptier-demote-only,$(RUN_VM) $(VM_DO_MEM) --kernel $(VM_KERNEL) \
		toptier-demote-only)

check-vm-toptier-offline: vm-guest
	$(Q)$(call run_test,vm-toptier-offline,$(RUN_VM) $(VM_DO_MEM) --kernel $(VM_KERNEL) \
		toptier-offline)

check-vmdebug-toptier-large-node: vm-guest
	$(Q)$(call run_test,vmdebug-toptier-large-node,env BUILD=$(BUILD) $(TOP)/tests/vm/run-vm \
		--timeout $(VM_DEBUG_TIMEOUT) --time-scale 3 --lru-gen $(VM_LRU_GEN) $(VM_LARGE_MEM) \
		--kernel $(VM_DEBUG_KERNEL) toptier-large-node)

check-vmdebug-toptier-demote-only: vm-guest
	$(Q)$(call run_test,vmdebug-toptier-demote-only,env BUILD=$(BUILD) $(TOP)/tests/vm/run-vm \
		--timeout $(VM_DEBUG_TIMEOUT) --time-scale 3 --lru-gen $(VM_LRU_GEN) \
		--mem-fast 1024M --mem-slow 7168M --kernel $(VM_DEBUG_KERNEL) toptier-demote-only)

vm-run: vm-guest
	$(RUN_VM) --kernel $(VM_KERNEL) $(VM_TEST)

vm-matrix: vm-guest
	$(Q)$(MAKE) --no-print-directory kernel KERNEL=stock
	$(Q)$(MAKE) --no-print-directory kernel KERNEL=patched
	$(Q)$(MAKE) --no-print-directory kselftest-numa
	$(Q)BUILD=$(BUILD) $(TOP)/tests/vm/matrix.sh --stock $(VM_STOCK_KERNEL) \
		--patched $(VM_KERNEL) --timeout $(VM_TIMEOUT) $(VM_CASES)

# The behaviour matrix, a measurement (not in make check): every
# kernel.numa_balancing mode x memory.numa_balancing value x VMA kind, one
# VM boot per mode, written to build/vm/behaviour-matrix.md. It uses the
# kernel as built (make kernel KERNEL=patched; VM_KERNEL=... for another).
VM_BM_TIMEOUT ?= 900

.PHONY: vm-behaviour-matrix
vm-behaviour-matrix: vm-guest
	$(Q)BUILD=$(BUILD) $(TOP)/tests/vm/behaviour-matrix.sh --kernel $(VM_KERNEL) \
		--timeout $(VM_BM_TIMEOUT)

# toptier-charge-cost, a measurement (not in make check): N threads (one per
# vCPU) map, touch and unmap 8 MB in a cgroup with a top-tier ceiling that
# is never reached, with cgroup2's memory_tiered_limits off and on in turn
# (5 rounds each); prints the ns per fault of each run and the on/off ratio
# (CHARGECOST-RATIO). Environment for the guest: VM_CC_ENV, e.g.
# VM_CC_ENV="--env TIERD_CHARGE_ITERS=128 --env TIERD_CHARGE_ROUNDS=8".
VM_CC_SMP     ?= 4
VM_CC_TIMEOUT ?= 900
VM_CC_ENV     ?=

.PHONY: vm-charge-cost
vm-charge-cost: vm-guest
	$(Q)env BUILD=$(BUILD) $(TOP)/tests/vm/run-vm --timeout $(VM_CC_TIMEOUT) \
		--smp $(VM_CC_SMP) $(VM_CC_ENV) --kernel $(VM_KERNEL) toptier-charge-cost

CHECK_TARGETS += check-vm check-vm-smp8 check-vm-debug check-vm-classic
CLEAN_FILES   += $(VM_DIR)
