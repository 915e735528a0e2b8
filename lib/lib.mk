# lib/lib.mk: libtier.
#
# Products (all under $(BUILD)/lib):
#   libtier.so.0.3.0 (+ libtier.so.0, libtier.so links)  shared, soname libtier.so.0
#   libtier.a          static, built with $(CFLAGS) (honours SANITIZE=)
#   libtier-asan.a     static, always -fsanitize=address,undefined (own objects)
#   libtier-plain.a    static, never sanitized (valgrind runs; own objects)
#   libtier.pc
#
# Variables for the other fragments:
#   LIBTIER_CFLAGS       include path for <tier.h>
#   LIBTIER_SO           the shared library (depend on it)
#   LIBTIER_LIBS         link against the shared library
#   LIBTIER_A            static archive; link with $(LIBTIER_A) $(LIBTIER_DEP_LIBS)
#   LIBTIER_STATIC_LIBS  = $(LIBTIER_A) $(LIBTIER_DEP_LIBS)
#   LIBTIER_ASAN_A       sanitized archive; link with $(LIBTIER_ASAN_LIBS), and
#                        compile/link the program with $(LIBTIER_ASAN_FLAGS)
#   LIBTIER_PLAIN_A      unsanitized archive ($(LIBTIER_PLAIN_LIBS))
#   LIBTIER_DEP_LIBS     pkg-config libs libtier needs when linked statically

LIBTIER_VERSION := 0.3.0
LIBTIER_SONAME  := libtier.so.0
LIBTIER_PKGS    := libcgroup inih

LIBTIER_SRCS := $(addprefix lib/,ctx.c util.c topology.c cgroup.c glob.c policy.c index.c \
	evaluate.c apply.c fair.c react.c)

LIBTIER_DIR      := $(BUILD)/lib
LIBTIER_SO       := $(LIBTIER_DIR)/libtier.so.$(LIBTIER_VERSION)
LIBTIER_A        := $(LIBTIER_DIR)/libtier.a
LIBTIER_ASAN_A   := $(LIBTIER_DIR)/libtier-asan.a
LIBTIER_PLAIN_A  := $(LIBTIER_DIR)/libtier-plain.a
LIBTIER_PC       := $(LIBTIER_DIR)/libtier.pc

LIBTIER_CFLAGS      := -I$(TOP)/lib
LIBTIER_DEP_CFLAGS   = $(call pc_cflags,$(LIBTIER_PKGS))
LIBTIER_DEP_LIBS     = $(call pc_libs,$(LIBTIER_PKGS))
LIBTIER_LIBS        := -L$(LIBTIER_DIR) -ltier
LIBTIER_STATIC_LIBS  = $(LIBTIER_A) $(LIBTIER_DEP_LIBS)
LIBTIER_ASAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
LIBTIER_ASAN_LIBS    = $(LIBTIER_ASAN_A) $(LIBTIER_DEP_LIBS)
LIBTIER_PLAIN_LIBS   = $(LIBTIER_PLAIN_A) $(LIBTIER_DEP_LIBS)

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

$(LIBTIER_A): $(LIBTIER_OBJS)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBTIER_ASAN_A): $(LIBTIER_ASAN_OBJS)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBTIER_PLAIN_A): $(LIBTIER_PLAIN_OBJS)
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
libtier: $(LIBTIER_SO) $(LIBTIER_A) $(LIBTIER_PC)

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
