# tests/fuzz/fuzz.mk: libFuzzer harness for the policy parser (included from
# controller/tierctl/tierctl.mk).
#
#   make fuzz [FUZZ_TIME=600] [FUZZ_JOBS=1]   run the fuzzer for FUZZ_TIME s
#   make fuzz-smoke                           30 s run (not part of `check`)
#   make check-fuzz-corpus                    run the harness once over the
#                                             seed corpus and the regression
#                                             inputs (deterministic; in `check`)
#
# The harness and libtier's sources are compiled with clang and
# -fsanitize=fuzzer,address,undefined into $(BUILD)/obj/lib-fuzz (their own
# objects, never mixed with the normal build). The seed corpus in
# tests/fuzz/corpus is read-only input; new inputs go to
# $(BUILD)/fuzz/corpus, crashes to $(BUILD)/fuzz/artifacts/.

FUZZ_CC    ?= clang
FUZZ_TIME  ?= 600
FUZZ_JOBS  ?= 1
FUZZ_DIR   := $(BUILD)/fuzz
FUZZ_BIN   := $(FUZZ_DIR)/fuzz-policy
FUZZ_SAN   := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
FUZZ_CFLAGS := -O1 -g -std=gnu11 -D_GNU_SOURCE $(FUZZ_SAN) $(LIBTIER_CFLAGS)
FUZZ_LIB_OBJS := $(patsubst lib/%.c,$(BUILD)/obj/lib-fuzz/%.o,$(LIBTIER_SRCS))

$(BUILD)/obj/lib-fuzz/%.o: lib/%.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(DEPFLAGS) $(LIBTIER_DEP_CFLAGS) \
		-c -o $@ $<

-include $(FUZZ_LIB_OBJS:.o=.d)

$(FUZZ_BIN): tests/fuzz/fuzz_policy.c $(FUZZ_LIB_OBJS)
	@mkdir -p $(@D) $(BUILD)/obj/dep
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(DEPFLAGS_PROG) -o $@ \
		tests/fuzz/fuzz_policy.c $(FUZZ_LIB_OBJS) $(LIBTIER_DEP_LIBS)

FUZZ_RUN = mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/artifacts && \
	ASAN_OPTIONS=detect_leaks=1 $(FUZZ_BIN) -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
	-dict=$(TOP)/tests/fuzz/policy.dict -artifact_prefix=$(FUZZ_DIR)/artifacts/ \
	-print_final_stats=1

.PHONY: fuzz fuzz-smoke fuzz-build check-fuzz-corpus
fuzz-build: $(FUZZ_BIN)

fuzz: $(FUZZ_BIN)
	$(Q)$(FUZZ_RUN) -max_total_time=$(FUZZ_TIME) \
		$(if $(filter-out 1,$(FUZZ_JOBS)),-jobs=$(FUZZ_JOBS) -workers=$(FUZZ_JOBS)) \
		$(FUZZ_DIR)/corpus $(TOP)/tests/fuzz/corpus

fuzz-smoke: $(FUZZ_BIN)
	$(Q)$(FUZZ_RUN) -max_total_time=30 $(FUZZ_DIR)/corpus $(TOP)/tests/fuzz/corpus

# Every seed and every former crash (tests/fuzz/regress/, if any) once,
# without mutation: a deterministic regression test. Skipped without clang.
FUZZ_REGRESS := $(wildcard tests/fuzz/corpus/* tests/fuzz/regress/*)
ifneq ($(shell command -v $(FUZZ_CC) 2>/dev/null),)
check-fuzz-corpus: $(FUZZ_BIN)
	$(Q)$(call run_test,fuzz-corpus,env ASAN_OPTIONS=detect_leaks=1 $(FUZZ_BIN) \
		$(addprefix $(TOP)/,$(FUZZ_REGRESS)))
else
check-fuzz-corpus:
	$(Q)$(call run_test,fuzz-corpus,sh -c 'echo "$(FUZZ_CC) not found"; exit 77')
endif

CHECK_TARGETS += check-fuzz-corpus
CHECK_UNIT_TARGETS += check-fuzz-corpus
CLEAN_FILES   += $(BUILD)/obj/lib-fuzz $(FUZZ_BIN)
