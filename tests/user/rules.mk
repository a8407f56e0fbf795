# Userspace tests of lib/fipc: the unit tests of the duplex ring
# (lib/fipc/tests/, the same source KUnit runs), a peer of fipcblk's ring
# written from the public header alone against it, a two-thread stress test
# (also under ThreadSanitizer) and a libFuzzer target for both ends.
# Included by the top-level Makefile, which defines TOP, BUILD,
# USER_CFLAGS, FIPC_SRCS, FIPC_HDRS and LIBFIPC.

.PHONY: check-user-unit check-user-stress check-user-tsan check-fuzz fuzz \
	fuzz-corpus

TEST_BUILD := $(BUILD)/tests
CLANG ?= clang

# Messages per stress variant: at least 10^7 in the normal build.  Under
# TSan every shared access is instrumented (about 20x slower on this
# 2-core machine), so the TSan run uses 2*10^5 messages per variant,
# which takes well under 2 minutes.
STRESS_MSGS ?= 10000000
TSAN_MSGS ?= 200000
FUZZ_SECONDS ?= 30

USER_TEST_HDRS := tests/user/harness.h $(FIPC_HDRS)
CLANG_CFLAGS := $(filter-out -O2,$(USER_CFLAGS)) -O1 \
	-fno-omit-frame-pointer

# Ring tests shared with KUnit (lib/fipc/tests/, one source for both
# builds); their header takes the harness from tests/user/.
RING_TEST_HDRS := lib/fipc/tests/ring_test.h $(USER_TEST_HDRS)

$(TEST_BUILD)/user/duplex: lib/fipc/tests/duplex_test.c $(RING_TEST_HDRS) \
		$(LIBFIPC)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -Itests/user -pthread $< $(LIBFIPC) -o $@

# The same tests on the portable slot access (FIPC_SLOT_WORD=0 in
# fipc.h: the flag a word of its own), the library built from source
# with it.
$(TEST_BUILD)/user/duplex-word0: lib/fipc/tests/duplex_test.c \
		$(RING_TEST_HDRS) $(FIPC_SRCS)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -DFIPC_SLOT_WORD=0 '-DRT_SUITE_SUFFIX="-word0"' \
		-Itests/user -pthread $< $(FIPC_SRCS) -o $@

# Both ends of a fipcblk channel's ring written from the public header
# alone (C99, no lib/fipc) against lib/fipc: the header is a complete
# specification of the ring.
$(TEST_BUILD)/user/header: tests/user/header_test.c tests/user/header_peer.c \
		tests/user/header_peer.h xen/include/public/io/fipcblk.h \
		$(RING_TEST_HDRS) $(LIBFIPC)
	@mkdir -p $(dir $@)
	$(CC) -std=c99 -pedantic -O2 -Wall -Wextra -Werror -Ixen/include \
		-c tests/user/header_peer.c -o $@-peer.o
	$(CC) $(USER_CFLAGS) -Ixen/include -Itests/user -Ilib/fipc/tests \
		-pthread $< $@-peer.o $(LIBFIPC) -o $@

STRESS_SRCS := tests/user/stress.c tests/user/stress_duplex.c
STRESS_HDRS := tests/user/stress.h $(USER_TEST_HDRS)

$(TEST_BUILD)/user/stress: $(STRESS_SRCS) $(STRESS_HDRS) $(LIBFIPC)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -pthread $(STRESS_SRCS) $(LIBFIPC) -o $@

# TSan: the library is rebuilt from source with the same instrumentation.
$(TEST_BUILD)/user/stress-tsan: $(STRESS_SRCS) $(STRESS_HDRS) $(FIPC_SRCS)
	@mkdir -p $(dir $@)
	$(CLANG) $(CLANG_CFLAGS) -fsanitize=thread -pthread $(STRESS_SRCS) \
		$(FIPC_SRCS) -o $@

check-user-unit: $(TEST_BUILD)/user/duplex $(TEST_BUILD)/user/header \
		$(TEST_BUILD)/user/duplex-word0
	@tests/user/run-summed.sh $^

check-user-stress: $(TEST_BUILD)/user/stress
	@$< --suite user-stress --msgs $(STRESS_MSGS)

check-user-tsan: $(TEST_BUILD)/user/stress-tsan
	@tests/user/run-tsan.sh $< $(TSAN_MSGS)

# The duplex ring (both ends, against its own reference model), with
# libFuzzer + ASan + UBSan; the entry point's name comes from here so that
# the source stays free of CamelCase.
$(TEST_BUILD)/fuzz/fuzz-duplex: tests/fuzz/fuzz_duplex.c \
		tests/fuzz/fuzz_input.h $(FIPC_HDRS) $(FIPC_SRCS)
	@mkdir -p $(dir $@)
	$(CLANG) $(CLANG_CFLAGS) -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all \
		-DFUZZ_ENTRY=LLVMFuzzerTestOneInput $< $(FIPC_SRCS) -o $@

# Every fuzzer, FUZZ_SECONDS each, each from its own seed corpus.
FUZZERS := $(TEST_BUILD)/fuzz/fuzz-duplex
define run_fuzzers
	@tests/fuzz/run-all.sh $(FUZZ_SECONDS) $(TEST_BUILD)
endef

check-fuzz: $(FUZZERS)
	$(run_fuzzers)

fuzz: $(FUZZERS)
	$(run_fuzzers)

# Regenerate the committed seed corpora.
fuzz-corpus:
	@python3 tests/fuzz/gen_corpus_duplex.py tests/fuzz/corpus-duplex

CHECK_DEPS += check-user-unit check-user-stress check-user-tsan check-fuzz
