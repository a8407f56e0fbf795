// SPDX-License-Identifier: GPL-2.0
/*
 * A ptr_ring-style ring, after the idea of Linux's include/linux/ptr_ring.h:
 * an array of 64 pointers, NULL meaning empty, each pointing to a message
 * buffer (one cache line each, buffer i belonging to slot i).  The
 * producer fills the buffer, then stores its pointer; the consumer copies
 * the buffer out, and hands slots back by writing NULL only once it has
 * consumed a batch of them (or reached the end of the array), from the
 * last to the first, so that the producer, which may be polling the first
 * slot of the batch, sees the batch free only when it is all free.
 *
 * The batch is two cache lines of pointers (16), at most half the ring,
 * as ptr_ring chooses it.  Pointers are the producer's own addresses: the
 * kind of ring for one address space that ptr_ring is.
 */
#include "bench.h"

#define PR_BATCH	(BENCH_CACHE_LINE * 2 / sizeof(void *))

/**
 * struct pr_shared - the shared memory of one one-way ring
 * @queue: the pointer array
 * @bufs: the message buffers, bufs[i] belonging to queue[i]
 */
struct pr_shared {
	struct bench_msg *queue[BENCH_RING_SLOTS];
	struct bench_buf bufs[BENCH_RING_SLOTS];
};

/**
 * struct pr_side - one thread's private state: its producer and consumer
 * @tx: the ring it produces into
 * @producer: next slot of @tx to fill
 * @rx: the ring it consumes from
 * @consumer_head: next slot of @rx to read
 * @consumer_tail: first slot of @rx read but not yet NULL again
 */
struct pr_side {
	struct pr_shared *tx;
	unsigned int producer;
	struct pr_shared *rx;
	unsigned int consumer_head;
	unsigned int consumer_tail;
};

static struct pr_shared *pr_req, *pr_rsp;
static struct pr_side *pr_cli, *pr_srv;

static inline bool pr_produce(struct pr_side *s, const struct bench_buf *b)
{
	unsigned int i = s->producer;
	struct bench_msg *m = &s->tx->bufs[i].msg;

	if (READ_ONCE(s->tx->queue[i]))
		return false;
	*m = b->msg;
	/* Release: the buffer is written before the pointer to it. */
	__atomic_store_n(&s->tx->queue[i], m, __ATOMIC_RELEASE);
	s->producer = (i + 1) & (BENCH_RING_SLOTS - 1);
	return true;
}

static inline bool pr_consume(struct pr_side *s, struct bench_buf *b)
{
	unsigned int head = s->consumer_head;
	struct bench_msg *m;

	m = __atomic_load_n(&s->rx->queue[head], __ATOMIC_ACQUIRE);
	if (!m)
		return false;
	b->msg = *m;
	head++;
	if (head - s->consumer_tail >= PR_BATCH ||
	    head >= BENCH_RING_SLOTS) {
		unsigned int i = head;

		/* Release: our copies are done before the slots free. */
		while (i-- > s->consumer_tail)
			__atomic_store_n(&s->rx->queue[i], NULL,
					 __ATOMIC_RELEASE);
		s->consumer_tail = head;
	}
	if (head >= BENCH_RING_SLOTS) {
		head = 0;
		s->consumer_tail = 0;
	}
	s->consumer_head = head;
	return true;
}

static inline bool cli_post(const struct bench_buf *b)
{
	return pr_produce(pr_cli, b);
}

static inline void cli_flush(void)
{
}

static inline bool cli_recv(struct bench_buf *b)
{
	return pr_consume(pr_cli, b);
}

static inline void cli_reclaim(void)
{
}

static inline bool srv_recv(struct bench_buf *b)
{
	return pr_consume(pr_srv, b);
}

static inline bool srv_reply(const struct bench_buf *b)
{
	return pr_produce(pr_srv, b);
}

static inline bool srv_complete(const struct bench_buf *b)
{
	return true;
}

#include "loops.h"

static int pr_setup(void)
{
	pr_req = bench_alloc(sizeof(*pr_req));
	pr_rsp = bench_alloc(sizeof(*pr_rsp));
	pr_cli = bench_alloc(sizeof(*pr_cli));
	pr_srv = bench_alloc(sizeof(*pr_srv));
	if (!pr_req || !pr_rsp || !pr_cli || !pr_srv)
		return -ENOMEM;
	pr_cli->tx = pr_req;
	pr_cli->rx = pr_rsp;
	pr_srv->tx = pr_rsp;
	pr_srv->rx = pr_req;
	return 0;
}

static void pr_teardown(void)
{
	bench_free(pr_req, sizeof(*pr_req));
	bench_free(pr_rsp, sizeof(*pr_rsp));
	bench_free(pr_cli, sizeof(*pr_cli));
	bench_free(pr_srv, sizeof(*pr_srv));
}

/*
 * Lines per exchange: each way a pointer line and a buffer line (the
 * NULL write-backs are batched, 16 slots at a time).
 */
DEFINE_BENCH_RING(bench_ring_ptr, "ptr_ring", pr_setup, pr_teardown, 4);
