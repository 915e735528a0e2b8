# tierd: top-level Makefile.
#
#   make              build libtier, tierctl, tierd
#   make check-unit   fast unit tests (Check), under ASan/UBSan
#   make check        everything: deps, unit, integration, valgrind, VM tests
#   make demo         build the kernel and tools, boot the two-tier VM, show tiering
#   make kernel [KERNEL=stock|patched|debug]
#   make image        the OCI image the Kubernetes DaemonSet runs
#   make install DESTDIR=... PREFIX=/usr/local
#
# Each area adds its own rules in a fragment (lib/lib.mk, controller/shared/shared.mk,
# controller/tierctl/tierctl.mk, tests/tests.mk, kernel-patches/kernel.mk,
# tests/vm/vm.mk, bench/bench.mk, tests/kube/kube.mk, and one per program:
# controller/tierd/tierd.mk, controller/tierd/fair.mk,
# controller/metrics/metrics.mk, controller/oci-hook/oci-hook.mk) and registers them on the aggregate
# variables below. Which file makes which program: docs/architecture.md.

PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
SBINDIR     ?= $(PREFIX)/sbin
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
MANDIR      ?= $(PREFIX)/share/man
SYSCONFDIR  ?= /etc
UNITDIR     ?= /lib/systemd/system
# dbus-daemon reads only /usr/share and /etc, whatever PREFIX is.
DBUSPOLICYDIR ?= /usr/share/dbus-1/system.d
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR     ?=

O           ?= build
TOP         := $(abspath .)
BUILD       := $(abspath $(O))

CC          ?= cc
PKG_CONFIG  ?= pkg-config
INSTALL     ?= install

ifeq ($(V),1)
Q :=
else
Q := @
endif

WARNINGS := -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wvla -Wwrite-strings -Wpointer-arith \
	-Wundef -Wnull-dereference -Wno-unused-parameter \
	-Wno-missing-field-initializers -Werror=implicit-function-declaration

CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 $(WARNINGS) -fno-common -D_GNU_SOURCE
ifneq ($(SANITIZE),)
CFLAGS   += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
LDFLAGS  += -fsanitize=$(SANITIZE)
endif

# pkg-config is only consulted when something is actually built, so
# `make deps` works on a machine that has none of the -dev packages yet.
pc_cflags = $(shell $(PKG_CONFIG) --cflags $(1) 2>/dev/null)
pc_libs   = $(shell $(PKG_CONFIG) --libs $(1) 2>/dev/null)

# Header dependencies: every compile rule writes a .d file next to its object
# (-MMD -MP) and the fragments -include them, so touching a header rebuilds
# exactly its users. A rule that compiles a source straight into a program
# uses DEPFLAGS_PROG: its .d goes to $(BUILD)/obj/dep/, included below.
DEPFLAGS      = -MMD -MP
DEPFLAGS_PROG = -MMD -MP -MF $(BUILD)/obj/dep/$(notdir $@).d -MT $@

# Run one test program and record its verdict: $(call run_test,NAME,CMD)
run_test = $(TOP)/scripts/run-test.sh $(BUILD)/results $(1) $(2)

# Aggregates the fragments append to.
ALL_TARGETS        :=
CHECK_UNIT_TARGETS :=
CHECK_TARGETS      :=
INSTALL_TARGETS    :=
CLEAN_FILES        :=

.PHONY: all deps check check-unit check-vm check-integration demo install \
	clean distclean fuzz bench kernel help

all: real-all

include lib/lib.mk
include controller/shared/shared.mk
include controller/tierctl/tierctl.mk
include tests/tests.mk
include kernel-patches/kernel.mk
include tests/vm/vm.mk
include bench/bench.mk
-include controller/tierd/tierd.mk
-include controller/tierd/fair.mk
-include controller/metrics/metrics.mk
-include controller/oci-hook/oci-hook.mk
include bench/apps/apps.mk
include tests/kube/kube.mk
-include $(wildcard $(BUILD)/obj/dep/*.d)

real-all: $(ALL_TARGETS)

# Install every Debian package the build, tests and demo need (idempotent;
# only runs apt-get when something is missing).
deps:
	$(Q)scripts/deps.sh

# make -k TARGET, its stderr also kept in results/.make-stderr so that
# scripts/summary.sh counts a failed build step (a test that never ran, as
# when a harness does not compile) as a failure, not only failed tests.
make_k = { { $(MAKE) --no-print-directory -k $(1) || echo 1 >$(BUILD)/results/.make-failed; } \
	2>&1 1>&3 3>&- | tee $(BUILD)/results/.make-stderr >&2; } 3>&1; \
	[ ! -e $(BUILD)/results/.make-failed ]

check-unit:
	$(Q)rm -rf $(BUILD)/results && mkdir -p $(BUILD)/results && date +%s >$(BUILD)/results/.start
	$(Q)rc=0; $(call make_k,check-unit-all) || rc=1; \
	scripts/summary.sh $(BUILD)/results || rc=1; exit $$rc

.PHONY: check-unit-all
check-unit-all: $(CHECK_UNIT_TARGETS)

# The full run: unit tests, then integration, then the VM tests, then the
# Check summary of the unit suite again so the log ends with it.
#
# Meanwhile the two kernels the VM cases boot (patched, then debug) build in
# the background at nice 19, on the CPU the serial host tests leave idle;
# a VM case waits only for its own flavour (scripts/kernel.sh locks each
# object tree apart), so the patched cases run while debug builds; on a warm
# tree both are up to date in seconds. CHECK_PREBUILD= (empty) turns it off.
CHECK_PREBUILD ?= patched debug
check: deps
	$(Q)rm -rf $(BUILD)/results && mkdir -p $(BUILD)/results && date +%s >$(BUILD)/results/.start
	$(Q)rc=0; pb=; \
	if [ -n "$(CHECK_PREBUILD)" ]; then \
		echo "kernels $(CHECK_PREBUILD) build in the background (nice 19):" \
			"$(BUILD)/results/kernel-prebuild.log"; \
		( for k in $(CHECK_PREBUILD); do \
			nice -n 19 $(MAKE) --no-print-directory kernel KERNEL=$$k || exit 1; \
		done ) >$(BUILD)/results/kernel-prebuild.log 2>&1 & pb=$$!; \
	fi; \
	$(call make_k,check-all) || rc=1; \
	if [ -n "$$pb" ] && ! wait $$pb; then \
		echo "background kernel build failed: $(BUILD)/results/kernel-prebuild.log"; fi; \
	scripts/summary.sh $(BUILD)/results || rc=1; exit $$rc

# Order by the kernel a case needs, so that the background builds overlap
# the cases that need none of them: first what needs no kernel of ours
# (host tests, Debian's own binary, fetched in seconds), then the patched
# kernel's (the first background build), the debug kernel's last. Every
# name in CHECK_FIRST is a case of make check (or part of one: a case done
# early is not run again). Within a group, the order of CHECK_TARGETS.
CHECK_FIRST := $(CHECK_UNIT_TARGETS) check-lib-valgrind check-fuzz-hook-corpus check-kube-manifests \
	check-damon-vm check-damon-vm-budget check-damon-vm-hot check-damon-vm-share \
	check-damon-vm-pagecache-stock check-damon-vm-hotset-stock check-damon-vm-doctor-stock \
	check-apps-vm-stock-place check-apps-vm-stock-noisy-tierd check-apps-vm-stock-noisy-none
CHECK_LATE  := check-kselftest-toptier-debug check-vm-debug
.PHONY: check-all
check-all: $(CHECK_FIRST) $(filter-out $(CHECK_FIRST) $(CHECK_LATE),$(CHECK_TARGETS)) \
	$(filter $(CHECK_LATE),$(CHECK_TARGETS))

install: $(INSTALL_TARGETS)

clean:
	rm -rf $(BUILD)/obj $(BUILD)/results $(CLEAN_FILES)

distclean:
	rm -rf $(BUILD)

help:
	@sed -n '2,15p' Makefile | sed 's/^# \{0,1\}//'

# `make image`: the OCI image the Kubernetes DaemonSet runs (scripts/image.sh;
# docs/kubernetes.md). The manifest's image: must be $(TIERD_IMAGE).
TIERD_IMAGE ?= localhost/tierd:$(LIBTIER_VERSION)
IMAGE_DIR   := $(BUILD)/image
.PHONY: image
image: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(TOP)/scripts/image.sh $(TIERD_IMAGE) $(IMAGE_DIR) O=$(O)
