# Ring micro-benchmark (project issue 2): see docs/benchmarks.md.
#
#   make bench-ring                     table, build/bench/ring.json, .png
#   make bench-ring RING_BENCH_ARGS='-r 20 -n 500000'   a longer run
#   make check-bench-ring               correctness self-test, no timing
#   make bench-ring-static              a static build to carry to another
#                                       machine (bench/ring/pairs.sh runs it)

RING_BENCH := $(BUILD)/bench/ring-bench
RING_BENCH_SRCS := $(addprefix bench/ring/,main.c ring_floor.c ring_xen.c \
	ring_packed.c ring_ptr.c ring_duplex.c ring_cursors.c ring_floor64.c \
	ring_virtio_packed.c ring_nvme.c)
RING_BENCH_HDRS := $(wildcard bench/ring/*.h)
RING_BENCH_ARGS ?=
# Kernel style: stub operations leave parameters unused, as in the kernel.
RING_BENCH_CFLAGS := $(USER_CFLAGS) -Wno-unused-parameter -pthread

.PHONY: bench-ring check-bench-ring bench-ring-static

$(RING_BENCH): $(RING_BENCH_SRCS) $(RING_BENCH_HDRS) $(FIPC_HDRS) $(LIBFIPC)
	@mkdir -p $(dir $@)
	$(CC) $(RING_BENCH_CFLAGS) -o $@ $(RING_BENCH_SRCS) $(LIBFIPC)

bench-ring: $(RING_BENCH)
	@echo "loadavg: $$(cat /proc/loadavg)"
	$(RING_BENCH) -j $(BUILD)/bench/ring.json \
		-g "$$(git rev-parse --short HEAD)$$(git diff --quiet HEAD -- lib bench/ring || echo -dirty)" \
		$(RING_BENCH_ARGS)
	/usr/bin/python3 bench/ring/plot.py $(BUILD)/bench/ring.json \
		$(BUILD)/bench/ring.png

bench-ring-static:
	@bench/ring/build-static.sh

check-bench-ring: $(RING_BENCH)
	$(RING_BENCH) -t

CHECK_DEPS += check-bench-ring
