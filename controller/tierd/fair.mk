# controller/tierd/fair.mk: fair shares of the fast tier (issue 5, controller part).
#
# Products:
#   $(BUILD)/tests/test-fair-unit   Check suite of controller/tierd/tierd-fair.c
#                                   (ASan+UBSan, static libtier-internal-asan.a)
#   $(BUILD)/fair/fair-load         the VM experiment's workload (static)
#
# Targets:
#   check-fair-unit   the pure rebalancer and one round on a fake tree
#                     (also in check-unit)
#   check-fair-consistency
#                     tests/fair/host-consistency.sh: one fake host tree;
#                     tierd (ListCgroups), tierctl --no-daemon status and
#                     tierd-metrics report the same targets (ASan builds; also
#                     in check-unit).  FAIR_CONSISTENCY_ENV overrides the
#                     binaries (TIERD=, TIERCTL=, METRICS=) to try others
#   check-fair-vm     tests/fair/: three workloads, hogs first, then a late
#                     one, in the two-tier VM with tierd; asserts the late one
#                     reaches >= 80% of its target (skips without qemu or a
#                     bzImage); once enforcing with the tier-aware limits
#                     (fair-vm), once with the promotion switch
#                     (fair-vm-promotion); and with systemd as init, units'
#                     MemoryHigh= through SetUnitProperties (fair-vm-systemd)
#   bench-fair        the same experiment without and with tierd, printed
#                     side by side (bench/fair/)
#
# Variables: FAIR_VM_KERNEL (default: build/kernel/fair/bzImage, the kernel
# with tier-aware limits, else build/kernel/patched/bzImage), FAIR_VM_TIMEOUT,
# FAIR_VM_SMP (vCPUs of the VM, default run-vm's 2; read from the
# environment by tests/fair/run-fair-vm.sh, e.g. make bench-fair
# FAIR_VM_SMP=8).

FAIR_SRCS := controller/tierd/tierd-fair.c

FAIR_UNIT      := $(BUILD)/tests/test-fair-unit
FAIR_UNIT_SRCS := tests/unit-fair/test-fair-decide.c tests/unit/fixture.c $(FAIR_SRCS)
FAIR_UNIT_OBJS := $(patsubst %.c,$(BUILD)/obj/fair-asan/%.o,$(FAIR_UNIT_SRCS))
FAIR_UNIT_CFLAGS = $(LIBTIER_CFLAGS) -I$(TOP)/controller/tierd -I$(TOP)/tests/unit \
	$(call pc_cflags,check)

$(BUILD)/obj/fair-asan/%.o: %.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(LIBTIER_NOSAN_CFLAGS) $(LIBTIER_ASAN_FLAGS) $(DEPFLAGS) $(FAIR_UNIT_CFLAGS) \
		$(if $(filter tests/%,$<),-Wno-missing-prototypes) -c -o $@ $<

-include $(FAIR_UNIT_OBJS:.o=.d)

$(FAIR_UNIT): $(FAIR_UNIT_OBJS) $(LIBTIER_INTERNAL_ASAN_A)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(CC) $(LIBTIER_NOSAN_CFLAGS) $(LIBTIER_ASAN_FLAGS) -o $@ $(FAIR_UNIT_OBJS) \
		$(LIBTIER_INTERNAL_ASAN_LIBS) $(call pc_libs,check)

.PHONY: check-fair-unit check-fair-consistency check-fair-vm bench-fair fair-load
# metrics-asan: a phony name, as metrics.mk (and $(METRICS_ASAN)) come after this file.
check-fair-consistency: $(TIERD_ASAN) $(TIERCTL_ASAN) $(TIERD_WAITFOR) metrics-asan
	$(Q)$(call run_test,fair-consistency,env TIERD=$(TIERD_ASAN) TIERCTL=$(TIERCTL_ASAN) \
		METRICS=$(METRICS_ASAN) WAITFOR=$(TIERD_WAITFOR) SRCDIR=$(TOP) BUILD=$(BUILD) \
		ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:exitcode=99 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98 \
		$(FAIR_CONSISTENCY_ENV) sh $(TOP)/tests/fair/host-consistency.sh)

check-fair-unit: $(FAIR_UNIT)
	$(Q)$(call run_test,fair-unit,env $(CK_ENV) ASAN_OPTIONS=abort_on_error=0:detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 $(FAIR_UNIT))

# The workload runs inside the VM from the host's root: static, plain.
FAIR_LOAD := $(BUILD)/fair/fair-load
$(FAIR_LOAD): tests/fair/fair-load.c
	@mkdir -p $(@D) $(BUILD)/obj/dep
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) -O2 -g -std=gnu11 $(WARNINGS) -D_GNU_SOURCE $(DEPFLAGS_PROG) -o $@ $< -static
fair-load: $(FAIR_LOAD)

FAIR_VM_KERNEL ?= $(firstword $(wildcard $(BUILD)/kernel/fair/bzImage) \
	$(BUILD)/kernel/patched/bzImage)
FAIR_VM_TIMEOUT ?= 300
# FAIR_TIERD: the tierd binary the VM runs (default build/bin/tierd).
FAIR_TIERD_BIN = $(or $(FAIR_TIERD),$(TIERD))
FAIR_ENV = BUILD=$(BUILD) FAIR_VM_KERNEL=$(FAIR_VM_KERNEL) FAIR_VM_TIMEOUT=$(FAIR_VM_TIMEOUT) \
	FAIR_TIERD=$(FAIR_TIERD_BIN)

# Three runs: tierd with the tier-aware limits where the kernel has them, with
# the promotion switch (memory_tiered_limits left off), and with systemd as
# init (MemoryHigh= of transient units through SetUnitProperties).
check-fair-vm: $(FAIR_LOAD) $(TIERD) $(TIERCTL) $(TIERD_WAITFOR)
	$(Q)rc=0; \
	$(call run_test,fair-vm,env $(FAIR_ENV) sh $(TOP)/tests/fair/run-fair-vm.sh with-tierd) || rc=1; \
	$(call run_test,fair-vm-promotion,env $(FAIR_ENV) sh $(TOP)/tests/fair/run-fair-vm.sh \
		with-tierd-promotion) || rc=1; \
	$(call run_test,fair-vm-systemd,env BUILD=$(BUILD) TIERD_VM_KERNEL=$(FAIR_VM_KERNEL) \
		DAEMON_VM_TIMEOUT=$(FAIR_VM_TIMEOUT) sh $(TOP)/tests/daemon/run-in-vm.sh \
		$(TOP)/tests/fair/vm-systemd-fair.sh $(FAIR_TIERD_BIN)) || rc=1; \
	exit $$rc

bench-fair: $(FAIR_LOAD) $(TIERD) $(TIERCTL) $(TIERD_WAITFOR)
	$(Q)env $(FAIR_ENV) sh $(TOP)/bench/fair/bench-fair.sh

CHECK_UNIT_TARGETS += check-fair-unit check-fair-consistency
CHECK_TARGETS      += check-fair-unit check-fair-consistency check-fair-vm
CLEAN_FILES        += $(FAIR_UNIT) $(BUILD)/obj/fair-asan $(BUILD)/fair
