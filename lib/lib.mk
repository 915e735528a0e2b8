# lib/lib.mk: libtier.
#
# Products (all under $(BUILD)/lib):
#   libtier.so.2.0.0 (+ libtier.so.2, libtier.so links)  shared, soname libtier.so.2;
#                      exports only lib/tier.h, through lib/libtier.sym (LIBTIER_2.0)
#   libtier-internal.a the same objects without the version script: the public
#                      API plus the helpers of lib/tier-internal.h (parsers, globs,
#                      water-filling, [daemon] config).  What the project's own
#                      programs link (like kmod's tools and libkmod-internal);
#                      never installed, no ABI.  Built with $(CFLAGS) (honours SANITIZE=)
#   libtier-internal-asan.a   always -fsanitize=address,undefined (unit tests)
#   libtier-internal-plain.a  never sanitized (valgrind runs, benchmarks)
#   libtier.pc
#
# The ABI of libtier.so.2 is checked against lib/libtier.abi (abigail-tools):
#   make check-abi    fails on any change of the exported functions or the
#                     types they reach (added, removed or changed)
#   make abi-update   regenerates lib/libtier.abi after an intended change
#                     (a new symbol in a new version node, a new accessor)
#
# Variables for the other fragments:
#   LIBTIER_CFLAGS       include path for <tier.h> and "tier-internal.h"
#   LIBTIER_SO           the shared library
#   LIBTIER_LIBS         link against the shared library
#   LIBTIER_INTERNAL_A   internal archive; link with $(LIBTIER_INTERNAL_LIBS)
#   LIBTIER_INTERNAL_ASAN_A   sanitized archive; link with $(LIBTIER_INTERNAL_ASAN_LIBS),
#                        and compile/link the program with $(LIBTIER_ASAN_FLAGS)
#   LIBTIER_INTERNAL_PLAIN_A  unsanitized archive ($(LIBTIER_INTERNAL_PLAIN_LIBS))
#   LIBTIER_DEP_LIBS     pkg-config libs libtier needs when linked statically

LIBTIER_VERSION := 2.0.0
LIBTIER_SONAME  := libtier.so.2
# pkg-config packages libtier links (none since the policy parser is its own)
LIBTIER_PKGS    :=

LIBTIER_SRCS := $(addprefix lib/,ctx.c util.c siphash.c path.c topology.c cgroup.c glob.c policy.c index.c hmap.c \
	observed.c evaluate.c apply.c fair.c share.c damon.c backend.c)

LIBTIER_DIR      := $(BUILD)/lib
LIBTIER_SO       := $(LIBTIER_DIR)/libtier.so.$(LIBTIER_VERSION)
LIBTIER_INTERNAL_A       := $(LIBTIER_DIR)/libtier-internal.a
LIBTIER_INTERNAL_ASAN_A  := $(LIBTIER_DIR)/libtier-internal-asan.a
LIBTIER_INTERNAL_PLAIN_A := $(LIBTIER_DIR)/libtier-internal-plain.a
LIBTIER_PC       := $(LIBTIER_DIR)/libtier.pc

LIBTIER_CFLAGS      := -I$(TOP)/lib
LIBTIER_DEP_CFLAGS   = $(if $(LIBTIER_PKGS),$(call pc_cflags,$(LIBTIER_PKGS)))
LIBTIER_DEP_LIBS     = $(if $(LIBTIER_PKGS),$(call pc_libs,$(LIBTIER_PKGS)))
LIBTIER_LIBS        := -L$(LIBTIER_DIR) -ltier
LIBTIER_INTERNAL_LIBS  = $(LIBTIER_INTERNAL_A) $(LIBTIER_DEP_LIBS)
LIBTIER_ASAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
LIBTIER_INTERNAL_ASAN_LIBS  = $(LIBTIER_INTERNAL_ASAN_A) $(LIBTIER_DEP_LIBS)
LIBTIER_INTERNAL_PLAIN_LIBS = $(LIBTIER_INTERNAL_PLAIN_A) $(LIBTIER_DEP_LIBS)

# CFLAGS without any sanitizer, the base of the asan and plain builds.
LIBTIER_NOSAN_CFLAGS = $(filter-out -fsanitize=% -fno-omit-frame-pointer,$(CFLAGS))
# The plain build runs under valgrind, whose DWARF reader (3.19) gives up on
# clang's default DWARF 5: ask for DWARF 4 there.
LIBTIER_PLAIN_CFLAGS = $(LIBTIER_NOSAN_CFLAGS) -gdwarf-4

LIBTIER_OBJS       := $(patsubst lib/%.c,$(BUILD)/obj/lib/%.o,$(LIBTIER_SRCS))
LIBTIER_ASAN_OBJS  := $(patsubst lib/%.c,$(BUILD)/obj/lib-asan/%.o,$(LIBTIER_SRCS))
LIBTIER_PLAIN_OBJS := $(patsubst lib/%.c,$(BUILD)/obj/lib-plain/%.o,$(LIBTIER_SRCS))

$(BUILD)/obj/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) -fPIC -fvisibility=hidden $(LIBTIER_DEP_CFLAGS) -c -o $@ $<

$(BUILD)/obj/lib-asan/%.o: lib/%.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(LIBTIER_NOSAN_CFLAGS) $(LIBTIER_ASAN_FLAGS) $(DEPFLAGS) -fPIC \
		-fvisibility=hidden $(LIBTIER_DEP_CFLAGS) -c -o $@ $<

$(BUILD)/obj/lib-plain/%.o: lib/%.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(LIBTIER_PLAIN_CFLAGS) $(DEPFLAGS) -fPIC -fvisibility=hidden \
		$(LIBTIER_DEP_CFLAGS) -c -o $@ $<

-include $(LIBTIER_OBJS:.o=.d) $(LIBTIER_ASAN_OBJS:.o=.d) $(LIBTIER_PLAIN_OBJS:.o=.d)

$(LIBTIER_SO): $(LIBTIER_OBJS) lib/libtier.sym
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(LIBTIER_SONAME) \
		-Wl,--version-script=lib/libtier.sym -Wl,--no-undefined \
		-o $@ $(LIBTIER_OBJS) $(LIBTIER_DEP_LIBS)
	$(Q)ln -sf libtier.so.$(LIBTIER_VERSION) $(LIBTIER_DIR)/$(LIBTIER_SONAME)
	$(Q)ln -sf $(LIBTIER_SONAME) $(LIBTIER_DIR)/libtier.so

$(LIBTIER_INTERNAL_A): $(LIBTIER_OBJS)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBTIER_INTERNAL_ASAN_A): $(LIBTIER_ASAN_OBJS)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBTIER_INTERNAL_PLAIN_A): $(LIBTIER_PLAIN_OBJS)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBTIER_PC): lib/libtier.pc.in
	@mkdir -p $(@D)
	$(if $(Q),@echo "  GEN     $@")
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(LIBTIER_VERSION)|' \
		$< >$@

.PHONY: libtier install-libtier
libtier: $(LIBTIER_SO) $(LIBTIER_INTERNAL_A) $(LIBTIER_PC)

install-libtier: libtier
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	$(INSTALL) -m 0755 $(LIBTIER_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libtier.so.$(LIBTIER_VERSION) $(DESTDIR)$(LIBDIR)/$(LIBTIER_SONAME)
	ln -sf $(LIBTIER_SONAME) $(DESTDIR)$(LIBDIR)/libtier.so
	$(INSTALL) -m 0644 lib/tier.h $(DESTDIR)$(INCLUDEDIR)/tier.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(LIBTIER_VERSION)|' \
		lib/libtier.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/libtier.pc
	chmod 0644 $(DESTDIR)$(PKGCONFIGDIR)/libtier.pc

ALL_TARGETS     += libtier
INSTALL_TARGETS += install-libtier
CLEAN_FILES     += $(LIBTIER_DIR)

# --- The ABI check (abigail-tools) ------------------------------------------
# lib/libtier.abi is the committed baseline: abidw of libtier.so.2 restricted
# to the types of lib/tier.h (scripts/abi.sh has the flags).  check-abi
# compares the built library with it and fails on any difference; after an
# intended change (the fair branch's tier_share_* symbols, a new accessor),
# `make abi-update` rewrites the baseline, to be committed with the change.
# The baseline is made with the default compiler (cc); another compiler's
# DWARF may differ: compare like with like.
LIBTIER_ABI := lib/libtier.abi

.PHONY: check-abi check-abi-mutations abi-update check-lib-consumer
check-abi: $(LIBTIER_SO)
	$(Q)$(call run_test,lib-abi,$(TOP)/scripts/abi.sh check $(TOP)/$(LIBTIER_ABI) \
		$(LIBTIER_SO) lib/tier.h)

# Proof that check-abi fails: scratch libraries with one ABI change each.
check-abi-mutations:
	$(Q)$(call run_test,lib-abi-mutations,env CC="$(CC)" \
		LIBTIER_DEP_CFLAGS="$(LIBTIER_DEP_CFLAGS)" LIBTIER_DEP_LIBS="$(LIBTIER_DEP_LIBS)" \
		sh $(TOP)/tests/abi/test-abi-mutations.sh)

# A library user: tests/abi/consumer.c, built with the installed header
# alone (a copy of lib/tier.h in a directory of its own, as under
# /usr/include) and linked against the shared library: a function
# lib/libtier.sym forgot to export fails the link.
LIBTIER_CONSUMER := $(BUILD)/tests/libtier-consumer

$(LIBTIER_CONSUMER): tests/abi/consumer.c lib/tier.h $(LIBTIER_SO)
	@mkdir -p $(@D) $(BUILD)/tests/include
	$(if $(Q),@echo "  CCLD    $@")
	$(Q)cp lib/tier.h $(BUILD)/tests/include/tier.h
	$(Q)$(CC) $(CFLAGS) -I$(BUILD)/tests/include $(LDFLAGS) -o $@ $< -L$(LIBTIER_DIR) -ltier \
		-Wl,-rpath,$(LIBTIER_DIR)

check-lib-consumer: $(LIBTIER_CONSUMER)
	$(Q)$(call run_test,lib-consumer,$(LIBTIER_CONSUMER))

abi-update: $(LIBTIER_SO)
	$(Q)$(TOP)/scripts/abi.sh dump $(LIBTIER_SO) lib/tier.h $(TOP)/$(LIBTIER_ABI)
	@echo "  ABI     $(LIBTIER_ABI) updated: review 'git diff $(LIBTIER_ABI)' and commit it"

CHECK_UNIT_TARGETS += check-abi check-abi-mutations check-lib-consumer
CHECK_TARGETS      += check-abi check-abi-mutations check-lib-consumer
