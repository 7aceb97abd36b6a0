# callus - build with `make`; `make check` runs the whole suite (see README).
#
#   make                      release build in build/ (callus, callus-git, callus-embed)
#   make SAN=1 BUILD=build-asan   ASan + UBSan build
#   make unit                 build the unit tests
#   make check                everything .ci/run runs

CC      ?= cc
BUILD   ?= build
PREFIX  ?= /usr/local
PKGS     = sqlite3 jansson libpcre2-8

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS))

WARN     = -Wall -Wextra -Werror -Wmissing-prototypes -Wstrict-prototypes \
           -Wshadow -Wpointer-arith -Wvla -Wformat=2
CFLAGS  ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) -Iinclude -Isrc -include src/banned.h \
             $(PKG_CFLAGS) $(CFLAGS)
LDLIBS_ALL = $(PKG_LIBS) -lm

# The callus binary is linked whole, the C library too, as a static PIE
# (Debian's -dev packages ship the archives): the hook runs after every shell
# command an agent executes, and mapping and relocating shared libraries at
# each start cost more process time than most of its work (a bare start here
# 4.1 -> 2.7 ms of CPU, docs/scale.md, the eighteenth pass).  PIE keeps the
# binary's address random.  Like any static binary it carries its libraries'
# fixes as of its build: rebuild after a security update of them.  Sanitizer
# builds stay shared.
ifeq ($(SAN),1)
CALLUS_LIBS = $(LDLIBS_ALL)
CALLUS_LDFLAGS =
else
CALLUS_LIBS = -lsqlite3 -ljansson -lpcre2-8 -lm -pthread
CALLUS_LDFLAGS = -static-pie
endif

# SQLite's unix VFS refers to dlopen (for extensions, which callus never
# loads), and a static glibc warns at link time that dlopen would need the
# shared one at run time.  Only that warning is dropped; any other is shown.
LD_DLOPEN_NOTE = -e "in function .unixDlOpen" -e "Using 'dlopen' in statically linked"

ifeq ($(SAN),1)
ALL_CFLAGS += -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
              -fno-omit-frame-pointer
LDFLAGS    += -fsanitize=address,undefined
endif

# FUZZ=1 (clang): the library is compiled for coverage too, so that
# libFuzzer sees the parsers' branches and not only the harness's.
ifeq ($(FUZZ),1)
ALL_CFLAGS += -fsanitize=fuzzer-no-link
endif

# libgit2 is for the snapshot helper only (helper/callus-git.c, see
# include/callus/snapshot.h): never in CALLUS_LIBS, so that callus does not map it
# and the TLS/SSH libraries it loads at every start.  The helper itself links
# libgit2 and the libraries under it statically: a failure's snapshot is one
# start of it, and loading nineteen shared libraries was a fifth of that start
# (docs/scale.md, the eighteenth pass).  The list is Debian 12's libgit2
# (mbedTLS, http-parser, libssh2 on OpenSSL's libcrypto); since the
# thirty-sixth pass glibc is linked in too (GIT2_HELPER_LINK below).  Like
# callus, the helper carries its libraries' fixes as of its build: rebuild
# it after a security update of libgit2, zlib, PCRE2 or glibc (it reads the
# repository's files, which an agent may have cloned).  Linked so, the
# helper also leaves libgit2's network stack unstarted: the starts of TLS and
# SSH and the GSSAPI functions of HTTP's Negotiate are bound to the helper's
# own (ld --wrap, GIT2_OFFLINE; helper/callus-git-offline.c, which refuses
# every connection): parsing the system's certificates was three quarters of
# the helper's start, and GSSAPI is then not linked at all (`callus-git batch
# WS head`: 5.0 -> 1.2 ms of CPU in bench/snapshot.sh, the nineteenth pass).  The SSH
# transport and the TLS stream themselves are met by weak definitions there
# that refuse, so libssh2, OpenSSL's libcrypto and mbedTLS's TLS are not
# linked at all (their archives stay listed: a libgit2 that still wants them
# links them): 18,000 relocations fewer at each start, 1.08 -> 0.84 ms (the
# thirty-sixth pass).  Where an archive is
# missing (another distribution's libgit2), and in sanitizer builds, the
# helper links libgit2 shared as pkg-config says, and nothing is bound.
GIT2_OFFLINE = git_mbedtls_stream_global_init git_transport_ssh_global_init \
	       gss_indicate_mechs gss_import_name \
	       gss_init_sec_context gss_delete_sec_context gss_display_status \
	       gss_release_buffer gss_release_name gss_release_oid_set
comma := ,
GIT2_CFLAGS := $(shell pkg-config --cflags libgit2)
GIT2_ARCHIVES = git2 mbedtls mbedx509 mbedcrypto http_parser ssh2 crypto pcre2-8 z
GIT2_LIBDIR := $(shell pkg-config --variable=libdir libgit2)
GIT2_STATIC := $(shell for a in $(GIT2_ARCHIVES); do test -f $(GIT2_LIBDIR)/lib$$a.a || exit 0; done && \
		 echo yes)
ifeq ($(SAN),1)
GIT2_STATIC :=
endif
# The helper itself is then a static PIE, glibc too, as callus is: what was
# left of its start was ld.so mapping and binding the shared glibc (a
# snapshot 1.7 -> 1.4 ms, the thirty-sixth pass).  glibc warns that two
# functions libgit2 links would need the shared glibc's NSS at run time:
# getaddrinfo, for a socket the offline streams never open, and
# getpwuid_r, for the home of a setuid process (libgit2 1.5 asks it only
# then, or under macOS's sandbox variable, which the helper drops);
# those two warnings are dropped by name, any other is shown.  The unit
# test of the refusal links as before (GIT2_LIBS: libgit2's archives,
# glibc and cmocka shared).
ifeq ($(GIT2_STATIC),yes)
GIT2_CFLAGS += -DCALLUS_GIT_OFFLINE
GIT2_WRAPS  := $(addprefix -Wl$(comma)--wrap=,$(GIT2_OFFLINE))
GIT2_LIBS   := $(GIT2_WRAPS) \
               -Wl,-Bstatic $(addprefix -l,$(GIT2_ARCHIVES)) -Wl,-Bdynamic -lrt -ldl -pthread
GIT2_HELPER_LINK := -static-pie $(GIT2_WRAPS) $(addprefix -l,$(GIT2_ARCHIVES)) -lrt -ldl -pthread
else
GIT2_LIBS   := $(shell pkg-config --libs libgit2)
GIT2_HELPER_LINK := $(GIT2_LIBS)
endif
LD_NSS_NOTE = -e "in function .get_passwd_home" -e "Using 'getpwuid_r' in statically linked" \
	      -e "in function .socket_connect" -e "Using 'getaddrinfo' in statically linked"

# libcurl likewise is for the embedding helper only (helper/callus-embed.c,
# see include/callus/embed_remote.h): never in CALLUS_LIBS nor libcallus.a.
CURL_CFLAGS := $(shell pkg-config --cflags libcurl jansson)
CURL_LIBS   := $(shell pkg-config --libs libcurl jansson)

# libpq likewise is for the PostgreSQL helper only (helper/callus-pg.c, run
# by src/storage/postgresql.c): the hook never maps it.
PQ_CFLAGS := $(shell pkg-config --cflags libpq jansson)
PQ_LIBS   := $(shell pkg-config --libs libpq jansson)

# Tests also check signature patterns with PCRE2, the engine that will
# match them.
TEST_LIBS = $(shell pkg-config --libs libpcre2-8) -lcmocka

LIB_SRC  := $(wildcard src/*.c src/*/*.c)
CLI_SRC  := $(wildcard cli/*.c)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
FUZZ_SRC := $(wildcard fuzz/fuzz_*.c)
# The snapshot helper: helper/callus-git.c and its pieces, helper/callus-git-*.c.
GIT_HELPER_SRC := helper/callus-git.c $(wildcard helper/callus-git-*.c)

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FUZZ_BIN := $(FUZZ_SRC:fuzz/%.c=$(BUILD)/fuzz/%)
GIT_HELPER_OBJ := $(GIT_HELPER_SRC:%.c=$(BUILD)/%.o)

all: $(BUILD)/callus $(BUILD)/callus-git $(BUILD)/callus-embed $(BUILD)/callus-pg

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/libcallus.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The code a hook runs first in the binary's .text, in the order
# cli/text-order.ld lists its objects (scripts/text-order.sh writes it from
# callgrind runs of the hooks): a page of a program's code first touched
# maps the sixteen around it, each mapping dear on a virtual machine, and
# linked in the objects' order the code of a passing check lay in 26 of the
# 48 64 KB stretches of .text, a failing hook's in 43 (docs/scale.md, the
# eighty-second pass).  scripts/link-script.sh puts the list into the
# toolchain's own script; where it cannot (another linker), the script is
# empty and the link as before.  The map is what scripts/text-order.sh reads.
ifeq ($(SAN),1)
CALLUS_LD_SCRIPT =
else
CALLUS_LD_SCRIPT = $(BUILD)/callus.lds
endif
# $(call ld_order,SCRIPT,MAP): a link's flags for its layout script (none
# when the script is empty or not made) and for its map
ld_order = $$(test -s "$(1)" && echo -Wl,-T,$(1)) -Wl,-Map=$(2)
CALLUS_LD_ORDER = $(call ld_order,$(CALLUS_LD_SCRIPT),$(BUILD)/callus.map)

# Each script made again at every make, with the link's own compiler and
# flags (an upgraded toolchain, another CC or LDFLAGS: another default
# script), and replaced only when it changes, so that nothing is linked
# again for it; from the list it depends on (both binaries are static
# PIEs where a script is used).
$(BUILD)/callus.lds: cli/text-order.ld
$(BUILD)/callus-git.lds: helper/text-order.ld
$(BUILD)/callus.lds $(BUILD)/callus-git.lds: scripts/link-script.sh FORCE
	@mkdir -p $(dir $@)
	@sh scripts/link-script.sh $(filter %.ld,$^) $@ $(CC) $(LDFLAGS) -static-pie

$(BUILD)/callus: $(CLI_OBJ) $(BUILD)/libcallus.a $(CALLUS_LD_SCRIPT)
	@echo "$(CC) $(LDFLAGS) $(CALLUS_LDFLAGS) $(CALLUS_LD_ORDER) -o $@ $(CLI_OBJ) $(BUILD)/libcallus.a $(CALLUS_LIBS)"
	@$(CC) $(LDFLAGS) $(CALLUS_LDFLAGS) $(CALLUS_LD_ORDER) -o $@ $(CLI_OBJ) $(BUILD)/libcallus.a \
		$(CALLUS_LIBS) 2>$@.ld; s=$$?; grep -v $(LD_DLOPEN_NOTE) $@.ld >&2; rm -f $@.ld; exit $$s

$(GIT_HELPER_OBJ): $(BUILD)/helper/%.o: helper/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(GIT2_CFLAGS) -MMD -MP -c -o $@ $<

# The helper's code a hook's snapshots and diffs run, first in its .text
# likewise (helper/text-order.ld, written by scripts/text-order.sh): a
# snapshot ran code in 24 of its 30 64 KB stretches.  Static builds only.
ifeq ($(GIT2_STATIC),yes)
GIT_LD_SCRIPT = $(BUILD)/callus-git.lds
else
GIT_LD_SCRIPT =
endif
GIT_LD_ORDER = $(call ld_order,$(GIT_LD_SCRIPT),$(BUILD)/callus-git.map)

$(BUILD)/callus-git: $(GIT_HELPER_OBJ) $(GIT_LD_SCRIPT)
	@echo "$(CC) $(LDFLAGS) $(GIT_LD_ORDER) -o $@ $(GIT_HELPER_OBJ) $(GIT2_HELPER_LINK)"
	@$(CC) $(LDFLAGS) $(GIT_LD_ORDER) -o $@ $(GIT_HELPER_OBJ) $(GIT2_HELPER_LINK) \
		2>$@.ld; s=$$?; grep -v $(LD_NSS_NOTE) $@.ld >&2; rm -f $@.ld; exit $$s

$(BUILD)/helper/callus-embed.o: helper/callus-embed.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CURL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/callus-embed: $(BUILD)/helper/callus-embed.o
	$(CC) $(LDFLAGS) -o $@ $< $(CURL_LIBS) -lm

$(BUILD)/helper/callus-pg.o: helper/callus-pg.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(PQ_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/callus-pg: $(BUILD)/helper/callus-pg.o
	$(CC) $(LDFLAGS) -o $@ $< $(PQ_LIBS)

# test_snapshot runs the helper it finds next to the test directory, and
# test_embed_remote likewise.
$(BUILD)/tests/test_snapshot: $(BUILD)/callus-git
$(BUILD)/tests/test_embed_remote: $(BUILD)/callus-embed
$(BUILD)/tests/test_knowledge: $(BUILD)/callus-pg

# test_git_offline links the helper's network refusal as the helper does
# (libgit2 static and bound where the helper's is, GIT2_LIBS).
$(BUILD)/tests/unit/test_git_offline.o: tests/unit/test_git_offline.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(GIT2_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/test_git_offline: $(BUILD)/tests/unit/test_git_offline.o $(BUILD)/helper/callus-git-offline.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(GIT2_LIBS) -lcmocka

# test_sqlmem checks the CLI's allocator for SQLite.
$(BUILD)/tests/test_sqlmem: $(BUILD)/cli/sqlmem.o

# test_json_items checks the listings' JSON, printed an element at a time.
$(BUILD)/tests/test_json_items: $(BUILD)/cli/json_items.o

# test_hook_cut checks the trace of a hook cut with nothing queued.
$(BUILD)/tests/test_hook_cut: $(BUILD)/cli/hook_cut.o $(BUILD)/tests/unit/tmpdir_helpers.o

# test_hook_spool checks the hook's spool (and the detached start it links).
$(BUILD)/tests/test_hook_spool: $(BUILD)/cli/hook_spool.o $(BUILD)/cli/detach.o \
	$(BUILD)/tests/unit/tmpdir_helpers.o

# test_fsutil counts the syncs of an atomic write and an append, test_learn
# those of the indexes beside the store (each wraps them); test_learn edits
# a note's file as a person would, just after callus renames it into place.
$(BUILD)/tests/test_fsutil $(BUILD)/tests/test_learn: LDFLAGS += -Wl,--wrap=fsync \
	-Wl,--wrap=fdatasync
$(BUILD)/tests/test_learn: LDFLAGS += -Wl,--wrap=rename

# The parsers' sample tests and the summary's share tests/unit/parse_helpers.c.
$(BUILD)/tests/test_parse_native $(BUILD)/tests/test_parse_ecosystems $(BUILD)/tests/test_summary: \
	$(BUILD)/tests/unit/parse_helpers.o

# The tests of files in a scratch folder share tests/unit/tmpdir_helpers.c.
$(BUILD)/tests/test_fsutil $(BUILD)/tests/test_lessonmd $(BUILD)/tests/test_vecindex \
$(BUILD)/tests/test_views $(BUILD)/tests/test_workspace $(BUILD)/tests/test_record \
$(BUILD)/tests/test_log: \
	$(BUILD)/tests/unit/tmpdir_helpers.o

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(BUILD)/libcallus.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(BUILD)/libcallus.a $(LDLIBS_ALL) $(TEST_LIBS)

# Fuzz targets link a replay driver so any compiler can run their corpora;
# `make fuzz-libfuzzer CC=clang BUILD=build-fuzz SAN=1 FUZZ=1` builds real
# libFuzzer binaries (build-fuzz/fuzz/lf_*) over a coverage-compiled library.
$(BUILD)/fuzz/%: $(BUILD)/fuzz/%.o $(BUILD)/fuzz/replay.o $(BUILD)/libcallus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

# scripts/store_fresh.sh runs it to write src/store_fresh.inc again; built
# with the unit tests, so that every build of the suite compiles it
$(BUILD)/scripts/store_fresh: $(BUILD)/scripts/store_fresh.o $(BUILD)/libcallus.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

unit: $(UNIT_BIN) $(BUILD)/scripts/store_fresh
fuzz: $(FUZZ_BIN)

fuzz-libfuzzer: $(BUILD)/libcallus.a
	@mkdir -p $(BUILD)/fuzz
	for f in $(FUZZ_SRC); do \
		$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $(BUILD)/fuzz/lf_$$(basename $$f .c) \
			$$f $(BUILD)/libcallus.a $(LDFLAGS) $(LDLIBS_ALL) || exit 1; \
	done

check:
	./scripts/test.sh

install: $(BUILD)/callus $(BUILD)/callus-git $(BUILD)/callus-embed $(BUILD)/callus-pg
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/callus $(DESTDIR)$(PREFIX)/bin/callus
	install -m 755 $(BUILD)/callus-git $(DESTDIR)$(PREFIX)/bin/callus-git
	install -m 755 $(BUILD)/callus-embed $(DESTDIR)$(PREFIX)/bin/callus-embed
	install -m 755 $(BUILD)/callus-pg $(DESTDIR)$(PREFIX)/bin/callus-pg
	install -m 644 docs/callus.1 $(DESTDIR)$(PREFIX)/share/man/man1/callus.1

clean:
	rm -rf build build-asan build-fuzz

FORCE:

.PHONY: all unit fuzz fuzz-libfuzzer check install clean FORCE
.SECONDARY:

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%.d) \
	$(BUILD)/tests/unit/parse_helpers.d $(BUILD)/tests/unit/tmpdir_helpers.d \
	$(GIT_HELPER_OBJ:.o=.d) $(BUILD)/helper/callus-embed.d $(BUILD)/helper/callus-pg.d \
	$(FUZZ_SRC:fuzz/%.c=$(BUILD)/fuzz/%.d) $(BUILD)/fuzz/replay.d $(BUILD)/scripts/store_fresh.d
