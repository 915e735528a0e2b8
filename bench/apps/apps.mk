# bench/apps/apps.mk: real applications (Debian's redis-server and memcached)
# in the two-tier VM, tiered per class and shared fairly (bench/apps/README.md).
#
#   make bench-apps      the three scenarios (place, noisy, bgsave) on the three
#                        setups (stock kernel without tierd, stock kernel + tierd
#                        on the damon backend, patched kernel + tierd on the
#                        knob backend with tier-aware limits); prints the tables
#                        (figures, not a test)
#   make check-apps-vm   short forms of place and noisy that assert outcomes
#                        (part of make check): on the patched kernel, and on
#                        the stock kernel when $(APPS_KERNEL_STOCK) exists
#
# $(BUILD)/apps/mcload is the memcached client and redis data generator the
# guest runs (static: it runs from the host's root inside the VM).

APPS_MCLOAD        := $(BUILD)/apps/mcload
APPS_KERNEL_PATCHED ?= $(BUILD)/kernel/patched/bzImage
APPS_KERNEL_STOCK  ?= $(BUILD)/kernel/stock/bzImage
APPS_RUN           := $(TOP)/tests/vm/apps/run-apps.sh

$(APPS_MCLOAD): bench/apps/mcload.c
	@mkdir -p $(@D) $(BUILD)/obj/dep
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) -O2 -g -std=gnu11 $(WARNINGS) -D_GNU_SOURCE $(DEPFLAGS_PROG) -o $@ $< -static

.PHONY: bench-apps bench-apps-tools check-apps-vm check-apps-vm-patched check-apps-vm-stock
bench-apps-tools: $(APPS_MCLOAD) $(TIERD) $(TIERCTL) $(TIERD_WAITFOR)

# BENCH_APPS_SCENARIOS / BENCH_APPS_SETUPS pick a subset; BENCH_APPS_OUT keeps
# the serial logs (default $(BUILD)/apps/bench-<date>).
bench-apps: bench-apps-tools
	$(Q)BUILD=$(BUILD) APPS_KERNEL_PATCHED=$(APPS_KERNEL_PATCHED) \
		APPS_KERNEL_STOCK=$(APPS_KERNEL_STOCK) $(TOP)/bench/apps/bench-apps.sh

# The short cases: the bench's VM and data sizes (bench-apps.sh) with a
# smaller redis in place and 32 KB values, a bound on each (an outcome is
# asserted, not how fast it came; the run stops once it is decided).
# noisy-none runs its whole bound: that the victim does not get there
# without tierd is the point.
#
# What counts as arrived is 90% (redis's bytes on the fast node; the
# victim's target), as the issue asks. Why 32 KB values and not the bench's
# 4000 bytes: under TCG redis serves ~750 GET/s, so with 4 KB values a
# uniformly read 24 MB set touches each page about once in 8-13 s, and NUMA
# balancing in tiering mode promotes a page only when its hinting fault
# comes within the hot threshold of the scan (1 s, adjusted up to 2 s; a
# node with more than 1 GiB free, pgdat_free_space_enough(), skips that
# test, and this VM's fast node never has it). Page by page such a cache is
# lukewarm, and the knob backend's redis crept from 86% (131 s) to 89.5%
# (400 s) and never to 90% (the bench keeps 4000 bytes and shows that tail).
# A real redis at 100,000 GET/s touches each page of such a set many times a
# second; 32 KB values give each page about one touch a second under TCG.
# Measured 2026-12-07 at load 11 (helpers' builds beside it), APPS_PCT=90:
#   patched/knob place: redis 90% after 80.0 s (92% at the end); off
#     memcached 0.3 of 30 MB fast
#   patched/knob noisy: victim 90% of its target 5.3 s after its placement
#     (98% best, Jain 1.000)
#   stock (Debian's binary)/damon place: 90% after 19.9 s; noisy: 90% of
#     target after 60.6 s
#   stock, no tierd, noisy: the victim's best 7% of its target in 180 s
#     (2 of 61 MB fast; the hogs at 52, 51, 39 MB against 40)
# The control without tierd on the stock kernel is in make check; the
# patched kernel's control runs by name (check-apps-vm-patched-noisy-none).
APPS_CHECK_PLACE_BOUND ?= 400
APPS_CHECK_PCT ?= 90
APPS_CHECK_NOISY_BOUND ?= 150
APPS_CHECK_VALUE_BYTES ?= 32000
APPS_CHECK_ENV = APPS_CHECK=1 APPS_PCT=$(APPS_CHECK_PCT) APPS_VALUE_BYTES=$(APPS_CHECK_VALUE_BYTES) APPS_VM_TIMEOUT=720 APPS_MEM_FAST=192M APPS_MEM_SLOW=256M \
	APPS_RESERVE=32M APPS_REDIS_MB=24 APPS_MC_MB=24 APPS_HOGS=3 APPS_HOG_MB=44 \
	APPS_VICTIM_HOT_MB=40 APPS_VICTIM_COLD_MB=8 APPS_PRE_SECS=8

# One target per case (make -k runs the others when one fails):
# apps-vm-KERNEL-CASE, CASE = place (tierd), noisy-tierd, noisy-none.
# $(1) kernel name, $(2) bzImage, $(3) tierd's backend on it, $(4) the target
# that builds that kernel
define apps_check_cases
.PHONY: check-apps-vm-$(1)-place check-apps-vm-$(1)-noisy-tierd check-apps-vm-$(1)-noisy-none
check-apps-vm-$(1)-place: bench-apps-tools $(4)
	$$(Q)$$(call run_test,apps-vm-$(1)-place,env BUILD=$$(BUILD) $$(APPS_CHECK_ENV) \
		APPS_DURATION=$$(APPS_CHECK_PLACE_BOUND) \
		$$(APPS_RUN) $(2) place $(3))
check-apps-vm-$(1)-noisy-tierd: bench-apps-tools $(4)
	$$(Q)$$(call run_test,apps-vm-$(1)-noisy-tierd,env BUILD=$$(BUILD) $$(APPS_CHECK_ENV) \
		APPS_DURATION=$$(APPS_CHECK_NOISY_BOUND) \
		$$(APPS_RUN) $(2) noisy $(3))
check-apps-vm-$(1)-noisy-none: bench-apps-tools $(4)
	$$(Q)$$(call run_test,apps-vm-$(1)-noisy-none,env BUILD=$$(BUILD) $$(APPS_CHECK_ENV) \
		APPS_DURATION=$$(APPS_CHECK_NOISY_BOUND) \
		$$(APPS_RUN) $(2) noisy none)
check-apps-vm-$(1): check-apps-vm-$(1)-place check-apps-vm-$(1)-noisy-tierd \
	check-apps-vm-$(1)-noisy-none
endef
$(eval $(call apps_check_cases,patched,$(APPS_KERNEL_PATCHED),knob,))
# make check's stock cases boot Debian's own kernel binary (kernel-debian);
# bench-apps keeps APPS_KERNEL_STOCK, the stock tree built in our config.
APPS_CHECK_KERNEL_STOCK ?= $(DEBIAN_KERNEL)
$(eval $(call apps_check_cases,stock,$(APPS_CHECK_KERNEL_STOCK),damon,kernel-debian))

# The control without tierd, the stock kernel alone, is in make check: with
# 4 KB values it once took the victim to 73% of its target (the 70% bar of
# the time; timing decides how far the kernel's own promotion gets), with
# 32 KB values at most 7% (2026-12-07).
check-apps-vm: check-apps-vm-patched-place check-apps-vm-patched-noisy-tierd \
	check-apps-vm-stock-place check-apps-vm-stock-noisy-tierd check-apps-vm-stock-noisy-none

CHECK_TARGETS += check-apps-vm
CLEAN_FILES   += $(APPS_MCLOAD)
