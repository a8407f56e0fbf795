// SPDX-License-Identifier: GPL-2.0
/*
 * The physical floor: one cache line bounced between the two threads.
 * The client writes an odd request value into the line, the server
 * answers by writing the next even value; each polls with PAUSE.  No
 * payload, no ring: a round trip is two transfers of one line.
 */
#include "bench.h"

/* An odd value: a request that ends the server. */
#define FL_STOP		BENCH_STOP_SEQ

static u64 *fl_line;

static inline u64 fl_wait_change(u64 old)
{
	u64 v;

	while ((v = __atomic_load_n(fl_line, __ATOMIC_ACQUIRE)) == old)
		bench_relax();
	return v;
}

static u64 fl_rtt(u64 first, unsigned int n, unsigned int run, u64 *cycles)
{
	unsigned int i, j;
	u64 bad = 0, t0, t1, req = first * 4 + 1;

	for (i = 0; i < n; i++) {
		t0 = bench_tsc_start();
		for (j = 0; j < run; j++, req += 4) {
			__atomic_store_n(fl_line, req, __ATOMIC_RELEASE);
			if (fl_wait_change(req) != req + 1)
				bad++;
		}
		t1 = bench_tsc_stop();
		if (cycles)
			cycles[i] = bench_cycles_each(t0, t1, run);
	}
	return bad;
}

static void fl_stop(void)
{
	__atomic_store_n(fl_line, FL_STOP, __ATOMIC_RELEASE);
	fl_wait_change(FL_STOP);
}

static u64 fl_server(enum bench_srv_mode mode, bool check)
{
	u64 v = 0;	/* the line as set up, whether or not a request came */

	for (;;) {
		v = fl_wait_change(v);
		if (v == FL_STOP)
			break;
		if (!(v & 1))
			continue;	/* our own answer */
		v++;
		__atomic_store_n(fl_line, v, __ATOMIC_RELEASE);
	}
	__atomic_store_n(fl_line, 0, __ATOMIC_RELEASE);
	return 0;
}

static int fl_setup(void)
{
	fl_line = bench_alloc(BENCH_CACHE_LINE);
	return fl_line ? 0 : -ENOMEM;
}

static void fl_teardown(void)
{
	bench_free(fl_line, BENCH_CACHE_LINE);
}

const struct bench_ring bench_ring_floor = {
	.name = "floor",
	.setup = fl_setup,
	.teardown = fl_teardown,
	.rtt = fl_rtt,
	.stop = fl_stop,
	.server = fl_server,
	.has_burst = false,
	.lines_per_exchange = 1,
};
