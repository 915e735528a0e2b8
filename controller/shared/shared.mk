# controller/shared/shared.mk: helpers several programs link, not libtier ABI.
#
# What is here is linked by more than one program (today escape.c: tierd,
# tierctl, tierd-oci-hook, tierd-metrics and the libtier unit test); a file
# only one program links lives in that program's folder. Built once per
# flavour into an internal static library the programs link, never installed.
#
# Products (all under $(BUILD)/lib):
#   libshared.a        $(CFLAGS) (honours SANITIZE=), for the installed programs
#   libshared-asan.a   always -fsanitize=address,undefined, for the ASan builds
#   libshared-plain.a  never sanitized, for the valgrind run of the unit tests
#
# Variables for the other fragments:
#   SHARED_CFLAGS      include path for "escape.h"
#   SHARED_A, SHARED_ASAN_A, SHARED_PLAIN_A   the archives (depend on and link
#                      them after the program's objects, before libtier)

SHARED_SRCS := controller/shared/escape.c

SHARED_CFLAGS  := -I$(TOP)/controller/shared
SHARED_A       := $(LIBTIER_DIR)/libshared.a
SHARED_ASAN_A  := $(LIBTIER_DIR)/libshared-asan.a
SHARED_PLAIN_A := $(LIBTIER_DIR)/libshared-plain.a

SHARED_OBJS       := $(patsubst controller/shared/%.c,$(BUILD)/obj/shared/%.o,$(SHARED_SRCS))
SHARED_ASAN_OBJS  := $(patsubst controller/shared/%.c,$(BUILD)/obj/shared-asan/%.o,$(SHARED_SRCS))
SHARED_PLAIN_OBJS := $(patsubst controller/shared/%.c,$(BUILD)/obj/shared-plain/%.o,$(SHARED_SRCS))

$(BUILD)/obj/shared/%.o: controller/shared/%.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) $(LIBTIER_CFLAGS) $(SHARED_CFLAGS) -c -o $@ $<

$(BUILD)/obj/shared-asan/%.o: controller/shared/%.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(LIBTIER_NOSAN_CFLAGS) $(LIBTIER_ASAN_FLAGS) $(DEPFLAGS) $(LIBTIER_CFLAGS) \
		$(SHARED_CFLAGS) -c -o $@ $<

$(BUILD)/obj/shared-plain/%.o: controller/shared/%.c
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(LIBTIER_PLAIN_CFLAGS) $(DEPFLAGS) $(LIBTIER_CFLAGS) $(SHARED_CFLAGS) \
		-c -o $@ $<

$(SHARED_A): $(SHARED_OBJS)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(SHARED_ASAN_A): $(SHARED_ASAN_OBJS)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(SHARED_PLAIN_A): $(SHARED_PLAIN_OBJS)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

-include $(SHARED_OBJS:.o=.d) $(SHARED_ASAN_OBJS:.o=.d) $(SHARED_PLAIN_OBJS:.o=.d)

CLEAN_FILES += $(BUILD)/obj/shared $(BUILD)/obj/shared-asan $(BUILD)/obj/shared-plain
