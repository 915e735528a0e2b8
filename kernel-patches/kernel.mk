# kernel-patches/kernel.mk: the test kernel (Debian linux-source-6.12 + the
# tierd series in kernel-patches/), built by scripts/kernel.sh.
#
#   make kernel [KERNEL=patched|stock]  -> build/kernel/$(KERNEL)/bzImage
#   make kernel KERNEL=debian           Debian's own kernel binary (not built: fetched,
#                                       scripts/debian-kernel.sh) -> build/kernel/debian/
#                                       vmlinuz + initrd.gz, for make check's stock cases
#   make kselftest-numa                 -> build/kernel/kselftest/test_numa_balancing
#   make kernel-checkpatch              checkpatch.pl --strict on every patch
#   make kernel-build-each              build each commit of the series in turn, in the
#                                       test config, with MEMCG=n, with NUMA_BALANCING=n and
#                                       with NUMA=n (KERNEL_BUILD_EACH="patched nomemcg
#                                       nonumab nonuma";
#                                       KERNEL_BUILD_EACH_SCOPE=dirs: only mm/, kernel/sched/,
#                                       kernel/cgroup/ at each commit, see scripts/kernel.sh;
#                                       KERNEL_BUILD_EACH_FROM=N: from the Nth commit on;
#                                       KERNEL_BUILD_EACH_TO=N: up to the Nth)
#   make kernel-export                  build/kernel/src-patched commits -> kernel-patches/
#   make kernel-clean                   remove build/kernel (sources, objects, images)

KERNEL     ?= patched
KERNEL_SH  := $(TOP)/scripts/kernel.sh
KERNEL_ENV := BUILD=$(BUILD)

.PHONY: kernel kselftest-numa kernel-checkpatch kernel-build-each kernel-export \
	kernel-clean check-kernel-checkpatch kselftests check-kselftest-toptier \
	check-kselftest-toptier-debug

kernel:
ifeq ($(KERNEL),debian)
	$(Q)$(KERNEL_ENV) $(TOP)/scripts/debian-kernel.sh
else
	$(Q)$(KERNEL_ENV) $(KERNEL_SH) build $(KERNEL)
endif

# Debian's 6.12 as Debian ships it (linux-image-*-amd64-unsigned at the
# version kernel-patches/BASE names, Debian's config: MGLRU, DAMON, NUMA
# balancing on), fetched and unpacked, never installed: the kernel the
# stock-kernel cases of make check boot (the DAMON backend, the real
# applications). Seconds, where building the stock tree cold takes 9-13
# minutes on 2 cores.
DEBIAN_KERNEL := $(BUILD)/kernel/debian/vmlinuz
.PHONY: kernel-debian
kernel-debian:
	$(Q)$(KERNEL_ENV) $(TOP)/scripts/debian-kernel.sh

# Debian's 6.12 source without the series, built in the test config (the
# same config as the patched kernel: a like-for-like baseline for the
# benchmarks, bench-damon and bench-apps, and for vm-matrix): from ccache it
# takes a minute or two, cold 9-13 minutes.
.PHONY: kernel-stock
kernel-stock:
	$(Q)$(KERNEL_ENV) $(KERNEL_SH) build stock

# Builds every kselftest the series adds (test_numa_balancing, test_toptier).
kselftest-numa kselftests:
	$(Q)$(KERNEL_ENV) $(KERNEL_SH) kselftest

kernel-checkpatch:
	$(Q)$(KERNEL_ENV) $(KERNEL_SH) checkpatch

# Every patch must build in the test config, with CONFIG_MEMCG=n, with
# CONFIG_NUMA_BALANCING=n and with CONFIG_NUMA=n but CONFIG_MEMCG=y
# (tierd-nomemcg.config, tierd-nonumab.config, tierd-nonuma.config).
KERNEL_BUILD_EACH ?= patched nomemcg nonumab nonuma

kernel-build-each:
	$(Q)for f in $(KERNEL_BUILD_EACH); do \
		$(KERNEL_ENV) $(KERNEL_SH) build-each $$f || exit 1; \
	done

kernel-export:
	$(Q)$(KERNEL_ENV) $(KERNEL_SH) export

kernel-clean:
	rm -rf $(BUILD)/kernel

check-kernel-checkpatch:
	$(Q)$(call run_test,kernel-checkpatch,env $(KERNEL_ENV) $(KERNEL_SH) checkpatch)

# The tier-aware limits kselftest in the two-tier VM (test_numa_balancing
# runs as the vm-kselftest case of tests/vm), and its migration case again
# in a VM with a second top-tier node (run-vm --mem-fast2: node 2, memory
# only, in node 0's tier) for the move within the top tier. Not the whole
# test there: a larger top tier leaves test_toptier_refusal no room.
check-kselftest-toptier:
	$(Q)$(MAKE) --no-print-directory kernel KERNEL=patched
	$(Q)$(MAKE) --no-print-directory kselftests
	$(Q)$(call run_test,vm-kselftest-toptier,env BUILD=$(BUILD) $(TOP)/tests/vm/run-vm \
		--timeout 900 --kernel $(BUILD)/kernel/patched/bzImage \
		$(TOP)/tests/kernel/kselftest-vm.sh test_toptier)
	$(Q)$(call run_test,vm-kselftest-toptier-fast2,env BUILD=$(BUILD) $(TOP)/tests/vm/run-vm \
		--timeout 300 --mem-fast2 128M --kernel $(BUILD)/kernel/patched/bzImage \
		$(TOP)/tests/kernel/kselftest-vm.sh test_toptier test_toptier_exact_migrate)

# The same on the debug kernel (lockdep, KASAN, DEBUG_VM): the charge,
# migration, reservation and demotion paths of patches 10-15 under it.
check-kselftest-toptier-debug:
	$(Q)$(MAKE) --no-print-directory kernel KERNEL=debug
	$(Q)$(MAKE) --no-print-directory kselftests
	$(Q)$(call run_test,vmdebug-kselftest-toptier,env BUILD=$(BUILD) $(TOP)/tests/vm/run-vm \
		--timeout 1200 --time-scale 3 --kernel $(BUILD)/kernel/debug/bzImage \
		$(TOP)/tests/kernel/kselftest-vm.sh test_toptier)

CHECK_TARGETS += check-kernel-checkpatch check-kselftest-toptier check-kselftest-toptier-debug

include tests/kernel/cgroup-selftests.mk
