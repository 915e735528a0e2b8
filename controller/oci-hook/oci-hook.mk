# controller/oci-hook/oci-hook.mk: tierd-oci-hook, the OCI runtime hook, its
# tests (with those of tierd-metrics, from controller/metrics/metrics.mk),
# fuzzing, and the orchestration files (included optionally by the top
# Makefile, after metrics.mk).
#
# Sources: controller/oci-hook/ (oci-hook.c, the program; oci-parse.c, the
# parsers of the OCI state, config.json and cgroupsPath, which the unit test
# and the fuzz harnesses link alone), linked with $(BUILD)/lib/libshared.a
# (controller/shared/).
#
# Products:
#   $(BUILD)/bin/tierd-oci-hook        OCI createRuntime hook; libtier linked
#                                      statically (a hook must not depend on
#                                      where libtier.so is installed), json-c
#                                      shared
#   $(BUILD)/test/tierd-oci-hook-asan  again, ASan+UBSan, for the tests
#   $(BUILD)/test/test-hook-parse      Check unit test of the hook's parsers
#                                      (controller/oci-hook/oci-parse.c, linked)
#   $(BUILD)/etc/50-tierd.json         the hooks.d file with the install paths
#                                      of this make run (regenerated when
#                                      PREFIX, LIBEXECDIR or SYSCONFDIR change)
#   $(BUILD)/etc/51-tierd-class-C.json one per class in HOOK_CLASSES (CRI-O)
#
# Targets:
#   check-hook       tests/hook/test-*.sh (the hook and tierd-metrics) and
#                    test-hook-parse (ASan builds)
#   check-hook-vm    tests/hook/vm-hook.sh in the two-tier VM (patched kernel)
#   check-podman-vm  tests/hook/vm-podman.sh: podman (crun and runc) in the VM
#                    through the hooks.d file `make install-hook` puts in place,
#                    with the cgroupfs manager, then with systemd as the VM's
#                    init and podman's systemd manager
#   fuzz-hook        both libFuzzer harnesses of the hook (JSON; cgroupsPath
#                    and /proc), FUZZ_HOOK_TIME s each, one after the other
#   fuzz-hook-json, fuzz-hook-cgpath   one of them
#   check-fuzz-hook-corpus  both once over their seeds (deterministic; in check)
#   install-hook     binary, hooks.d JSON, libtier.3, tierd-oci-hook.8
#                    (tierd-metrics: install-metrics)

LIBEXECDIR   ?= $(PREFIX)/libexec
HOOKSDIR     ?= /usr/share/containers/oci/hooks.d
HOOK_LIBEXEC := $(LIBEXECDIR)/tierd

HOOK_PKGS     := json-c
HOOK_DEP_CFLAGS = $(call pc_cflags,$(HOOK_PKGS))
HOOK_DEP_LIBS   = $(call pc_libs,$(HOOK_PKGS))

HOOK_BIN         := $(BUILD)/bin/tierd-oci-hook
HOOK_ASAN        := $(BUILD)/test/tierd-oci-hook-asan
HOOK_PARSE_TEST  := $(BUILD)/test/test-hook-parse
HOOK_JSON        := $(BUILD)/etc/50-tierd.json

HOOK_SRCS     := controller/oci-hook/oci-hook.c controller/oci-hook/oci-parse.c
HOOK_CPPFLAGS := $(LIBTIER_CFLAGS) $(SHARED_CFLAGS) -I$(TOP)/controller/oci-hook \
	-DTIERD_VERSION='"$(LIBTIER_VERSION)"'

HOOK_OBJS      := $(patsubst controller/oci-hook/%.c,$(BUILD)/obj/hook/%.o,$(HOOK_SRCS))
HOOK_ASAN_OBJS := $(patsubst controller/oci-hook/%.c,$(BUILD)/obj/hook-asan/%.o,$(HOOK_SRCS))

$(BUILD)/obj/hook/%.o: controller/oci-hook/%.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) $(HOOK_CPPFLAGS) $(HOOK_DEP_CFLAGS) -c -o $@ $<

# The ASan build is the tests' (never installed): it has the test hook
# between the cgroup's check and the writes (TIERD_HOOK_TESTING, oci-hook.c).
$(BUILD)/obj/hook-asan/%.o: controller/oci-hook/%.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(LIBTIER_NOSAN_CFLAGS) $(LIBTIER_ASAN_FLAGS) $(DEPFLAGS) $(HOOK_CPPFLAGS) \
		-DTIERD_HOOK_TESTING $(HOOK_DEP_CFLAGS) -c -o $@ $<

-include $(HOOK_OBJS:.o=.d) $(HOOK_ASAN_OBJS:.o=.d)

$(HOOK_BIN): $(HOOK_OBJS) $(SHARED_A) $(LIBTIER_INTERNAL_A)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(HOOK_OBJS) $(SHARED_A) $(LIBTIER_INTERNAL_LIBS) \
		$(HOOK_DEP_LIBS)

$(HOOK_ASAN): $(HOOK_ASAN_OBJS) $(SHARED_ASAN_A) $(LIBTIER_INTERNAL_ASAN_A)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(CC) $(LIBTIER_NOSAN_CFLAGS) $(LIBTIER_ASAN_FLAGS) -o $@ $(HOOK_ASAN_OBJS) \
		$(SHARED_ASAN_A) $(LIBTIER_INTERNAL_ASAN_LIBS) $(HOOK_DEP_LIBS)

# The parser unit test links the parsers (oci-parse.o), not the hook.
$(HOOK_PARSE_TEST): tests/hook/test-hook-parse.c $(BUILD)/obj/hook-asan/oci-parse.o \
		$(SHARED_ASAN_A) $(LIBTIER_INTERNAL_ASAN_A)
	@mkdir -p $(@D) $(BUILD)/obj/dep
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(CC) $(LIBTIER_NOSAN_CFLAGS) $(LIBTIER_ASAN_FLAGS) $(DEPFLAGS_PROG) $(HOOK_CPPFLAGS) \
		$(HOOK_DEP_CFLAGS) $(call pc_cflags,check) -o $@ $< \
		$(BUILD)/obj/hook-asan/oci-parse.o $(SHARED_ASAN_A) \
		$(LIBTIER_INTERNAL_ASAN_LIBS) $(HOOK_DEP_LIBS) $(call pc_libs,check)

# One hooks.d file per class for CRI-O, which matches "when" against the
# pod's annotations but passes the hook only the container's: the file that
# matched tells the hook the class (--class). make install HOOK_CLASSES="a b"
HOOK_CLASSES ?=
HOOK_CLASS_JSON = $(foreach c,$(HOOK_CLASSES),$(BUILD)/etc/51-tierd-class-$(c).json)

# The JSON files name the installed hook: they depend on the install paths
# as given to this make run (make; make install PREFIX=/usr must not ship the
# /usr/local path of the first run), through a file that changes only when
# the paths do.
HOOK_PATHS := $(BUILD)/etc/hook-paths
HOOK_PATHS_TEXT = $(HOOK_LIBEXEC)/tierd-oci-hook $(SYSCONFDIR)

.PHONY: hook-paths-check
$(HOOK_PATHS): hook-paths-check
	@mkdir -p $(@D)
	$(Q)printf '%s\n' '$(HOOK_PATHS_TEXT)' | cmp -s - $@ 2>/dev/null || \
		printf '%s\n' '$(HOOK_PATHS_TEXT)' >$@

$(BUILD)/etc/51-tierd-class-%.json: etc/oci-hooks.d/50-tierd-class.json.in $(HOOK_PATHS)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  GEN     $@")
	$(Q)sed -e 's|@HOOK_PATH@|$(HOOK_LIBEXEC)/tierd-oci-hook|' \
		-e 's|@SYSCONFDIR@|$(SYSCONFDIR)|' -e 's|@CLASS@|$*|g' $(filter %.in,$^) >$@

$(HOOK_JSON): etc/oci-hooks.d/50-tierd.json.in $(HOOK_PATHS)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  GEN     $@")
	$(Q)sed -e 's|@HOOK_PATH@|$(HOOK_LIBEXEC)/tierd-oci-hook|' \
		-e 's|@SYSCONFDIR@|$(SYSCONFDIR)|' $(filter %.in,$^) >$@

.PHONY: tierd-oci-hook hook-asan check-hook check-hook-vm check-podman-vm fuzz-hook \
	fuzz-hook-build install-hook
tierd-oci-hook: $(HOOK_BIN) $(HOOK_JSON)
hook-asan: $(HOOK_ASAN) $(METRICS_ASAN) $(HOOK_PARSE_TEST)

# Each tests/hook/test-*.sh is one result (hook-NAME); the parser unit test
# is hook-parse. Leak checking stays on: a sanitizer report makes the
# binary exit 98/99, which the scripts catch.
HOOK_TESTS := $(sort $(wildcard tests/hook/test-*.sh))
HOOK_ENV   := HOOK=$(HOOK_ASAN) METRICS=$(METRICS_ASAN) TIERCTL=$(TIERCTL_ASAN) SRCDIR=$(TOP) \
	ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:exitcode=99 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98

# test-annotation-record.sh reads what the hook recorded with tierctl.
check-hook: hook-asan $(TIERCTL_ASAN)
	$(Q)rc=0; \
	$(call run_test,hook-parse,env SRCDIR=$(TOP) ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 $(HOOK_PARSE_TEST)) || rc=1; \
	for t in $(HOOK_TESTS); do \
		n=$$(basename $$t .sh); n=$${n#test-}; \
		$(call run_test,hook-$$n,env $(HOOK_ENV) sh $(TOP)/$$t) || rc=1; \
	done; exit $$rc

# The hook (and tierd-metrics) against real cgroups in the two-tier VM, by
# hand and from runc. The guest runs the unsanitized binaries from
# build/bin (the host's / is the guest's root; keep O= out of /tmp, which
# is a tmpfs in the guest). Skips (77) when the patched kernel has not been
# built; under `make check`, check-vm builds it first.
HOOK_VM_KERNEL ?= $(BUILD)/kernel/patched/bzImage
check-hook-vm: $(HOOK_BIN) $(METRICS_BIN)
	$(Q)if [ -r $(HOOK_VM_KERNEL) ]; then \
		$(call run_test,hook-vm,$(TOP)/tests/vm/run-vm \
			--timeout 180 --kernel $(HOOK_VM_KERNEL) $(TOP)/tests/hook/vm-hook.sh \
			$(HOOK_BIN)); \
	else \
		$(call run_test,hook-vm,sh -c 'echo "SKIP: no patched kernel at $(HOOK_VM_KERNEL) (make kernel KERNEL=patched)"; exit 77'); \
	fi

# podman end to end: install-hook into a DESTDIR (default PREFIX, as a user
# would run it), which the guest copies over its read-only root.
PODMAN_DEST := $(BUILD)/podman-dest
check-podman-vm: $(HOOK_BIN) $(HOOK_JSON) $(TIERD)
	$(Q)rm -rf $(PODMAN_DEST)
	$(Q)$(MAKE) --no-print-directory -s install-hook DESTDIR=$(PODMAN_DEST) >/dev/null
	$(Q)rc=0; for mgr in cgroupfs systemd; do \
		if [ ! -r $(HOOK_VM_KERNEL) ]; then \
			$(call run_test,podman-vm-$$mgr,sh -c 'echo "SKIP: no patched kernel at $(HOOK_VM_KERNEL) (make kernel KERNEL=patched)"; exit 77'); \
			continue; \
		fi; \
		sd=; [ $$mgr = systemd ] && sd=--systemd; \
		$(call run_test,podman-vm-$$mgr,$(TOP)/tests/vm/run-vm $$sd \
			--timeout 600 --mem-fast 512M --kernel $(HOOK_VM_KERNEL) \
			$(TOP)/tests/hook/vm-podman.sh $(PODMAN_DEST) $(TIERD) $$mgr) || rc=1; \
	done; exit $$rc

# libFuzzer over the hook's parsers, two harnesses:
#   fuzz-hook-json    the OCI state and config.json (oci_state_parse,
#                     oci_config_parse) and the cgroupsPath found in it
#   fuzz-hook-cgpath  linux.cgroupsPath resolution (slice expansion, unit
#                     name limits), /proc/PID/cgroup and their matching
# compiled with clang against libtier's fuzz objects (tests/fuzz/fuzz.mk).
# Seeds in tests/fuzz/hook/{json,cgpath}; new inputs go to
# $(BUILD)/fuzz-hook/NAME/corpus, crashes to $(BUILD)/fuzz-hook/NAME/artifacts/.
FUZZ_HOOK_TIME    ?= 600
FUZZ_HOOK_DIR     := $(BUILD)/fuzz-hook
FUZZ_HOOK_CC      ?= $(FUZZ_CC)
FUZZ_HOOK_NAMES   := json cgpath
FUZZ_HOOK_BINS    := $(foreach n,$(FUZZ_HOOK_NAMES),$(FUZZ_HOOK_DIR)/fuzz-hook-$(n))
FUZZ_HOOK_OBJS    := $(BUILD)/obj/hook-fuzz/oci-parse.o

$(BUILD)/obj/hook-fuzz/%.o: controller/oci-hook/%.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(FUZZ_HOOK_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(DEPFLAGS) $(HOOK_CPPFLAGS) \
		$(HOOK_DEP_CFLAGS) -c -o $@ $<

-include $(FUZZ_HOOK_OBJS:.o=.d)

$(FUZZ_HOOK_DIR)/fuzz-hook-%: tests/fuzz/hook/fuzz_hook_%.c $(FUZZ_HOOK_OBJS) $(FUZZ_LIB_OBJS)
	@mkdir -p $(@D) $(BUILD)/obj/dep
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(FUZZ_HOOK_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(DEPFLAGS_PROG) $(HOOK_CPPFLAGS) \
		$(HOOK_DEP_CFLAGS) -o $@ $< $(FUZZ_HOOK_OBJS) $(FUZZ_LIB_OBJS) $(LIBTIER_DEP_LIBS) \
		$(HOOK_DEP_LIBS)

# (named here so make keeps it: it is no intermediate file)
$(FUZZ_HOOK_BINS): $(FUZZ_HOOK_OBJS)

# $(call fuzz_hook_run,NAME,EXTRA-ARGS)
fuzz_hook_run = mkdir -p $(FUZZ_HOOK_DIR)/$(1)/corpus $(FUZZ_HOOK_DIR)/$(1)/artifacts && \
	ASAN_OPTIONS=detect_leaks=1 $(FUZZ_HOOK_DIR)/fuzz-hook-$(1) -max_len=8192 -timeout=10 \
	-rss_limit_mb=2048 -dict=$(TOP)/tests/fuzz/hook/hook.dict \
	-artifact_prefix=$(FUZZ_HOOK_DIR)/$(1)/artifacts/ -print_final_stats=1 $(2) \
	$(FUZZ_HOOK_DIR)/$(1)/corpus $(TOP)/tests/fuzz/hook/$(1)

.PHONY: fuzz-hook-json fuzz-hook-cgpath check-fuzz-hook-corpus
fuzz-hook-build: $(FUZZ_HOOK_BINS)

fuzz-hook-json fuzz-hook-cgpath: fuzz-hook-%: $(FUZZ_HOOK_DIR)/fuzz-hook-%
	$(Q)$(call fuzz_hook_run,$*,-max_total_time=$(FUZZ_HOOK_TIME))

fuzz-hook: $(FUZZ_HOOK_BINS)
	$(Q)$(call fuzz_hook_run,json,-max_total_time=$(FUZZ_HOOK_TIME)) && \
	$(call fuzz_hook_run,cgpath,-max_total_time=$(FUZZ_HOOK_TIME))

# Every seed once, without mutation. Skipped without clang.
ifneq ($(shell command -v $(FUZZ_HOOK_CC) 2>/dev/null),)
check-fuzz-hook-corpus: $(FUZZ_HOOK_BINS)
	$(Q)rc=0; for n in $(FUZZ_HOOK_NAMES); do \
		$(call run_test,fuzz-hook-$$n,env ASAN_OPTIONS=detect_leaks=1 \
			$(FUZZ_HOOK_DIR)/fuzz-hook-$$n $(TOP)/tests/fuzz/hook/$$n/*) || rc=1; \
	done; exit $$rc
else
check-fuzz-hook-corpus:
	$(Q)$(call run_test,fuzz-hook-corpus,sh -c 'echo "$(FUZZ_HOOK_CC) not found"; exit 77')
endif

install-hook: $(HOOK_BIN) $(HOOK_JSON) $(HOOK_CLASS_JSON)
	$(INSTALL) -d $(DESTDIR)$(HOOK_LIBEXEC) $(DESTDIR)$(HOOKSDIR) \
		$(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man8
	$(INSTALL) -m 0755 $(HOOK_BIN) $(DESTDIR)$(HOOK_LIBEXEC)/tierd-oci-hook
	$(INSTALL) -m 0644 $(HOOK_JSON) $(DESTDIR)$(HOOKSDIR)/50-tierd.json
	$(Q)for f in $(HOOK_CLASS_JSON); do \
		$(INSTALL) -m 0644 $$f $(DESTDIR)$(HOOKSDIR)/ || exit 1; done
	$(INSTALL) -m 0644 man/libtier.3 $(DESTDIR)$(MANDIR)/man3/libtier.3
	$(INSTALL) -m 0644 man/tierd-oci-hook.8 $(DESTDIR)$(MANDIR)/man8/tierd-oci-hook.8

# tests/cli/test-cgroup-root.sh runs every program (CLI_ENV in tierctl.mk),
# tests/cli/test-install-hook.sh installs the hook, test-demo-react.sh
# runs the demo's reaction timer: check-cli needs them built (named here,
# where all of them are defined).
check-cli: $(TIERD_ASAN) $(METRICS_ASAN) $(HOOK_ASAN) $(HOOK_BIN) $(TIERD_WAITFOR) $(DEMO_LOAD)

ALL_TARGETS        += tierd-oci-hook
CHECK_UNIT_TARGETS += check-hook
CHECK_TARGETS      += check-hook check-hook-vm check-podman-vm check-fuzz-hook-corpus
INSTALL_TARGETS    += install-hook
CLEAN_FILES        += $(HOOK_BIN) $(HOOK_ASAN) \
	$(HOOK_PARSE_TEST) $(HOOK_JSON) $(HOOK_PATHS) $(BUILD)/obj/hook $(BUILD)/obj/hook-asan \
	$(BUILD)/obj/hook-fuzz $(FUZZ_HOOK_BINS)
