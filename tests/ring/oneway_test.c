// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the fipc one-way rings (fipc.h): set-up, empty, full and
 * wrapped rings, bursts, multi-slot messages, every ring order, release
 * batching, corrupted flags from a hostile peer, the waiter, and a
 * two-thread stress; one source for KUnit and userspace (see
 * ring_test.h).
 *
 * Most cases drive a sender and a receiver view of the same ring memory
 * from the test's own thread.  The hostile cases write flags into the
 * shared memory directly, as a peer in another VM would, and check that
 * the side reading them fails with -EPROTO, copies and writes nothing,
 * and stays failed.  Two cases run a second thread: a sender that a
 * waiting receiver sleeps for, and the stress (a producer and a
 * consumer over a data ring and an echo ring, checking every message).
 */
#include "ring_test.h"

#define RING_MAX	FIPC_MSG_MAX_SLOTS

/**
 * struct ring_pair - a ring with both of its ends
 * @mem: the shared slots, room for a ring of FIPC_MAX_ORDER
 * @order: ring order
 * @slots: number of slots
 * @tx: the sender's view
 * @rx: the receiver's view
 * @out: a message buffer of RING_MAX + 1 slots
 * @in: another
 */
struct ring_pair {
	struct fipc_slot *mem;
	unsigned int order;
	unsigned int slots;
	struct fipc_ring tx;
	struct fipc_ring rx;
	struct fipc_msg *out;
	struct fipc_msg *in;
};

/*
 * An empty ring of @order, made by fipc_ring_clear() over garbage, with
 * both ends attached.  The memory and buffers come on the first call
 * (@p zeroed) and are used again by later calls.
 */
static void ring_pair_init(struct kunit *test, struct ring_pair *p,
			   unsigned int order)
{
	if (!p->mem) {
		p->mem = rt_ring_alloc(test, FIPC_MAX_ORDER);
		p->out = rt_bufs(test, RING_MAX + 1);
		p->in = rt_bufs(test, RING_MAX + 1);
		RT_ASSERT(p->mem && p->out && p->in);
	}
	p->order = order;
	p->slots = FIPC_RING_SLOTS(order);
	memset(p->mem, 0xa5, FIPC_RING_BYTES(order));
	fipc_ring_clear(p->mem, order);
	RT_ASSERT_EQ(fipc_ring_init(&p->tx, p->mem, order), 0);
	RT_ASSERT_EQ(fipc_ring_init(&p->rx, p->mem, order), 0);
}

/* The payload byte @i of slot @s of the message tagged @tag. */
static u8 ring_byte(u32 tag, unsigned int s, unsigned int i)
{
	u32 x = tag * 2654435761u + s * 40503u + i * 97u;

	return (u8)(x ^ (x >> 11) ^ (x >> 23));
}

static void ring_fill(struct fipc_msg *m, unsigned int n, u32 tag)
{
	unsigned int s, i;

	for (s = 0; s < n; s++)
		for (i = 0; i < FIPC_SLOT_PAYLOAD; i++)
			m[s].data[i] = ring_byte(tag, s, i);
}

static bool ring_match(const struct fipc_msg *m, unsigned int n, u32 tag)
{
	unsigned int s, i;

	for (s = 0; s < n; s++)
		for (i = 0; i < FIPC_SLOT_PAYLOAD; i++)
			if (m[s].data[i] != ring_byte(tag, s, i))
				return false;
	return true;
}

static bool ring_equal(const struct fipc_msg *a, const struct fipc_msg *b,
		       unsigned int n)
{
	return !memcmp(a, b, (size_t)n * sizeof(*a));
}

/* A head (@len slots) or continuation (@len 0) flag, from the wire format. */
static u32 ring_flag(u32 seq, unsigned int len)
{
	return FIPC_FLAG_READY | (len << FIPC_FLAG_LEN_SHIFT) |
	       (seq & FIPC_FLAG_SEQ_MASK);
}

static struct fipc_slot *ring_slot(struct ring_pair *p, u32 seq)
{
	return &p->mem[seq & (p->slots - 1)];
}

/* Send one message of @n slots tagged @tag; the send must succeed. */
static void ring_send(struct kunit *test, struct fipc_ring *tx,
		      struct fipc_msg *buf, unsigned int n, u32 tag)
{
	ring_fill(buf, n, tag);
	RT_ASSERT_EQ(fipc_send(tx, buf, n), 0);
}

/* Receive one message into @buf (RING_MAX slots): @n slots tagged @tag. */
static void ring_recv(struct kunit *test, struct fipc_ring *rx,
		      struct fipc_msg *buf, unsigned int n, u32 tag)
{
	RT_ASSERT_EQ(fipc_recv(rx, buf, RING_MAX), n);
	RT_ASSERT_MSG(ring_match(buf, n, tag),
		      "payload of message %u (%u slots) differs", tag, n);
}

/* Send one message of @n slots tagged @tag and receive it back. */
static void ring_roundtrip(struct kunit *test, struct ring_pair *p,
			   unsigned int n, u32 tag)
{
	ring_send(test, &p->tx, p->out, n, tag);
	memset(p->in, 0, n * sizeof(*p->in));
	ring_recv(test, &p->rx, p->in, n, tag);
}

/* Set-up */

static void ring_test_init_args(struct kunit *test)
{
	struct fipc_slot *mem = rt_ring_alloc(test, FIPC_MAX_ORDER);
	unsigned int order, off;
	struct fipc_ring r;

	RT_ASSERT(mem);
	RT_EXPECT_EQ(fipc_ring_init(&r, mem, FIPC_MAX_ORDER + 1), -EINVAL);
	RT_EXPECT_EQ(fipc_ring_init(&r, mem, 5), -EINVAL);
	RT_EXPECT_EQ(fipc_ring_init(&r, mem, 31), -EINVAL);
	RT_EXPECT_EQ(fipc_ring_init(&r, mem, ~0u), -EINVAL);
	RT_EXPECT_EQ(fipc_ring_init(&r, NULL, 0), -EINVAL);
	/* Not slot aligned: every offset, 4 and 32 among them. */
	for (off = 1; off < FIPC_SLOT_BYTES; off++)
		RT_EXPECT_EQ(fipc_ring_init(&r, (u8 *)mem + off, 0), -EINVAL);
	/* Slot aligned is enough. */
	RT_EXPECT_EQ(fipc_ring_init(&r, mem + 1, 0), 0);
	RT_EXPECT(r.slots == mem + 1);
	for (order = FIPC_MIN_ORDER; order <= FIPC_MAX_ORDER; order++) {
		memset(&r, 0xff, sizeof(r));
		RT_EXPECT_EQ(fipc_ring_init(&r, mem, order), 0);
		RT_EXPECT_EQ(fipc_ring_slots(&r), 64u << order);
		RT_EXPECT_EQ(r.seq, 0);
		RT_EXPECT_EQ(r.release_seq, 0);
		RT_EXPECT_EQ(r.release_batch, 1);
		RT_EXPECT_EQ(r.error, 0);
		RT_EXPECT_EQ(fipc_ring_error(&r), 0);
		RT_EXPECT(r.slots == mem);
	}

	/* fipc_ring_clear() makes any memory an empty ring of its order. */
	memset(mem, 0x5a, FIPC_RING_BYTES(1));
	fipc_ring_clear(mem, 0);
	RT_EXPECT_EQ(mem[63].flag, FIPC_FLAG_FREE);
	RT_EXPECT_EQ(mem[63].payload[59], 0);
	RT_EXPECT_EQ(mem[64].payload[0], 0x5a);
	fipc_ring_clear(mem, 1);
	RT_EXPECT_EQ(mem[127].flag, FIPC_FLAG_FREE);
}

static void ring_test_release_batch_args(struct kunit *test)
{
	struct ring_pair p = { 0 };
	unsigned int order;

	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		ring_pair_init(test, &p, order);
		RT_EXPECT_EQ(fipc_ring_set_release_batch(&p.rx, 0), -EINVAL);
		/* At most half the ring: 32 of 64 slots at order 0. */
		RT_EXPECT_EQ(fipc_ring_set_release_batch(&p.rx,
							 p.slots / 2 + 1),
			     -EINVAL);
		RT_EXPECT_EQ(fipc_ring_set_release_batch(&p.rx, p.slots),
			     -EINVAL);
		RT_EXPECT_EQ(p.rx.release_batch, 1);
		RT_EXPECT_EQ(fipc_ring_set_release_batch(&p.rx, p.slots / 2),
			     0);
		RT_EXPECT_EQ(p.rx.release_batch, p.slots / 2);
		RT_EXPECT_EQ(fipc_ring_set_release_batch(&p.rx, 1), 0);
		RT_EXPECT_EQ(p.rx.release_batch, 1);
	}
}

static void ring_test_chan_init(struct kunit *test)
{
	struct fipc_slot *m1 = rt_ring_alloc(test, 1);
	struct fipc_slot *m2 = rt_ring_alloc(test, 1);
	struct fipc_msg *out = rt_bufs(test, 1), *in = rt_bufs(test, 1);
	struct fipc_chan a, b;

	RT_ASSERT(m1 && m2 && out && in);
	fipc_ring_clear(m1, 1);
	fipc_ring_clear(m2, 1);
	RT_EXPECT_EQ(fipc_chan_init(&a, m1, m1, 0), -EINVAL);
	RT_EXPECT_EQ(fipc_chan_init(&a, m1, m1, 1), -EINVAL);
	RT_EXPECT_EQ(fipc_chan_init(&a, m1, m2, 5), -EINVAL);
	RT_EXPECT_EQ(fipc_chan_init(&a, (u8 *)m1 + 4, m2, 1), -EINVAL);
	RT_EXPECT_EQ(fipc_chan_init(&a, m1, (u8 *)m2 + 4, 1), -EINVAL);
	RT_EXPECT_EQ(fipc_chan_init(&a, NULL, m2, 0), -EINVAL);
	RT_EXPECT_EQ(fipc_chan_init(&a, NULL, m2, 1), -EINVAL);
	RT_EXPECT_EQ(fipc_chan_init(&a, m1, NULL, 0), -EINVAL);
	RT_EXPECT_EQ(fipc_chan_init(&a, m1, NULL, 1), -EINVAL);
	RT_ASSERT_EQ(fipc_chan_init(&a, m1, m2, 1), 0);
	RT_ASSERT_EQ(fipc_chan_init(&b, m2, m1, 1), 0);
	RT_EXPECT(a.tx.slots == m1);
	RT_EXPECT(a.rx.slots == m2);
	RT_EXPECT_EQ(fipc_ring_slots(&a.tx), 128);
	RT_EXPECT_EQ(fipc_ring_slots(&a.rx), 128);
	/* a -> b */
	ring_fill(out, 1, 1);
	RT_EXPECT_EQ(fipc_send(&a.tx, out, 1), 0);
	RT_EXPECT_EQ(fipc_recv(&a.rx, in, 1), -EAGAIN);
	RT_EXPECT_EQ(fipc_recv(&b.rx, in, 1), 1);
	RT_EXPECT(ring_match(in, 1, 1));
	/* b -> a */
	ring_fill(out, 1, 2);
	RT_EXPECT_EQ(fipc_send(&b.tx, out, 1), 0);
	RT_EXPECT_EQ(fipc_recv(&b.rx, in, 1), -EAGAIN);
	RT_EXPECT_EQ(fipc_recv(&a.rx, in, 1), 1);
	RT_EXPECT(ring_match(in, 1, 2));
}

/* Basic operation */

static void ring_test_empty(struct kunit *test)
{
	struct ring_pair p = { 0 };
	struct fipc_msg *buf;
	unsigned int order;

	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		ring_pair_init(test, &p, order);
		buf = p.in;
		memset(buf, 0x5c, RING_MAX * sizeof(*buf));
		RT_EXPECT(!fipc_rx_ready(&p.rx));
		RT_EXPECT_EQ(fipc_recv(&p.rx, buf, RING_MAX), -EAGAIN);
		RT_EXPECT_EQ(fipc_recv(&p.rx, buf, 4), -EAGAIN);
		RT_EXPECT_EQ(fipc_recv(&p.rx, buf, 0), -EAGAIN);
		RT_EXPECT_EQ(fipc_recv_burst(&p.rx, buf, 4), 0);
		RT_EXPECT_EQ(fipc_recv_burst(&p.rx, buf, 8), 0);
		RT_EXPECT_EQ(buf[0].data[0], 0x5c);
		RT_EXPECT_EQ(fipc_rx_pending(&p.rx, ~0u), 0);
		RT_EXPECT_EQ(fipc_rx_pending(&p.rx, 1000), 0);
		RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), p.slots);
		RT_EXPECT_EQ(fipc_tx_space(&p.tx, 1000),
			     p.slots < 1000 ? p.slots : 1000);
		RT_EXPECT_EQ(fipc_tx_space(&p.tx, 5), 5);
		RT_EXPECT_EQ(fipc_tx_space(&p.tx, 0), 0);
		RT_EXPECT_EQ(fipc_send_burst(&p.tx, p.out, 0), 0);
		RT_EXPECT_EQ(p.rx.seq, 0);
		RT_EXPECT_EQ(p.tx.seq, 0);
		RT_EXPECT_EQ(fipc_ring_error(&p.rx), 0);
		RT_EXPECT_EQ(fipc_ring_error(&p.tx), 0);

		/* One message in and out leaves the ring empty again. */
		ring_send(test, &p.tx, p.out, 1, 1);
		RT_EXPECT(fipc_rx_ready(&p.rx));
		RT_EXPECT_EQ(fipc_rx_pending(&p.rx, ~0u), 1);
		RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), p.slots - 1);
		ring_recv(test, &p.rx, buf, 1, 1);
		RT_EXPECT(!fipc_rx_ready(&p.rx));
		RT_EXPECT_EQ(fipc_recv(&p.rx, buf, 1), -EAGAIN);
		RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), p.slots);
		RT_EXPECT_EQ(p.mem[0].flag, FIPC_FLAG_FREE);
	}
}

static void ring_test_wire_format(struct kunit *test)
{
	struct ring_pair p = { 0 };

	ring_pair_init(test, &p, 0);
	ring_fill(p.out, 1, 7);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 1), 0);
	RT_EXPECT_EQ(p.mem[0].flag, ring_flag(0, 1));
	RT_EXPECT(!memcmp(p.mem[0].payload, p.out[0].data,
			  FIPC_SLOT_PAYLOAD));
	RT_EXPECT_EQ(p.mem[1].flag, FIPC_FLAG_FREE);
	RT_EXPECT(fipc_rx_ready(&p.rx));
	RT_EXPECT_EQ(fipc_rx_pending(&p.rx, ~0u), 1);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), p.slots - 1);
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, 1), 1);
	RT_EXPECT(ring_equal(p.in, p.out, 1));
	/* Batch 1: the slot is free again at once, payload untouched. */
	RT_EXPECT_EQ(p.mem[0].flag, FIPC_FLAG_FREE);
	RT_EXPECT(!memcmp(p.mem[0].payload, p.out[0].data,
			  FIPC_SLOT_PAYLOAD));
	RT_EXPECT(!fipc_rx_ready(&p.rx));
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), p.slots);
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, 1), -EAGAIN);
}

static void ring_test_full(struct kunit *test)
{
	struct ring_pair p = { 0 };
	unsigned int order, i;
	struct fipc_msg *buf;

	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		ring_pair_init(test, &p, order);
		buf = p.in;
		for (i = 0; i < p.slots; i++)
			ring_send(test, &p.tx, p.out, 1, i);
		for (i = 0; i < p.slots; i++)
			RT_EXPECT_EQ(p.mem[i].flag, ring_flag(i, 1));

		ring_fill(p.out, 4, 1000);
		RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 1), -EAGAIN);
		RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 2), -EAGAIN);
		RT_EXPECT_EQ(fipc_send_burst(&p.tx, p.out, 2), 0);
		RT_EXPECT_EQ(fipc_send_burst(&p.tx, p.out, 4), 0);
		RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), 0);
		RT_EXPECT_EQ(p.tx.seq, p.slots);
		RT_EXPECT_EQ(fipc_ring_error(&p.tx), 0);
		RT_EXPECT_EQ(fipc_rx_pending(&p.rx, ~0u), p.slots);
		RT_EXPECT_EQ(fipc_rx_pending(&p.rx, 3), 3);
		RT_EXPECT_EQ(fipc_rx_pending(&p.rx, 10), 10);
		/* A full ring was not written over. */
		RT_EXPECT(ring_match((void *)p.mem[0].payload, 1, 0));

		/* One slot free: a one-slot message fits, a two-slot not. */
		ring_recv(test, &p.rx, buf, 1, 0);
		RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), 1);
		ring_fill(p.out, 2, p.slots);
		RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 2), -EAGAIN);
		RT_EXPECT_EQ(p.mem[0].flag, FIPC_FLAG_FREE);
		RT_EXPECT_EQ(p.tx.seq, p.slots);
		ring_send(test, &p.tx, p.out, 1, p.slots);
		RT_EXPECT_EQ(p.mem[0].flag, ring_flag(p.slots, 1));
		RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 1), -EAGAIN);

		for (i = 1; i <= p.slots; i++)
			ring_recv(test, &p.rx, buf, 1, i);
		RT_EXPECT_EQ(fipc_recv(&p.rx, buf, 1), -EAGAIN);
		RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), p.slots);
		RT_EXPECT_EQ(fipc_ring_error(&p.rx), 0);
	}
}

/*
 * Many laps past the 16-bit wrap of the sequence numbers in the flags: a
 * 64-slot ring in uneven steps, each drained; then every order at
 * varying fill levels, drained only in part most of the time.
 */
static void ring_test_wrap_laps(struct kunit *test)
{
	static const unsigned int steps[] = { 1, 7, 64, 3, 63, 13, 2, 40 };
	unsigned int order, n, k, i, fill, total;
	struct ring_pair p = { 0 };
	u32 sent = 0, rcvd = 0;
	int ret;

	ring_pair_init(test, &p, 0);
	k = 0;
	while (sent < 70000) {
		n = steps[k++ % ARRAY_SIZE(steps)];
		for (i = 0; i < n; i++)
			ring_send(test, &p.tx, p.out, 1, sent++);
		RT_ASSERT_EQ(fipc_rx_pending(&p.rx, 1000), n);
		for (i = 0; i < n; i++)
			ring_recv(test, &p.rx, p.in, 1, rcvd++);
		RT_ASSERT_EQ(fipc_recv(&p.rx, p.in, 1), -EAGAIN);
	}
	RT_EXPECT_EQ(p.tx.seq, sent);
	RT_EXPECT_EQ(p.rx.seq, sent);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 1000), p.slots);

	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		ring_pair_init(test, &p, order);
		total = 70000 + 7 * p.slots;	/* > 2^16 slots */
		sent = 0;
		rcvd = 0;
		for (n = 0; rcvd < total; n++) {
			/* Fill 1..slots messages, then drain most of them. */
			fill = 1 + (n * 37) % p.slots;
			for (k = 0; k < fill && sent < total; k++) {
				ring_fill(p.out, 1, sent);
				ret = fipc_send(&p.tx, p.out, 1);
				if (ret == -EAGAIN)
					break;
				RT_ASSERT_EQ(ret, 0);
				sent++;
			}
			k = (n & 3) ? sent - rcvd : (sent - rcvd) / 2;
			if (sent == total)
				k = sent - rcvd;
			while (k--)
				ring_recv(test, &p.rx, p.in, 1, rcvd++);
		}
		RT_EXPECT_EQ(p.tx.seq, total);
		RT_EXPECT_EQ(p.rx.seq, total);
		RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, 1), -EAGAIN);
	}
}

/* The private 32-bit cursors wrap too: start both just below 2^32. */
static void ring_test_wrap_u32(struct kunit *test)
{
	const u32 start = 0xffffff00u;
	struct ring_pair p = { 0 };
	unsigned int k;

	/* 128 rounds of 6 slots, release batch 4: 2^32 crossed half way. */
	ring_pair_init(test, &p, 0);
	RT_ASSERT_EQ(fipc_ring_set_release_batch(&p.rx, 4), 0);
	p.tx.seq = start;
	p.rx.seq = start;
	p.rx.release_seq = start;
	for (k = 0; k < 128; k++) {
		ring_send(test, &p.tx, p.out, 5, k);
		ring_send(test, &p.tx, p.out + 5, 1, k + 1000);
		RT_ASSERT_EQ(fipc_rx_pending(&p.rx, 1000), 6);
		ring_recv(test, &p.rx, p.in, 5, k);
		ring_recv(test, &p.rx, p.in, 1, k + 1000);
	}
	RT_EXPECT_EQ(p.tx.seq, (u32)(start + 768));
	RT_EXPECT_EQ(p.rx.seq, 0x200u);
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, 1), -EAGAIN);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 1000), p.slots);
	RT_EXPECT_EQ(fipc_ring_error(&p.tx), 0);
	RT_EXPECT_EQ(fipc_ring_error(&p.rx), 0);

	/* 600 messages of every length, release batch 1. */
	ring_pair_init(test, &p, 0);
	p.tx.seq = start;
	p.rx.seq = start;
	p.rx.release_seq = start;
	for (k = 0; k < 600; k++)
		ring_roundtrip(test, &p, 1 + (k * 7) % RING_MAX, k);
	RT_EXPECT(p.rx.seq < 0x10000u);
	RT_EXPECT_EQ(p.rx.seq, p.tx.seq);
}

/* Bursts */

static void ring_test_burst_basic(struct kunit *test)
{
	struct ring_pair p = { 0 };
	struct fipc_msg *out, *in;
	unsigned int order;

	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		ring_pair_init(test, &p, order);
		out = p.out;
		in = p.in;
		ring_fill(out, 16, order);
		RT_EXPECT_EQ(fipc_send_burst(&p.tx, out, 0), 0);
		RT_EXPECT_EQ(fipc_send_burst(&p.tx, out, 10), 10);
		RT_EXPECT_EQ(p.mem[9].flag, ring_flag(9, 1));
		RT_EXPECT_EQ(fipc_rx_pending(&p.rx, ~0u), 10);
		memset(in, 0, 16 * sizeof(*in));
		RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 0), 0);
		RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 4), 4);
		RT_EXPECT(ring_equal(in, out, 4));
		RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 16), 6);
		RT_EXPECT(ring_equal(in, out + 4, 6));
		RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 16), 0);
		/* Single-slot messages and bursts interoperate. */
		RT_EXPECT_EQ(fipc_send(&p.tx, out, 1), 0);
		RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 16), 1);
		RT_EXPECT(ring_equal(in, out, 1));
		RT_EXPECT_EQ(fipc_send_burst(&p.tx, out, 3), 3);
		RT_EXPECT_EQ(fipc_recv(&p.rx, in, 1), 1);
		RT_EXPECT_EQ(fipc_recv(&p.rx, in, 1), 1);
		RT_EXPECT(ring_equal(in, out + 1, 1));
		RT_EXPECT_EQ(fipc_recv(&p.rx, in, 1), 1);
		RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), p.slots);
	}
}

/* A burst into a (nearly) full ring sends what fits. */
static void ring_test_burst_partial(struct kunit *test)
{
	struct fipc_msg *msgs = rt_bufs(test, 200), *in = rt_bufs(test, 200);
	struct ring_pair p = { 0 };
	unsigned int order, i;

	RT_ASSERT(msgs && in);
	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		ring_pair_init(test, &p, order);
		ring_fill(msgs, 16, 3);
		for (i = 0; i < p.slots - 5; i++)
			RT_EXPECT_EQ(fipc_send(&p.tx, msgs, 1), 0);
		RT_EXPECT_EQ(fipc_send_burst(&p.tx, msgs, 16), 5);
		RT_EXPECT_EQ(p.tx.seq, p.slots);
		RT_EXPECT_EQ(fipc_send_burst(&p.tx, msgs, 16), 0);
		/* Free 3: the next burst fits exactly 3. */
		RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 3), 3);
		RT_EXPECT_EQ(fipc_send_burst(&p.tx, msgs + 5, 16 - 5), 3);
		for (i = 0; i < p.slots - 8; i++)
			RT_EXPECT_EQ(fipc_recv(&p.rx, in, 1), 1);
		RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 16), 8);
		RT_EXPECT(ring_equal(in, msgs, 8));
		RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 16), 0);
	}

	/* A burst larger than the ring stops when it is full. */
	ring_pair_init(test, &p, 0);
	for (i = 0; i < 200; i++)
		ring_fill(&msgs[i], 1, i);
	RT_EXPECT_EQ(fipc_send_burst(&p.tx, msgs, 100), p.slots);
	RT_EXPECT_EQ(p.tx.seq, p.slots);
	RT_EXPECT_EQ(fipc_send_burst(&p.tx, &msgs[64], 36), 0);
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 10), 10);
	for (i = 0; i < 10; i++)
		RT_EXPECT(ring_match(&in[i], 1, i));
	/* Partial burst into the 10 freed slots. */
	RT_EXPECT_EQ(fipc_send_burst(&p.tx, &msgs[64], 20), 10);
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 200), p.slots);
	for (i = 0; i < p.slots; i++)
		RT_EXPECT_MSG(ring_match(&in[i], 1, 10 + i),
			      "burst message %u", 10 + i);
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 200), 0);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 1000), p.slots);
}

/* recv_burst stops at a multi-slot head and leaves it for recv. */
static void ring_test_burst_multislot(struct kunit *test)
{
	struct fipc_msg *out = rt_bufs(test, 8), *big = rt_bufs(test, 4);
	struct fipc_msg *in = rt_bufs(test, RING_MAX);
	struct ring_pair p = { 0 };
	unsigned int i;

	RT_ASSERT(out && big && in);
	ring_pair_init(test, &p, 0);
	ring_fill(out, 8, 11);
	ring_fill(big, 3, 12);
	RT_EXPECT_EQ(fipc_send_burst(&p.tx, out, 3), 3);
	RT_EXPECT_EQ(fipc_send(&p.tx, big, 3), 0);
	RT_EXPECT_EQ(fipc_send(&p.tx, out + 3, 1), 0);
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 16), 3);
	RT_EXPECT(ring_equal(in, out, 3));
	/* Stuck at the 3-slot head: nothing consumed, nothing lost. */
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 16), 0);
	RT_EXPECT(fipc_rx_ready(&p.rx));
	RT_EXPECT_EQ(fipc_rx_pending(&p.rx, ~0u), 4);
	RT_EXPECT_EQ(fipc_recv(&p.rx, in, 2), -EMSGSIZE);
	RT_EXPECT_EQ(fipc_recv(&p.rx, in, 16), 3);
	RT_EXPECT(ring_equal(in, big, 3));
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 16), 1);
	RT_EXPECT(ring_equal(in, out + 3, 1));
	RT_EXPECT_EQ(fipc_ring_error(&p.rx), 0);

	/* A 4-slot message between bursts of 3 and 2. */
	ring_pair_init(test, &p, 0);
	for (i = 0; i < 5; i++)
		ring_fill(&out[i], 1, i);
	RT_ASSERT_EQ(fipc_send_burst(&p.tx, out, 3), 3);
	ring_send(test, &p.tx, big, 4, 500);
	RT_ASSERT_EQ(fipc_send_burst(&p.tx, out + 3, 2), 2);
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 16), 3);
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in + 3, 16), 0);
	RT_EXPECT(fipc_rx_ready(&p.rx));
	for (i = 0; i < 3; i++)
		RT_EXPECT(ring_match(&in[i], 1, i));
	RT_EXPECT_EQ(fipc_recv(&p.rx, in, 3), -EMSGSIZE);
	ring_recv(test, &p.rx, in, 4, 500);
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 16), 2);
	RT_EXPECT(ring_match(&in[0], 1, 3));
	RT_EXPECT(ring_match(&in[1], 1, 4));
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 16), 0);
	RT_EXPECT_EQ(fipc_ring_error(&p.rx), 0);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 1000), p.slots);
}

/* Multi-slot messages */

/*
 * Every ring order: fill, check the flags in memory, drain, then laps of
 * messages of 1..32 slots; the memory after the ring must stay untouched.
 */
static void ring_test_orders(struct kunit *test)
{
	struct fipc_msg *buf = rt_bufs(test, RING_MAX);
	unsigned int order, slots, i, n;
	struct fipc_ring tx, rx;
	struct fipc_slot *mem;
	u32 tag, first;
	u8 *guard;
	int len;

	RT_ASSERT(buf);
	for (order = FIPC_MIN_ORDER; order <= FIPC_MAX_ORDER; order++) {
		mem = rt_ring_alloc(test, order + 1);
		RT_ASSERT(mem);
		guard = (u8 *)mem + FIPC_RING_BYTES(order);
		memset(guard, 0x6b, FIPC_RING_BYTES(order));
		RT_ASSERT_EQ(fipc_ring_init(&tx, mem, order), 0);
		RT_ASSERT_EQ(fipc_ring_init(&rx, mem, order), 0);
		slots = fipc_ring_slots(&tx);
		RT_ASSERT_EQ(slots, FIPC_RING_SLOTS(order));
		RT_ASSERT_EQ(slots, 64u << order);
		RT_EXPECT_EQ(fipc_tx_space(&tx, ~0u), slots);

		for (i = 0; i < slots; i++)
			ring_send(test, &tx, buf, 1, i);
		RT_EXPECT_EQ(fipc_send(&tx, buf, 1), -EAGAIN);
		RT_EXPECT_EQ(fipc_tx_space(&tx, ~0u), 0);
		RT_EXPECT_EQ(fipc_rx_pending(&rx, ~0u), slots);
		for (i = 0; i < slots; i++)
			RT_ASSERT_EQ(mem[i].flag, ring_flag(i, 1));
		for (i = 0; i < slots; i++)
			ring_recv(test, &rx, buf, 1, i);
		RT_EXPECT_EQ(fipc_recv(&rx, buf, 1), -EAGAIN);
		for (i = 0; i < slots; i++)
			RT_ASSERT_EQ(mem[i].flag, FIPC_FLAG_FREE);

		/* Three laps of messages of 1..32 slots, full each time. */
		tag = 0;
		n = 1;
		while (tx.seq < 4 * slots) {
			first = tag;
			while (fipc_tx_space(&tx, ~0u) >= (int)n) {
				ring_send(test, &tx, buf, n, tag++);
				n = n % RING_MAX + 1;
			}
			RT_EXPECT_EQ(fipc_send(&tx, buf, n), -EAGAIN);
			while (first != tag) {
				len = fipc_recv(&rx, buf, RING_MAX);
				RT_ASSERT(len > 0);
				RT_ASSERT(ring_match(buf, len, first));
				first++;
			}
			RT_ASSERT_EQ(rx.seq, tx.seq);
		}
		RT_EXPECT_EQ(fipc_ring_error(&tx), 0);
		RT_EXPECT_EQ(fipc_ring_error(&rx), 0);
		for (i = 0; i < FIPC_RING_BYTES(order); i++)
			if (guard[i] != 0x6b)
				break;
		RT_EXPECT_EQ_MSG(i, FIPC_RING_BYTES(order),
				 "order %u wrote past the ring", order);
	}
}

static void ring_test_multislot_lengths(struct kunit *test)
{
	unsigned int order, len, lap;
	struct ring_pair p = { 0 };

	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		ring_pair_init(test, &p, order);
		/* Several laps, so that every length starts everywhere. */
		for (lap = 0; lap < 3 * (order + 1); lap++)
			for (len = 1; len <= RING_MAX; len++)
				ring_roundtrip(test, &p, len, lap * 100 + len);
	}
}

static void ring_test_multislot_wire(struct kunit *test)
{
	struct ring_pair p = { 0 };
	unsigned int n, i;
	u32 start;

	/* Every length on a 64-slot ring, many of them across its end. */
	ring_pair_init(test, &p, 0);
	for (n = 1; n <= RING_MAX; n++) {
		start = p.tx.seq;
		ring_send(test, &p.tx, p.out, n, n);
		RT_EXPECT_EQ(ring_slot(&p, start)->flag, ring_flag(start, n));
		for (i = 1; i < n; i++)
			RT_EXPECT_EQ(ring_slot(&p, start + i)->flag,
				     ring_flag(start + i, 0));
		RT_EXPECT_EQ(fipc_rx_pending(&p.rx, 1000), n);
		memset(p.in, 0, RING_MAX * sizeof(*p.in));
		ring_recv(test, &p.rx, p.in, n, n);
	}
	RT_EXPECT_EQ(p.tx.seq, RING_MAX * (RING_MAX + 1) / 2);

	/* A 9-slot message from slot 60. */
	while (p.tx.seq % p.slots != 60)
		ring_roundtrip(test, &p, 1, 0);
	ring_send(test, &p.tx, p.out, 9, 77);
	RT_EXPECT_EQ(p.mem[60].flag, ring_flag(p.rx.seq, 9));
	RT_EXPECT_EQ(p.mem[4].flag, ring_flag(p.rx.seq + 8, 0));
	ring_recv(test, &p.rx, p.in, 9, 77);

	/* 20 slots from 5 before the end, payloads in place. */
	ring_pair_init(test, &p, 0);
	for (i = 0; i < p.slots - 5; i++)
		ring_roundtrip(test, &p, 1, i);
	start = p.tx.seq;
	ring_fill(p.out, 20, 99);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 20), 0);
	/* The head, then continuations, each with its own sequence number. */
	RT_EXPECT_EQ(ring_slot(&p, start)->flag, ring_flag(start, 20));
	for (i = 1; i < 20; i++) {
		RT_EXPECT_EQ(ring_slot(&p, start + i)->flag,
			     ring_flag(start + i, 0));
		RT_EXPECT(!memcmp(ring_slot(&p, start + i)->payload,
				  p.out[i].data, FIPC_SLOT_PAYLOAD));
	}
	RT_EXPECT_EQ(ring_slot(&p, start + 20)->flag, FIPC_FLAG_FREE);
	RT_EXPECT_EQ(fipc_rx_pending(&p.rx, ~0u), 20);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), p.slots - 20);
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, RING_MAX), 20);
	RT_EXPECT(ring_equal(p.in, p.out, 20));
	for (i = 0; i < 20; i++)
		RT_EXPECT_EQ(ring_slot(&p, start + i)->flag, FIPC_FLAG_FREE);
	/* Exactly at the end: a 5-slot message ending on the last slot ... */
	while (p.tx.seq % p.slots != p.slots - 5)
		ring_roundtrip(test, &p, 1, 0);
	ring_roundtrip(test, &p, 5, 5);
	RT_EXPECT_EQ(p.tx.seq % p.slots, 0);
	/* ... and a 32-slot message across the end. */
	while (p.tx.seq % p.slots != p.slots - 1)
		ring_roundtrip(test, &p, 1, 0);
	ring_roundtrip(test, &p, 32, 32);
}

/* Too long for the buffer: -EMSGSIZE, and the message stays. */
static void ring_test_multislot_emsgsize(struct kunit *test)
{
	struct ring_pair p = { 0 };
	struct fipc_msg *in;
	unsigned int max;

	ring_pair_init(test, &p, 0);
	in = p.in;
	ring_fill(p.out, 5, 55);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 5), 0);
	for (max = 0; max < 5; max++) {
		memset(in, 0x3c, 8 * sizeof(*in));
		RT_EXPECT_EQ(fipc_recv(&p.rx, in, max), -EMSGSIZE);
		RT_EXPECT_EQ(in[0].data[0], 0x3c);
		RT_EXPECT_EQ(in[4].data[59], 0x3c);
		RT_EXPECT_EQ(p.rx.seq, 0);
		RT_EXPECT_EQ(p.mem[0].flag, ring_flag(0, 5));
		RT_EXPECT(fipc_rx_ready(&p.rx));
		RT_EXPECT_EQ(fipc_rx_pending(&p.rx, ~0u), 5);
		RT_EXPECT_EQ(fipc_ring_error(&p.rx), 0);
		/* Nor does a burst take it. */
		RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 4), 0);
	}
	RT_EXPECT_EQ(fipc_recv(&p.rx, in, 5), 5);
	RT_EXPECT(ring_equal(in, p.out, 5));
	RT_EXPECT_EQ(fipc_recv(&p.rx, in, 5), -EAGAIN);
}

/* Bad lengths write nothing. */
static void ring_test_multislot_einval(struct kunit *test)
{
	struct ring_pair p = { 0 };
	unsigned int order;

	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		ring_pair_init(test, &p, order);
		ring_fill(p.out, RING_MAX + 1, 1);
		RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 0), -EINVAL);
		RT_EXPECT_EQ(fipc_send(&p.tx, p.out, RING_MAX + 1), -EINVAL);
		RT_EXPECT_EQ(fipc_send(&p.tx, p.out, p.slots), -EINVAL);
		RT_EXPECT_EQ(fipc_send(&p.tx, p.out, p.slots + 1), -EINVAL);
		RT_EXPECT_EQ(fipc_send(&p.tx, p.out, ~0u), -EINVAL);
		/* Nothing written, the ring is still usable. */
		RT_EXPECT_EQ(p.tx.seq, 0);
		RT_EXPECT_EQ(p.mem[0].flag, FIPC_FLAG_FREE);
		RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), p.slots);
		RT_EXPECT(!fipc_rx_ready(&p.rx));
		RT_EXPECT_EQ(fipc_ring_error(&p.tx), 0);
		ring_roundtrip(test, &p, RING_MAX, 2);
	}
}

/* A message that does not fit is not written at all. */
static void ring_test_multislot_no_room(struct kunit *test)
{
	struct ring_pair p = { 0 };
	unsigned int i;

	ring_pair_init(test, &p, 0);
	ring_fill(p.out, RING_MAX, 4);
	for (i = 0; i < 40; i++)
		RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 1), 0);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 25), -EAGAIN);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 32), -EAGAIN);
	for (i = 40; i < p.slots; i++)
		RT_EXPECT_EQ(p.mem[i].flag, FIPC_FLAG_FREE);
	RT_EXPECT_EQ(p.tx.seq, 40);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 24), 0);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 1), -EAGAIN);
	/* Free the first 10: a 10-slot message fits, an 11-slot one not. */
	for (i = 0; i < 10; i++)
		RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, 1), 1);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 11), -EAGAIN);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 10), 0);
	for (i = 10; i < 40; i++)
		RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, 1), 1);
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, RING_MAX), 24);
	RT_EXPECT(ring_equal(p.in, p.out, 24));
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, RING_MAX), 10);
	RT_EXPECT(ring_equal(p.in, p.out, 10));
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, RING_MAX), -EAGAIN);

	/* Two maximal messages fill a 64-slot ring exactly (from slot 10). */
	ring_pair_init(test, &p, 0);
	for (i = 0; i < 10; i++)
		ring_roundtrip(test, &p, 1, i);
	ring_send(test, &p.tx, p.out, RING_MAX, 1);
	ring_send(test, &p.tx, p.out, RING_MAX, 2);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 1), -EAGAIN);
	ring_recv(test, &p.rx, p.in, RING_MAX, 1);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, RING_MAX + 1), -EINVAL);
	ring_send(test, &p.tx, p.out, RING_MAX, 3);
	ring_recv(test, &p.rx, p.in, RING_MAX, 2);
	ring_recv(test, &p.rx, p.in, RING_MAX, 3);
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, RING_MAX), -EAGAIN);
}

/* Release batching */

static void ring_test_release_batch(struct kunit *test)
{
	struct ring_pair p = { 0 };
	struct fipc_msg *in;
	unsigned int i;

	ring_pair_init(test, &p, 0);
	in = p.in;
	RT_EXPECT_EQ(fipc_ring_set_release_batch(&p.rx, 8), 0);
	ring_fill(p.out, 1, 8);
	for (i = 0; i < p.slots; i++)
		RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 1), 0);
	/* 7 consumed: still held, the sender sees a full ring. */
	for (i = 0; i < 7; i++)
		RT_EXPECT_EQ(fipc_recv(&p.rx, in, 1), 1);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), 0);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 1), -EAGAIN);
	RT_EXPECT_EQ(p.mem[0].flag, ring_flag(0, 1));
	/* The 8th frees all 8 at once. */
	RT_EXPECT_EQ(fipc_recv(&p.rx, in, 1), 1);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), 8);
	for (i = 0; i < 8; i++)
		RT_EXPECT_EQ(p.mem[i].flag, FIPC_FLAG_FREE);
	/* Bursts count toward the batch the same way. */
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 5), 5);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), 8);
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 3), 3);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), 16);
	/* Held slots are not counted as pending. */
	RT_EXPECT_EQ(fipc_recv(&p.rx, in, 1), 1);
	RT_EXPECT_EQ(fipc_rx_pending(&p.rx, ~0u), p.slots - 17);
	/* fipc_recv_release() hands them back now. */
	fipc_recv_release(&p.rx);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), 17);
	fipc_recv_release(&p.rx);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), 17);
	/* Drain; finding the ring empty frees what is held. */
	for (i = 17; i < p.slots; i++)
		RT_EXPECT_EQ(fipc_recv(&p.rx, in, 1), 1);
	RT_EXPECT(fipc_tx_space(&p.tx, ~0u) < (int)p.slots);
	RT_EXPECT_EQ(fipc_recv(&p.rx, in, 1), -EAGAIN);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), p.slots);
	/* So does an empty recv_burst. */
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 1), 0);
	RT_EXPECT_EQ(fipc_recv(&p.rx, in, 1), 1);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), p.slots - 1);
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 16), 0);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), p.slots);

	/* Again with tagged messages, checking the flags in memory. */
	ring_pair_init(test, &p, 0);
	RT_ASSERT_EQ(fipc_ring_set_release_batch(&p.rx, 8), 0);
	for (i = 0; i < 64; i++)
		ring_send(test, &p.tx, p.out, 1, i);
	/* Seven consumed slots are held back, the eighth frees all eight. */
	for (i = 0; i < 7; i++)
		ring_recv(test, &p.rx, in, 1, i);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 1000), 0);
	RT_EXPECT_EQ(p.mem[0].flag, ring_flag(0, 1));
	RT_EXPECT_EQ(fipc_rx_pending(&p.rx, 1000), 57);
	ring_recv(test, &p.rx, in, 1, 7);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 1000), 8);
	RT_EXPECT_EQ(p.mem[7].flag, FIPC_FLAG_FREE);
	/* A burst batches the same way. */
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 3), 3);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 1000), 8);
	RT_EXPECT_EQ(p.mem[8].flag, ring_flag(8, 1));
	/* fipc_recv_release() hands back what is held now. */
	fipc_recv_release(&p.rx);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 1000), 11);
	RT_EXPECT_EQ(p.mem[10].flag, FIPC_FLAG_FREE);
	fipc_recv_release(&p.rx);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 1000), 11);
	/* Finding the ring empty frees everything held. */
	for (i = 11; i < 64; i++)
		ring_recv(test, &p.rx, in, 1, i);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 1000), 8 + 11 + 40);
	RT_EXPECT_EQ(fipc_recv(&p.rx, in, 1), -EAGAIN);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 1000), 64);
	/* So does an empty burst. */
	ring_send(test, &p.tx, p.out, 1, 64);
	ring_recv(test, &p.rx, in, 1, 64);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 1000), 63);
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, in, 4), 0);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 1000), 64);
	/* Held slots are behind the receiver, never counted as pending. */
	RT_ASSERT_EQ(fipc_ring_set_release_batch(&p.rx, 32), 0);
	for (i = 0; i < 64; i++)
		ring_send(test, &p.tx, p.out, 1, 100 + i);
	for (i = 0; i < 20; i++)
		ring_recv(test, &p.rx, in, 1, 100 + i);
	RT_EXPECT_EQ(fipc_rx_pending(&p.rx, 1000), 44);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 1000), 0);
	for (i = 20; i < 64; i++)
		ring_recv(test, &p.rx, in, 1, 100 + i);
	RT_EXPECT_EQ(fipc_rx_pending(&p.rx, 1000), 0);
	RT_EXPECT_EQ(fipc_recv(&p.rx, in, 1), -EAGAIN);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 1000), 64);
	RT_EXPECT_EQ(fipc_ring_error(&p.rx), 0);
}

/* A batch of half the ring with the longest messages: no stale reads. */
static void ring_test_release_batch_max(struct kunit *test)
{
	unsigned int order, i, len, sent, rcvd;
	struct ring_pair p = { 0 };
	int ret;

	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		ring_pair_init(test, &p, order);
		RT_EXPECT_EQ(fipc_ring_set_release_batch(&p.rx, p.slots / 2),
			     0);
		sent = 0;
		rcvd = 0;
		for (i = 0; i < 4000 && rcvd < 3000; i++) {
			len = 1 + (sent * 13) % RING_MAX;
			ring_fill(p.out, len, sent);
			ret = fipc_send(&p.tx, p.out, len);
			if (ret == 0) {
				sent++;
				if (i % 3)
					continue;
			} else {
				RT_ASSERT_EQ(ret, -EAGAIN);
			}
			len = 1 + (rcvd * 13) % RING_MAX;
			ret = fipc_recv(&p.rx, p.in, RING_MAX);
			if (ret == -EAGAIN && rcvd == sent)
				continue;
			RT_ASSERT_EQ(ret, len);
			RT_ASSERT(ring_match(p.in, len, rcvd));
			rcvd++;
		}
		RT_EXPECT(rcvd >= 1000);
		RT_EXPECT_EQ(fipc_ring_error(&p.rx), 0);
		RT_EXPECT_EQ(fipc_ring_error(&p.tx), 0);
	}
}

static void ring_test_space_pending_ready(struct kunit *test)
{
	struct ring_pair p = { 0 };

	ring_pair_init(test, &p, 1);
	ring_fill(p.out, RING_MAX, 6);
	RT_EXPECT(!fipc_rx_ready(&p.rx));
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 3), 0);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 1), 0);
	RT_EXPECT(fipc_rx_ready(&p.rx));
	RT_EXPECT_EQ(fipc_rx_pending(&p.rx, ~0u), 4);
	RT_EXPECT_EQ(fipc_rx_pending(&p.rx, 2), 2);
	RT_EXPECT_EQ(fipc_rx_pending(&p.rx, 0), 0);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), p.slots - 4);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 10), 10);
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, RING_MAX), 3);
	RT_EXPECT_EQ(fipc_rx_pending(&p.rx, ~0u), 1);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), p.slots - 1);
	RT_EXPECT(fipc_rx_ready(&p.rx));
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, RING_MAX), 1);
	RT_EXPECT(!fipc_rx_ready(&p.rx));
	/* The query functions never change state. */
	RT_EXPECT_EQ(p.rx.seq, 4);
	RT_EXPECT_EQ(p.tx.seq, 4);
}

/* A hostile peer: the receiving side */

/*
 * The receiver of @p has met a broken ring: every receive call reports
 * -EPROTO, copies nothing and moves nothing, and keeps doing so whatever
 * the memory holds from now on (it is cleared here to show that).
 */
static void ring_expect_rx_broken(struct kunit *test, struct ring_pair *p)
{
	struct fipc_msg *in = p->in;
	u32 seq = p->rx.seq;
	struct fipc_waiter w;

	memset(in, 0x77, RING_MAX * sizeof(*in));
	RT_EXPECT_EQ(fipc_recv(&p->rx, in, RING_MAX), -EPROTO);
	RT_EXPECT_EQ(fipc_ring_error(&p->rx), -EPROTO);
	RT_EXPECT_EQ(fipc_recv_burst(&p->rx, in, 4), -EPROTO);
	RT_EXPECT_EQ(fipc_rx_pending(&p->rx, 64), -EPROTO);
	RT_ASSERT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 4, NULL, NULL), 0);
	RT_EXPECT_EQ(fipc_wait_rx(&p->rx, &w), -EPROTO);
	RT_EXPECT_EQ(in[0].data[0], 0x77);
	RT_EXPECT_EQ(in[1].data[0], 0x77);
	RT_EXPECT_EQ(p->rx.seq, seq);
	/* Sticky, whatever the memory holds from now on. */
	fipc_ring_clear(p->mem, p->order);
	RT_EXPECT_EQ(fipc_recv(&p->rx, in, RING_MAX), -EPROTO);
	RT_EXPECT_EQ(fipc_recv(&p->rx, in, 0), -EPROTO);
	RT_EXPECT_EQ(fipc_recv_burst(&p->rx, in, 4), -EPROTO);
	RT_EXPECT_EQ(fipc_rx_pending(&p->rx, ~0u), -EPROTO);
	RT_EXPECT_EQ(fipc_wait_rx(&p->rx, &w), -EPROTO);
	RT_EXPECT_EQ(in[0].data[0], 0x77);
	RT_EXPECT_EQ(p->rx.seq, seq);
	RT_EXPECT_EQ(fipc_ring_error(&p->rx), -EPROTO);
	/* The sender's view of the same memory is a different ring. */
	RT_EXPECT_EQ(fipc_ring_error(&p->tx), 0);
}

/**
 * struct ring_bad_flag - a flag a hostile peer may write
 * @what: printed when it is not refused
 * @flag: the flag
 */
struct ring_bad_flag {
	const char *what;
	u32 flag;
};

/* Flags a hostile peer may put in the head slot at sequence 0. */
static const struct ring_bad_flag ring_bad_heads[] = {
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

/* Bad head flags, at the start and after some traffic. */
static void ring_test_hostile_rx_head(struct kunit *test)
{
	static const u32 bad_kind[] = {
		0x5a000000u, 0xa4000000u, 0xff000000u, 0x25000000u,
		0x01000000u, 0xb5000000u,
	};
	const struct ring_bad_flag *bad;
	unsigned int i, k, pre, c;
	struct ring_pair p = { 0 };
	u32 seq, flag;

	for (i = 0; i < ARRAY_SIZE(ring_bad_heads); i++) {
		bad = &ring_bad_heads[i];
		/* Noticed by recv_burst ... */
		ring_pair_init(test, &p, 0);
		WRITE_ONCE(p.mem[0].flag, bad->flag);
		RT_EXPECT_EQ_MSG(fipc_recv_burst(&p.rx, p.in, 4), -EPROTO,
				 "head flag %08x (%s)", bad->flag, bad->what);
		RT_EXPECT_EQ(fipc_ring_error(&p.rx), -EPROTO);
		/* ... and by recv, even when the buffer would be too small. */
		ring_pair_init(test, &p, 0);
		WRITE_ONCE(p.mem[0].flag, bad->flag);
		RT_EXPECT_EQ_MSG(fipc_recv(&p.rx, p.in, 1), -EPROTO,
				 "head flag %08x (%s)", bad->flag, bad->what);
		RT_EXPECT_EQ(p.rx.seq, 0);
		ring_expect_rx_broken(test, &p);
	}

	for (pre = 0; pre < 3; pre++) {
		for (c = 0; c < ARRAY_SIZE(bad_kind) + 7; c++) {
			ring_pair_init(test, &p, pre);
			for (k = 0; k < pre * 45; k++)
				ring_roundtrip(test, &p, 1 + k % 3, k);
			seq = p.rx.seq;
			if (c < ARRAY_SIZE(bad_kind))
				flag = bad_kind[c] | (1 << 16) | (seq & 0xffff);
			else if (c == ARRAY_SIZE(bad_kind))
				flag = ring_flag(seq + 1, 1);	/* wrong seq */
			else if (c == ARRAY_SIZE(bad_kind) + 1)
				flag = ring_flag(seq ^ 0x8000, 1);
			else if (c == ARRAY_SIZE(bad_kind) + 2)
				flag = ring_flag(seq, 0);	/* length 0 */
			else if (c == ARRAY_SIZE(bad_kind) + 3)
				flag = ring_flag(seq, 33);	/* > max */
			else if (c == ARRAY_SIZE(bad_kind) + 4)
				flag = ring_flag(seq, 0xff);
			else if (c == ARRAY_SIZE(bad_kind) + 5)
				/* stale: the flag of one lap ago */
				flag = ring_flag(seq - p.slots, 1);
			else
				flag = 0x00000001u;	/* FREE kind, not 0 */
			WRITE_ONCE(ring_slot(&p, seq)->flag, flag);
			ring_expect_rx_broken(test, &p);
		}
	}
}

/* Continuation slots must be ready, of length 0 and in sequence. */
static void ring_test_hostile_rx_continuation(struct kunit *test)
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
	struct ring_pair p = { 0 };
	unsigned int i, c, pre;
	u32 seq, flag;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ring_pair_init(test, &p, 0);
		ring_send(test, &p.tx, p.out, 4, 4);
		WRITE_ONCE(p.mem[bad[i].slot].flag, bad[i].flag);
		RT_EXPECT_EQ_MSG(fipc_recv(&p.rx, p.in, 4), -EPROTO,
				 "slot %u flag %08x", bad[i].slot,
				 bad[i].flag);
		RT_EXPECT_EQ(p.rx.seq, 0);
		ring_expect_rx_broken(test, &p);
	}

	for (pre = 0; pre < 2; pre++) {
		for (c = 0; c < 6; c++) {
			ring_pair_init(test, &p, 0);
			/* pre 1: the message wraps across the ring's end */
			if (pre)
				while (p.tx.seq != p.slots - 2)
					ring_roundtrip(test, &p, 1, 0);
			seq = p.tx.seq;
			ring_fill(p.out, 4, 1);
			RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 4), 0);
			flag = ring_slot(&p, seq + 2)->flag;
			if (c == 0)
				flag = ring_flag(seq + 3, 0);	/* wrong seq */
			else if (c == 1)
				flag = ring_flag(seq + 2, 1);	/* len != 0 */
			else if (c == 2)
				flag = ring_flag(seq + 2, 4);
			else if (c == 3)
				flag = FIPC_FLAG_FREE;		/* missing */
			else if (c == 4)
				/* stale */
				flag = ring_flag(seq + 2 - p.slots, 0);
			else
				flag ^= 0x5a000000u;		/* kind */
			WRITE_ONCE(ring_slot(&p, seq + 2)->flag, flag);
			ring_expect_rx_broken(test, &p);
		}
	}
}

/* A head whose message runs past the end of the sender's slots. */
static void ring_test_hostile_rx_long_head(struct kunit *test)
{
	struct ring_pair p = { 0 };

	ring_pair_init(test, &p, 0);
	ring_send(test, &p.tx, p.out, 2, 1);
	WRITE_ONCE(p.mem[0].flag, ring_flag(0, 3));
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, RING_MAX), -EPROTO);
	ring_expect_rx_broken(test, &p);
}

/* recv_burst delivers what was good, then reports the error. */
static void ring_test_hostile_rx_burst(struct kunit *test)
{
	struct ring_pair p = { 0 };
	unsigned int i;

	ring_pair_init(test, &p, 0);
	ring_fill(p.out, 4, 3);
	RT_EXPECT_EQ(fipc_send_burst(&p.tx, p.out, 4), 4);
	WRITE_ONCE(p.mem[2].flag, ring_flag(7, 1));
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, p.in, 8), 2);
	RT_EXPECT(ring_equal(p.in, p.out, 2));
	RT_EXPECT_EQ(fipc_ring_error(&p.rx), -EPROTO);
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, p.in, 8), -EPROTO);
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, 8), -EPROTO);

	/* Deeper in the ring: the slot at seq 72 still says seq 8. */
	ring_pair_init(test, &p, 0);
	for (i = 0; i < 70; i++)
		ring_roundtrip(test, &p, 1, i);
	ring_send(test, &p.tx, p.out, 1, 70);
	ring_send(test, &p.tx, p.out, 1, 71);
	WRITE_ONCE(p.mem[72 % 64].flag, ring_flag(8, 1));
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, p.in, 8), 2);
	RT_EXPECT(ring_match(&p.in[1], 1, 71));
	RT_EXPECT_EQ(fipc_recv_burst(&p.rx, p.in, 8), -EPROTO);
	ring_expect_rx_broken(test, &p);
}

/* The library passes payload bytes through, copied exactly, once. */
static void ring_test_payload_passthrough(struct kunit *test)
{
	struct fipc_msg *copy = rt_bufs(test, 3);
	struct ring_pair p = { 0 };
	unsigned int i;

	RT_ASSERT(copy);
	ring_pair_init(test, &p, 0);
	ring_fill(p.out, 3, 21);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 3), 0);
	/* The peer scribbles over the payload after publishing it. */
	for (i = 0; i < 3; i++)
		memset(p.mem[i].payload + 7 * i, 0xee, 9);
	for (i = 0; i < 3; i++)
		memcpy(copy[i].data, p.mem[i].payload, FIPC_SLOT_PAYLOAD);
	RT_EXPECT(!ring_equal(copy, p.out, 3));
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, 3), 3);
	RT_EXPECT(ring_equal(p.in, copy, 3));
	RT_EXPECT_EQ(fipc_ring_error(&p.rx), 0);
	/* The receiver only wrote the flags, never the payload. */
	for (i = 0; i < 3; i++)
		RT_EXPECT(!memcmp(p.mem[i].payload, copy[i].data,
				  FIPC_SLOT_PAYLOAD));
	/* The copy is private: later writes to the slot do not reach it. */
	memset(p.mem[0].payload, 0x11, FIPC_SLOT_PAYLOAD);
	RT_EXPECT(ring_equal(p.in, copy, 1));
	/* All-ones and all-zero payloads are just bytes. */
	memset(p.out, 0xff, sizeof(p.out[0]));
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 1), 0);
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, 1), 1);
	RT_EXPECT(ring_equal(p.in, p.out, 1));
	memset(p.out, 0, sizeof(p.out[0]));
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 1), 0);
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, 1), 1);
	RT_EXPECT(ring_equal(p.in, p.out, 1));
}

/* A hostile peer: the sending side */

/*
 * The sender of @p has met a broken ring: every sending call reports
 * -EPROTO and writes nothing, even once the memory is an empty ring
 * again.  (Its receiver is the caller's to check.)
 */
static void ring_expect_tx_broken(struct kunit *test, struct ring_pair *p)
{
	u32 seq = p->tx.seq;

	ring_fill(p->out, 4, 0);
	RT_EXPECT_EQ(fipc_ring_error(&p->tx), -EPROTO);
	RT_EXPECT_EQ(fipc_send(&p->tx, p->out, 1), -EPROTO);
	RT_EXPECT_EQ(fipc_send(&p->tx, p->out, 0), -EPROTO);
	RT_EXPECT_EQ(fipc_send_burst(&p->tx, p->out, 4), -EPROTO);
	RT_EXPECT_EQ(fipc_tx_space(&p->tx, 64), -EPROTO);
	fipc_ring_clear(p->mem, p->order);
	RT_EXPECT_EQ(fipc_send(&p->tx, p->out, 1), -EPROTO);
	RT_EXPECT_EQ(fipc_send(&p->tx, p->out, 0), -EPROTO);
	RT_EXPECT_EQ(fipc_send_burst(&p->tx, p->out, 4), -EPROTO);
	RT_EXPECT_EQ(fipc_tx_space(&p->tx, ~0u), -EPROTO);
	RT_EXPECT_EQ(p->tx.seq, seq);
	RT_EXPECT_EQ(ring_slot(p, seq)->flag, FIPC_FLAG_FREE);
	RT_EXPECT_EQ(fipc_ring_error(&p->tx), -EPROTO);
}

/* Garbage where the sender expects a free slot or its own old message. */
static void ring_test_hostile_tx_garbage(struct kunit *test)
{
	static const u32 garbage[] = {
		0xdeadbeefu,
		0x00000001u,
		FIPC_FLAG_READY | (1 << FIPC_FLAG_LEN_SHIFT),	/* seq 0 */
		FIPC_FLAG_READY | (1 << FIPC_FLAG_LEN_SHIFT) | 64,
		0x5a000000u | (0x10000 - 64),
	};
	struct ring_pair p = { 0 };
	unsigned int i, c, op;
	u32 seq, flag;

	/* At sequence 0, against each sending call. */
	for (i = 0; i < ARRAY_SIZE(garbage); i++) {
		ring_pair_init(test, &p, 0);
		WRITE_ONCE(p.mem[0].flag, garbage[i]);
		RT_EXPECT_EQ_MSG(fipc_tx_space(&p.tx, 8), -EPROTO,
				 "flag %08x", garbage[i]);
		ring_pair_init(test, &p, 0);
		WRITE_ONCE(p.mem[0].flag, garbage[i]);
		RT_EXPECT_EQ_MSG(fipc_send_burst(&p.tx, p.out, 8), -EPROTO,
				 "flag %08x", garbage[i]);
		RT_EXPECT_EQ(fipc_ring_error(&p.tx), -EPROTO);
		ring_pair_init(test, &p, 0);
		WRITE_ONCE(p.mem[0].flag, garbage[i]);
		RT_EXPECT_EQ_MSG(fipc_send(&p.tx, p.out, 1), -EPROTO,
				 "flag %08x", garbage[i]);
		RT_EXPECT_EQ(p.tx.seq, 0);
		/* Nothing was written over the peer's garbage. */
		RT_EXPECT_EQ(p.mem[0].flag, garbage[i]);
		ring_expect_tx_broken(test, &p);
	}

	/* A lap and a bit on: the slot ahead was used before. */
	for (op = 0; op < 4; op++) {
		for (c = 0; c < 6; c++) {
			ring_pair_init(test, &p, 0);
			while (p.tx.seq < p.slots + 3)
				ring_roundtrip(test, &p, 1, 0);
			seq = p.tx.seq;
			if (c == 0)
				flag = 0xdeadbeefu;
			else if (c == 1)
				flag = 0x5a000000u | (seq - p.slots);
			else if (c == 2)
				flag = ring_flag(seq, 1);	/* "our" future */
			else if (c == 3)
				flag = ring_flag(seq - 2 * p.slots, 1);
			else if (c == 4)
				flag = ring_flag(seq + 1, 0);
			else
				flag = 0x1u;
			WRITE_ONCE(ring_slot(&p, seq)->flag, flag);
			ring_fill(p.out, 4, 0);
			if (op == 0)
				RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 1),
					     -EPROTO);
			else if (op == 1)
				RT_EXPECT_EQ(fipc_send_burst(&p.tx, p.out, 4),
					     -EPROTO);
			else if (op == 2)
				RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u),
					     -EPROTO);
			else
				RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 3),
					     -EPROTO);
			RT_EXPECT_EQ(ring_slot(&p, seq)->flag, flag);
			ring_expect_tx_broken(test, &p);
			RT_EXPECT_EQ(fipc_ring_error(&p.rx), 0);
		}
	}
}

/* Garbage inside the span of a multi-slot message or later in a burst. */
static void ring_test_hostile_tx_later_slot(struct kunit *test)
{
	struct ring_pair p = { 0 };

	ring_pair_init(test, &p, 0);
	ring_fill(p.out, 8, 0);
	WRITE_ONCE(p.mem[5].flag, 0x12345678u);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 8), -EPROTO);
	/* Nothing was published. */
	RT_EXPECT_EQ(p.mem[0].flag, FIPC_FLAG_FREE);
	RT_EXPECT_EQ(p.mem[1].flag, FIPC_FLAG_FREE);
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, 8), -EAGAIN);
	ring_expect_tx_broken(test, &p);
	RT_EXPECT_EQ(fipc_ring_error(&p.rx), 0);

	ring_pair_init(test, &p, 0);
	WRITE_ONCE(p.mem[3].flag, 0xdeadbeefu);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 5), -EPROTO);
	RT_EXPECT_EQ(p.mem[0].flag, FIPC_FLAG_FREE);
	ring_expect_tx_broken(test, &p);

	/* A burst stops before the garbage, then reports it. */
	ring_pair_init(test, &p, 0);
	WRITE_ONCE(p.mem[3].flag, 0x12345678u);
	RT_EXPECT_EQ(fipc_send_burst(&p.tx, p.out, 8), 3);
	RT_EXPECT_EQ(p.tx.seq, 3);
	RT_EXPECT_EQ(fipc_ring_error(&p.tx), -EPROTO);
	RT_EXPECT_EQ(fipc_send_burst(&p.tx, p.out, 8), -EPROTO);
	ring_expect_tx_broken(test, &p);
	RT_EXPECT_EQ(fipc_ring_error(&p.rx), 0);

	/* tx_space looks only as far as it is asked to. */
	ring_pair_init(test, &p, 0);
	WRITE_ONCE(p.mem[40].flag, 0x12345678u);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 10), 10);
	RT_EXPECT_EQ(fipc_ring_error(&p.tx), 0);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), -EPROTO);
	ring_expect_tx_broken(test, &p);
	RT_EXPECT_EQ(fipc_ring_error(&p.rx), 0);
}

/* Our own messages of one lap ago at the cursor: full, not broken. */
static void ring_test_tx_lap_ago_is_full(struct kunit *test)
{
	struct ring_pair p = { 0 };
	unsigned int i;

	ring_pair_init(test, &p, 0);
	ring_fill(p.out, 4, 0);
	for (i = 0; i < p.slots / 4; i++)
		RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 4), 0);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 1), -EAGAIN);
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, 4), 4);
	/* Slots 0..3 free, slot 4 holds a head: a 5-slot message waits. */
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 4), 0);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 1), -EAGAIN);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), 0);
	/* Freeing that message lets exactly it through. */
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, 4), 4);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), 4);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 1), 0);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 4), -EAGAIN);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 3), 0);
	RT_EXPECT_EQ(fipc_ring_error(&p.tx), 0);

	/* One-slot messages and a two-slot one at slot 5. */
	ring_pair_init(test, &p, 0);
	for (i = 0; i < 63; i++)
		ring_send(test, &p.tx, p.out, i == 5 ? 2 : 1, i);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 1), -EAGAIN);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 8), 0);
	for (i = 0; i < 5; i++)
		ring_recv(test, &p.rx, p.in, 1, i);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 8), 5);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 6), -EAGAIN);
	ring_recv(test, &p.rx, p.in, 2, 5);
	RT_EXPECT_EQ(fipc_tx_space(&p.tx, 8), 7);
	RT_EXPECT_EQ(fipc_ring_error(&p.tx), 0);
	RT_EXPECT_EQ(fipc_ring_error(&p.rx), 0);
}

/* Once broken, a ring stays broken even if the peer repairs the flag. */
static void ring_test_eproto_sticky(struct kunit *test)
{
	struct ring_pair p = { 0 };

	ring_pair_init(test, &p, 0);
	ring_send(test, &p.tx, p.out, 1, 0);
	WRITE_ONCE(p.mem[0].flag, ring_flag(0, 0));
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, 1), -EPROTO);
	WRITE_ONCE(p.mem[0].flag, ring_flag(0, 1));
	RT_EXPECT(fipc_rx_ready(&p.rx));
	ring_expect_rx_broken(test, &p);
	fipc_recv_release(&p.rx);
	ring_expect_rx_broken(test, &p);

	WRITE_ONCE(p.mem[1].flag, 0x12345678u);
	RT_EXPECT_EQ(fipc_send(&p.tx, p.out, 1), -EPROTO);
	WRITE_ONCE(p.mem[1].flag, FIPC_FLAG_FREE);
	ring_expect_tx_broken(test, &p);
	RT_EXPECT_EQ(p.tx.seq, 1);
	RT_EXPECT_EQ(p.mem[1].flag, FIPC_FLAG_FREE);

	/* A fresh init is the only way back. */
	ring_pair_init(test, &p, 0);
	ring_send(test, &p.tx, p.out, 1, 3);
	ring_recv(test, &p.rx, p.in, 1, 3);
}

/* The waiter */

static void ring_test_wait_methods(struct kunit *test)
{
	enum fipc_wait_method m, best;
	struct fipc_waiter w;

	RT_EXPECT(!strcmp(fipc_wait_method_name(FIPC_WAIT_PAUSE), "pause"));
	RT_EXPECT(!strcmp(fipc_wait_method_name(FIPC_WAIT_MWAITX), "mwaitx"));
	RT_EXPECT(!strcmp(fipc_wait_method_name(FIPC_WAIT_UMWAIT), "umwait"));
	RT_EXPECT(!strcmp(fipc_wait_method_name(FIPC_WAIT_MWAIT), "mwait"));
	RT_EXPECT(!strcmp(fipc_wait_method_name(FIPC_WAIT_NR_METHODS),
			  "invalid"));
	RT_EXPECT(!strcmp(fipc_wait_method_name((enum fipc_wait_method)-1),
			  "invalid"));
	RT_EXPECT(fipc_wait_method_usable(FIPC_WAIT_PAUSE));
	/* MWAIT needs ring 0: never usable from userspace. */
	if (!RT_KERNEL)
		RT_EXPECT(!fipc_wait_method_usable(FIPC_WAIT_MWAIT));
	RT_EXPECT(!fipc_wait_method_usable(FIPC_WAIT_NR_METHODS));
	RT_EXPECT(!fipc_wait_method_usable((enum fipc_wait_method)99));
	best = fipc_wait_best_method();
	RT_EXPECT((unsigned int)best < FIPC_WAIT_NR_METHODS);
	RT_EXPECT(fipc_wait_method_usable(best));
	RT_EXPECT_EQ(fipc_waiter_init(&w, best, 1, NULL, NULL), 0);
	for (m = 0; m < FIPC_WAIT_NR_METHODS; m++) {
		memset(&w, 0xff, sizeof(w));
		if (fipc_wait_method_usable(m)) {
			RT_EXPECT_EQ(fipc_waiter_init(&w, m, 3, NULL, &w), 0);
			RT_EXPECT_EQ(w.method, m);
			RT_EXPECT_EQ(w.spin_limit, 3);
			RT_EXPECT(!w.sleep);
			RT_EXPECT(w.arg == &w);
			RT_EXPECT_EQ(w.empty_polls, 0);
			RT_EXPECT_EQ(w.sleeps, 0);
		} else {
			RT_EXPECT_EQ(fipc_waiter_init(&w, m, 3, NULL, NULL),
				     -EOPNOTSUPP);
		}
		rt_note(test, "method %s: %s", fipc_wait_method_name(m),
			fipc_wait_method_usable(m) ? "usable" : "not usable");
	}
	RT_EXPECT_EQ(fipc_waiter_init(&w, FIPC_WAIT_NR_METHODS, 1, NULL, NULL),
		     -EOPNOTSUPP);
	RT_EXPECT_EQ(fipc_waiter_init(&w, FIPC_WAIT_NR_METHODS, 3, NULL, NULL),
		     -EOPNOTSUPP);
	RT_EXPECT_EQ(fipc_waiter_init(&w, (enum fipc_wait_method)99, 3, NULL,
				      NULL), -EOPNOTSUPP);
	/* The hook's argument is kept as given, the counters start at 0. */
	RT_EXPECT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 7, NULL, test), 0);
	RT_EXPECT_EQ(w.spin_limit, 7);
	RT_EXPECT(w.arg == (void *)test);
	RT_EXPECT_EQ(w.empty_polls, 0);
	RT_EXPECT_EQ(w.sleeps, 0);
}

static void ring_test_wait_timeout(struct kunit *test)
{
	struct ring_pair p = { 0 };
	enum fipc_wait_method m;
	struct fipc_waiter w;

	for (m = 0; m < FIPC_WAIT_NR_METHODS; m++) {
		if (!fipc_wait_method_usable(m))
			continue;
		ring_pair_init(test, &p, 0);
		/* No sleep hook: -ETIMEDOUT after spin_limit empty polls. */
		RT_ASSERT_EQ(fipc_waiter_init(&w, m, 10, NULL, NULL), 0);
		RT_EXPECT_EQ(fipc_wait_rx(&p.rx, &w), -ETIMEDOUT);
		RT_EXPECT_EQ(w.empty_polls, 10);
		RT_EXPECT_EQ(w.sleeps, 0);
		RT_EXPECT_EQ(fipc_wait_rx(&p.rx, &w), -ETIMEDOUT);
		RT_EXPECT_EQ(w.empty_polls, 20);
		/* A message ready: 0 at once, with no empty poll. */
		ring_send(test, &p.tx, p.out, 1, 0);
		RT_EXPECT_EQ(fipc_wait_rx(&p.rx, &w), 0);
		RT_EXPECT_EQ(w.empty_polls, 20);
		ring_recv(test, &p.rx, p.in, 1, 0);
		ring_send(test, &p.tx, p.out, 2, 1);
		RT_EXPECT_EQ(fipc_wait_rx(&p.rx, &w), 0);
		RT_EXPECT_EQ(w.empty_polls, 20);
		ring_recv(test, &p.rx, p.in, 2, 1);
		/* spin_limit 1 */
		RT_ASSERT_EQ(fipc_waiter_init(&w, m, 1, NULL, NULL), 0);
		RT_EXPECT_EQ(fipc_wait_rx(&p.rx, &w), -ETIMEDOUT);
		RT_EXPECT_EQ(w.empty_polls, 1);
		/* spin_limit 0 never gives up; a message returns at once. */
		RT_ASSERT_EQ(fipc_waiter_init(&w, m, 0, NULL, NULL), 0);
		ring_send(test, &p.tx, p.out, 1, 2);
		RT_EXPECT_EQ(fipc_wait_rx(&p.rx, &w), 0);
		ring_recv(test, &p.rx, p.in, 1, 2);
	}
}

/* The wait frees slots held by a release batch before it gives up. */
static void ring_test_wait_flushes_batch(struct kunit *test)
{
	static const struct {
		unsigned int msgs;
		unsigned int spin;
	} v[] = { { 2, 5 }, { 5, 3 } };
	struct ring_pair p = { 0 };
	struct fipc_waiter w;
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		ring_pair_init(test, &p, 0);
		RT_ASSERT_EQ(fipc_ring_set_release_batch(&p.rx, 16), 0);
		for (k = 0; k < v[i].msgs; k++)
			ring_send(test, &p.tx, p.out, 1, k);
		for (k = 0; k < v[i].msgs; k++)
			ring_recv(test, &p.rx, p.in, 1, k);
		RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), p.slots - v[i].msgs);
		RT_ASSERT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, v[i].spin,
					      NULL, NULL), 0);
		RT_EXPECT_EQ(fipc_wait_rx(&p.rx, &w), -ETIMEDOUT);
		RT_EXPECT_EQ(fipc_tx_space(&p.tx, ~0u), p.slots);
	}
}

/**
 * struct ring_hook - what the test sleep hook does and saw
 * @p: the ring, whose sender the hook may play
 * @calls: number of calls so far
 * @fail_at: return @err from this call (1-based) on, 0 never
 * @err: the error to return
 * @send_at: send a one-slot message from the hook on this call, 0 never
 * @send_tag: its tag
 * @space_seen: fipc_tx_space() seen by the first call
 */
struct ring_hook {
	struct ring_pair *p;
	unsigned int calls;
	unsigned int fail_at;
	int err;
	unsigned int send_at;
	u32 send_tag;
	int space_seen;
};

static int ring_sleep_hook(void *arg)
{
	struct ring_hook *h = arg;

	h->calls++;
	if (h->calls == 1)
		h->space_seen = fipc_tx_space(&h->p->tx, ~0u);
	if (h->send_at && h->calls == h->send_at) {
		ring_fill(h->p->out, 1, h->send_tag);
		fipc_send(&h->p->tx, h->p->out, 1);
	}
	if (h->fail_at && h->calls >= h->fail_at)
		return h->err;
	return 0;
}

static void ring_test_wait_sleep_hook(struct kunit *test)
{
	struct ring_pair p = { 0 };
	struct ring_hook h = { 0 };
	struct fipc_waiter w;

	ring_pair_init(test, &p, 0);
	h.p = &p;
	RT_ASSERT_EQ(fipc_ring_set_release_batch(&p.rx, 8), 0);
	ring_send(test, &p.tx, p.out, 1, 0);
	ring_recv(test, &p.rx, p.in, 1, 0);
	/* The hook fails on its 3rd call: its error comes back. */
	h.fail_at = 3;
	h.err = -EINTR;
	RT_ASSERT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 4, ring_sleep_hook,
				      &h), 0);
	RT_EXPECT_EQ(fipc_wait_rx(&p.rx, &w), -EINTR);
	RT_EXPECT_EQ(h.calls, 3);
	RT_EXPECT_EQ(w.sleeps, 3);
	RT_EXPECT_EQ(w.empty_polls, 12);
	/* The held slot was freed before the first sleep. */
	RT_EXPECT_EQ(h.space_seen, p.slots);
	h.calls = 0;
	RT_ASSERT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 5, ring_sleep_hook,
				      &h), 0);
	RT_EXPECT_EQ(fipc_wait_rx(&p.rx, &w), -EINTR);
	RT_EXPECT_EQ(h.calls, 3);
	RT_EXPECT_EQ(w.sleeps, 3);
	RT_EXPECT_EQ(w.empty_polls, 15);

	/* The peer sends during the 2nd sleep: the wait ends with 0. */
	h.calls = 0;
	h.fail_at = 0;
	h.send_at = 2;
	h.send_tag = 77;
	RT_ASSERT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 4, ring_sleep_hook,
				      &h), 0);
	RT_EXPECT_EQ(fipc_wait_rx(&p.rx, &w), 0);
	RT_EXPECT_EQ(h.calls, 2);
	RT_EXPECT_EQ(w.sleeps, 2);
	RT_EXPECT_EQ(w.empty_polls, 8);
	ring_recv(test, &p.rx, p.in, 1, 77);
	/* ... before a failure due later. */
	h.calls = 0;
	h.fail_at = 10;
	h.err = -ECANCELED;
	h.send_tag = 3;
	RT_ASSERT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 4, ring_sleep_hook,
				      &h), 0);
	RT_EXPECT_EQ(fipc_wait_rx(&p.rx, &w), 0);
	RT_EXPECT_EQ(h.calls, 2);
	RT_EXPECT_EQ(w.sleeps, 2);
	ring_recv(test, &p.rx, p.in, 1, 3);

	/* Any negative errno is passed through. */
	h.calls = 0;
	h.fail_at = 1;
	h.err = -ENOLINK;
	h.send_at = 0;
	RT_ASSERT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 1, ring_sleep_hook,
				      &h), 0);
	RT_EXPECT_EQ(fipc_wait_rx(&p.rx, &w), -ENOLINK);
	RT_EXPECT_EQ(w.sleeps, 1);

	/* A broken ring: -EPROTO, without polling or sleeping. */
	h.calls = 0;
	RT_ASSERT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 1, ring_sleep_hook,
				      &h), 0);
	WRITE_ONCE(ring_slot(&p, p.rx.seq)->flag, 0xbad0bad0u);
	RT_EXPECT_EQ(fipc_recv(&p.rx, p.in, 1), -EPROTO);
	RT_EXPECT_EQ(fipc_wait_rx(&p.rx, &w), -EPROTO);
	RT_EXPECT_EQ(h.calls, 0);
	RT_EXPECT_EQ(w.empty_polls, 0);
}

/**
 * struct ring_sender - a thread that sends after a delay
 * @p: the ring
 * @msgs: its message buffer, 3 slots
 * @nmsgs: messages to send, one per delay
 * @stop: set by the receiver to make the thread give up
 */
struct ring_sender {
	struct ring_pair *p;
	struct fipc_msg *msgs;
	unsigned int nmsgs;
	int stop;
};

/* Messages of 1, 2, 3, 1, ... slots, the first after 20 ms, then 2 ms. */
static int ring_sender_fn(void *arg)
{
	struct ring_sender *d = arg;
	unsigned int i, len;

	for (i = 0; i < d->nmsgs && !READ_ONCE(d->stop); i++) {
		rt_msleep(i ? 2 : 20);
		len = 1 + i % 3;
		ring_fill(d->msgs, len, 500 + i);
		while (fipc_send(&d->p->tx, d->msgs, len) == -EAGAIN)
			if (READ_ONCE(d->stop))
				return -EINTR;
	}
	return i == d->nmsgs ? 0 : -EINTR;
}

/* Sleep hook: let the sender run; give up once the deadline has passed. */
static int ring_watchdog_sleep(void *arg)
{
	const u64 *deadline = arg;

	rt_yield();
	return rt_msecs() > *deadline ? -ETIME : 0;
}

/* A receiver waits for a sender in another thread, with every method. */
static void ring_test_wait_threaded(struct kunit *test)
{
	struct ring_pair p = { 0 };
	struct ring_sender d = { 0 };
	unsigned int i, limit, len;
	enum fipc_wait_method m;
	int wret, rret, sret;
	struct fipc_waiter w;
	struct rt_thread th;
	u64 deadline;

	d.msgs = rt_bufs(test, 3);
	RT_ASSERT(d.msgs);
	for (m = 0; m < FIPC_WAIT_NR_METHODS; m++) {
		if (!fipc_wait_method_usable(m))
			continue;
		for (limit = 0; limit < 2; limit++) {
			ring_pair_init(test, &p, 0);
			d.p = &p;
			d.nmsgs = 20;
			WRITE_ONCE(d.stop, 0);
			deadline = rt_msecs() + 120000;
			RT_ASSERT_EQ(fipc_waiter_init(&w, m, limit ? 1000 : 1,
						      ring_watchdog_sleep,
						      &deadline), 0);
			RT_ASSERT_EQ(rt_thread_start(&th, ring_sender_fn, &d,
						     "fipc-sender"), 0);
			wret = 0;
			rret = 0;
			len = 0;
			for (i = 0; i < d.nmsgs; i++) {
				len = 1 + i % 3;
				wret = fipc_wait_rx(&p.rx, &w);
				rret = wret ? wret : fipc_recv(&p.rx, p.in, 3);
				if (rret != (int)len ||
				    !ring_match(p.in, len, 500 + i))
					break;
			}
			WRITE_ONCE(d.stop, 1);
			sret = rt_thread_join(&th);
			/* Each wait ended with a message: the one sent. */
			RT_EXPECT_EQ(wret, 0);
			RT_EXPECT_EQ(rret, len);
			RT_EXPECT_EQ(i, d.nmsgs);
			RT_EXPECT_EQ(sret, 0);
			RT_EXPECT(w.empty_polls > 0);
			rt_note(test,
				"method %s spin_limit %u: %llu empty polls, %llu sleeps",
				fipc_wait_method_name(m), w.spin_limit,
				(unsigned long long)w.empty_polls,
				(unsigned long long)w.sleeps);
		}
	}
}

/*
 * Two-thread stress.  The producer sends RING_STRESS_MSGS messages on
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
#define RING_STRESS_MSGS	4194304u
#define RING_STRESS_BURST	16u
#define RING_STRESS_INFLIGHT	4096u	/* producer's window, power of 2 */
#define RING_STRESS_SPIN	64u
#define RING_STRESS_TIMEOUT_S	120

struct ring_stress_hdr {
	u32 seq;
	u32 nslots;
	u32 csum;
};

/**
 * struct ring_stress - the two threads' rings and results
 * @data_tx: the producer's end of the data ring
 * @data_rx: the consumer's end
 * @echo_tx: the consumer's end of the echo ring
 * @echo_rx: the producer's end
 * @csums: the producer's checksum of each message in flight
 * @out: the producer's messages, RING_STRESS_BURST + RING_MAX slots
 * @echo_in: the echoes it receives, RING_STRESS_BURST slots
 * @in: the consumer's messages, RING_MAX slots
 * @echo_out: the echoes it sends, RING_MAX slots
 * @wq: where the producer [0] and the consumer [1] sleep
 * @abort: set to make both threads give up
 * @err: each thread's error, read once both have finished
 * @why: what went wrong, with @err
 * @msgs: messages the consumer has checked
 * @echoes: echoes the producer has checked
 * @slots: data slots sent
 * @multi: multi-slot messages sent
 * @bursts: bursts sent
 * @sleeps: each thread's sleeps
 */
struct ring_stress {
	struct fipc_ring data_tx, data_rx;
	struct fipc_ring echo_tx, echo_rx;
	u32 *csums;
	struct fipc_msg *out, *echo_in;
	struct fipc_msg *in, *echo_out;
	struct rt_wq wq[2];
	int abort;
	int err[2];
	char why[2][96];
	u32 msgs, echoes, slots, multi, bursts;
	u64 sleeps[2];
};

/* Message length of sequence number seq: one slot mostly, up to 32. */
static unsigned int ring_stress_len(u32 seq)
{
	u32 h = seq * 2654435761u;

	if ((h >> 28) != 0xf)
		return 1;
	return 2 + (h >> 8) % (RING_MAX - 1);
}

static u32 ring_stress_csum(const struct fipc_msg *m, unsigned int n)
{
	const u8 *p = m->data + sizeof(struct ring_stress_hdr);
	const u8 *end = m->data + n * FIPC_SLOT_PAYLOAD;
	u32 h = 2166136261u;

	while (p < end)
		h = (h ^ *p++) * 16777619u;
	return h;
}

/* Fill message seq (ring_stress_len(seq) slots); returns its checksum. */
static u32 ring_stress_make(struct fipc_msg *m, u32 seq)
{
	unsigned int n = ring_stress_len(seq);
	struct ring_stress_hdr hdr = { .seq = seq, .nslots = n };
	u32 x = seq | 1, *w = (u32 *)m;
	unsigned int i;

	for (i = 0; i < n * FIPC_SLOT_PAYLOAD / 4; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		w[i] = x;
	}
	hdr.csum = ring_stress_csum(m, n);
	memcpy(m->data, &hdr, sizeof(hdr));
	return hdr.csum;
}

static int ring_stress_fail(struct ring_stress *st, int who, int err,
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

static bool ring_stress_stopping(struct ring_stress *st)
{
	return READ_ONCE(st->abort);
}

/* What each thread sleeps for: an echo, data, room for an echo. */
static bool ring_stress_echo_ready(void *arg)
{
	struct ring_stress *st = arg;

	return fipc_rx_ready(&st->echo_rx) || ring_stress_stopping(st);
}

static bool ring_stress_data_ready(void *arg)
{
	struct ring_stress *st = arg;

	return fipc_rx_ready(&st->data_rx) || ring_stress_stopping(st);
}

static bool ring_stress_echo_room(void *arg)
{
	struct ring_stress *st = arg;

	return fipc_tx_space(&st->echo_tx, 1) || ring_stress_stopping(st);
}

/*
 * Sleep hooks: wake the peer (it may wait for the slots we just freed),
 * then sleep until our condition holds.  The timeout only bounds the
 * cost of a lost wake-up; the caller polls again either way.
 */
static int ring_stress_producer_sleep(void *arg)
{
	struct ring_stress *st = arg;

	rt_wake(&st->wq[1]);
	rt_wait_until(&st->wq[0], ring_stress_echo_ready, st, 100);
	return ring_stress_stopping(st) ? -EINTR : 0;
}

static int ring_stress_consumer_sleep(void *arg)
{
	struct ring_stress *st = arg;

	rt_wake(&st->wq[0]);
	rt_wait_until(&st->wq[1], ring_stress_data_ready, st, 100);
	return ring_stress_stopping(st) ? -EINTR : 0;
}

/* The consumer waits for room on the echo ring. */
static int ring_stress_echo_sleep(struct ring_stress *st)
{
	rt_wake(&st->wq[0]);
	rt_wait_until(&st->wq[1], ring_stress_echo_room, st, 100);
	return ring_stress_stopping(st) ? -EINTR : 0;
}

/* Check the echoes that came back, up to @acked; false on error. */
static bool ring_stress_check_echoes(struct ring_stress *st, int n,
				     u32 *acked, u32 next)
{
	struct ring_stress_hdr hdr;
	int i;

	for (i = 0; i < n; i++, (*acked)++) {
		memcpy(&hdr, st->echo_in[i].data, sizeof(hdr));
		if (hdr.seq != *acked || hdr.seq >= next) {
			ring_stress_fail(st, 0, -EBADMSG, "echo seq", *acked,
					 hdr.seq);
			return false;
		}
		if (hdr.nslots != ring_stress_len(*acked) ||
		    hdr.csum != st->csums[*acked &
					  (RING_STRESS_INFLIGHT - 1)]) {
			ring_stress_fail(st, 0, -EBADMSG, "echo checksum",
					 *acked, hdr.csum);
			return false;
		}
	}
	return true;
}

/* Send the next message, or a burst of one-slot ones; <0 on error. */
static int ring_stress_send(struct ring_stress *st, u32 *next)
{
	unsigned int len = ring_stress_len(*next), k = 0;
	int n;

	if (len > 1) {
		st->csums[*next & (RING_STRESS_INFLIGHT - 1)] =
			ring_stress_make(st->out, *next);
		n = fipc_send(&st->data_tx, st->out, len);
		if (n == 0) {
			(*next)++;
			st->multi++;
			st->slots += len;
			return 1;
		}
		return n == -EAGAIN ? 0 : n;
	}
	while (k < RING_STRESS_BURST && *next + k < RING_STRESS_MSGS &&
	       ring_stress_len(*next + k) == 1) {
		st->csums[(*next + k) & (RING_STRESS_INFLIGHT - 1)] =
			ring_stress_make(&st->out[k], *next + k);
		k++;
	}
	n = fipc_send_burst(&st->data_tx, st->out, k);
	if (n > 0) {
		*next += n;
		st->slots += n;
		st->bursts++;
		return 1;
	}
	return n == -EAGAIN ? 0 : n;
}

static int ring_stress_producer(void *arg)
{
	struct ring_stress *st = arg;
	u32 next = 0, acked = 0;
	struct fipc_waiter w;
	bool progress;
	int ret, n;

	ret = fipc_waiter_init(&w, FIPC_WAIT_PAUSE, RING_STRESS_SPIN,
			       ring_stress_producer_sleep, st);
	if (ret)
		return ring_stress_fail(st, 0, ret, "producer waiter", 0, 0);

	while (acked < RING_STRESS_MSGS) {
		if (READ_ONCE(st->abort))
			return ring_stress_fail(st, 0, -EINTR, "aborted",
						acked, next);

		/* Echoes first, so the consumer never waits on us for long. */
		n = fipc_recv_burst(&st->echo_rx, st->echo_in,
				    RING_STRESS_BURST);
		if (n < 0)
			return ring_stress_fail(st, 0, n, "echo recv", acked,
						0);
		if (!ring_stress_check_echoes(st, n, &acked, next))
			return -EBADMSG;
		WRITE_ONCE(st->echoes, acked);
		progress = n > 0;

		if (next < RING_STRESS_MSGS &&
		    next - acked < RING_STRESS_INFLIGHT - RING_STRESS_BURST) {
			n = ring_stress_send(st, &next);
			if (n < 0)
				return ring_stress_fail(st, 0, n, "send", next,
							0);
			progress |= n > 0;
		}
		if (progress) {
			/* Data to read, or echo slots freed. */
			rt_wake(&st->wq[1]);
			rt_cond_resched();
			continue;
		}
		/* Nothing to do until the consumer echoes something. */
		ret = fipc_wait_rx(&st->echo_rx, &w);
		if (ret)
			return ring_stress_fail(st, 0, ret, "echo wait", acked,
						next);
	}
	st->sleeps[0] = w.sleeps;
	return 0;
}

/* Check one message of n slots; queue its echo. */
static int ring_stress_check(struct ring_stress *st, const struct fipc_msg *m,
			     unsigned int n, u32 seq, struct fipc_msg *echo)
{
	struct ring_stress_hdr hdr;

	memcpy(&hdr, m->data, sizeof(hdr));
	if (hdr.seq != seq)
		return ring_stress_fail(st, 1, -EBADMSG, "data seq", seq,
					hdr.seq);
	if (hdr.nslots != n || n != ring_stress_len(seq))
		return ring_stress_fail(st, 1, -EBADMSG, "data length", seq,
					n);
	if (hdr.csum != ring_stress_csum(m, n))
		return ring_stress_fail(st, 1, -EBADMSG, "data checksum", seq,
					hdr.csum);
	memcpy(echo->data, &hdr, sizeof(hdr));
	return 0;
}

/* Send the queued echoes; 1 if some are left (the echo ring is full). */
static int ring_stress_echo(struct ring_stress *st, unsigned int *sent,
			    unsigned int queued, u32 seq)
{
	int n;

	n = fipc_send_burst(&st->echo_tx, &st->echo_out[*sent],
			    queued - *sent);
	if (n < 0)
		return ring_stress_fail(st, 1, n, "echo send", seq, 0);
	*sent += n;
	if (n > 0)
		rt_wake(&st->wq[0]);
	if (*sent == queued)
		return 0;
	n = ring_stress_echo_sleep(st);
	if (n)
		return ring_stress_fail(st, 1, n, "echo full", seq, 0);
	return 1;
}

static int ring_stress_consumer(void *arg)
{
	unsigned int queued = 0, sent = 0;
	struct ring_stress *st = arg;
	struct fipc_waiter w;
	u32 seq = 0;
	int ret, i, n;

	ret = fipc_waiter_init(&w, FIPC_WAIT_PAUSE, RING_STRESS_SPIN,
			       ring_stress_consumer_sleep, st);
	if (ret)
		return ring_stress_fail(st, 1, ret, "consumer waiter", 0, 0);

	while (seq < RING_STRESS_MSGS || sent < queued) {
		if (READ_ONCE(st->abort))
			return ring_stress_fail(st, 1, -EINTR, "aborted", seq,
						0);
		/* Echo what was received before taking more. */
		if (sent < queued) {
			ret = ring_stress_echo(st, &sent, queued, seq);
			if (ret < 0)
				return ret;
			if (ret)
				continue;
			queued = 0;
			sent = 0;
			if (seq == RING_STRESS_MSGS)
				break;
		}

		rt_cond_resched();
		ret = fipc_wait_rx(&st->data_rx, &w);
		if (ret)
			return ring_stress_fail(st, 1, ret, "data wait", seq,
						0);
		n = fipc_recv_burst(&st->data_rx, st->in, RING_STRESS_BURST);
		if (n == 0) {
			/* A multi-slot message at the head. */
			n = fipc_recv(&st->data_rx, st->in, RING_MAX);
			if (n <= 0)
				return ring_stress_fail(st, 1, n ? n : -EIO,
							"data recv", seq, 0);
			ret = ring_stress_check(st, st->in, n, seq++,
						&st->echo_out[0]);
			if (ret)
				return ret;
			queued = 1;
			WRITE_ONCE(st->msgs, st->msgs + 1);
			continue;
		}
		if (n < 0)
			return ring_stress_fail(st, 1, n, "data burst", seq, 0);
		for (i = 0; i < n; i++) {
			ret = ring_stress_check(st, &st->in[i], 1, seq++,
						&st->echo_out[i]);
			if (ret)
				return ret;
		}
		queued = n;
		WRITE_ONCE(st->msgs, st->msgs + n);
	}
	st->sleeps[1] = w.sleeps;
	return 0;
}

static void ring_test_stress(struct kunit *test)
{
	u64 t0, now, deadline, ms;
	struct rt_thread th[2];
	struct ring_stress *st;
	void *data, *echo;
	bool hung = false;
	int i, ret;

	st = rt_zalloc(test, sizeof(*st));
	RT_ASSERT(st);
	st->csums = rt_zalloc(test, RING_STRESS_INFLIGHT * sizeof(u32));
	st->out = rt_bufs(test, RING_STRESS_BURST + RING_MAX);
	st->echo_in = rt_bufs(test, RING_STRESS_BURST);
	st->in = rt_bufs(test, RING_MAX);
	st->echo_out = rt_bufs(test, RING_MAX);
	data = rt_ring_alloc(test, 1);
	echo = rt_ring_alloc(test, 0);
	RT_ASSERT(st->csums && st->out && st->echo_in && st->in &&
		  st->echo_out && data && echo);
	RT_ASSERT_EQ(fipc_ring_init(&st->data_tx, data, 1), 0);
	RT_ASSERT_EQ(fipc_ring_init(&st->data_rx, data, 1), 0);
	RT_ASSERT_EQ(fipc_ring_init(&st->echo_tx, echo, 0), 0);
	RT_ASSERT_EQ(fipc_ring_init(&st->echo_rx, echo, 0), 0);
	RT_ASSERT_EQ(fipc_ring_set_release_batch(&st->data_rx, 16), 0);
	RT_ASSERT_EQ(fipc_ring_set_release_batch(&st->echo_rx, 8), 0);
	rt_wq_init(&st->wq[0]);
	rt_wq_init(&st->wq[1]);

	t0 = rt_msecs();
	RT_ASSERT_EQ(rt_thread_start(&th[1], ring_stress_consumer, st,
				     "fipc-consumer"), 0);
	ret = rt_thread_start(&th[0], ring_stress_producer, st,
			      "fipc-producer");
	if (ret) {
		WRITE_ONCE(st->abort, 1);
		rt_thread_join(&th[1]);
		RT_ASSERT_EQ(ret, 0);
	}
	deadline = t0 + RING_STRESS_TIMEOUT_S * 1000;
	for (i = 0; i < 2 && !hung; i++) {
		now = rt_msecs();
		hung = !rt_thread_wait(&th[i], now < deadline ?
				       deadline - now : 0);
	}
	ms = rt_msecs() - t0;
	/* Watchdog: make both threads give up, then fail. */
	if (hung)
		WRITE_ONCE(st->abort, 1);
	for (i = 0; i < 2; i++)
		rt_thread_join(&th[i]);
	RT_EXPECT_MSG(!hung, "stress hung: %u messages, %u echoes in %llu ms",
		      READ_ONCE(st->msgs), READ_ONCE(st->echoes),
		      (unsigned long long)ms);

	rt_note(test,
		"stress: %u messages (%u multi-slot, %u slots, %u bursts), %u echoes in %llu ms; sleeps %llu/%llu",
		st->msgs, st->multi, st->slots, st->bursts, st->echoes,
		(unsigned long long)ms, (unsigned long long)st->sleeps[0],
		(unsigned long long)st->sleeps[1]);
	RT_EXPECT_EQ_MSG(st->err[0], 0, "producer: %s", st->why[0]);
	RT_EXPECT_EQ_MSG(st->err[1], 0, "consumer: %s", st->why[1]);
	RT_EXPECT_EQ(st->msgs, RING_STRESS_MSGS);
	RT_EXPECT_EQ(st->echoes, RING_STRESS_MSGS);
	RT_EXPECT(st->multi > 0);
	RT_EXPECT_EQ(fipc_ring_error(&st->data_rx), 0);
	RT_EXPECT_EQ(fipc_ring_error(&st->echo_rx), 0);
	RT_EXPECT(!fipc_rx_ready(&st->data_rx));
	RT_EXPECT(!fipc_rx_ready(&st->echo_rx));
}

static struct rt_case ring_cases[] = {
	RT_CASE(ring_test_init_args),
	RT_CASE(ring_test_release_batch_args),
	RT_CASE(ring_test_chan_init),
	RT_CASE(ring_test_empty),
	RT_CASE(ring_test_wire_format),
	RT_CASE(ring_test_full),
	RT_CASE(ring_test_wrap_laps),
	RT_CASE(ring_test_wrap_u32),
	RT_CASE(ring_test_burst_basic),
	RT_CASE(ring_test_burst_partial),
	RT_CASE(ring_test_burst_multislot),
	RT_CASE(ring_test_orders),
	RT_CASE(ring_test_multislot_lengths),
	RT_CASE(ring_test_multislot_wire),
	RT_CASE(ring_test_multislot_emsgsize),
	RT_CASE(ring_test_multislot_einval),
	RT_CASE(ring_test_multislot_no_room),
	RT_CASE(ring_test_release_batch),
	RT_CASE(ring_test_release_batch_max),
	RT_CASE(ring_test_space_pending_ready),
	RT_CASE(ring_test_hostile_rx_head),
	RT_CASE(ring_test_hostile_rx_continuation),
	RT_CASE(ring_test_hostile_rx_long_head),
	RT_CASE(ring_test_hostile_rx_burst),
	RT_CASE(ring_test_payload_passthrough),
	RT_CASE(ring_test_hostile_tx_garbage),
	RT_CASE(ring_test_hostile_tx_later_slot),
	RT_CASE(ring_test_tx_lap_ago_is_full),
	RT_CASE(ring_test_eproto_sticky),
	RT_CASE(ring_test_wait_methods),
	RT_CASE(ring_test_wait_timeout),
	RT_CASE(ring_test_wait_flushes_batch),
	RT_CASE(ring_test_wait_sleep_hook),
	RT_CASE(ring_test_wait_threaded),
	RT_CASE(ring_test_stress),
	RT_END
};

RT_SUITE(fipc_ring, ring_cases);
