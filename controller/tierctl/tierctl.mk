# controller/tierctl/tierctl.mk: tierctl, its CLI tests, fuzzing of the policy parser.
#
# Sources: controller/tierctl/ (tierctl.c: main, global options, what the
# verbs share (tierctl.h); verbs.c: the verb table and its dispatcher;
# tierctl-*.c: the verbs, one file per group; json.c, its JSON writer;
# tierd-client.c, its D-Bus client of tierd), linked with
# $(BUILD)/lib/libshared.a (controller/shared/).
#
# Products:
#   $(BUILD)/bin/tierctl         linked statically against libtier-internal.a
#                                (the public API and lib/tier-internal.h), as
#                                kmod's tools link libkmod-internal: no ABI
#                                between the project's own programs and lib.
#   $(BUILD)/test/tierctl-asan   statically linked against libtier-internal-asan.a,
#                                ASan+UBSan; what the CLI tests run.
#
# Targets:
#   tierctl            build $(BUILD)/bin/tierctl (part of `make`)
#   check-cli          tests/cli/test-*.sh against the ASan tierctl
#   check-man          man pages render without groff warnings (tierctl.1,
#                      tierd.conf.5, tierd-metrics.8)
#   install-tierctl    binary, tierctl.1, tierd.conf.5, /etc/tierd/tierd.conf (kept
#                      if it exists) and the inert drop-in example
#   fuzz, fuzz-smoke   see tests/fuzz/fuzz.mk

TIERCTL_VERSION ?= $(LIBTIER_VERSION)

TIERCTL          := $(BUILD)/bin/tierctl
TIERCTL_ASAN     := $(BUILD)/test/tierctl-asan
TIERCTL_SRCS     := controller/tierctl/tierctl.c controller/tierctl/verbs.c \
	controller/tierctl/tierctl-check.c controller/tierctl/tierctl-explain.c \
	controller/tierctl/tierctl-apply.c controller/tierctl/tierctl-knob.c \
	controller/tierctl/tierctl-status.c controller/tierctl/tierctl-doctor.c \
	controller/tierctl/json.c \
	controller/tierctl/tierd-client.c
TIERCTL_CPPFLAGS := $(LIBTIER_CFLAGS) $(SHARED_CFLAGS) $(call pc_cflags,libsystemd) \
	-DTIERCTL_VERSION='"$(TIERCTL_VERSION)"'

TIERCTL_OBJS      := $(patsubst controller/tierctl/%.c,$(BUILD)/obj/tierctl/%.o,$(TIERCTL_SRCS))
TIERCTL_ASAN_OBJS := $(patsubst controller/tierctl/%.c,$(BUILD)/obj/tierctl-asan/%.o,$(TIERCTL_SRCS))

$(BUILD)/obj/tierctl/%.o: controller/tierctl/%.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) $(TIERCTL_CPPFLAGS) -c -o $@ $<

$(BUILD)/obj/tierctl-asan/%.o: controller/tierctl/%.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(LIBTIER_NOSAN_CFLAGS) $(LIBTIER_ASAN_FLAGS) $(DEPFLAGS) $(TIERCTL_CPPFLAGS) \
		-c -o $@ $<

-include $(TIERCTL_OBJS:.o=.d) $(TIERCTL_ASAN_OBJS:.o=.d)

$(TIERCTL): $(TIERCTL_OBJS) $(SHARED_A) $(LIBTIER_INTERNAL_A)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(TIERCTL_OBJS) $(SHARED_A) $(LIBTIER_INTERNAL_LIBS) \
		$(call pc_libs,libsystemd)

$(TIERCTL_ASAN): $(TIERCTL_ASAN_OBJS) $(SHARED_ASAN_A) $(LIBTIER_INTERNAL_ASAN_A)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(CC) $(LIBTIER_NOSAN_CFLAGS) $(LIBTIER_ASAN_FLAGS) -o $@ $(TIERCTL_ASAN_OBJS) \
		$(SHARED_ASAN_A) $(LIBTIER_INTERNAL_ASAN_LIBS) $(call pc_libs,libsystemd)

.PHONY: tierctl tierctl-asan check-cli check-man install-tierctl
tierctl: $(TIERCTL)
tierctl-asan: $(TIERCTL_ASAN)

# CLI integration tests: each tests/cli/test-*.sh builds a fake tree in a
# temp dir and runs $TIERCTL against it. Leak checking stays on; a failed
# sanitizer check makes tierctl exit non-zero, which the tests catch.
CLI_TESTS := $(sort $(wildcard tests/cli/test-*.sh))
# (recursive: TIERD, METRICS and HOOK, the other programs the cgroup-root
# test runs, WAITFOR and DEMO_LOAD (test-demo-react.sh), and check-cli's
# prerequisites on them and on the installable hook, come from fragments
# included later: controller/oci-hook/oci-hook.mk)
CLI_ENV    = TIERCTL=$(TIERCTL_ASAN) SRCDIR=$(TOP) BUILD=$(BUILD) \
	TIERD=$(TIERD_ASAN) METRICS=$(METRICS_ASAN) HOOK=$(HOOK_ASAN) \
	WAITFOR=$(TIERD_WAITFOR) DEMO_LOAD=$(DEMO_LOAD) \
	ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:exitcode=99 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98

check-cli: $(TIERCTL_ASAN)
	$(Q)rc=0; for t in $(CLI_TESTS); do \
		n=$$(basename $$t .sh); n=$${n#test-}; \
		$(call run_test,cli-$$n,env $(CLI_ENV) sh $(TOP)/$$t) || rc=1; \
	done; exit $$rc

# The man pages render without groff warnings.
check-man:
	$(Q)$(call run_test,man-lint,sh $(TOP)/tests/cli/man-lint.sh $(TOP)/man/tierctl.1 \
		$(TOP)/man/tierd.conf.5 $(TOP)/man/tierd-metrics.8)

install-tierctl: $(TIERCTL)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(SYSCONFDIR)/tierd/tierd.conf.d
	$(INSTALL) -m 0755 $(TIERCTL) $(DESTDIR)$(BINDIR)/tierctl
	$(INSTALL) -m 0644 man/tierctl.1 $(DESTDIR)$(MANDIR)/man1/tierctl.1
	$(INSTALL) -m 0644 man/tierd.conf.5 $(DESTDIR)$(MANDIR)/man5/tierd.conf.5
	@# Never overwrite a policy the admin has edited.
	$(INSTALL) -m 0644 etc/tierd.conf.d/50-kubernetes.conf.example \
		$(DESTDIR)$(SYSCONFDIR)/tierd/tierd.conf.d/
	$(Q)if [ -e $(DESTDIR)$(SYSCONFDIR)/tierd/tierd.conf ]; then \
		echo "  KEEP    $(DESTDIR)$(SYSCONFDIR)/tierd/tierd.conf (exists)"; \
	else \
		$(INSTALL) -m 0644 etc/tierd.conf $(DESTDIR)$(SYSCONFDIR)/tierd/tierd.conf; \
	fi

ALL_TARGETS        += tierctl
CHECK_UNIT_TARGETS += check-cli check-man
CHECK_TARGETS      += check-cli check-man
INSTALL_TARGETS    += install-tierctl
CLEAN_FILES        += $(BUILD)/bin/tierctl $(BUILD)/test/tierctl-asan $(BUILD)/obj/tierctl \
	$(BUILD)/obj/tierctl-asan

include tests/fuzz/fuzz.mk
