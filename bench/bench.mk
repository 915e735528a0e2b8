# bench/bench.mk: libtier benchmark.
#
#   make bench [BENCH_ARGS="-n 10000 -r 200 -i 7 -R 100000"]
#
# Builds $(BUILD)/bench/tier-bench against the unsanitized static libtier
# (libtier-internal-plain.a, built with the normal CFLAGS minus sanitizers) and runs
# it: a synthetic tree of 10,000 cgroups and a 200-rule policy in a temp dir
# under /dev/shm (or /tmp), timing parse, topology, observe, evaluate and
# dry-run apply (min/median/max over the iterations) and reporting peak RSS;
# then the load of a 100,000-rule policy alone ("policy load: 100000 rules
# in N ms", wall clock and CPU; -R 0 skips it).
# Figures only: nothing here is a pass/fail test.

BENCH_BIN  := $(BUILD)/bench/tier-bench
BENCH_ARGS ?=

$(BUILD)/obj/bench/bench.o: bench/bench.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(LIBTIER_NOSAN_CFLAGS) $(DEPFLAGS) $(LIBTIER_CFLAGS) -c -o $@ $<

-include $(BUILD)/obj/bench/bench.d

$(BENCH_BIN): $(BUILD)/obj/bench/bench.o $(LIBTIER_INTERNAL_PLAIN_A)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(CC) $(LIBTIER_NOSAN_CFLAGS) -o $@ $< $(LIBTIER_INTERNAL_PLAIN_LIBS)

.PHONY: bench bench-build
bench-build: $(BENCH_BIN)

bench: $(BENCH_BIN)
	$(Q)$(BENCH_BIN) $(BENCH_ARGS)

CLEAN_FILES += $(BUILD)/bench $(BUILD)/obj/bench

# bench/hash-flood.c: 16,384 sibling cgroups named against the old unkeyed
# hashes (djb2, FNV-1a) through the plan and tierd's managed table (ms).
#   make bench-hash [BENCH_HASH_ARGS="-n 16384 -i 3"]
BENCH_HASH_BIN  := $(BUILD)/bench/hash-flood
BENCH_HASH_ARGS ?=

$(BENCH_HASH_BIN): bench/hash-flood.c controller/tierd/tierd-table.c \
		controller/tierd/tierd-table.h $(LIBTIER_INTERNAL_PLAIN_A)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(CC) $(LIBTIER_NOSAN_CFLAGS) $(LIBTIER_CFLAGS) -I$(TOP)/controller/tierd \
		-Wno-missing-prototypes -o $@ bench/hash-flood.c controller/tierd/tierd-table.c \
		$(LIBTIER_INTERNAL_PLAIN_LIBS)

.PHONY: bench-hash
bench-hash: $(BENCH_HASH_BIN)
	$(Q)$(BENCH_HASH_BIN) $(BENCH_HASH_ARGS)

# bench/bench-scale.sh: tierd, tierctl status and tierd-metrics on large fake
# trees (bench/scale-tree.c): start-up, RSS, the largest ListCgroups reply,
# output sizes and times.  Figures only; results in bench/README.md.
#   make bench-scale [BENCH_SCALE_CASES="long:2252 long:10000 plain:100000"]
BENCH_SCALE_TREE  := $(BUILD)/bench/scale-tree
BENCH_SCALE_CASES ?= long:2252 long:10000 plain:100000

$(BENCH_SCALE_TREE): bench/scale-tree.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) -O2 -g -std=gnu11 $(WARNINGS) -D_GNU_SOURCE -o $@ $<

.PHONY: bench-scale
# (literal paths: tierd.mk and metrics.mk are included after this file)
bench-scale: $(BENCH_SCALE_TREE) $(BUILD)/bin/tierd $(TIERCTL) $(BUILD)/bin/tierd-metrics \
		$(BUILD)/test/tierd-waitfor
	$(Q)TIERD=$(BUILD)/bin/tierd TIERCTL=$(TIERCTL) METRICS=$(BUILD)/bin/tierd-metrics \
		SCALE_TREE=$(BENCH_SCALE_TREE) WAITFOR=$(BUILD)/test/tierd-waitfor \
		CASES="$(BENCH_SCALE_CASES)" sh $(TOP)/bench/bench-scale.sh
