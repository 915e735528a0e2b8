# controller/metrics/metrics.mk: tierd-metrics, the Prometheus exporter
# (included optionally by the top Makefile, before oci-hook.mk, whose
# check-hook also runs tests/hook/test-metrics.sh against the ASan build).
#
# Sources: controller/metrics/ (metrics-main.c, the program; metrics.c, the
# collection and the textfile writer), linked with $(BUILD)/lib/libshared.a
# (controller/shared/).
#
# Products:
#   $(BUILD)/bin/tierd-metrics         Prometheus textfile writer; static
#                                      libtier-internal.a like tierctl
#   $(BUILD)/test/tierd-metrics-asan   again, ASan+UBSan, for the tests
#
# Targets:
#   tierd-metrics      build $(BUILD)/bin/tierd-metrics (part of `make`)
#   install-metrics    binary and tierd-metrics.8

METRICS_BIN      := $(BUILD)/bin/tierd-metrics
METRICS_ASAN     := $(BUILD)/test/tierd-metrics-asan
METRICS_SRCS     := controller/metrics/metrics-main.c controller/metrics/metrics.c
METRICS_CPPFLAGS := $(LIBTIER_CFLAGS) $(SHARED_CFLAGS) -DTIERD_VERSION='"$(LIBTIER_VERSION)"'

METRICS_OBJS      := $(patsubst controller/metrics/%.c,$(BUILD)/obj/metrics/%.o,$(METRICS_SRCS))
METRICS_ASAN_OBJS := $(patsubst controller/metrics/%.c,$(BUILD)/obj/metrics-asan/%.o,$(METRICS_SRCS))

$(BUILD)/obj/metrics/%.o: controller/metrics/%.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) $(METRICS_CPPFLAGS) -c -o $@ $<

$(BUILD)/obj/metrics-asan/%.o: controller/metrics/%.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(LIBTIER_NOSAN_CFLAGS) $(LIBTIER_ASAN_FLAGS) $(DEPFLAGS) $(METRICS_CPPFLAGS) \
		-c -o $@ $<

-include $(METRICS_OBJS:.o=.d) $(METRICS_ASAN_OBJS:.o=.d)

$(METRICS_BIN): $(METRICS_OBJS) $(SHARED_A) $(LIBTIER_INTERNAL_A)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(METRICS_OBJS) $(SHARED_A) $(LIBTIER_INTERNAL_LIBS)

$(METRICS_ASAN): $(METRICS_ASAN_OBJS) $(SHARED_ASAN_A) $(LIBTIER_INTERNAL_ASAN_A)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(CC) $(LIBTIER_NOSAN_CFLAGS) $(LIBTIER_ASAN_FLAGS) -o $@ $(METRICS_ASAN_OBJS) \
		$(SHARED_ASAN_A) $(LIBTIER_INTERNAL_ASAN_LIBS)

.PHONY: tierd-metrics metrics-asan install-metrics
tierd-metrics: $(METRICS_BIN)
metrics-asan: $(METRICS_ASAN)

install-metrics: $(METRICS_BIN)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8
	$(INSTALL) -m 0755 $(METRICS_BIN) $(DESTDIR)$(BINDIR)/tierd-metrics
	$(INSTALL) -m 0644 man/tierd-metrics.8 $(DESTDIR)$(MANDIR)/man8/tierd-metrics.8

ALL_TARGETS     += tierd-metrics
INSTALL_TARGETS += install-metrics
CLEAN_FILES     += $(METRICS_BIN) $(METRICS_ASAN) $(BUILD)/obj/metrics $(BUILD)/obj/metrics-asan
