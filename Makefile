# simbookfs: a FUSE filesystem that shows near-duplicate books.
#
#   make            build build/simbookfs and build/simbook
#   make test       check-layers, unit + integration tests, then the same suite
#                   under ASan/UBSan
#   make test-fast  the suite once, without sanitizers
#   make check      the suite under ASan/UBSan only
#   make check-layers  the include directions and size limits of the layers
#   make fuzz       build the libFuzzer targets (clang)
#   make bench      build the benchmark programs
#   make run        build and mount the bundled sample library
#   make install    PREFIX=/usr/local DESTDIR= (SBINDIR=/sbin: see docs/USAGE.md)
#   make uninstall  the same variables
#
# Every src/<layer>/*.c except the two programs' mains goes into one static
# library, so a new module needs no Makefile change; so does every
# tests/unit/test_*.c.

PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  ?= $(PREFIX)/bin
# mount(8) looks for mount.<type> helpers in /sbin only (util-linux's
# FS_SEARCH_PATH), whatever PREFIX is; SBINDIR= (empty) skips the helper.
SBINDIR ?= /sbin
MANDIR  ?= $(PREFIX)/share/man
DOCDIR  ?= $(PREFIX)/share/doc/simbookfs
UNITDIR ?= $(PREFIX)/lib/systemd/system
BUILD   ?= build
CC      ?= cc
SAN     ?=
# V=1 prints every command in full.
Q := $(if $(V),,@)

PKGS := fuse3 lmdb libxxhash libzip libxml-2.0 libutf8proc uchardet poppler-glib libmobi hiredis zlib

MISSING := $(shell for p in $(PKGS); do pkg-config --exists $$p || printf '%s ' $$p; done)
ifneq ($(strip $(MISSING)),)
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
$(error missing development packages (pkg-config): $(MISSING)-- run 'scripts/install-deps.sh' as root)
endif
endif

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wundef -Wstrict-prototypes \
        -Wmissing-prototypes -Wpointer-arith -Wcast-align -Wwrite-strings -Wvla \
        -Wimplicit-fallthrough -Wold-style-definition -Wmissing-declarations
OPT  ?= -O2 -g
CFLAGS_ALL := -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -DSIMBOOK_VERSION='"$(VERSION)"' \
        -Iinclude $(shell pkg-config --cflags $(PKGS)) $(WARN) $(OPT) -pthread $(SAN) $(CFLAGS)
LDLIBS_ALL := $(shell pkg-config --libs fuse3 lmdb libzip libxml-2.0 libutf8proc uchardet poppler-glib libmobi hiredis zlib) -lm -pthread $(LDLIBS)
LDFLAGS_ALL := $(SAN) $(LDFLAGS)

# The layers, lowest first (docs/ARCHITECTURE.md; `make check-layers`).
LAYERS   := base core index fs cli
MAINS    := src/fs/simbookfs.c src/cli/simbook.c
LIB_SRC  := $(filter-out $(MAINS),$(foreach l,$(LAYERS),$(wildcard src/$(l)/*.c)))
LIB_OBJ  := $(LIB_SRC:src/%.c=$(BUILD)/obj/%.o)
LIB      := $(BUILD)/libsimbook.a
# The accuracy harness and the book mutator: linked by tests and benchmarks only.
EVAL_SRC := $(wildcard tests/eval/*.c)
EVAL_OBJ := $(EVAL_SRC:tests/eval/%.c=$(BUILD)/obj/eval/%.o)
EVAL_LIB := $(BUILD)/libsimbook-eval.a
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
# Programs the integration tests drive (tests/prog/*.c), e.g. rcltest.
PROG_SRC := $(wildcard tests/prog/*.c)
PROG_BIN := $(PROG_SRC:tests/prog/%.c=$(BUILD)/tests/%)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)

.PHONY: all test test-fast check check-layers fuzz fuzz-bins bench run install uninstall clean help
all: $(BUILD)/simbookfs $(BUILD)/simbook $(UNIT_BIN) $(PROG_BIN)

# -MMD -MP: each object depends on the headers it really includes.
DEPFLAGS = -MMD -MP

$(BUILD)/obj/%.o: src/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) $(DEPFLAGS) -c $< -o $@

$(BUILD)/obj/eval/%.o: tests/eval/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) -Itests/eval $(DEPFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(EVAL_LIB): $(EVAL_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/simbookfs: $(BUILD)/obj/fs/simbookfs.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

$(BUILD)/simbook: $(BUILD)/obj/cli/simbook.o $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

# tests/common holds the generators the unit tests and the benchmarks share.
TEST_INC := -Itests/unit -Itests/common -Itests/eval

$(BUILD)/tests/%: tests/unit/%.c $(LIB) $(EVAL_LIB) | $(BUILD)/tests
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(TEST_INC) $(DEPFLAGS) -MT $@ -MF $@.d $(LDFLAGS_ALL) -o $@ $< $(EVAL_LIB) $(LIB) $(LDLIBS_ALL)

$(BUILD)/tests/%: tests/prog/%.c $(LIB) | $(BUILD)/tests
	@$(if $(Q),echo "  PROG    $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(DEPFLAGS) -MT $@ -MF $@.d $(LDFLAGS_ALL) -o $@ $< $(LIB) $(LDLIBS_ALL)

$(BUILD)/bench/%: bench/%.c $(LIB) $(EVAL_LIB) | $(BUILD)/bench
	@$(if $(Q),echo "  BENCH   $@")
	$(Q)$(CC) $(CFLAGS_ALL) -Itests/common -Itests/eval $(DEPFLAGS) -MT $@ -MF $@.d $(LDFLAGS_ALL) -o $@ $< $(EVAL_LIB) $(LIB) $(LDLIBS_ALL)

$(BUILD)/tests $(BUILD)/bench $(BUILD)/fuzz:
	mkdir -p $@

test: check-layers test-fast check

# The include directions and the size limits of docs/ARCHITECTURE.md.
check-layers:
	scripts/check-layers

test-fast: all
	tests/run.sh $(BUILD)

check:
	$(MAKE) BUILD=build-san SAN='-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all' OPT='-O1 -g' all
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    tests/run.sh build-san

# libFuzzer needs clang; the library is rebuilt with coverage instrumentation.
fuzz:
	$(MAKE) BUILD=build-fuzz CC=clang OPT='-O1 -g' \
	    SAN='-fsanitize=fuzzer-no-link,address,undefined' fuzz-bins

fuzz-bins: $(FUZZ_BIN)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIB) | $(BUILD)/fuzz
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(CC) $(CFLAGS_ALL) -Itests/common -fsanitize=fuzzer $(DEPFLAGS) -MT $@ -MF $@.d $(LDFLAGS_ALL) -o $@ $< $(LIB) $(LDLIBS_ALL)

bench: $(BENCH_BIN) all

run: all
	mount-scripts/simbookfs-sample

# Installed files name the directories they were installed for (@BINDIR@
# in the mount helper and the unit, @VERSION@ in the man pages).
INSTALL_SUBST := sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SBINDIR@|$(SBINDIR)|g' \
	-e 's|@VERSION@|$(VERSION)|g'
INSTALL_DOCS := docs/USAGE.md LICENSE $(wildcard README.md docs/VIEWS.md)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DOCDIR) $(DESTDIR)$(UNITDIR)
	install -m 755 $(BUILD)/simbookfs $(BUILD)/simbook $(DESTDIR)$(BINDIR)/
	for p in simbookfs simbook; do \
	    $(INSTALL_SUBST) man/$$p.1 >$(DESTDIR)$(MANDIR)/man1/$$p.1 && \
	    chmod 644 $(DESTDIR)$(MANDIR)/man1/$$p.1 || exit 1; done
	$(INSTALL_SUBST) 'mount-scripts/simbookfs@.service' >'$(DESTDIR)$(UNITDIR)/simbookfs@.service'
	chmod 644 '$(DESTDIR)$(UNITDIR)/simbookfs@.service'
	install -m 644 $(INSTALL_DOCS) $(DESTDIR)$(DOCDIR)/
ifneq ($(SBINDIR),)
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8
	$(INSTALL_SUBST) mount-scripts/mount.simbookfs >$(DESTDIR)$(SBINDIR)/mount.simbookfs
	chmod 755 $(DESTDIR)$(SBINDIR)/mount.simbookfs
	ln -sf mount.simbookfs $(DESTDIR)$(SBINDIR)/mount.fuse.simbookfs
	$(INSTALL_SUBST) man/mount.simbookfs.8 >$(DESTDIR)$(MANDIR)/man8/mount.simbookfs.8
	chmod 644 $(DESTDIR)$(MANDIR)/man8/mount.simbookfs.8
	printf '.so man8/mount.simbookfs.8\n' >$(DESTDIR)$(MANDIR)/man8/mount.fuse.simbookfs.8
	chmod 644 $(DESTDIR)$(MANDIR)/man8/mount.fuse.simbookfs.8
endif

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/simbookfs $(DESTDIR)$(BINDIR)/simbook \
	    $(DESTDIR)$(MANDIR)/man1/simbookfs.1 $(DESTDIR)$(MANDIR)/man1/simbook.1 \
	    '$(DESTDIR)$(UNITDIR)/simbookfs@.service' \
	    $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(INSTALL_DOCS)))
	rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null || true
ifneq ($(SBINDIR),)
	rm -f $(DESTDIR)$(SBINDIR)/mount.simbookfs $(DESTDIR)$(SBINDIR)/mount.fuse.simbookfs \
	    $(DESTDIR)$(MANDIR)/man8/mount.simbookfs.8 $(DESTDIR)$(MANDIR)/man8/mount.fuse.simbookfs.8
endif

clean:
	rm -rf build build-san build-fuzz

-include $(LIB_OBJ:.o=.d) $(EVAL_OBJ:.o=.d) $(BUILD)/obj/fs/simbookfs.d $(BUILD)/obj/cli/simbook.d \
	$(UNIT_BIN:=.d) $(PROG_BIN:=.d) $(BENCH_BIN:=.d) $(FUZZ_BIN:=.d)

help:
	@sed -n '2,13p' Makefile | sed 's/^# \{0,1\}//'
