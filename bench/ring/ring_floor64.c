// SPDX-License-Identifier: GPL-2.0
/*
 * "floor64": the floor a one-line exchange can reach, with the loops'
 * bursts and stream.  64 whole cache lines, each the 56-byte message and
 * a stamp in its last 8 bytes, written last.  The client writes the whole
 * line and stamps it as request n (2n + 1); the server copies the line
 * out, writes its reply over the whole line and stamps it as reply n
 * (2n + 2), or in sink mode stamps it only.  Nothing else is shared: the
 * client knows from its own counters which lines it may write.
 */
#include "bench.h"

/**
 * struct f64_line - one whole cache line
 * @msg: the request, or the reply written over it
 * @stamp: 2n + 1 for request n, 2n + 2 once it is answered
 */
struct f64_line {
	struct bench_msg msg;
	u64 stamp;
};

static_assert(sizeof(struct f64_line) == BENCH_CACHE_LINE, "one line");

/**
 * struct f64_end - one side's private counters, on its own line
 * @sent: client: requests written; server: requests answered
 * @taken: client: replies taken back
 */
struct f64_end {
	u64 sent;
	u64 taken;
};

static struct f64_line *f64_ring;
static struct f64_end *f64_cli, *f64_srv;

static inline struct f64_line *f64_at(u64 n)
{
	return &f64_ring[n % BENCH_RING_SLOTS];
}

static inline bool f64_stamped(const struct f64_line *l, u64 stamp)
{
	return __atomic_load_n(&l->stamp, __ATOMIC_ACQUIRE) == stamp;
}

static inline bool cli_post(const struct bench_buf *b)
{
	struct f64_line *l = f64_at(f64_cli->sent);

	if (f64_cli->sent - f64_cli->taken >= BENCH_RING_SLOTS)
		return false;
	l->msg = b->msg;
	__atomic_store_n(&l->stamp, 2 * f64_cli->sent + 1, __ATOMIC_RELEASE);
	f64_cli->sent++;
	return true;
}

static inline void cli_flush(void)
{
}

static inline bool cli_recv(struct bench_buf *b)
{
	struct f64_line *l = f64_at(f64_cli->taken);

	if (f64_cli->taken == f64_cli->sent ||
	    !f64_stamped(l, 2 * f64_cli->taken + 2))
		return false;
	b->msg = l->msg;	/* a bare completion leaves the request */
	f64_cli->taken++;
	return true;
}

static inline void cli_reclaim(void)
{
	while (f64_cli->taken != f64_cli->sent &&
	       f64_stamped(f64_at(f64_cli->taken), 2 * f64_cli->taken + 2))
		f64_cli->taken++;
}

static inline bool srv_recv(struct bench_buf *b)
{
	struct f64_line *l = f64_at(f64_srv->sent);

	if (!f64_stamped(l, 2 * f64_srv->sent + 1))
		return false;
	b->msg = l->msg;
	return true;
}

static inline bool srv_reply(const struct bench_buf *b)
{
	struct f64_line *l = f64_at(f64_srv->sent);

	l->msg = b->msg;
	__atomic_store_n(&l->stamp, 2 * f64_srv->sent + 2, __ATOMIC_RELEASE);
	f64_srv->sent++;
	return true;
}

static inline bool srv_complete(const struct bench_buf *b)
{
	struct f64_line *l = f64_at(f64_srv->sent);

	__atomic_store_n(&l->stamp, 2 * f64_srv->sent + 2, __ATOMIC_RELEASE);
	f64_srv->sent++;
	return true;
}

#include "loops.h"

static int f64_setup(void)
{
	f64_ring = bench_alloc(BENCH_RING_SLOTS * sizeof(*f64_ring));
	f64_cli = bench_alloc(BENCH_CACHE_LINE);
	f64_srv = bench_alloc(BENCH_CACHE_LINE);
	return f64_ring && f64_cli && f64_srv ? 0 : -ENOMEM;
}

static void f64_teardown(void)
{
	bench_free(f64_ring, BENCH_RING_SLOTS * sizeof(*f64_ring));
	bench_free(f64_cli, BENCH_CACHE_LINE);
	bench_free(f64_srv, BENCH_CACHE_LINE);
}

/* Lines per exchange: one, the request's line, answered in place. */
DEFINE_BENCH_RING(bench_ring_floor64, "floor64", f64_setup, f64_teardown, 1);
