# Userspace tests of lib/fipc: unit tests, a two-thread stress test (also
# under ThreadSanitizer) and a libFuzzer target for the receive path.
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
FUZZ_SECONDS ?= 60

USER_TEST_HDRS := tests/user/harness.h $(FIPC_HDRS)
CLANG_CFLAGS := $(filter-out -O2,$(USER_CFLAGS)) -O1 \
	-fno-omit-frame-pointer

$(TEST_BUILD)/user/unit: tests/user/unit.c $(USER_TEST_HDRS) $(LIBFIPC)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -pthread $< $(LIBFIPC) -o $@

$(TEST_BUILD)/user/stress: tests/user/stress.c $(USER_TEST_HDRS) $(LIBFIPC)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -pthread $< $(LIBFIPC) -o $@

# TSan: the library is rebuilt from source with the same instrumentation.
$(TEST_BUILD)/user/stress-tsan: tests/user/stress.c $(USER_TEST_HDRS) \
		$(FIPC_SRCS)
	@mkdir -p $(dir $@)
	$(CLANG) $(CLANG_CFLAGS) -fsanitize=thread -pthread $< $(FIPC_SRCS) \
		-o $@

# libFuzzer + ASan + UBSan; the entry point's name comes from here so that
# the source stays free of CamelCase.
$(TEST_BUILD)/fuzz/fuzz-rx: tests/fuzz/fuzz_rx.c $(FIPC_HDRS) $(FIPC_SRCS)
	@mkdir -p $(dir $@)
	$(CLANG) $(CLANG_CFLAGS) -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all \
		-DFUZZ_ENTRY=LLVMFuzzerTestOneInput $< $(FIPC_SRCS) -o $@

check-user-unit: $(TEST_BUILD)/user/unit
	@$<

check-user-stress: $(TEST_BUILD)/user/stress
	@$< --suite user-stress --msgs $(STRESS_MSGS)

check-user-tsan: $(TEST_BUILD)/user/stress-tsan
	@tests/user/run-tsan.sh $< $(TSAN_MSGS)

check-fuzz: $(TEST_BUILD)/fuzz/fuzz-rx
	@tests/fuzz/run.sh $< $(FUZZ_SECONDS) $(TEST_BUILD)/fuzz

fuzz: $(TEST_BUILD)/fuzz/fuzz-rx
	@tests/fuzz/run.sh $< $(FUZZ_SECONDS) $(TEST_BUILD)/fuzz

# Regenerate the committed seed corpus.
fuzz-corpus:
	@python3 tests/fuzz/gen_corpus.py tests/fuzz/corpus

CHECK_DEPS += check-user-unit check-user-stress check-user-tsan check-fuzz
