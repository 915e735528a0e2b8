# tests/tests.mk: libtier unit tests (Check).
#
#   check-lib-unit      the suite against libtier-internal-asan.a, built with ASan/UBSan
#   check-lib-valgrind  the suite against libtier-internal-plain.a under valgrind, CK_FORK=no
#
# Both run through $(call run_test,...) and print Check's summary line.

# controller/shared/escape.c is not libtier, but its escaping is tested here
# too: the suite links libshared (controller/shared/shared.mk).
# So is tierd's table of managed cgroups (controller/tierd/tierd-table.c, pure:
# libtier alone), for the hash-flooding test (test-hash.c).
LIBTIER_TEST_SRCS := $(wildcard tests/unit/*.c) controller/tierd/tierd-table.c
LIBTIER_TEST_CFLAGS = $(LIBTIER_CFLAGS) $(SHARED_CFLAGS) -I$(TOP)/controller/tierd \
	$(call pc_cflags,check) -Wno-missing-prototypes
LIBTIER_TEST_LIBS = $(call pc_libs,check)

LIBTIER_TEST_ASAN      := $(BUILD)/tests/test-libtier-asan
LIBTIER_TEST_PLAIN     := $(BUILD)/tests/test-libtier
LIBTIER_TEST_ASAN_OBJS := $(patsubst %.c,$(BUILD)/obj/tests-asan/%.o,$(LIBTIER_TEST_SRCS))
LIBTIER_TEST_PLAIN_OBJS := $(patsubst %.c,$(BUILD)/obj/tests-plain/%.o,$(LIBTIER_TEST_SRCS))

$(BUILD)/obj/tests-asan/%.o: %.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(LIBTIER_NOSAN_CFLAGS) $(LIBTIER_ASAN_FLAGS) $(DEPFLAGS) $(LIBTIER_TEST_CFLAGS) \
		-c -o $@ $<

$(BUILD)/obj/tests-plain/%.o: %.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(LIBTIER_PLAIN_CFLAGS) $(DEPFLAGS) $(LIBTIER_TEST_CFLAGS) -c -o $@ $<

-include $(LIBTIER_TEST_ASAN_OBJS:.o=.d) $(LIBTIER_TEST_PLAIN_OBJS:.o=.d)

$(LIBTIER_TEST_ASAN): $(LIBTIER_TEST_ASAN_OBJS) $(SHARED_ASAN_A) $(LIBTIER_INTERNAL_ASAN_A)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(CC) $(LIBTIER_NOSAN_CFLAGS) $(LIBTIER_ASAN_FLAGS) $(filter-out -fsanitize=%,$(LDFLAGS)) \
		-o $@ $(LIBTIER_TEST_ASAN_OBJS) $(SHARED_ASAN_A) $(LIBTIER_INTERNAL_ASAN_LIBS) \
		$(LIBTIER_TEST_LIBS)

$(LIBTIER_TEST_PLAIN): $(LIBTIER_TEST_PLAIN_OBJS) $(SHARED_PLAIN_A) $(LIBTIER_INTERNAL_PLAIN_A)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(CC) $(LIBTIER_PLAIN_CFLAGS) $(filter-out -fsanitize=%,$(LDFLAGS)) \
		-o $@ $(LIBTIER_TEST_PLAIN_OBJS) $(SHARED_PLAIN_A) $(LIBTIER_INTERNAL_PLAIN_LIBS) \
		$(LIBTIER_TEST_LIBS)

# Check's per-test timeout (4 s by default) is a hang guard, not a speed
# test: a loaded 2-core machine must not fail a correct test.
CK_ENV := CK_TIMEOUT_MULTIPLIER=20

.PHONY: check-lib-unit check-lib-valgrind libtier-tests
libtier-tests: $(LIBTIER_TEST_ASAN) $(LIBTIER_TEST_PLAIN)

check-lib-unit: $(LIBTIER_TEST_ASAN)
	$(Q)$(call run_test,lib-unit,env $(CK_ENV) ASAN_OPTIONS=abort_on_error=0:detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 $(LIBTIER_TEST_ASAN))

check-lib-valgrind: $(LIBTIER_TEST_PLAIN)
	$(Q)$(call run_test,lib-valgrind,env $(CK_ENV) CK_FORK=no CK_VERBOSITY=silent TIER_TEST_SLOW=1 valgrind -q --error-exitcode=1 \
		--leak-check=full --errors-for-leak-kinds=definite $(LIBTIER_TEST_PLAIN))

CLEAN_FILES        += $(LIBTIER_TEST_ASAN) $(LIBTIER_TEST_PLAIN) $(BUILD)/obj/tests-asan \
	$(BUILD)/obj/tests-plain
CHECK_UNIT_TARGETS += check-lib-unit
CHECK_TARGETS      += check-lib-unit check-lib-valgrind
