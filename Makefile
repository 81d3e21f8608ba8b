# simbookfs: a FUSE filesystem that shows near-duplicate books.
#
#   make            build build/simbookfs and build/simbook
#   make test       unit + integration tests, then the same suite under ASan/UBSan
#   make test-fast  the suite once, without sanitizers
#   make check      the suite under ASan/UBSan only
#   make fuzz       build the libFuzzer targets (clang)
#   make bench      build the benchmark programs
#   make run        build and mount the bundled sample library
#   make install    PREFIX=/usr/local DESTDIR=
#
# Every src/*.c except the two programs' mains goes into one static library,
# so a new module needs no Makefile change; so does every tests/unit/test_*.c.

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
CC      ?= cc
SAN     ?=

PKGS := fuse3 lmdb libxxhash libzip libxml-2.0 libutf8proc uchardet

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
LDLIBS_ALL := $(shell pkg-config --libs fuse3 lmdb libzip libxml-2.0 libutf8proc uchardet) -lm -pthread $(LDLIBS)
LDFLAGS_ALL := $(SAN) $(LDFLAGS)

MAINS    := src/simbookfs.c src/simbook.c
LIB_SRC  := $(filter-out $(MAINS),$(wildcard src/*.c))
LIB_OBJ  := $(LIB_SRC:src/%.c=$(BUILD)/obj/%.o)
LIB      := $(BUILD)/libsimbook.a
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)

.PHONY: all test test-fast check fuzz fuzz-bins bench run install uninstall clean help
all: $(BUILD)/simbookfs $(BUILD)/simbook $(UNIT_BIN)

$(BUILD)/obj/%.o: src/%.c $(wildcard include/*.h) | $(BUILD)/obj
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(LIB): $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/simbookfs: $(BUILD)/obj/simbookfs.o $(LIB)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

$(BUILD)/simbook: $(BUILD)/obj/simbook.o $(LIB)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/check.h $(LIB) | $(BUILD)/tests
	$(CC) $(CFLAGS_ALL) -Itests/unit $(LDFLAGS_ALL) -o $@ $< $(LIB) $(LDLIBS_ALL)

$(BUILD)/bench/%: bench/%.c $(LIB) | $(BUILD)/bench
	$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(LIB) $(LDLIBS_ALL)

$(BUILD)/obj $(BUILD)/tests $(BUILD)/bench $(BUILD)/fuzz:
	mkdir -p $@

test: test-fast check

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
	$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer $(LDFLAGS_ALL) -o $@ $< $(LIB) $(LDLIBS_ALL)

bench: $(BENCH_BIN) all

run: all
	mount-scripts/simbookfs-sample

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/simbookfs $(BUILD)/simbook $(DESTDIR)$(PREFIX)/bin/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/simbookfs $(DESTDIR)$(PREFIX)/bin/simbook

clean:
	rm -rf build build-san build-fuzz

help:
	@sed -n '2,12p' Makefile | sed 's/^# \{0,1\}//'
