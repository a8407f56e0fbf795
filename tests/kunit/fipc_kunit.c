// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the fipc slot rings and pollers (lib/fipc).
 *
 * tests/kunit/run.sh builds this file in-tree, in lib/fipc/.  Most
 * cases drive a sender and a receiver view of the same ring memory from
 * one thread; the corruption cases write flags into the shared memory
 * directly, as a hostile peer would.  The stress case runs a producer
 * and a consumer kthread over two rings (data and echo).  The poller
 * cases run a fipc poller set over channels of a test driver whose
 * sleeping word is a plain variable.
 */
#include <kunit/test.h>
#include <kunit/resource.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <fipc/fipc.h>
#include <fipc/fipc_poller.h>
#include <fipc/fipc_duplex.h>

/* A ring's memory, test managed: freed when the test case ends. */
struct fipc_test_pages {
	unsigned long addr;
	unsigned int order;
};

static int fipc_test_pages_init(struct kunit_resource *res, void *context)
{
	struct fipc_test_pages *p = context;

	p->addr = __get_free_pages(GFP_KERNEL | __GFP_ZERO, p->order);
	if (!p->addr)
		return -ENOMEM;
	res->data = p;
	return 0;
}

static void fipc_test_pages_free(struct kunit_resource *res)
{
	struct fipc_test_pages *p = res->data;

	free_pages(p->addr, p->order);
	kfree(p);
}

/* 2^order zeroed pages (an empty ring of that order), or fail the test. */
static void *fipc_test_alloc(struct kunit *test, unsigned int order)
{
	struct fipc_test_pages *p, *got;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	p->order = order;
	got = kunit_alloc_resource(test, fipc_test_pages_init,
				   fipc_test_pages_free, GFP_KERNEL, p);
	if (!got)
		kfree(p);
	KUNIT_ASSERT_NOT_NULL(test, got);
	return (void *)got->addr;
}

/* A sender and a receiver attached to one ring. */
struct fipc_test_pair {
	struct fipc_slot *mem;
	struct fipc_ring tx;
	struct fipc_ring rx;
};

static void fipc_test_pair_init(struct kunit *test, struct fipc_test_pair *p,
				unsigned int order)
{
	p->mem = fipc_test_alloc(test, order);
	KUNIT_ASSERT_EQ(test, fipc_ring_init(&p->tx, p->mem, order), 0);
	KUNIT_ASSERT_EQ(test, fipc_ring_init(&p->rx, p->mem, order), 0);
}

/* Message buffers, FIPC_MSG_MAX_SLOTS payloads each: too big for a stack. */
static struct fipc_msg *fipc_test_bufs(struct kunit *test, unsigned int n)
{
	struct fipc_msg *m = kunit_kcalloc(test, n, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	return m;
}

/* The payload byte i of slot s of the message tagged tag. */
static u8 fipc_test_byte(u32 tag, unsigned int s, unsigned int i)
{
	u32 x = tag * 2654435761u + s * 40503u + i * 97u;

	return (u8)(x ^ (x >> 11) ^ (x >> 23));
}

static void fipc_test_fill(struct fipc_msg *m, unsigned int n, u32 tag)
{
	unsigned int s, i;

	for (s = 0; s < n; s++)
		for (i = 0; i < FIPC_SLOT_PAYLOAD; i++)
			m[s].data[i] = fipc_test_byte(tag, s, i);
}

static bool fipc_test_match(const struct fipc_msg *m, unsigned int n, u32 tag)
{
	unsigned int s, i;

	for (s = 0; s < n; s++)
		for (i = 0; i < FIPC_SLOT_PAYLOAD; i++)
			if (m[s].data[i] != fipc_test_byte(tag, s, i))
				return false;
	return true;
}

/* Send one message of n slots tagged tag; the send must succeed. */
static void fipc_test_send(struct kunit *test, struct fipc_ring *tx,
			   struct fipc_msg *buf, unsigned int n, u32 tag)
{
	fipc_test_fill(buf, n, tag);
	KUNIT_ASSERT_EQ(test, fipc_send(tx, buf, n), 0);
}

/* Receive one message, which must be n slots tagged tag. */
static void fipc_test_recv(struct kunit *test, struct fipc_ring *rx,
			   struct fipc_msg *buf, unsigned int n, u32 tag)
{
	KUNIT_ASSERT_EQ(test, fipc_recv(rx, buf, FIPC_MSG_MAX_SLOTS), (int)n);
	KUNIT_ASSERT_TRUE_MSG(test, fipc_test_match(buf, n, tag),
			      "payload of message %u (%u slots) differs",
			      tag, n);
}

static u32 fipc_test_flag(u32 seq, unsigned int len)
{
	return FIPC_FLAG_READY | (len << FIPC_FLAG_LEN_SHIFT) |
	       (seq & FIPC_FLAG_SEQ_MASK);
}

static void fipc_test_init_args(struct kunit *test)
{
	struct fipc_slot *mem = fipc_test_alloc(test, 1);
	struct fipc_slot *mem2 = fipc_test_alloc(test, 1);
	struct fipc_ring ring;
	struct fipc_chan chan;
	struct fipc_waiter w;
	unsigned int order;

	KUNIT_EXPECT_EQ(test, fipc_ring_init(&ring, mem, FIPC_MAX_ORDER + 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fipc_ring_init(&ring, mem, 31), -EINVAL);
	KUNIT_EXPECT_EQ(test, fipc_ring_init(&ring, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fipc_ring_init(&ring, (u8 *)mem + 4, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fipc_ring_init(&ring, (u8 *)mem + 32, 0),
			-EINVAL);
	/* Slot aligned is enough. */
	KUNIT_EXPECT_EQ(test, fipc_ring_init(&ring, mem + 1, 0), 0);
	KUNIT_EXPECT_PTR_EQ(test, ring.slots, mem + 1);

	for (order = FIPC_MIN_ORDER; order <= FIPC_MAX_ORDER; order++) {
		memset(&ring, 0xff, sizeof(ring));
		KUNIT_EXPECT_EQ(test, fipc_ring_init(&ring, mem, order), 0);
		KUNIT_EXPECT_EQ(test, fipc_ring_slots(&ring), 64u << order);
		KUNIT_EXPECT_EQ(test, ring.seq, 0u);
		KUNIT_EXPECT_EQ(test, ring.release_seq, 0u);
		KUNIT_EXPECT_EQ(test, ring.release_batch, 1u);
		KUNIT_EXPECT_EQ(test, fipc_ring_error(&ring), 0);
	}

	KUNIT_ASSERT_EQ(test, fipc_ring_init(&ring, mem, 0), 0);
	KUNIT_EXPECT_EQ(test, fipc_ring_set_release_batch(&ring, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fipc_ring_set_release_batch(&ring, 33), -EINVAL);
	KUNIT_EXPECT_EQ(test, fipc_ring_set_release_batch(&ring, 32), 0);
	KUNIT_EXPECT_EQ(test, ring.release_batch, 32u);
	KUNIT_EXPECT_EQ(test, fipc_ring_set_release_batch(&ring, 1), 0);
	KUNIT_EXPECT_EQ(test, ring.release_batch, 1u);

	KUNIT_EXPECT_EQ(test, fipc_chan_init(&chan, mem, mem, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fipc_chan_init(&chan, mem, mem2, 5), -EINVAL);
	KUNIT_EXPECT_EQ(test, fipc_chan_init(&chan, mem, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fipc_chan_init(&chan, NULL, mem2, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fipc_chan_init(&chan, mem, mem2, 1), 0);
	KUNIT_EXPECT_PTR_EQ(test, chan.tx.slots, mem);
	KUNIT_EXPECT_PTR_EQ(test, chan.rx.slots, mem2);
	KUNIT_EXPECT_EQ(test, fipc_ring_slots(&chan.tx), 128u);
	KUNIT_EXPECT_EQ(test, fipc_ring_slots(&chan.rx), 128u);

	/* fipc_ring_clear() makes any memory an empty ring. */
	memset(mem, 0x5a, FIPC_RING_BYTES(1));
	fipc_ring_clear(mem, 0);
	KUNIT_EXPECT_EQ(test, mem[63].flag, FIPC_FLAG_FREE);
	KUNIT_EXPECT_EQ(test, mem[63].payload[59], 0);
	KUNIT_EXPECT_EQ(test, mem[64].payload[0], 0x5a);
	fipc_ring_clear(mem, 1);
	KUNIT_EXPECT_EQ(test, mem[127].flag, FIPC_FLAG_FREE);

	KUNIT_EXPECT_TRUE(test, fipc_wait_method_usable(FIPC_WAIT_PAUSE));
	KUNIT_EXPECT_FALSE(test,
			   fipc_wait_method_usable(FIPC_WAIT_NR_METHODS));
	KUNIT_EXPECT_TRUE(test,
			  fipc_wait_method_usable(fipc_wait_best_method()));
	KUNIT_EXPECT_STREQ(test, fipc_wait_method_name(FIPC_WAIT_PAUSE),
			   "pause");
	KUNIT_EXPECT_STREQ(test, fipc_wait_method_name(FIPC_WAIT_MWAIT),
			   "mwait");
	KUNIT_EXPECT_STREQ(test, fipc_wait_method_name(FIPC_WAIT_NR_METHODS),
			   "invalid");
	KUNIT_EXPECT_EQ(test, fipc_waiter_init(&w, FIPC_WAIT_NR_METHODS, 1,
					       NULL, NULL), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 7, NULL,
					       test), 0);
	KUNIT_EXPECT_EQ(test, w.spin_limit, 7u);
	KUNIT_EXPECT_PTR_EQ(test, w.arg, (void *)test);
	KUNIT_EXPECT_EQ(test, w.empty_polls, 0ull);
	KUNIT_EXPECT_EQ(test, w.sleeps, 0ull);
}

static void fipc_test_empty(struct kunit *test)
{
	struct fipc_msg *buf = fipc_test_bufs(test, FIPC_MSG_MAX_SLOTS);
	struct fipc_test_pair p;

	fipc_test_pair_init(test, &p, 0);
	KUNIT_EXPECT_FALSE(test, fipc_rx_ready(&p.rx));
	KUNIT_EXPECT_EQ(test, fipc_recv(&p.rx, buf, FIPC_MSG_MAX_SLOTS),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, fipc_recv_burst(&p.rx, buf, 8), 0);
	KUNIT_EXPECT_EQ(test, fipc_rx_pending(&p.rx, 1000), 0);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 64);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 5), 5);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 0), 0);
	KUNIT_EXPECT_EQ(test, fipc_send_burst(&p.tx, buf, 0), 0);
	KUNIT_EXPECT_EQ(test, p.rx.seq, 0u);
	KUNIT_EXPECT_EQ(test, p.tx.seq, 0u);
	KUNIT_EXPECT_EQ(test, fipc_ring_error(&p.rx), 0);
	KUNIT_EXPECT_EQ(test, fipc_ring_error(&p.tx), 0);

	/* One message in and out leaves the ring empty again. */
	fipc_test_send(test, &p.tx, buf, 1, 1);
	KUNIT_EXPECT_TRUE(test, fipc_rx_ready(&p.rx));
	KUNIT_EXPECT_EQ(test, fipc_rx_pending(&p.rx, 1000), 1);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 63);
	fipc_test_recv(test, &p.rx, buf, 1, 1);
	KUNIT_EXPECT_FALSE(test, fipc_rx_ready(&p.rx));
	KUNIT_EXPECT_EQ(test, fipc_recv(&p.rx, buf, 1), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 64);
	KUNIT_EXPECT_EQ(test, p.mem[0].flag, FIPC_FLAG_FREE);
}

static void fipc_test_full(struct kunit *test)
{
	struct fipc_msg *buf = fipc_test_bufs(test, FIPC_MSG_MAX_SLOTS);
	struct fipc_test_pair p;
	unsigned int i;

	fipc_test_pair_init(test, &p, 0);
	for (i = 0; i < 64; i++)
		fipc_test_send(test, &p.tx, buf, 1, i);
	for (i = 0; i < 64; i++)
		KUNIT_EXPECT_EQ(test, p.mem[i].flag, fipc_test_flag(i, 1));

	fipc_test_fill(buf, 2, 1000);
	KUNIT_EXPECT_EQ(test, fipc_send(&p.tx, buf, 1), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fipc_send(&p.tx, buf, 2), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fipc_send_burst(&p.tx, buf, 2), 0);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 0);
	KUNIT_EXPECT_EQ(test, p.tx.seq, 64u);
	KUNIT_EXPECT_EQ(test, fipc_ring_error(&p.tx), 0);
	KUNIT_EXPECT_EQ(test, fipc_rx_pending(&p.rx, 1000), 64);
	KUNIT_EXPECT_EQ(test, fipc_rx_pending(&p.rx, 10), 10);
	/* A full ring was not written over. */
	KUNIT_EXPECT_TRUE(test, fipc_test_match((void *)p.mem[0].payload, 1,
						0));

	/* One slot freed: a one-slot message fits, a two-slot one does not. */
	fipc_test_recv(test, &p.rx, buf, 1, 0);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 1);
	fipc_test_fill(buf, 2, 64);
	KUNIT_EXPECT_EQ(test, fipc_send(&p.tx, buf, 2), -EAGAIN);
	KUNIT_EXPECT_EQ(test, p.mem[0].flag, FIPC_FLAG_FREE);
	KUNIT_EXPECT_EQ(test, p.tx.seq, 64u);
	fipc_test_send(test, &p.tx, buf, 1, 64);
	KUNIT_EXPECT_EQ(test, p.mem[0].flag, fipc_test_flag(64, 1));
	KUNIT_EXPECT_EQ(test, fipc_send(&p.tx, buf, 1), -EAGAIN);

	for (i = 1; i <= 64; i++)
		fipc_test_recv(test, &p.rx, buf, 1, i);
	KUNIT_EXPECT_EQ(test, fipc_recv(&p.rx, buf, 1), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 64);
	KUNIT_EXPECT_EQ(test, fipc_ring_error(&p.rx), 0);
}

/*
 * Many laps of a 64-slot ring in uneven steps, past the 16-bit wrap of
 * the sequence numbers in the flags.
 */
static void fipc_test_wrap_laps(struct kunit *test)
{
	static const unsigned int steps[] = { 1, 7, 64, 3, 63, 13, 2, 40 };
	struct fipc_msg *buf = fipc_test_bufs(test, FIPC_MSG_MAX_SLOTS);
	struct fipc_test_pair p;
	u32 sent = 0, got = 0;
	unsigned int k = 0, i;

	fipc_test_pair_init(test, &p, 0);
	while (sent < 70000) {
		unsigned int n = steps[k++ % ARRAY_SIZE(steps)];

		for (i = 0; i < n; i++)
			fipc_test_send(test, &p.tx, buf, 1, sent++);
		KUNIT_ASSERT_EQ(test, fipc_rx_pending(&p.rx, 1000), (int)n);
		for (i = 0; i < n; i++)
			fipc_test_recv(test, &p.rx, buf, 1, got++);
		KUNIT_ASSERT_EQ(test, fipc_recv(&p.rx, buf, 1), -EAGAIN);
	}
	KUNIT_EXPECT_EQ(test, p.tx.seq, sent);
	KUNIT_EXPECT_EQ(test, p.rx.seq, sent);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 64);
}

/* The private 32-bit cursors wrap too; start both just below 2^32. */
static void fipc_test_wrap_u32(struct kunit *test)
{
	struct fipc_msg *buf = fipc_test_bufs(test, FIPC_MSG_MAX_SLOTS);
	struct fipc_test_pair p;
	u32 start = 0xffffff00u;
	unsigned int k;

	fipc_test_pair_init(test, &p, 0);
	KUNIT_ASSERT_EQ(test, fipc_ring_set_release_batch(&p.rx, 4), 0);
	p.tx.seq = start;
	p.rx.seq = start;
	p.rx.release_seq = start;
	/* 128 rounds of 6 slots: the cursors cross 2^32 half way. */
	for (k = 0; k < 128; k++) {
		fipc_test_send(test, &p.tx, buf, 5, k);
		fipc_test_send(test, &p.tx, buf, 1, k + 1000);
		KUNIT_ASSERT_EQ(test, fipc_rx_pending(&p.rx, 1000), 6);
		fipc_test_recv(test, &p.rx, buf, 5, k);
		fipc_test_recv(test, &p.rx, buf, 1, k + 1000);
	}
	KUNIT_EXPECT_EQ(test, p.tx.seq, start + 768);
	KUNIT_EXPECT_EQ(test, p.rx.seq, 0x200u);
	KUNIT_EXPECT_EQ(test, fipc_recv(&p.rx, buf, 1), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 64);
	KUNIT_EXPECT_EQ(test, fipc_ring_error(&p.tx), 0);
	KUNIT_EXPECT_EQ(test, fipc_ring_error(&p.rx), 0);
}

static void fipc_test_burst(struct kunit *test)
{
	struct fipc_msg *msgs = fipc_test_bufs(test, 200);
	struct fipc_msg *in = fipc_test_bufs(test, 200);
	struct fipc_test_pair p;
	unsigned int i;

	fipc_test_pair_init(test, &p, 0);
	for (i = 0; i < 200; i++)
		fipc_test_fill(&msgs[i], 1, i);

	/* A burst larger than the ring stops when it is full. */
	KUNIT_EXPECT_EQ(test, fipc_send_burst(&p.tx, msgs, 100), 64);
	KUNIT_EXPECT_EQ(test, p.tx.seq, 64u);
	KUNIT_EXPECT_EQ(test, fipc_send_burst(&p.tx, &msgs[64], 36), 0);
	KUNIT_EXPECT_EQ(test, fipc_recv_burst(&p.rx, in, 10), 10);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_TRUE(test, fipc_test_match(&in[i], 1, i));
	/* Partial burst into the 10 freed slots. */
	KUNIT_EXPECT_EQ(test, fipc_send_burst(&p.tx, &msgs[64], 20), 10);
	KUNIT_EXPECT_EQ(test, fipc_recv_burst(&p.rx, in, 200), 64);
	for (i = 0; i < 64; i++)
		KUNIT_EXPECT_TRUE_MSG(test, fipc_test_match(&in[i], 1, 10 + i),
				      "burst message %u", 10 + i);
	KUNIT_EXPECT_EQ(test, fipc_recv_burst(&p.rx, in, 200), 0);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 64);

	/* recv_burst stops at a multi-slot head and leaves it for recv. */
	KUNIT_ASSERT_EQ(test, fipc_send_burst(&p.tx, msgs, 3), 3);
	fipc_test_send(test, &p.tx, msgs + 100, 4, 500);
	KUNIT_ASSERT_EQ(test, fipc_send_burst(&p.tx, msgs + 3, 2), 2);
	KUNIT_EXPECT_EQ(test, fipc_recv_burst(&p.rx, in, 16), 3);
	KUNIT_EXPECT_EQ(test, fipc_recv_burst(&p.rx, in + 3, 16), 0);
	KUNIT_EXPECT_TRUE(test, fipc_rx_ready(&p.rx));
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE(test, fipc_test_match(&in[i], 1, i));
	KUNIT_EXPECT_EQ(test, fipc_recv(&p.rx, in, 3), -EMSGSIZE);
	fipc_test_recv(test, &p.rx, in, 4, 500);
	KUNIT_EXPECT_EQ(test, fipc_recv_burst(&p.rx, in, 16), 2);
	KUNIT_EXPECT_TRUE(test, fipc_test_match(&in[0], 1, 3));
	KUNIT_EXPECT_TRUE(test, fipc_test_match(&in[1], 1, 4));
	KUNIT_EXPECT_EQ(test, fipc_recv_burst(&p.rx, in, 16), 0);
	KUNIT_EXPECT_EQ(test, fipc_ring_error(&p.rx), 0);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 64);
}

/*
 * Every ring order: fill, check the flags in memory, drain, then laps of
 * maximal messages; the page after the ring must stay untouched.
 */
static void fipc_test_orders(struct kunit *test)
{
	struct fipc_msg *buf = fipc_test_bufs(test, FIPC_MSG_MAX_SLOTS);
	unsigned int order, slots, i, n;
	struct fipc_ring tx, rx;
	struct fipc_slot *mem;
	u8 *guard;
	u32 tag;

	for (order = FIPC_MIN_ORDER; order <= FIPC_MAX_ORDER; order++) {
		mem = fipc_test_alloc(test, order + 1);
		guard = (u8 *)mem + FIPC_RING_BYTES(order);
		memset(guard, 0x6b, FIPC_RING_BYTES(order));
		KUNIT_ASSERT_EQ(test, fipc_ring_init(&tx, mem, order), 0);
		KUNIT_ASSERT_EQ(test, fipc_ring_init(&rx, mem, order), 0);
		slots = fipc_ring_slots(&tx);
		KUNIT_ASSERT_EQ(test, slots, FIPC_RING_SLOTS(order));
		KUNIT_ASSERT_EQ(test, slots, 64u << order);
		KUNIT_EXPECT_EQ(test, fipc_tx_space(&tx, ~0u), (int)slots);

		for (i = 0; i < slots; i++)
			fipc_test_send(test, &tx, buf, 1, i);
		KUNIT_EXPECT_EQ(test, fipc_send(&tx, buf, 1), -EAGAIN);
		KUNIT_EXPECT_EQ(test, fipc_tx_space(&tx, ~0u), 0);
		KUNIT_EXPECT_EQ(test, fipc_rx_pending(&rx, ~0u), (int)slots);
		for (i = 0; i < slots; i++)
			KUNIT_ASSERT_EQ(test, mem[i].flag,
					fipc_test_flag(i, 1));
		for (i = 0; i < slots; i++)
			fipc_test_recv(test, &rx, buf, 1, i);
		KUNIT_EXPECT_EQ(test, fipc_recv(&rx, buf, 1), -EAGAIN);
		for (i = 0; i < slots; i++)
			KUNIT_ASSERT_EQ(test, mem[i].flag, FIPC_FLAG_FREE);

		/* Three laps of messages of 1..32 slots, full ring each time. */
		tag = 0;
		n = 1;
		while (tx.seq < 4 * slots) {
			u32 first = tag;

			while (fipc_tx_space(&tx, ~0u) >= (int)n) {
				fipc_test_send(test, &tx, buf, n, tag++);
				n = n % FIPC_MSG_MAX_SLOTS + 1;
			}
			KUNIT_EXPECT_EQ(test, fipc_send(&tx, buf, n), -EAGAIN);
			while (first != tag) {
				int len = fipc_recv(&rx, buf,
						    FIPC_MSG_MAX_SLOTS);

				KUNIT_ASSERT_GT(test, len, 0);
				KUNIT_ASSERT_TRUE(test,
						  fipc_test_match(buf, len,
								  first));
				first++;
			}
			KUNIT_ASSERT_EQ(test, rx.seq, tx.seq);
		}
		KUNIT_EXPECT_EQ(test, fipc_ring_error(&tx), 0);
		KUNIT_EXPECT_EQ(test, fipc_ring_error(&rx), 0);
		for (i = 0; i < FIPC_RING_BYTES(order); i++)
			if (guard[i] != 0x6b)
				break;
		KUNIT_EXPECT_EQ_MSG(test, i, FIPC_RING_BYTES(order),
				    "order %u wrote past the ring", order);
	}
}

static void fipc_test_multislot(struct kunit *test)
{
	struct fipc_msg *buf = fipc_test_bufs(test, FIPC_MSG_MAX_SLOTS + 1);
	struct fipc_test_pair p;
	unsigned int n, i;

	fipc_test_pair_init(test, &p, 0);
	/* Every length; at 64 slots many of them wrap. */
	for (n = 1; n <= FIPC_MSG_MAX_SLOTS; n++) {
		u32 seq = p.tx.seq;

		fipc_test_send(test, &p.tx, buf, n, n);
		KUNIT_EXPECT_EQ(test, p.mem[seq & 63].flag,
				fipc_test_flag(seq, n));
		for (i = 1; i < n; i++)
			KUNIT_EXPECT_EQ(test, p.mem[(seq + i) & 63].flag,
					fipc_test_flag(seq + i, 0));
		KUNIT_EXPECT_EQ(test, fipc_rx_pending(&p.rx, 1000), (int)n);
		memset(buf, 0, FIPC_MSG_MAX_SLOTS * sizeof(*buf));
		fipc_test_recv(test, &p.rx, buf, n, n);
	}
	KUNIT_EXPECT_EQ(test, p.tx.seq, 528u);

	/* A message that wraps at the end of the ring. */
	while (p.tx.seq % 64 != 60) {
		fipc_test_send(test, &p.tx, buf, 1, 0);
		fipc_test_recv(test, &p.rx, buf, 1, 0);
	}
	fipc_test_send(test, &p.tx, buf, 9, 77);
	KUNIT_EXPECT_EQ(test, p.mem[60].flag, fipc_test_flag(p.rx.seq, 9));
	KUNIT_EXPECT_EQ(test, p.mem[4].flag, fipc_test_flag(p.rx.seq + 8, 0));
	fipc_test_recv(test, &p.rx, buf, 9, 77);

	/* Too long for the buffer: -EMSGSIZE, and the message stays. */
	fipc_test_send(test, &p.tx, buf, 5, 55);
	KUNIT_EXPECT_EQ(test, fipc_recv(&p.rx, buf, 4), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, fipc_recv(&p.rx, buf, 0), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, fipc_recv_burst(&p.rx, buf, 4), 0);
	KUNIT_EXPECT_EQ(test, fipc_rx_pending(&p.rx, 1000), 5);
	KUNIT_EXPECT_EQ(test, fipc_ring_error(&p.rx), 0);
	fipc_test_recv(test, &p.rx, buf, 5, 55);

	/* Bad lengths write nothing. */
	fipc_test_fill(buf, FIPC_MSG_MAX_SLOTS + 1, 9);
	KUNIT_EXPECT_EQ(test, fipc_send(&p.tx, buf, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, fipc_send(&p.tx, buf, FIPC_MSG_MAX_SLOTS + 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fipc_send(&p.tx, buf, ~0u), -EINVAL);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 64);
	KUNIT_EXPECT_FALSE(test, fipc_rx_ready(&p.rx));
	KUNIT_EXPECT_EQ(test, fipc_ring_error(&p.tx), 0);

	/* Two maximal messages fill a 64-slot ring exactly. */
	fipc_test_send(test, &p.tx, buf, FIPC_MSG_MAX_SLOTS, 1);
	fipc_test_send(test, &p.tx, buf, FIPC_MSG_MAX_SLOTS, 2);
	KUNIT_EXPECT_EQ(test, fipc_send(&p.tx, buf, 1), -EAGAIN);
	fipc_test_recv(test, &p.rx, buf, FIPC_MSG_MAX_SLOTS, 1);
	KUNIT_EXPECT_EQ(test, fipc_send(&p.tx, buf, FIPC_MSG_MAX_SLOTS + 1),
			-EINVAL);
	fipc_test_send(test, &p.tx, buf, FIPC_MSG_MAX_SLOTS, 3);
	fipc_test_recv(test, &p.rx, buf, FIPC_MSG_MAX_SLOTS, 2);
	fipc_test_recv(test, &p.rx, buf, FIPC_MSG_MAX_SLOTS, 3);
	KUNIT_EXPECT_EQ(test, fipc_recv(&p.rx, buf, FIPC_MSG_MAX_SLOTS),
			-EAGAIN);
}

static void fipc_test_release_batch(struct kunit *test)
{
	struct fipc_msg *buf = fipc_test_bufs(test, FIPC_MSG_MAX_SLOTS);
	struct fipc_test_pair p;
	unsigned int i;

	fipc_test_pair_init(test, &p, 0);
	KUNIT_ASSERT_EQ(test, fipc_ring_set_release_batch(&p.rx, 8), 0);
	for (i = 0; i < 64; i++)
		fipc_test_send(test, &p.tx, buf, 1, i);

	/* Seven consumed slots are held back, the eighth frees all eight. */
	for (i = 0; i < 7; i++)
		fipc_test_recv(test, &p.rx, buf, 1, i);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 0);
	KUNIT_EXPECT_EQ(test, p.mem[0].flag, fipc_test_flag(0, 1));
	KUNIT_EXPECT_EQ(test, fipc_rx_pending(&p.rx, 1000), 57);
	fipc_test_recv(test, &p.rx, buf, 1, 7);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 8);
	KUNIT_EXPECT_EQ(test, p.mem[7].flag, FIPC_FLAG_FREE);

	/* A burst batches the same way. */
	KUNIT_EXPECT_EQ(test, fipc_recv_burst(&p.rx, buf, 3), 3);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 8);
	KUNIT_EXPECT_EQ(test, p.mem[8].flag, fipc_test_flag(8, 1));

	/* fipc_recv_release() hands back what is held now. */
	fipc_recv_release(&p.rx);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 11);
	KUNIT_EXPECT_EQ(test, p.mem[10].flag, FIPC_FLAG_FREE);
	fipc_recv_release(&p.rx);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 11);

	/* Finding the ring empty frees everything held. */
	for (i = 11; i < 64; i++)
		fipc_test_recv(test, &p.rx, buf, 1, i);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 8 + 11 + 40);
	KUNIT_EXPECT_EQ(test, fipc_recv(&p.rx, buf, 1), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 64);

	/* So does an empty burst. */
	fipc_test_send(test, &p.tx, buf, 1, 64);
	fipc_test_recv(test, &p.rx, buf, 1, 64);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 63);
	KUNIT_EXPECT_EQ(test, fipc_recv_burst(&p.rx, buf, 4), 0);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 64);

	/* Held slots are behind the receiver, never counted as pending. */
	KUNIT_ASSERT_EQ(test, fipc_ring_set_release_batch(&p.rx, 32), 0);
	for (i = 0; i < 64; i++)
		fipc_test_send(test, &p.tx, buf, 1, 100 + i);
	for (i = 0; i < 20; i++)
		fipc_test_recv(test, &p.rx, buf, 1, 100 + i);
	KUNIT_EXPECT_EQ(test, fipc_rx_pending(&p.rx, 1000), 44);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 0);
	for (i = 20; i < 64; i++)
		fipc_test_recv(test, &p.rx, buf, 1, 100 + i);
	KUNIT_EXPECT_EQ(test, fipc_rx_pending(&p.rx, 1000), 0);
	KUNIT_EXPECT_EQ(test, fipc_recv(&p.rx, buf, 1), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 64);
	KUNIT_EXPECT_EQ(test, fipc_ring_error(&p.rx), 0);
}

/* Every receiving call on a broken ring fails with -EPROTO. */
static void fipc_test_expect_rx_broken(struct kunit *test,
				       struct fipc_ring *rx,
				       struct fipc_msg *buf)
{
	struct fipc_waiter w;

	KUNIT_EXPECT_EQ(test, fipc_ring_error(rx), -EPROTO);
	KUNIT_EXPECT_EQ(test, fipc_recv(rx, buf, FIPC_MSG_MAX_SLOTS), -EPROTO);
	KUNIT_EXPECT_EQ(test, fipc_recv_burst(rx, buf, 4), -EPROTO);
	KUNIT_EXPECT_EQ(test, fipc_rx_pending(rx, 64), -EPROTO);
	KUNIT_ASSERT_EQ(test, fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 4, NULL,
					       NULL), 0);
	KUNIT_EXPECT_EQ(test, fipc_wait_rx(rx, &w), -EPROTO);
}

/* Every sending call on a broken ring fails with -EPROTO. */
static void fipc_test_expect_tx_broken(struct kunit *test,
				       struct fipc_ring *tx,
				       struct fipc_msg *buf)
{
	KUNIT_EXPECT_EQ(test, fipc_ring_error(tx), -EPROTO);
	KUNIT_EXPECT_EQ(test, fipc_send(tx, buf, 1), -EPROTO);
	KUNIT_EXPECT_EQ(test, fipc_send(tx, buf, 0), -EPROTO);
	KUNIT_EXPECT_EQ(test, fipc_send_burst(tx, buf, 4), -EPROTO);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(tx, 64), -EPROTO);
}

struct fipc_test_bad_head {
	const char *what;
	u32 flag;
};

/* Flags a hostile peer may put in the head slot at sequence 0. */
static const struct fipc_test_bad_head fipc_test_bad_heads[] = {
	{ "unknown kind", 0x5a010000u },
	{ "kind 0xff", 0xff010000u },
	{ "kind READY-1", 0xa4010000u },
	{ "wrong seq", FIPC_FLAG_READY | (1 << FIPC_FLAG_LEN_SHIFT) | 5 },
	{ "seq one lap old", FIPC_FLAG_READY | (1 << FIPC_FLAG_LEN_SHIFT) |
			     (0x10000 - 64) },
	{ "len 0", FIPC_FLAG_READY },
	{ "len 33", FIPC_FLAG_READY | (33 << FIPC_FLAG_LEN_SHIFT) },
	{ "len 255", FIPC_FLAG_READY | FIPC_FLAG_LEN_MASK },
	{ "all ones", 0xffffffffu },
};

static void fipc_test_corrupt_head(struct kunit *test)
{
	struct fipc_msg *buf = fipc_test_bufs(test, FIPC_MSG_MAX_SLOTS);
	const struct fipc_test_bad_head *bad;
	struct fipc_test_pair p;
	unsigned int i;

	fipc_test_pair_init(test, &p, 0);
	for (i = 0; i < ARRAY_SIZE(fipc_test_bad_heads); i++) {
		bad = &fipc_test_bad_heads[i];
		fipc_ring_clear(p.mem, 0);
		KUNIT_ASSERT_EQ(test, fipc_ring_init(&p.rx, p.mem, 0), 0);
		WRITE_ONCE(p.mem[0].flag, bad->flag);
		/* Noticed by recv, even when the buffer would be too small. */
		KUNIT_EXPECT_EQ_MSG(test, fipc_recv(&p.rx, buf, 1), -EPROTO,
				    "head flag %08x (%s)", bad->flag,
				    bad->what);
		KUNIT_EXPECT_EQ(test, p.rx.seq, 0u);
		fipc_test_expect_rx_broken(test, &p.rx, buf);

		/* ... and by recv_burst. */
		KUNIT_ASSERT_EQ(test, fipc_ring_init(&p.rx, p.mem, 0), 0);
		KUNIT_EXPECT_EQ_MSG(test, fipc_recv_burst(&p.rx, buf, 4),
				    -EPROTO, "head flag %08x (%s)", bad->flag,
				    bad->what);
		KUNIT_EXPECT_EQ(test, fipc_ring_error(&p.rx), -EPROTO);
	}

	/* The same checks deeper in the ring, after good messages. */
	fipc_ring_clear(p.mem, 0);
	KUNIT_ASSERT_EQ(test, fipc_ring_init(&p.tx, p.mem, 0), 0);
	KUNIT_ASSERT_EQ(test, fipc_ring_init(&p.rx, p.mem, 0), 0);
	for (i = 0; i < 70; i++) {
		fipc_test_send(test, &p.tx, buf, 1, i);
		fipc_test_recv(test, &p.rx, buf, 1, i);
	}
	fipc_test_send(test, &p.tx, buf, 1, 70);
	fipc_test_send(test, &p.tx, buf, 1, 71);
	/* The slot at seq 72 still says seq 8, one lap old. */
	WRITE_ONCE(p.mem[72 % 64].flag, fipc_test_flag(8, 1));
	KUNIT_EXPECT_EQ(test, fipc_recv_burst(&p.rx, buf, 8), 2);
	KUNIT_EXPECT_TRUE(test, fipc_test_match(&buf[1], 1, 71));
	KUNIT_EXPECT_EQ(test, fipc_recv_burst(&p.rx, buf, 8), -EPROTO);
	fipc_test_expect_rx_broken(test, &p.rx, buf);
}

/* Continuation slots must be ready, of length 0 and in sequence. */
static void fipc_test_corrupt_continuation(struct kunit *test)
{
	static const struct {
		unsigned int slot;
		u32 flag;
	} bad[] = {
		{ 1, FIPC_FLAG_FREE },
		{ 3, FIPC_FLAG_FREE },
		{ 2, FIPC_FLAG_READY | (1 << FIPC_FLAG_LEN_SHIFT) | 2 },
		{ 2, FIPC_FLAG_READY | 3 },
		{ 2, FIPC_FLAG_READY | (0x10000 - 64 + 2) },
		{ 3, 0x5a000003u },
	};
	struct fipc_msg *buf = fipc_test_bufs(test, FIPC_MSG_MAX_SLOTS);
	struct fipc_test_pair p;
	unsigned int i;

	fipc_test_pair_init(test, &p, 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		fipc_ring_clear(p.mem, 0);
		KUNIT_ASSERT_EQ(test, fipc_ring_init(&p.tx, p.mem, 0), 0);
		KUNIT_ASSERT_EQ(test, fipc_ring_init(&p.rx, p.mem, 0), 0);
		fipc_test_send(test, &p.tx, buf, 4, 4);
		WRITE_ONCE(p.mem[bad[i].slot].flag, bad[i].flag);
		KUNIT_EXPECT_EQ_MSG(test, fipc_recv(&p.rx, buf, 4), -EPROTO,
				    "slot %u flag %08x", bad[i].slot,
				    bad[i].flag);
		KUNIT_EXPECT_EQ(test, p.rx.seq, 0u);
		fipc_test_expect_rx_broken(test, &p.rx, buf);
	}

	/* A head whose message runs past the end of the sender's slots. */
	fipc_ring_clear(p.mem, 0);
	KUNIT_ASSERT_EQ(test, fipc_ring_init(&p.tx, p.mem, 0), 0);
	KUNIT_ASSERT_EQ(test, fipc_ring_init(&p.rx, p.mem, 0), 0);
	fipc_test_send(test, &p.tx, buf, 2, 2);
	WRITE_ONCE(p.mem[0].flag, fipc_test_flag(0, 3));
	KUNIT_EXPECT_EQ(test, fipc_recv(&p.rx, buf, FIPC_MSG_MAX_SLOTS),
			-EPROTO);
	fipc_test_expect_rx_broken(test, &p.rx, buf);
}

/* Garbage where the sender expects a free slot or its own old message. */
static void fipc_test_corrupt_tx(struct kunit *test)
{
	static const u32 garbage[] = {
		0xdeadbeefu,
		0x00000001u,
		FIPC_FLAG_READY | (1 << FIPC_FLAG_LEN_SHIFT),	/* seq 0 */
		FIPC_FLAG_READY | (1 << FIPC_FLAG_LEN_SHIFT) | 64,
		0x5a000000u | (0x10000 - 64),
	};
	struct fipc_msg *buf = fipc_test_bufs(test, FIPC_MSG_MAX_SLOTS);
	struct fipc_test_pair p;
	unsigned int i;

	fipc_test_pair_init(test, &p, 0);
	for (i = 0; i < ARRAY_SIZE(garbage); i++) {
		fipc_ring_clear(p.mem, 0);
		KUNIT_ASSERT_EQ(test, fipc_ring_init(&p.tx, p.mem, 0), 0);
		WRITE_ONCE(p.mem[0].flag, garbage[i]);
		KUNIT_EXPECT_EQ_MSG(test, fipc_send(&p.tx, buf, 1), -EPROTO,
				    "flag %08x", garbage[i]);
		KUNIT_EXPECT_EQ(test, p.tx.seq, 0u);
		/* Nothing was written over the peer's garbage. */
		KUNIT_EXPECT_EQ(test, p.mem[0].flag, garbage[i]);
		fipc_test_expect_tx_broken(test, &p.tx, buf);

		KUNIT_ASSERT_EQ(test, fipc_ring_init(&p.tx, p.mem, 0), 0);
		KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 8), -EPROTO);
		KUNIT_ASSERT_EQ(test, fipc_ring_init(&p.tx, p.mem, 0), 0);
		KUNIT_EXPECT_EQ(test, fipc_send_burst(&p.tx, buf, 8), -EPROTO);
		KUNIT_EXPECT_EQ(test, fipc_ring_error(&p.tx), -EPROTO);
	}

	/* Garbage in a continuation slot fails a multi-slot send. */
	fipc_ring_clear(p.mem, 0);
	KUNIT_ASSERT_EQ(test, fipc_ring_init(&p.tx, p.mem, 0), 0);
	WRITE_ONCE(p.mem[3].flag, 0xdeadbeefu);
	KUNIT_EXPECT_EQ(test, fipc_send(&p.tx, buf, 5), -EPROTO);
	KUNIT_EXPECT_EQ(test, p.mem[0].flag, FIPC_FLAG_FREE);
	fipc_test_expect_tx_broken(test, &p.tx, buf);

	/* A burst stops before the garbage, then reports it. */
	KUNIT_ASSERT_EQ(test, fipc_ring_init(&p.tx, p.mem, 0), 0);
	KUNIT_EXPECT_EQ(test, fipc_send_burst(&p.tx, buf, 8), 3);
	KUNIT_EXPECT_EQ(test, fipc_ring_error(&p.tx), -EPROTO);
	KUNIT_EXPECT_EQ(test, fipc_send_burst(&p.tx, buf, 8), -EPROTO);

	/* A full ring (our own last-lap messages) is not an error. */
	fipc_ring_clear(p.mem, 0);
	KUNIT_ASSERT_EQ(test, fipc_ring_init(&p.tx, p.mem, 0), 0);
	KUNIT_ASSERT_EQ(test, fipc_ring_init(&p.rx, p.mem, 0), 0);
	for (i = 0; i < 63; i++)
		fipc_test_send(test, &p.tx, buf, i == 5 ? 2 : 1, i);
	KUNIT_EXPECT_EQ(test, fipc_send(&p.tx, buf, 1), -EAGAIN);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 8), 0);
	for (i = 0; i < 5; i++)
		fipc_test_recv(test, &p.rx, buf, 1, i);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 8), 5);
	KUNIT_EXPECT_EQ(test, fipc_send(&p.tx, buf, 6), -EAGAIN);
	fipc_test_recv(test, &p.rx, buf, 2, 5);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 8), 7);
	KUNIT_EXPECT_EQ(test, fipc_ring_error(&p.tx), 0);
	KUNIT_EXPECT_EQ(test, fipc_ring_error(&p.rx), 0);
}

/* Once broken, a ring stays broken even if the peer repairs the flag. */
static void fipc_test_eproto_sticky(struct kunit *test)
{
	struct fipc_msg *buf = fipc_test_bufs(test, FIPC_MSG_MAX_SLOTS);
	struct fipc_test_pair p;

	fipc_test_pair_init(test, &p, 0);
	fipc_test_send(test, &p.tx, buf, 1, 0);
	WRITE_ONCE(p.mem[0].flag, fipc_test_flag(0, 0));
	KUNIT_EXPECT_EQ(test, fipc_recv(&p.rx, buf, 1), -EPROTO);
	WRITE_ONCE(p.mem[0].flag, fipc_test_flag(0, 1));
	KUNIT_EXPECT_TRUE(test, fipc_rx_ready(&p.rx));
	fipc_test_expect_rx_broken(test, &p.rx, buf);
	fipc_recv_release(&p.rx);
	fipc_test_expect_rx_broken(test, &p.rx, buf);

	WRITE_ONCE(p.mem[1].flag, 0x12345678u);
	KUNIT_EXPECT_EQ(test, fipc_send(&p.tx, buf, 1), -EPROTO);
	WRITE_ONCE(p.mem[1].flag, FIPC_FLAG_FREE);
	fipc_test_expect_tx_broken(test, &p.tx, buf);
	KUNIT_EXPECT_EQ(test, p.tx.seq, 1u);
	KUNIT_EXPECT_EQ(test, p.mem[1].flag, FIPC_FLAG_FREE);

	/* A fresh init is the only way back. */
	fipc_ring_clear(p.mem, 0);
	KUNIT_ASSERT_EQ(test, fipc_ring_init(&p.tx, p.mem, 0), 0);
	KUNIT_ASSERT_EQ(test, fipc_ring_init(&p.rx, p.mem, 0), 0);
	fipc_test_send(test, &p.tx, buf, 1, 3);
	fipc_test_recv(test, &p.rx, buf, 1, 3);
}

struct fipc_test_sleeper {
	unsigned int calls;
	unsigned int abort_at;
	int abort_err;
	struct fipc_test_pair *pair;
	struct fipc_msg *buf;
	unsigned int send_at;
};

/* Sleep hook: maybe play the peer and send, maybe give up. */
static int fipc_test_sleep(void *arg)
{
	struct fipc_test_sleeper *s = arg;

	s->calls++;
	if (s->pair && s->calls == s->send_at)
		fipc_send(&s->pair->tx, s->buf, 1);
	if (s->abort_at && s->calls >= s->abort_at)
		return s->abort_err;
	return 0;
}

static void fipc_test_waiter(struct kunit *test)
{
	struct fipc_msg *buf = fipc_test_bufs(test, FIPC_MSG_MAX_SLOTS);
	struct fipc_test_sleeper s = { };
	struct fipc_test_pair p;
	struct fipc_waiter w;
	unsigned int i;

	fipc_test_pair_init(test, &p, 0);

	/* No sleep hook: -ETIMEDOUT after spin_limit empty polls. */
	KUNIT_ASSERT_EQ(test, fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 10, NULL,
					       NULL), 0);
	KUNIT_EXPECT_EQ(test, fipc_wait_rx(&p.rx, &w), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, w.empty_polls, 10ull);
	KUNIT_EXPECT_EQ(test, w.sleeps, 0ull);
	KUNIT_EXPECT_EQ(test, fipc_wait_rx(&p.rx, &w), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, w.empty_polls, 20ull);

	/* A message ready: 0 at once, with no empty poll. */
	fipc_test_send(test, &p.tx, buf, 2, 1);
	KUNIT_EXPECT_EQ(test, fipc_wait_rx(&p.rx, &w), 0);
	KUNIT_EXPECT_EQ(test, w.empty_polls, 20ull);
	fipc_test_recv(test, &p.rx, buf, 2, 1);

	/* spin_limit 0 never sleeps; with a message it returns at once. */
	KUNIT_ASSERT_EQ(test, fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 0, NULL,
					       NULL), 0);
	fipc_test_send(test, &p.tx, buf, 1, 2);
	KUNIT_EXPECT_EQ(test, fipc_wait_rx(&p.rx, &w), 0);
	fipc_test_recv(test, &p.rx, buf, 1, 2);

	/* The sleep hook aborts on its third call: its error comes back. */
	s.abort_at = 3;
	s.abort_err = -EINTR;
	KUNIT_ASSERT_EQ(test, fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 5,
					       fipc_test_sleep, &s), 0);
	KUNIT_EXPECT_EQ(test, fipc_wait_rx(&p.rx, &w), -EINTR);
	KUNIT_EXPECT_EQ(test, s.calls, 3u);
	KUNIT_EXPECT_EQ(test, w.sleeps, 3ull);
	KUNIT_EXPECT_EQ(test, w.empty_polls, 15ull);

	/* The peer sends while we sleep: the wait ends with 0. */
	memset(&s, 0, sizeof(s));
	s.pair = &p;
	s.buf = buf;
	s.send_at = 2;
	s.abort_at = 10;
	s.abort_err = -ECANCELED;
	fipc_test_fill(buf, 1, 3);
	KUNIT_ASSERT_EQ(test, fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 4,
					       fipc_test_sleep, &s), 0);
	KUNIT_EXPECT_EQ(test, fipc_wait_rx(&p.rx, &w), 0);
	KUNIT_EXPECT_EQ(test, s.calls, 2u);
	KUNIT_EXPECT_EQ(test, w.sleeps, 2ull);
	fipc_test_recv(test, &p.rx, buf, 1, 3);

	/* Slots held by a release batch are freed before sleeping. */
	KUNIT_ASSERT_EQ(test, fipc_ring_set_release_batch(&p.rx, 16), 0);
	for (i = 0; i < 5; i++)
		fipc_test_send(test, &p.tx, buf, 1, i);
	for (i = 0; i < 5; i++)
		fipc_test_recv(test, &p.rx, buf, 1, i);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 59);
	KUNIT_ASSERT_EQ(test, fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 3, NULL,
					       NULL), 0);
	KUNIT_EXPECT_EQ(test, fipc_wait_rx(&p.rx, &w), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, fipc_tx_space(&p.tx, 1000), 64);

	/* A broken ring: -EPROTO, without polling or sleeping. */
	memset(&s, 0, sizeof(s));
	KUNIT_ASSERT_EQ(test, fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 1,
					       fipc_test_sleep, &s), 0);
	WRITE_ONCE(p.mem[p.rx.seq & 63].flag, 0xbad0bad0u);
	KUNIT_EXPECT_EQ(test, fipc_recv(&p.rx, buf, 1), -EPROTO);
	KUNIT_EXPECT_EQ(test, fipc_wait_rx(&p.rx, &w), -EPROTO);
	KUNIT_EXPECT_EQ(test, s.calls, 0u);
	KUNIT_EXPECT_EQ(test, w.empty_polls, 0ull);
}

/*
 * Two-kthread stress.  The producer sends FIPC_STRESS_MSGS messages on
 * the data ring: mostly one-slot messages in bursts, with multi-slot
 * messages of 2..32 slots mixed in.  Each carries its sequence number,
 * its length and a checksum of all its other bytes.  The consumer checks
 * every message and answers each with a one-slot echo (sequence number,
 * length, checksum) on the echo ring, which the producer checks in turn.
 * Both threads poll with a bounded spin, then their sleep hook wakes the
 * peer and sleeps on a wait queue until there is work (the peer wakes it
 * after each send, as an event channel would), so on a uniprocessor UML
 * kernel each runs while the other waits.  A watchdog fails the test
 * rather than hang.
 */
#define FIPC_STRESS_MSGS	4194304u
#define FIPC_STRESS_BURST	16u
#define FIPC_STRESS_INFLIGHT	4096u	/* producer's window, power of 2 */
#define FIPC_STRESS_SPIN	64u
#define FIPC_STRESS_TIMEOUT_S	120

struct fipc_stress_hdr {
	u32 seq;
	u32 nslots;
	u32 csum;
};

struct fipc_stress {
	struct fipc_ring data_tx, data_rx;	/* producer -> consumer */
	struct fipc_ring echo_tx, echo_rx;	/* consumer -> producer */
	u32 *csums;		/* producer: checksum of each message in flight */
	wait_queue_head_t wq[2];	/* producer, consumer sleep here */
	struct completion done[2];
	int abort;
	/* Results, read after both threads have finished. */
	int err[2];
	char why[2][96];
	u32 msgs, echoes, slots, multi, bursts, sleeps[2];
};

/* Message length of sequence number seq: one slot mostly, up to 32. */
static unsigned int fipc_stress_len(u32 seq)
{
	u32 h = seq * 2654435761u;

	if ((h >> 28) != 0xf)
		return 1;
	return 2 + (h >> 8) % (FIPC_MSG_MAX_SLOTS - 1);
}

static u32 fipc_stress_csum(const struct fipc_msg *m, unsigned int n)
{
	const u8 *p = m->data + sizeof(struct fipc_stress_hdr);
	const u8 *end = m->data + n * FIPC_SLOT_PAYLOAD;
	u32 h = 2166136261u;

	while (p < end)
		h = (h ^ *p++) * 16777619u;
	return h;
}

/* Fill message seq (fipc_stress_len(seq) slots); returns its checksum. */
static u32 fipc_stress_make(struct fipc_msg *m, u32 seq)
{
	unsigned int n = fipc_stress_len(seq);
	struct fipc_stress_hdr hdr = { .seq = seq, .nslots = n };
	u32 x = seq | 1, *w = (u32 *)m;
	unsigned int i;

	for (i = 0; i < n * FIPC_SLOT_PAYLOAD / 4; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		w[i] = x;
	}
	hdr.csum = fipc_stress_csum(m, n);
	memcpy(m->data, &hdr, sizeof(hdr));
	return hdr.csum;
}

static int fipc_stress_fail(struct fipc_stress *st, int who, int err,
			    const char *what, u32 seq, u32 got)
{
	if (!st->err[who]) {
		st->err[who] = err;
		snprintf(st->why[who], sizeof(st->why[who]),
			 "%s at seq %u (got %u, err %d)", what, seq, got, err);
	}
	WRITE_ONCE(st->abort, 1);
	return err;
}

static bool fipc_stress_stopping(struct fipc_stress *st)
{
	return READ_ONCE(st->abort) || kthread_should_stop();
}

/*
 * Sleep hooks: wake the peer (it may wait for the slots we just freed),
 * then sleep until our condition holds.  The timeout only bounds the
 * cost of a lost wake-up; the caller polls again either way.
 */
static int fipc_stress_producer_sleep(void *arg)
{
	struct fipc_stress *st = arg;

	wake_up(&st->wq[1]);
	wait_event_timeout(st->wq[0], fipc_rx_ready(&st->echo_rx) ||
			   fipc_stress_stopping(st), HZ / 10);
	return fipc_stress_stopping(st) ? -EINTR : 0;
}

static int fipc_stress_consumer_sleep(void *arg)
{
	struct fipc_stress *st = arg;

	wake_up(&st->wq[0]);
	wait_event_timeout(st->wq[1], fipc_rx_ready(&st->data_rx) ||
			   fipc_stress_stopping(st), HZ / 10);
	return fipc_stress_stopping(st) ? -EINTR : 0;
}

/* The consumer waits for room on the echo ring. */
static int fipc_stress_echo_sleep(struct fipc_stress *st)
{
	wake_up(&st->wq[0]);
	wait_event_timeout(st->wq[1], fipc_tx_space(&st->echo_tx, 1) ||
			   fipc_stress_stopping(st), HZ / 10);
	return fipc_stress_stopping(st) ? -EINTR : 0;
}

static int fipc_stress_producer(void *arg)
{
	struct fipc_stress *st = arg;
	struct fipc_msg *out, *echo;
	struct fipc_waiter w;
	u32 next = 0, acked = 0;
	int ret = -ENOMEM, i, n;

	out = kmalloc_array(FIPC_STRESS_BURST + FIPC_MSG_MAX_SLOTS,
			    sizeof(*out), GFP_KERNEL);
	echo = kmalloc_array(FIPC_STRESS_BURST, sizeof(*echo), GFP_KERNEL);
	if (!out || !echo) {
		fipc_stress_fail(st, 0, ret, "producer kmalloc", 0, 0);
		goto out;
	}
	ret = fipc_waiter_init(&w, FIPC_WAIT_PAUSE, FIPC_STRESS_SPIN,
			       fipc_stress_producer_sleep, st);
	if (ret) {
		fipc_stress_fail(st, 0, ret, "producer waiter", 0, 0);
		goto out;
	}

	while (acked < FIPC_STRESS_MSGS) {
		bool progress = false;

		if (READ_ONCE(st->abort)) {
			ret = fipc_stress_fail(st, 0, -EINTR, "aborted", acked,
					       next);
			goto out;
		}

		/* Echoes first, so the consumer never waits on us for long. */
		n = fipc_recv_burst(&st->echo_rx, echo, FIPC_STRESS_BURST);
		if (n < 0) {
			ret = fipc_stress_fail(st, 0, n, "echo recv", acked, 0);
			goto out;
		}
		for (i = 0; i < n; i++, acked++) {
			struct fipc_stress_hdr hdr;

			memcpy(&hdr, echo[i].data, sizeof(hdr));
			if (hdr.seq != acked || hdr.seq >= next) {
				ret = fipc_stress_fail(st, 0, -EBADMSG,
						       "echo seq", acked,
						       hdr.seq);
				goto out;
			}
			if (hdr.nslots != fipc_stress_len(acked) ||
			    hdr.csum != st->csums[acked &
						  (FIPC_STRESS_INFLIGHT - 1)]) {
				ret = fipc_stress_fail(st, 0, -EBADMSG,
						       "echo checksum", acked,
						       hdr.csum);
				goto out;
			}
		}
		WRITE_ONCE(st->echoes, acked);
		progress = n > 0;

		if (next < FIPC_STRESS_MSGS &&
		    next - acked < FIPC_STRESS_INFLIGHT - FIPC_STRESS_BURST) {
			unsigned int len = fipc_stress_len(next);

			if (len > 1) {
				st->csums[next & (FIPC_STRESS_INFLIGHT - 1)] =
					fipc_stress_make(out, next);
				n = fipc_send(&st->data_tx, out, len);
				if (n == 0) {
					next++;
					st->multi++;
					st->slots += len;
					progress = true;
				}
			} else {
				unsigned int k = 0;

				/* A burst of one-slot messages. */
				while (k < FIPC_STRESS_BURST &&
				       next + k < FIPC_STRESS_MSGS &&
				       fipc_stress_len(next + k) == 1) {
					st->csums[(next + k) &
						  (FIPC_STRESS_INFLIGHT - 1)] =
						fipc_stress_make(&out[k],
								 next + k);
					k++;
				}
				n = fipc_send_burst(&st->data_tx, out, k);
				if (n > 0) {
					next += n;
					st->slots += n;
					st->bursts++;
					progress = true;
				}
			}
			if (n < 0 && n != -EAGAIN) {
				ret = fipc_stress_fail(st, 0, n, "send", next,
						       0);
				goto out;
			}
		}
		if (progress) {
			/* Data to read, or echo slots freed. */
			wake_up(&st->wq[1]);
			cond_resched();
			continue;
		}
		/* Nothing to do until the consumer echoes something. */
		ret = fipc_wait_rx(&st->echo_rx, &w);
		if (ret) {
			fipc_stress_fail(st, 0, ret, "echo wait", acked, next);
			goto out;
		}
	}
	st->sleeps[0] = w.sleeps;
	ret = 0;
out:
	kfree(out);
	kfree(echo);
	complete(&st->done[0]);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return ret;
}

/* Check one message of n slots; queue its echo. */
static int fipc_stress_check(struct fipc_stress *st, const struct fipc_msg *m,
			     unsigned int n, u32 seq, struct fipc_msg *echo)
{
	struct fipc_stress_hdr hdr;

	memcpy(&hdr, m->data, sizeof(hdr));
	if (hdr.seq != seq)
		return fipc_stress_fail(st, 1, -EBADMSG, "data seq", seq,
					hdr.seq);
	if (hdr.nslots != n || n != fipc_stress_len(seq))
		return fipc_stress_fail(st, 1, -EBADMSG, "data length", seq,
					n);
	if (hdr.csum != fipc_stress_csum(m, n))
		return fipc_stress_fail(st, 1, -EBADMSG, "data checksum", seq,
					hdr.csum);
	memcpy(echo->data, &hdr, sizeof(hdr));
	return 0;
}

static int fipc_stress_consumer(void *arg)
{
	struct fipc_stress *st = arg;
	struct fipc_msg *in, *echo;
	unsigned int queued = 0, sent = 0;
	struct fipc_waiter w;
	u32 seq = 0;
	int ret = -ENOMEM, i, n;

	in = kmalloc_array(FIPC_MSG_MAX_SLOTS, sizeof(*in), GFP_KERNEL);
	echo = kmalloc_array(FIPC_MSG_MAX_SLOTS, sizeof(*echo), GFP_KERNEL);
	if (!in || !echo) {
		fipc_stress_fail(st, 1, ret, "consumer kmalloc", 0, 0);
		goto out;
	}
	ret = fipc_waiter_init(&w, FIPC_WAIT_PAUSE, FIPC_STRESS_SPIN,
			       fipc_stress_consumer_sleep, st);
	if (ret) {
		fipc_stress_fail(st, 1, ret, "consumer waiter", 0, 0);
		goto out;
	}

	while (seq < FIPC_STRESS_MSGS || sent < queued) {
		if (READ_ONCE(st->abort)) {
			ret = fipc_stress_fail(st, 1, -EINTR, "aborted", seq,
					       0);
			goto out;
		}
		/* Echo what was received before taking more. */
		if (sent < queued) {
			n = fipc_send_burst(&st->echo_tx, &echo[sent],
					    queued - sent);
			if (n < 0) {
				ret = fipc_stress_fail(st, 1, n, "echo send",
						       seq, 0);
				goto out;
			}
			sent += n;
			if (n > 0)
				wake_up(&st->wq[0]);
			if (sent < queued) {
				ret = fipc_stress_echo_sleep(st);
				if (ret) {
					fipc_stress_fail(st, 1, ret,
							 "echo full", seq, 0);
					goto out;
				}
				continue;
			}
			queued = 0;
			sent = 0;
			if (seq == FIPC_STRESS_MSGS)
				break;
		}

		cond_resched();
		ret = fipc_wait_rx(&st->data_rx, &w);
		if (ret) {
			fipc_stress_fail(st, 1, ret, "data wait", seq, 0);
			goto out;
		}
		n = fipc_recv_burst(&st->data_rx, in, FIPC_STRESS_BURST);
		if (n == 0) {
			/* A multi-slot message at the head. */
			n = fipc_recv(&st->data_rx, in, FIPC_MSG_MAX_SLOTS);
			if (n <= 0) {
				ret = fipc_stress_fail(st, 1, n ? n : -EIO,
						       "data recv", seq, 0);
				goto out;
			}
			ret = fipc_stress_check(st, in, n, seq++, &echo[0]);
			if (ret)
				goto out;
			queued = 1;
			WRITE_ONCE(st->msgs, st->msgs + 1);
			continue;
		}
		if (n < 0) {
			ret = fipc_stress_fail(st, 1, n, "data burst", seq, 0);
			goto out;
		}
		for (i = 0; i < n; i++) {
			ret = fipc_stress_check(st, &in[i], 1, seq++,
						&echo[i]);
			if (ret)
				goto out;
		}
		queued = n;
		WRITE_ONCE(st->msgs, st->msgs + n);
	}
	st->sleeps[1] = w.sleeps;
	ret = 0;
out:
	kfree(in);
	kfree(echo);
	complete(&st->done[1]);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return ret;
}

static void fipc_test_stress(struct kunit *test)
{
	struct task_struct *task[2];
	struct fipc_stress *st;
	void *data, *echo;
	unsigned long left;
	ktime_t t0;
	s64 ms;
	int i;

	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	st->csums = kunit_kcalloc(test, FIPC_STRESS_INFLIGHT,
				  sizeof(*st->csums), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st->csums);
	data = fipc_test_alloc(test, 1);
	echo = fipc_test_alloc(test, 0);
	KUNIT_ASSERT_EQ(test, fipc_ring_init(&st->data_tx, data, 1), 0);
	KUNIT_ASSERT_EQ(test, fipc_ring_init(&st->data_rx, data, 1), 0);
	KUNIT_ASSERT_EQ(test, fipc_ring_init(&st->echo_tx, echo, 0), 0);
	KUNIT_ASSERT_EQ(test, fipc_ring_init(&st->echo_rx, echo, 0), 0);
	KUNIT_ASSERT_EQ(test, fipc_ring_set_release_batch(&st->data_rx, 16),
			0);
	KUNIT_ASSERT_EQ(test, fipc_ring_set_release_batch(&st->echo_rx, 8), 0);
	init_completion(&st->done[0]);
	init_completion(&st->done[1]);
	init_waitqueue_head(&st->wq[0]);
	init_waitqueue_head(&st->wq[1]);

	task[0] = kthread_create(fipc_stress_producer, st, "fipc-producer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task[0]));
	get_task_struct(task[0]);
	task[1] = kthread_create(fipc_stress_consumer, st, "fipc-consumer");
	if (IS_ERR(task[1])) {
		kthread_stop(task[0]);
		put_task_struct(task[0]);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task[1]));
	}
	get_task_struct(task[1]);

	t0 = ktime_get();
	wake_up_process(task[1]);
	wake_up_process(task[0]);
	left = FIPC_STRESS_TIMEOUT_S * HZ;
	for (i = 0; i < 2; i++) {
		left = wait_for_completion_timeout(&st->done[i], left);
		if (!left)
			break;
	}
	ms = ktime_ms_delta(ktime_get(), t0);
	if (!left) {
		/* Watchdog: make both threads give up, then fail. */
		WRITE_ONCE(st->abort, 1);
		KUNIT_FAIL(test, "stress hung: %u messages, %u echoes in %lld ms",
			   READ_ONCE(st->msgs), READ_ONCE(st->echoes), ms);
	}
	for (i = 0; i < 2; i++) {
		kthread_stop(task[i]);
		put_task_struct(task[i]);
	}

	kunit_info(test,
		   "stress: %u messages (%u multi-slot, %u slots, %u bursts), %u echoes in %lld ms; sleeps %u/%u\n",
		   st->msgs, st->multi, st->slots, st->bursts, st->echoes, ms,
		   st->sleeps[0], st->sleeps[1]);
	KUNIT_EXPECT_EQ_MSG(test, st->err[0], 0, "producer: %s", st->why[0]);
	KUNIT_EXPECT_EQ_MSG(test, st->err[1], 0, "consumer: %s", st->why[1]);
	KUNIT_EXPECT_EQ(test, st->msgs, FIPC_STRESS_MSGS);
	KUNIT_EXPECT_EQ(test, st->echoes, FIPC_STRESS_MSGS);
	KUNIT_EXPECT_GT(test, st->multi, 0u);
	KUNIT_EXPECT_EQ(test, fipc_ring_error(&st->data_rx), 0);
	KUNIT_EXPECT_EQ(test, fipc_ring_error(&st->echo_rx), 0);
	KUNIT_EXPECT_FALSE(test, fipc_rx_ready(&st->data_rx));
	KUNIT_EXPECT_FALSE(test, fipc_rx_ready(&st->echo_rx));
}

/*
 * Pollers.  A test channel is one ring whose sender view plays the peer;
 * its sleeping word is a plain variable, and its last-look hook records
 * whether the word was already set when it looked.
 */
#define FIPC_POLL_TEST_WAIT_MS	5000

struct fipc_poll_test_chan {
	struct fipc_poll_entry poll;
	struct fipc_ring tx;	/* the peer */
	struct fipc_ring rx;
	int sleeping;
	bool looked_sleeping;
	atomic_t looks;
	atomic_t received;
	u64 wakeups_seen;
	unsigned int retry_us;
	bool busy;
	unsigned int budget_seen;
	bool check_seq;
	u32 next_seq;
	atomic_t misordered;
	unsigned int work_us;
};

static struct fipc_poll_test_chan *
fipc_poll_test_chan(struct fipc_poll_entry *entry)
{
	return container_of(entry, struct fipc_poll_test_chan, poll);
}

/* Take up to budget messages; count them in bucket 0 of the histogram. */
static int fipc_poll_test_poll(struct fipc_poll_entry *entry,
			       unsigned int budget)
{
	struct fipc_poll_test_chan *c = fipc_poll_test_chan(entry);
	u64 *hist = fipc_poller_priv(fipc_poll_entry_poller(entry));
	struct fipc_msg msg;
	int n = 0;

	WRITE_ONCE(c->budget_seen, budget);
	while (budget-- && fipc_recv(&c->rx, &msg, 1) == 1) {
		u32 seq;

		/* Messages numbered by the sender must come in order. */
		memcpy(&seq, msg.data, sizeof(seq));
		if (c->check_seq && seq != c->next_seq++)
			atomic_inc(&c->misordered);
		/* What a real channel's work costs its poller, if asked. */
		udelay(READ_ONCE(c->work_us));
		n++;
	}
	fipc_poll_entry_retry(entry, READ_ONCE(c->retry_us));
	hist[fipc_poll_lat_bucket(0)] += n;
	atomic_add(n, &c->received);
	return n;
}

static void fipc_poll_test_set_sleeping(struct fipc_poll_entry *entry,
					bool sleeping)
{
	WRITE_ONCE(fipc_poll_test_chan(entry)->sleeping, sleeping);
}

static bool fipc_poll_test_has_work(struct fipc_poll_entry *entry)
{
	struct fipc_poll_test_chan *c = fipc_poll_test_chan(entry);

	if (READ_ONCE(c->sleeping))
		c->looked_sleeping = true;
	atomic_inc(&c->looks);
	return fipc_rx_ready(&c->rx);
}

static bool fipc_poll_test_busy(struct fipc_poll_entry *entry)
{
	return READ_ONCE(fipc_poll_test_chan(entry)->busy);
}

static int fipc_poll_test_show(struct fipc_poller *pl, char *buf,
			       size_t size)
{
	return fipc_poll_lat_show(buf, size, "test_us", fipc_poller_priv(pl));
}

static const struct fipc_poll_ops fipc_poll_test_ops = {
	.poll = fipc_poll_test_poll,
	.set_sleeping = fipc_poll_test_set_sleeping,
	.has_work = fipc_poll_test_has_work,
	.busy = fipc_poll_test_busy,
	.show = fipc_poll_test_show,
};

static struct fipc_poller_set *fipc_poll_test_set(struct kunit *test,
						  unsigned int nr)
{
	struct fipc_poller_set *set = kunit_kzalloc(test, sizeof(*set),
						    GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, set);
	set->name = "fipc-test-poll";
	set->ops = &fipc_poll_test_ops;
	set->priv_size = FIPC_POLL_LAT_BUCKETS * sizeof(u64);
	set->nr_pollers = nr;
	set->idle_us = 1000;
	set->budget = 4;
	return set;
}

/*
 * Test channels, each on its own ring memory of order 0 (tx: the peer's
 * view, rx: the poller's), so that all of them can carry messages at once.
 */
static struct fipc_poll_test_chan *
fipc_poll_test_chans(struct kunit *test, unsigned int n)
{
	struct fipc_poll_test_chan *c = kunit_kcalloc(test, n, sizeof(*c),
						      GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	for (i = 0; i < n; i++) {
		void *mem = fipc_test_alloc(test, 0);

		KUNIT_ASSERT_EQ(test, fipc_ring_init(&c[i].tx, mem, 0), 0);
		KUNIT_ASSERT_EQ(test, fipc_ring_init(&c[i].rx, mem, 0), 0);
		fipc_poll_entry_init(&c[i].poll, &c[i].rx);
	}
	return c;
}

/* Check a condition every 20 ms; false after FIPC_POLL_TEST_WAIT_MS. */
static bool fipc_poll_test_until(bool (*cond)(void *arg), void *arg)
{
	unsigned int ms;

	for (ms = 0; ms < FIPC_POLL_TEST_WAIT_MS; ms += 20) {
		if (cond(arg))
			return true;
		msleep(20);
	}
	return cond(arg);
}

/* The poller has gone to sleep (or is about to, with nothing to do). */
static bool fipc_poll_test_idle(void *arg)
{
	struct fipc_poller *pl = arg;

	return READ_ONCE(pl->asleep) && READ_ONCE(pl->sleeps) > 0;
}

/* ... and the channel's sleeping word says so. */
static bool fipc_poll_test_asleep(void *arg)
{
	struct fipc_poll_test_chan *c = arg;

	return READ_ONCE(c->sleeping) &&
	       fipc_poll_test_idle(fipc_poll_entry_poller(&c->poll));
}

static bool fipc_poll_test_woken(void *arg)
{
	struct fipc_poll_test_chan *c = arg;

	return READ_ONCE(fipc_poll_entry_poller(&c->poll)->wakeups) >
	       c->wakeups_seen;
}

static bool fipc_poll_test_got3(void *arg)
{
	struct fipc_poll_test_chan *c = arg;

	return atomic_read(&c->received) == 3;
}

/*
 * One poller, one channel: it sleeps once idle, with the sleeping word
 * set before its last look; an interrupt wakes it and it takes what the
 * peer sent; detached, the word is withdrawn and interrupts are
 * spurious.  Failures after the start are EXPECTs, so that the set is
 * always stopped.
 */
static void fipc_test_poller_sleep(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 1);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 1);
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct fipc_poller *pl = &set->pollers[0];
	struct fipc_msg msg = { };
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, fipc_poller_set_start(set), 0);
	/* Attached to a sleeping poller, so its kick is over once we look. */
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_idle, pl));
	fipc_poller_attach(set, &c->poll, NULL);
	KUNIT_EXPECT_PTR_EQ(test, fipc_poll_entry_poller(&c->poll), pl);
	KUNIT_EXPECT_EQ(test, pl->nr_entries, 1u);

	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));
	KUNIT_EXPECT_TRUE(test, c->looked_sleeping);
	KUNIT_EXPECT_GT(test, atomic_read(&c->looks), 0);

	/* The peer sends and, seeing the word set, notifies. */
	c->wakeups_seen = READ_ONCE(pl->wakeups);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, fipc_send(&c->tx, &msg, 1), 0);
	KUNIT_EXPECT_TRUE(test, fipc_poll_entry_irq(&c->poll));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_got3, c));
	KUNIT_EXPECT_EQ(test, atomic64_read(&pl->irqs), 1ll);
	KUNIT_EXPECT_EQ(test, atomic64_read(&pl->irqs_awake), 0ll);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->wakeups), c->wakeups_seen + 1);
	KUNIT_EXPECT_GE(test, READ_ONCE(pl->loops), READ_ONCE(pl->empty));

	/* Idle again: a local kick, with no interrupt, wakes it too. */
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));
	c->wakeups_seen = READ_ONCE(pl->wakeups);
	KUNIT_EXPECT_TRUE(test, fipc_poll_entry_wake(&c->poll));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_woken, c));
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->wakeups), c->wakeups_seen + 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&pl->irqs), 1ll);

	KUNIT_EXPECT_GT(test, fipc_poller_set_show(set, buf), 0);
	KUNIT_EXPECT_EQ(test, strncmp(buf, "poller 0 cpu ", 13), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " channels 1 loops "));
	KUNIT_EXPECT_NOT_NULL(test,
			      strstr(buf, "\n  test_us<100,<1k,<4k,<16k,<64k,more 3 0 0 0 0 0\n"));

	fipc_poller_detach(&c->poll);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(c->sleeping));
	KUNIT_EXPECT_NULL(test, fipc_poll_entry_poller(&c->poll));
	KUNIT_EXPECT_EQ(test, pl->nr_entries, 0u);
	KUNIT_EXPECT_FALSE(test, fipc_poll_entry_irq(&c->poll));
	KUNIT_EXPECT_FALSE(test, fipc_poll_entry_wake(&c->poll));
	fipc_poller_detach(&c->poll);
	fipc_poller_set_stop(set);
	KUNIT_EXPECT_EQ(test, set->running, 0u);
	KUNIT_EXPECT_EQ(test, fipc_poller_set_show(set, buf), 0);
}

static bool fipc_poll_test_timed3(void *arg)
{
	struct fipc_poll_test_chan *c = arg;
	struct fipc_poller *pl = fipc_poll_entry_poller(&c->poll);

	return READ_ONCE(pl->timed_sleeps) >= 3;
}

/*
 * A channel that asks for a timed retry (fipc_poll_entry_retry()) gets
 * looked at again by a sleeping poller with nobody kicking it; without
 * one, a sleeping poller stays asleep.  The poller sleeps between the
 * retries: it does not spin.
 */
static void fipc_test_poller_retry(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 1);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 1);
	struct fipc_poller *pl = &set->pollers[0];
	u64 sleeps, wakeups, timed;

	KUNIT_ASSERT_EQ(test, fipc_poller_set_start(set), 0);
	fipc_poller_attach(set, &c->poll, NULL);
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));

	/* No retry asked: asleep it stays, whatever the time. */
	sleeps = READ_ONCE(pl->sleeps);
	msleep(200);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->sleeps), sleeps);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->timed_sleeps), 0ull);

	/* A retry every 20 ms: one kick, then it comes back on its own. */
	WRITE_ONCE(c->retry_us, 20000);
	wakeups = READ_ONCE(pl->wakeups);
	KUNIT_EXPECT_TRUE(test, fipc_poll_entry_wake(&c->poll));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_timed3, c));
	KUNIT_EXPECT_GE(test, READ_ONCE(pl->sleeps), sleeps + 3);
	/* Only the one kick woke it; the rest were timeouts. */
	KUNIT_EXPECT_LE(test, READ_ONCE(pl->wakeups), wakeups + 1);

	/* Cancelled: the next sleep is untimed again. */
	WRITE_ONCE(c->retry_us, 0);
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));
	msleep(100);
	timed = READ_ONCE(pl->timed_sleeps);
	sleeps = READ_ONCE(pl->sleeps);
	msleep(200);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->timed_sleeps), timed);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->sleeps), sleeps);

	fipc_poller_detach(&c->poll);
	fipc_poller_set_stop(set);
}

/*
 * The idle window's arithmetic: fixed at the shortest window without
 * room to learn; steady gaps within the longest window are learnt until
 * the window covers them (never past the longest); a few gaps longer than
 * that bring it back to the shortest.
 */
static void fipc_test_poller_window_learn(struct kunit *test)
{
	const u64 min = 200 * NSEC_PER_USEC, max = 2 * NSEC_PER_MSEC;
	const u64 gap = NSEC_PER_MSEC;
	u64 avg = 0, win;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, fipc_poll_idle_window(0, min, max), min);
	KUNIT_EXPECT_EQ(test, fipc_poll_idle_window(5 * max, min, max), max);
	/* No learning: the shortest window, whatever was learnt. */
	KUNIT_EXPECT_EQ(test, fipc_poll_idle_window(gap, min, min), min);
	KUNIT_EXPECT_EQ(test, fipc_poll_idle_window(gap, min, min / 2), min);

	/* 1 ms gaps: an eighth of the way each time, never past max. */
	for (i = 0; i < 32; i++) {
		avg = fipc_poll_gap_learn(avg, gap, max);
		win = fipc_poll_idle_window(avg, min, max);
		KUNIT_EXPECT_LE(test, avg, gap);
		KUNIT_EXPECT_LE(test, win, max);
		KUNIT_EXPECT_GE(test, win, min);
		if (i == 0)
			KUNIT_EXPECT_EQ(test, avg, gap / 8);
	}
	/* After 32 gaps the window polls through the next one. */
	KUNIT_EXPECT_GT(test, win, gap);
	KUNIT_EXPECT_GT(test, avg, gap * 9 / 10);

	/* Gaps longer than max: halved each time, down to the shortest. */
	for (i = 0; i < 4; i++)
		avg = fipc_poll_gap_learn(avg, 10 * max, max);
	KUNIT_EXPECT_LT(test, avg, gap / 8 + 1);
	KUNIT_EXPECT_EQ(test, fipc_poll_idle_window(avg, min, max), min);
	/* A gap of exactly max still counts as one to poll through. */
	KUNIT_EXPECT_GT(test, fipc_poll_gap_learn(0, max, max), 0ull);
}

static bool fipc_poll_test_got(struct fipc_poll_test_chan *c, int n)
{
	unsigned int ms;

	for (ms = 0; ms < FIPC_POLL_TEST_WAIT_MS; ms++) {
		if (atomic_read(&c->received) >= n)
			return true;
		usleep_range(500, 1000);
	}
	return false;
}

/*
 * A live poller learns its window: messages 5 ms apart (each announced
 * by an interrupt, as a peer that sees the sleeping word does) raise its
 * mean gap toward 5 ms, and poller_cpus shows it; messages 300 ms apart,
 * more than its longest window of 100 ms, bring the window back to the
 * shortest (1 ms here).  Loose bounds: the host may be loaded.
 */
static void fipc_test_poller_window(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 1);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 1);
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct fipc_poller *pl = &set->pollers[0];
	struct fipc_msg msg = { };
	unsigned int i;
	u64 avg;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	set->idle_max_us = 100000;
	KUNIT_ASSERT_EQ(test, fipc_poller_set_start(set), 0);
	fipc_poller_attach(set, &c->poll, NULL);
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->gap_avg_ns), 0ull);

	for (i = 1; i <= 24; i++) {
		usleep_range(5000, 6000);
		KUNIT_EXPECT_EQ(test, fipc_send(&c->tx, &msg, 1), 0);
		fipc_poll_entry_irq(&c->poll);
		KUNIT_EXPECT_TRUE(test, fipc_poll_test_got(c, i));
	}
	avg = READ_ONCE(pl->gap_avg_ns);
	KUNIT_EXPECT_GE(test, avg, 2 * NSEC_PER_MSEC);
	KUNIT_EXPECT_LE(test, avg, 100 * NSEC_PER_MSEC);
	KUNIT_EXPECT_GT(test, fipc_poller_set_show(set, buf), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " gap_us "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " window_us "));
	KUNIT_EXPECT_NULL(test, strstr(buf, " window_us 1000 "));

	for (i = 25; i <= 30; i++) {
		msleep(300);
		KUNIT_EXPECT_EQ(test, fipc_send(&c->tx, &msg, 1), 0);
		fipc_poll_entry_irq(&c->poll);
		KUNIT_EXPECT_TRUE(test, fipc_poll_test_got(c, i));
	}
	KUNIT_EXPECT_LT(test, READ_ONCE(pl->gap_avg_ns), avg / 16 + 1);
	KUNIT_EXPECT_GT(test, fipc_poller_set_show(set, buf), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " window_us 1000 "));

	fipc_poller_detach(&c->poll);
	fipc_poller_set_stop(set);
}

#define FIPC_POLL_TEST_SCALE_CHANS	4

/* A peer that keeps every channel's ring full, numbering its messages. */
struct fipc_poll_test_feeder {
	struct fipc_poll_test_chan *c;
	unsigned int gap_ms;	/* 0: as fast as the rings allow */
	u32 sent[FIPC_POLL_TEST_SCALE_CHANS];
};

static int fipc_poll_test_feed(void *arg)
{
	struct fipc_poll_test_feeder *f = arg;
	struct fipc_msg msg = { };
	unsigned int i;

	while (!kthread_should_stop()) {
		for (i = 0; i < FIPC_POLL_TEST_SCALE_CHANS; i++) {
			struct fipc_poll_test_chan *c = &f->c[i];

			memcpy(msg.data, &f->sent[i], sizeof(f->sent[i]));
			if (fipc_send(&c->tx, &msg, 1) == 0)
				f->sent[i]++;
			if (READ_ONCE(c->sleeping))
				fipc_poll_entry_irq(&c->poll);
		}
		if (f->gap_ms)
			msleep(f->gap_ms);
		else
			cond_resched();
	}
	return 0;
}

static bool fipc_poll_test_spread(void *arg)
{
	struct fipc_poller_set *set = arg;

	return READ_ONCE(set->pollers[1].nr_entries) > 0;
}

static bool fipc_poll_test_gathered(void *arg)
{
	struct fipc_poller_set *set = arg;

	return READ_ONCE(set->pollers[1].nr_entries) == 0;
}

/* All sent, all received in order, on every channel. */
static void fipc_poll_test_all_in_order(struct kunit *test,
					struct fipc_poll_test_feeder *f)
{
	unsigned int i;

	for (i = 0; i < FIPC_POLL_TEST_SCALE_CHANS; i++) {
		struct fipc_poll_test_chan *c = &f->c[i];
		unsigned int ms;

		for (ms = 0; ms < FIPC_POLL_TEST_WAIT_MS &&
		     atomic_read(&c->received) != f->sent[i]; ms += 20)
			msleep(20);
		KUNIT_EXPECT_GT(test, f->sent[i], 0u);
		KUNIT_EXPECT_EQ(test, (u32)atomic_read(&c->received), f->sent[i]);
		KUNIT_EXPECT_EQ(test, atomic_read(&c->misordered), 0);
		KUNIT_EXPECT_EQ(test, fipc_ring_error(&c->rx), 0);
	}
}

/*
 * Auto-scaling: four channels start on one poller of two; kept busy
 * (full rings, 100 us of work a message), that poller hands half of them
 * to the other (scale up); once the load is light (a message every 20 ms,
 * no work), the second poller gives its channels back (scale down) and
 * sleeps.  Every message arrives, in order, across both moves; poller_cpus
 * shows the moves.
 */
static void fipc_test_poller_autoscale(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 2);
	struct fipc_poll_test_chan *c =
		fipc_poll_test_chans(test, FIPC_POLL_TEST_SCALE_CHANS);
	struct fipc_poll_test_feeder *f = kunit_kzalloc(test, sizeof(*f),
							GFP_KERNEL);
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct task_struct *feeder;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	f->c = c;
	set->autoscale = true;
	KUNIT_ASSERT_EQ(test, fipc_poller_set_start(set), 0);
	for (i = 0; i < FIPC_POLL_TEST_SCALE_CHANS; i++) {
		c[i].check_seq = true;
		c[i].work_us = 100;
		fipc_poller_attach(set, &c[i].poll, NULL);
		KUNIT_EXPECT_PTR_EQ(test, fipc_poll_entry_poller(&c[i].poll),
				    &set->pollers[0]);
	}
	KUNIT_EXPECT_EQ(test, set->pollers[1].nr_entries, 0u);

	feeder = kthread_run(fipc_poll_test_feed, f, "fipc-test-feed");
	KUNIT_ASSERT_FALSE(test, IS_ERR(feeder));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_spread, set));
	KUNIT_EXPECT_EQ(test, READ_ONCE(set->pollers[1].nr_entries),
			FIPC_POLL_TEST_SCALE_CHANS / 2);
	KUNIT_EXPECT_GE(test, atomic_read(&set->scale_ups), 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(set->pollers[1].moved_in),
			(u64)FIPC_POLL_TEST_SCALE_CHANS / 2);

	/* Light load: a message per channel every 20 ms. */
	for (i = 0; i < FIPC_POLL_TEST_SCALE_CHANS; i++)
		WRITE_ONCE(c[i].work_us, 0);
	WRITE_ONCE(f->gap_ms, 20);
	KUNIT_EXPECT_TRUE(test,
			  fipc_poll_test_until(fipc_poll_test_gathered, set));
	KUNIT_EXPECT_EQ(test, READ_ONCE(set->pollers[0].nr_entries),
			FIPC_POLL_TEST_SCALE_CHANS);
	KUNIT_EXPECT_GE(test, atomic_read(&set->scale_downs), 1);
	KUNIT_EXPECT_GT(test, fipc_poller_set_show(set, buf), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " load_pct "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "autoscale on pollers_at_work 1 scale_ups "));
	kthread_stop(feeder);
	fipc_poll_test_all_in_order(test, f);

	/* Off: new channels are dealt round robin again. */
	set->autoscale = false;
	for (i = 0; i < FIPC_POLL_TEST_SCALE_CHANS; i++)
		fipc_poller_detach(&c[i].poll);
	for (i = 0; i < 2; i++)
		fipc_poller_attach(set, &c[i].poll, NULL);
	KUNIT_EXPECT_EQ(test, set->pollers[0].nr_entries, 1u);
	KUNIT_EXPECT_EQ(test, set->pollers[1].nr_entries, 1u);
	for (i = 0; i < 2; i++)
		fipc_poller_detach(&c[i].poll);
	fipc_poller_set_stop(set);
}

/* Woken, through its idle window, and asleep again. */
static void fipc_poll_test_idle_window(struct kunit *test,
				       struct fipc_poll_test_chan *c)
{
	struct fipc_poller *pl = fipc_poll_entry_poller(&c->poll);

	c->wakeups_seen = READ_ONCE(pl->wakeups);
	KUNIT_EXPECT_TRUE(test, fipc_poll_entry_wake(&c->poll));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_woken, c));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));
}

/*
 * A poller serving one channel waits on its ring between rounds
 * (fipc_wait_rx(): MWAITX or UMWAIT where the CPU has them), which a
 * kick from another CPU cannot end early.  While the channel says work
 * of it ends elsewhere (ops->busy), the poller spins instead: through a
 * whole idle window, not one wait on the ring.
 */
static void fipc_test_poller_busy(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 1);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 1);
	struct fipc_poller *pl = &set->pollers[0];
	u64 waits, loops;

	set->idle_us = 50000;
	KUNIT_ASSERT_EQ(test, fipc_poller_set_start(set), 0);
	fipc_poller_attach(set, &c->poll, NULL);
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));

	WRITE_ONCE(c->busy, true);
	waits = READ_ONCE(pl->rx_waits);
	loops = READ_ONCE(pl->loops);
	fipc_poll_test_idle_window(test, c);
	KUNIT_EXPECT_GT(test, READ_ONCE(pl->loops), loops + 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->rx_waits), waits);

	WRITE_ONCE(c->busy, false);
	fipc_poll_test_idle_window(test, c);
	KUNIT_EXPECT_GT(test, READ_ONCE(pl->rx_waits), waits);

	fipc_poller_detach(&c->poll);
	fipc_poller_set_stop(set);
}

struct fipc_poll_test_drained {
	struct fipc_poll_test_chan *c;
	unsigned int n;
	int want;
};

static bool fipc_poll_test_all_received(void *arg)
{
	const struct fipc_poll_test_drained *d = arg;
	unsigned int i;

	for (i = 0; i < d->n; i++)
		if (atomic_read(&d->c[i].received) < d->want)
			return false;
	return true;
}

/*
 * Weights: each visit of a channel may take the set's budget scaled by
 * the channel's weight against FIPC_POLL_WEIGHT_DEFAULT, at least one
 * message, with no overflow; out-of-range weights are clamped; a weight
 * set on an attached channel holds from its next visit.
 */
static void fipc_test_poller_weight(struct kunit *test)
{
	static const unsigned int weights[] = { FIPC_POLL_WEIGHT_DEFAULT, 512,
						1, 64 };
	static const unsigned int budgets[] = { 4, 8, 1, 1 };
	struct fipc_poller_set *set = fipc_poll_test_set(test, 1);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 4);
	struct fipc_poll_test_drained d = { .c = c, .n = 4 };
	struct fipc_msg msg = { };
	unsigned int i, j;

	KUNIT_EXPECT_EQ(test, c[0].poll.weight, FIPC_POLL_WEIGHT_DEFAULT);
	fipc_poll_entry_set_weight(&c[0].poll, 0);
	KUNIT_EXPECT_EQ(test, c[0].poll.weight, 1u);
	fipc_poll_entry_set_weight(&c[0].poll, 1000000);
	KUNIT_EXPECT_EQ(test, c[0].poll.weight, FIPC_POLL_WEIGHT_MAX);
	KUNIT_EXPECT_EQ(test, fipc_poll_entry_budget(&c[0].poll, UINT_MAX),
			UINT_MAX);
	KUNIT_EXPECT_EQ(test, fipc_poll_entry_budget(&c[0].poll, 32),
			32u * FIPC_POLL_WEIGHT_MAX / FIPC_POLL_WEIGHT_DEFAULT);

	set->budget = 4;
	KUNIT_ASSERT_EQ(test, fipc_poller_set_start(set), 0);
	for (i = 0; i < 4; i++) {
		fipc_poll_entry_set_weight(&c[i].poll, weights[i]);
		fipc_poller_attach(set, &c[i].poll, NULL);
	}
	for (i = 0; i < 4; i++)
		for (j = 0; j < 16; j++)
			KUNIT_EXPECT_EQ(test, fipc_send(&c[i].tx, &msg, 1), 0);
	d.want = 16;
	KUNIT_EXPECT_TRUE(test, fipc_poll_entry_irq(&c[0].poll));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_all_received,
						     &d));
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, READ_ONCE(c[i].budget_seen), budgets[i]);

	/* Live: the next visit of channel 2 takes 4 x 1024 / 256. */
	fipc_poll_entry_set_weight(&c[2].poll, 1024);
	KUNIT_EXPECT_EQ(test, fipc_send(&c[2].tx, &msg, 1), 0);
	fipc_poll_entry_irq(&c[2].poll);
	d.c = &c[2];
	d.n = 1;
	d.want = 17;
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_all_received,
						     &d));
	KUNIT_EXPECT_EQ(test, READ_ONCE(c[2].budget_seen), 16u);

	for (i = 0; i < 4; i++)
		fipc_poller_detach(&c[i].poll);
	fipc_poller_set_stop(set);
}

/*
 * Settings, round robin and CPU restriction, repinning, and the
 * latency buckets.
 */
static void fipc_test_poller_set(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 0);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 5);
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	int cpu0;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, fipc_poll_lat_bucket(0), 0u);
	KUNIT_EXPECT_EQ(test, fipc_poll_lat_bucket(99999), 0u);
	KUNIT_EXPECT_EQ(test, fipc_poll_lat_bucket(100000), 1u);
	KUNIT_EXPECT_EQ(test, fipc_poll_lat_bucket(NSEC_PER_MSEC), 2u);
	KUNIT_EXPECT_EQ(test, fipc_poll_lat_bucket(4 * NSEC_PER_MSEC), 3u);
	KUNIT_EXPECT_EQ(test, fipc_poll_lat_bucket(16 * NSEC_PER_MSEC), 4u);
	KUNIT_EXPECT_EQ(test, fipc_poll_lat_bucket(64 * NSEC_PER_MSEC - 1),
			4u);
	KUNIT_EXPECT_EQ(test, fipc_poll_lat_bucket(U64_MAX), 5u);

	KUNIT_EXPECT_EQ(test, fipc_poller_set_start(set), -EINVAL);
	set->nr_pollers = FIPC_POLLERS_MAX + 1;
	KUNIT_EXPECT_EQ(test, fipc_poller_set_start(set), -EINVAL);
	KUNIT_EXPECT_EQ(test, set->running, 0u);
	set->nr_pollers = 2;
	KUNIT_ASSERT_EQ(test, fipc_poller_set_start(set), 0);
	KUNIT_EXPECT_EQ(test, set->running, 2u);

	/* Round robin over both pollers. */
	for (i = 0; i < 4; i++)
		fipc_poller_attach(set, &c[i].poll, NULL);
	KUNIT_EXPECT_EQ(test, set->pollers[0].nr_entries, 2u);
	KUNIT_EXPECT_EQ(test, set->pollers[1].nr_entries, 2u);
	KUNIT_EXPECT_PTR_NE(test, fipc_poll_entry_poller(&c[0].poll),
			    fipc_poll_entry_poller(&c[1].poll));

	/* Restricted to the CPU of poller 0 (both, on one CPU). */
	cpu0 = set->pollers[0].cpu;
	fipc_poller_attach(set, &c[4].poll, cpumask_of(cpu0));
	KUNIT_EXPECT_EQ(test, fipc_poll_entry_poller(&c[4].poll)->cpu, cpu0);

	KUNIT_EXPECT_EQ(test, fipc_poller_set_repin(set, "0"), 0);
	KUNIT_EXPECT_EQ(test, set->pollers[0].cpu, 0);
	KUNIT_EXPECT_EQ(test, set->pollers[1].cpu, 0);
	KUNIT_EXPECT_EQ(test, fipc_poller_set_repin(set, "\n"), 0);
	KUNIT_EXPECT_LT(test, fipc_poller_set_repin(set, "x"), 0);

	fipc_poller_set_show(set, buf);
	KUNIT_EXPECT_EQ(test, strncmp(buf, "poller 0 cpu ", 13), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "\npoller 1 cpu "));

	for (i = 0; i < 5; i++)
		fipc_poller_detach(&c[i].poll);
	KUNIT_EXPECT_EQ(test, set->pollers[0].nr_entries, 0u);
	KUNIT_EXPECT_EQ(test, set->pollers[1].nr_entries, 0u);
	fipc_poller_set_stop(set);
}

/*
 * A duplex channel in a poller: the poller is the server, answering each
 * call, and waits on the ring with the channel's own wait op
 * (fipc_duplex_server_wait()); the entry has no one-way ring at all.
 */
struct fipc_poll_test_dx {
	struct fipc_poll_entry poll;
	struct fipc_duplex_client client;	/* the peer */
	struct fipc_duplex_server server;
	int sleeping;
	atomic_t answered;
	atomic_t waits;
};

static struct fipc_poll_test_dx *
fipc_poll_test_dx(struct fipc_poll_entry *entry)
{
	return container_of(entry, struct fipc_poll_test_dx, poll);
}

/* Answer up to budget calls, each with its request's payload. */
static int fipc_poll_test_dx_poll(struct fipc_poll_entry *entry,
				  unsigned int budget)
{
	struct fipc_poll_test_dx *d = fipc_poll_test_dx(entry);
	struct fipc_msg msg;
	int n = 0;

	while (budget-- &&
	       fipc_duplex_take_request(&d->server, &msg, 1, NULL) == 1) {
		if (fipc_duplex_reply(&d->server, &msg))
			break;
		n++;
	}
	atomic_add(n, &d->answered);
	return n;
}

static void fipc_poll_test_dx_set_sleeping(struct fipc_poll_entry *entry,
					   bool sleeping)
{
	WRITE_ONCE(fipc_poll_test_dx(entry)->sleeping, sleeping);
}

static bool fipc_poll_test_dx_has_work(struct fipc_poll_entry *entry)
{
	return fipc_duplex_request_ready(&fipc_poll_test_dx(entry)->server);
}

static int fipc_poll_test_dx_wait(struct fipc_poll_entry *entry,
				  struct fipc_waiter *w)
{
	struct fipc_poll_test_dx *d = fipc_poll_test_dx(entry);

	atomic_inc(&d->waits);
	return fipc_duplex_server_wait(&d->server, w);
}

static const struct fipc_poll_ops fipc_poll_test_dx_ops = {
	.poll = fipc_poll_test_dx_poll,
	.set_sleeping = fipc_poll_test_dx_set_sleeping,
	.has_work = fipc_poll_test_dx_has_work,
	.wait = fipc_poll_test_dx_wait,
};

static bool fipc_poll_test_dx_asleep(void *arg)
{
	struct fipc_poll_test_dx *d = arg;

	return READ_ONCE(d->sleeping) &&
	       fipc_poll_test_idle(fipc_poll_entry_poller(&d->poll));
}

static bool fipc_poll_test_dx_answered3(void *arg)
{
	struct fipc_poll_test_dx *d = arg;

	return atomic_read(&d->answered) == 3;
}

static void fipc_test_poller_duplex(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 1);
	struct fipc_poll_test_dx *d = kunit_kzalloc(test, sizeof(*d),
						    GFP_KERNEL);
	struct fipc_poller *pl = &set->pollers[0];
	struct fipc_msg *msg = fipc_test_bufs(test, 1);
	void *mem = fipc_test_alloc(test, 0);
	unsigned int i;
	u64 waits;

	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_ASSERT_EQ(test, fipc_duplex_client_init(&d->client, mem, 0), 0);
	KUNIT_ASSERT_EQ(test, fipc_duplex_server_init(&d->server, mem, 0), 0);
	fipc_poll_entry_init(&d->poll, NULL);
	set->ops = &fipc_poll_test_dx_ops;
	set->idle_us = 20000;
	KUNIT_ASSERT_EQ(test, fipc_poller_set_start(set), 0);
	fipc_poller_attach(set, &d->poll, NULL);
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_dx_asleep,
						     d));
	/* It waited on the duplex ring between rounds before sleeping. */
	KUNIT_EXPECT_GT(test, atomic_read(&d->waits), 0);
	waits = READ_ONCE(pl->rx_waits);
	KUNIT_EXPECT_EQ(test, waits, (u64)atomic_read(&d->waits));

	/* The client calls three times and notifies the sleeping poller. */
	for (i = 0; i < 3; i++) {
		fipc_test_fill(msg, 1, 40 + i);
		KUNIT_EXPECT_EQ(test, fipc_duplex_call(&d->client, msg, 1), 0);
	}
	KUNIT_EXPECT_TRUE(test, fipc_poll_entry_irq(&d->poll));
	KUNIT_EXPECT_TRUE(test,
			  fipc_poll_test_until(fipc_poll_test_dx_answered3, d));
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, fipc_duplex_take_reply(&d->client, msg),
				0);
		KUNIT_EXPECT_TRUE(test, fipc_test_match(msg, 1, 40 + i));
	}
	KUNIT_EXPECT_EQ(test, fipc_duplex_room(&d->client), 64u);
	KUNIT_EXPECT_EQ(test, fipc_duplex_server_error(&d->server), 0);

	fipc_poller_detach(&d->poll);
	fipc_poller_set_stop(set);
}

static struct kunit_case fipc_test_cases[] = {
	KUNIT_CASE(fipc_test_init_args),
	KUNIT_CASE(fipc_test_empty),
	KUNIT_CASE(fipc_test_full),
	KUNIT_CASE(fipc_test_wrap_laps),
	KUNIT_CASE(fipc_test_wrap_u32),
	KUNIT_CASE(fipc_test_burst),
	KUNIT_CASE(fipc_test_orders),
	KUNIT_CASE(fipc_test_multislot),
	KUNIT_CASE(fipc_test_release_batch),
	KUNIT_CASE(fipc_test_corrupt_head),
	KUNIT_CASE(fipc_test_corrupt_continuation),
	KUNIT_CASE(fipc_test_corrupt_tx),
	KUNIT_CASE(fipc_test_eproto_sticky),
	KUNIT_CASE(fipc_test_waiter),
	KUNIT_CASE(fipc_test_stress),
	KUNIT_CASE(fipc_test_poller_sleep),
	KUNIT_CASE(fipc_test_poller_retry),
	KUNIT_CASE(fipc_test_poller_window_learn),
	KUNIT_CASE(fipc_test_poller_window),
	KUNIT_CASE(fipc_test_poller_autoscale),
	KUNIT_CASE(fipc_test_poller_busy),
	KUNIT_CASE(fipc_test_poller_weight),
	KUNIT_CASE(fipc_test_poller_set),
	KUNIT_CASE(fipc_test_poller_duplex),
	{}
};

static struct kunit_suite fipc_test_suite = {
	.name = "fipc",
	.test_cases = fipc_test_cases,
};

kunit_test_suite(fipc_test_suite);

MODULE_DESCRIPTION("KUnit tests of the fipc slot rings and pollers");
MODULE_LICENSE("GPL");
