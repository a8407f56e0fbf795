// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the fipc ring library, userspace build.
 *
 * Both ends of a ring live in this process: a sender view and a receiver
 * view on the same page-aligned memory.  Tests that play a hostile peer
 * write the shared slots directly.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fipc/fipc.h>
#include "harness.h"

#define RING_MEM_MAX	FIPC_RING_BYTES(FIPC_MAX_ORDER)

/**
 * struct tring - a ring with both of its ends
 * @mem: the shared memory, page aligned, FIPC_RING_BYTES(@order) bytes
 * @order: the ring order
 * @slots: number of slots
 * @tx: the sender's view
 * @rx: the receiver's view
 */
struct tring {
	struct fipc_slot *mem;
	unsigned int order;
	unsigned int slots;
	struct fipc_ring tx;
	struct fipc_ring rx;
};

static bool tring_init(struct tring *t, unsigned int order)
{
	t->order = order;
	t->slots = FIPC_RING_SLOTS(order);
	t->mem = aligned_alloc(FIPC_PAGE_BYTES, FIPC_RING_BYTES(order));
	if (!EXPECT(t->mem))
		return false;
	/* Garbage first: fipc_ring_clear() must make it an empty ring. */
	memset(t->mem, 0xa5, FIPC_RING_BYTES(order));
	fipc_ring_clear(t->mem, order);
	return EXPECT_EQ(fipc_ring_init(&t->tx, t->mem, order), 0) &&
	       EXPECT_EQ(fipc_ring_init(&t->rx, t->mem, order), 0);
}

static void tring_fini(struct tring *t)
{
	free(t->mem);
	t->mem = NULL;
}

/* Deterministic payload: slot @i of message @tag. */
static void fill_msg(struct fipc_msg *m, unsigned int nslots, u32 tag)
{
	unsigned int i, j;
	u32 x = tag * 2654435761u + 12345;

	for (i = 0; i < nslots; i++) {
		for (j = 0; j < FIPC_SLOT_PAYLOAD; j++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			m[i].data[j] = (u8)(x + i + j);
		}
	}
}

static bool msg_equal(const struct fipc_msg *a, const struct fipc_msg *b,
		      unsigned int nslots)
{
	return !memcmp(a, b, (size_t)nslots * sizeof(*a));
}

static u32 ready(u32 seq, unsigned int len)
{
	return FIPC_FLAG_READY | (len << FIPC_FLAG_LEN_SHIFT) |
	       (seq & FIPC_FLAG_SEQ_MASK);
}

static struct fipc_slot *slot_of(struct tring *t, u32 seq)
{
	return &t->mem[seq & (t->slots - 1)];
}

/* Send one message of @nslots tagged @tag and receive it back. */
static bool roundtrip(struct tring *t, unsigned int nslots, u32 tag)
{
	struct fipc_msg out[FIPC_MSG_MAX_SLOTS], in[FIPC_MSG_MAX_SLOTS];

	fill_msg(out, nslots, tag);
	memset(in, 0, sizeof(in));
	if (!EXPECT_EQ(fipc_send(&t->tx, out, nslots), 0))
		return false;
	if (!EXPECT_EQ(fipc_recv(&t->rx, in, FIPC_MSG_MAX_SLOTS), nslots))
		return false;
	return EXPECT(msg_equal(in, out, nslots));
}

/* Set-up */

static void test_ring_init_args(void)
{
	struct fipc_ring r;
	u8 *mem = aligned_alloc(FIPC_PAGE_BYTES, 2 * RING_MEM_MAX);
	unsigned int order, off;

	if (!EXPECT(mem))
		return;
	EXPECT_EQ(fipc_ring_init(&r, mem, FIPC_MAX_ORDER + 1), -EINVAL);
	EXPECT_EQ(fipc_ring_init(&r, mem, 5), -EINVAL);
	EXPECT_EQ(fipc_ring_init(&r, mem, ~0u), -EINVAL);
	EXPECT_EQ(fipc_ring_init(&r, NULL, 0), -EINVAL);
	for (off = 1; off < FIPC_SLOT_BYTES; off++)
		EXPECT_EQ(fipc_ring_init(&r, mem + off, 0), -EINVAL);
	for (order = FIPC_MIN_ORDER; order <= FIPC_MAX_ORDER; order++) {
		memset(&r, 0xff, sizeof(r));
		EXPECT_EQ(fipc_ring_init(&r, mem, order), 0);
		EXPECT_EQ(fipc_ring_slots(&r), 64u << order);
		EXPECT_EQ(r.seq, 0);
		EXPECT_EQ(r.error, 0);
		EXPECT_EQ(r.release_batch, 1);
		EXPECT(r.slots == (struct fipc_slot *)mem);
	}
	free(mem);
}

static void test_release_batch_args(void)
{
	struct tring t;
	unsigned int order;

	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		if (!tring_init(&t, order))
			return;
		EXPECT_EQ(fipc_ring_set_release_batch(&t.rx, 0), -EINVAL);
		EXPECT_EQ(fipc_ring_set_release_batch(&t.rx, t.slots / 2 + 1),
			  -EINVAL);
		EXPECT_EQ(fipc_ring_set_release_batch(&t.rx, t.slots), -EINVAL);
		EXPECT_EQ(t.rx.release_batch, 1);
		EXPECT_EQ(fipc_ring_set_release_batch(&t.rx, t.slots / 2), 0);
		EXPECT_EQ(t.rx.release_batch, t.slots / 2);
		EXPECT_EQ(fipc_ring_set_release_batch(&t.rx, 1), 0);
		tring_fini(&t);
	}
}

static void test_chan_init(void)
{
	struct fipc_chan a, b;
	struct fipc_msg out, in;
	u8 *m1 = aligned_alloc(FIPC_PAGE_BYTES, FIPC_RING_BYTES(1));
	u8 *m2 = aligned_alloc(FIPC_PAGE_BYTES, FIPC_RING_BYTES(1));

	if (!EXPECT(m1 && m2))
		goto out;
	fipc_ring_clear(m1, 1);
	fipc_ring_clear(m2, 1);
	EXPECT_EQ(fipc_chan_init(&a, m1, m1, 1), -EINVAL);
	EXPECT_EQ(fipc_chan_init(&a, m1, m2, 5), -EINVAL);
	EXPECT_EQ(fipc_chan_init(&a, m1 + 4, m2, 1), -EINVAL);
	EXPECT_EQ(fipc_chan_init(&a, m1, m2 + 4, 1), -EINVAL);
	EXPECT_EQ(fipc_chan_init(&a, NULL, m2, 1), -EINVAL);
	EXPECT_EQ(fipc_chan_init(&a, m1, NULL, 1), -EINVAL);
	if (!EXPECT_EQ(fipc_chan_init(&a, m1, m2, 1), 0) ||
	    !EXPECT_EQ(fipc_chan_init(&b, m2, m1, 1), 0))
		goto out;
	EXPECT_EQ(fipc_ring_slots(&a.tx), 128);
	EXPECT_EQ(fipc_ring_slots(&a.rx), 128);
	/* a -> b */
	fill_msg(&out, 1, 1);
	EXPECT_EQ(fipc_send(&a.tx, &out, 1), 0);
	EXPECT_EQ(fipc_recv(&a.rx, &in, 1), -EAGAIN);
	EXPECT_EQ(fipc_recv(&b.rx, &in, 1), 1);
	EXPECT(msg_equal(&in, &out, 1));
	/* b -> a */
	fill_msg(&out, 1, 2);
	EXPECT_EQ(fipc_send(&b.tx, &out, 1), 0);
	EXPECT_EQ(fipc_recv(&b.rx, &in, 1), -EAGAIN);
	EXPECT_EQ(fipc_recv(&a.rx, &in, 1), 1);
	EXPECT(msg_equal(&in, &out, 1));
out:
	free(m1);
	free(m2);
}

/* Basic operation */

static void test_empty(void)
{
	struct fipc_msg buf[4];
	unsigned int order;
	struct tring t;

	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		if (!tring_init(&t, order))
			return;
		memset(buf, 0x5c, sizeof(buf));
		EXPECT_EQ(fipc_recv(&t.rx, buf, 4), -EAGAIN);
		EXPECT_EQ(fipc_recv(&t.rx, buf, 0), -EAGAIN);
		EXPECT_EQ(fipc_recv_burst(&t.rx, buf, 4), 0);
		EXPECT_EQ(buf[0].data[0], 0x5c);
		EXPECT(!fipc_rx_ready(&t.rx));
		EXPECT_EQ(fipc_rx_pending(&t.rx, ~0u), 0);
		EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), t.slots);
		EXPECT_EQ(fipc_tx_space(&t.tx, 5), 5);
		EXPECT_EQ(fipc_tx_space(&t.tx, 0), 0);
		EXPECT_EQ(fipc_ring_error(&t.rx), 0);
		EXPECT_EQ(fipc_ring_error(&t.tx), 0);
		EXPECT_EQ(t.rx.seq, 0);
		tring_fini(&t);
	}
}

static void test_single_message_wire_format(void)
{
	struct fipc_msg out, in;
	struct tring t;

	if (!tring_init(&t, 0))
		return;
	fill_msg(&out, 1, 7);
	EXPECT_EQ(fipc_send(&t.tx, &out, 1), 0);
	EXPECT_EQ(t.mem[0].flag, ready(0, 1));
	EXPECT(!memcmp(t.mem[0].payload, out.data, FIPC_SLOT_PAYLOAD));
	EXPECT_EQ(t.mem[1].flag, FIPC_FLAG_FREE);
	EXPECT(fipc_rx_ready(&t.rx));
	EXPECT_EQ(fipc_rx_pending(&t.rx, ~0u), 1);
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), t.slots - 1);
	EXPECT_EQ(fipc_recv(&t.rx, &in, 1), 1);
	EXPECT(msg_equal(&in, &out, 1));
	/* Batch 1: the slot is free again at once, payload untouched. */
	EXPECT_EQ(t.mem[0].flag, FIPC_FLAG_FREE);
	EXPECT(!memcmp(t.mem[0].payload, out.data, FIPC_SLOT_PAYLOAD));
	EXPECT(!fipc_rx_ready(&t.rx));
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), t.slots);
	EXPECT_EQ(fipc_recv(&t.rx, &in, 1), -EAGAIN);
	tring_fini(&t);
}

static void test_full(void)
{
	struct fipc_msg out, in, burst[4];
	unsigned int order, i;
	struct tring t;

	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		if (!tring_init(&t, order))
			return;
		for (i = 0; i < t.slots; i++) {
			fill_msg(&out, 1, i);
			if (!EXPECT_EQ(fipc_send(&t.tx, &out, 1), 0))
				break;
		}
		EXPECT_EQ(fipc_send(&t.tx, &out, 1), -EAGAIN);
		EXPECT_EQ(fipc_send(&t.tx, burst, 2), -EAGAIN);
		EXPECT_EQ(fipc_send_burst(&t.tx, burst, 4), 0);
		EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), 0);
		EXPECT_EQ(fipc_rx_pending(&t.rx, ~0u), t.slots);
		EXPECT_EQ(fipc_rx_pending(&t.rx, 3), 3);
		EXPECT_EQ(fipc_ring_error(&t.tx), 0);
		EXPECT_EQ(t.tx.seq, t.slots);
		/* One out, one in. */
		EXPECT_EQ(fipc_recv(&t.rx, &in, 1), 1);
		fill_msg(&out, 1, 0);
		EXPECT(msg_equal(&in, &out, 1));
		EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), 1);
		fill_msg(&out, 1, 1000);
		EXPECT_EQ(fipc_send(&t.tx, &out, 1), 0);
		EXPECT_EQ(fipc_send(&t.tx, &out, 1), -EAGAIN);
		for (i = 1; i <= t.slots; i++) {
			fill_msg(&out, 1, i < t.slots ? i : 1000);
			if (!EXPECT_EQ(fipc_recv(&t.rx, &in, 1), 1) ||
			    !EXPECT(msg_equal(&in, &out, 1)))
				break;
		}
		EXPECT_EQ(fipc_recv(&t.rx, &in, 1), -EAGAIN);
		EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), t.slots);
		tring_fini(&t);
	}
}

/* Many laps with varying fill levels, past the 16-bit sequence wrap. */
static void test_wraparound(void)
{
	struct fipc_msg out[FIPC_MSG_MAX_SLOTS], in[FIPC_MSG_MAX_SLOTS];
	unsigned int order, n, k, sent, rcvd, total;
	struct tring t;
	int ret;

	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		if (!tring_init(&t, order))
			return;
		total = 70000 + 7 * t.slots;	/* > 2^16 slots */
		sent = 0;
		rcvd = 0;
		for (n = 0; rcvd < total; n++) {
			/* fill 1..slots messages, then drain most of them */
			unsigned int fill = 1 + (n * 37) % t.slots;

			for (k = 0; k < fill && sent < total; k++) {
				fill_msg(out, 1, sent);
				ret = fipc_send(&t.tx, out, 1);
				if (ret == -EAGAIN)
					break;
				if (!EXPECT_EQ(ret, 0))
					goto out;
				sent++;
			}
			k = (n & 3) ? sent - rcvd : (sent - rcvd) / 2;
			if (sent == total)
				k = sent - rcvd;
			while (k--) {
				fill_msg(out, 1, rcvd);
				if (!EXPECT_EQ(fipc_recv(&t.rx, in, 1), 1) ||
				    !EXPECT(msg_equal(in, out, 1)))
					goto out;
				rcvd++;
			}
		}
		EXPECT_EQ(t.tx.seq, total);
		EXPECT_EQ(t.rx.seq, total);
		EXPECT_EQ(fipc_recv(&t.rx, in, 1), -EAGAIN);
out:
		tring_fini(&t);
	}
}

/* The u32 cursors themselves wrap after 2^32 slots. */
static void test_u32_seq_wrap(void)
{
	unsigned int i, len;
	struct tring t;

	if (!tring_init(&t, 0))
		return;
	t.tx.seq = 0xffffff00u;
	t.rx.seq = 0xffffff00u;
	t.rx.release_seq = 0xffffff00u;
	for (i = 0; i < 600; i++) {
		len = 1 + (i * 7) % FIPC_MSG_MAX_SLOTS;
		if (!roundtrip(&t, len, i))
			break;
	}
	EXPECT(t.rx.seq < 0x10000u);
	EXPECT_EQ(t.rx.seq, t.tx.seq);
	tring_fini(&t);
}

/* Bursts */

static void test_burst_basic(void)
{
	struct fipc_msg out[16], in[16];
	unsigned int order;
	struct tring t;

	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		if (!tring_init(&t, order))
			return;
		fill_msg(out, 16, order);
		EXPECT_EQ(fipc_send_burst(&t.tx, out, 0), 0);
		EXPECT_EQ(fipc_send_burst(&t.tx, out, 10), 10);
		EXPECT_EQ(t.mem[9].flag, ready(9, 1));
		EXPECT_EQ(fipc_rx_pending(&t.rx, ~0u), 10);
		memset(in, 0, sizeof(in));
		EXPECT_EQ(fipc_recv_burst(&t.rx, in, 0), 0);
		EXPECT_EQ(fipc_recv_burst(&t.rx, in, 4), 4);
		EXPECT(msg_equal(in, out, 4));
		EXPECT_EQ(fipc_recv_burst(&t.rx, in, 16), 6);
		EXPECT(msg_equal(in, out + 4, 6));
		EXPECT_EQ(fipc_recv_burst(&t.rx, in, 16), 0);
		/* single-slot messages and bursts interoperate */
		EXPECT_EQ(fipc_send(&t.tx, out, 1), 0);
		EXPECT_EQ(fipc_recv_burst(&t.rx, in, 16), 1);
		EXPECT(msg_equal(in, out, 1));
		EXPECT_EQ(fipc_send_burst(&t.tx, out, 3), 3);
		EXPECT_EQ(fipc_recv(&t.rx, in, 1), 1);
		EXPECT_EQ(fipc_recv(&t.rx, in, 1), 1);
		EXPECT(msg_equal(in, out + 1, 1));
		EXPECT_EQ(fipc_recv(&t.rx, in, 1), 1);
		EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), t.slots);
		tring_fini(&t);
	}
}

static void test_burst_partial_when_full(void)
{
	struct fipc_msg out[16], in[16];
	unsigned int order, i;
	struct tring t;

	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		if (!tring_init(&t, order))
			return;
		fill_msg(out, 16, 3);
		for (i = 0; i < t.slots - 5; i++)
			EXPECT_EQ(fipc_send(&t.tx, out, 1), 0);
		EXPECT_EQ(fipc_send_burst(&t.tx, out, 16), 5);
		EXPECT_EQ(t.tx.seq, t.slots);
		EXPECT_EQ(fipc_send_burst(&t.tx, out, 16), 0);
		/* free 3, the next burst fits exactly 3 */
		EXPECT_EQ(fipc_recv_burst(&t.rx, in, 3), 3);
		EXPECT_EQ(fipc_send_burst(&t.tx, out + 5, 16 - 5), 3);
		for (i = 0; i < t.slots - 8; i++)
			EXPECT_EQ(fipc_recv(&t.rx, in, 1), 1);
		EXPECT_EQ(fipc_recv_burst(&t.rx, in, 16), 8);
		EXPECT(msg_equal(in, out, 8));
		EXPECT_EQ(fipc_recv_burst(&t.rx, in, 16), 0);
		tring_fini(&t);
	}
}

static void test_burst_stops_at_multislot(void)
{
	struct fipc_msg out[8], big[3], in[16];
	struct tring t;

	if (!tring_init(&t, 0))
		return;
	fill_msg(out, 8, 11);
	fill_msg(big, 3, 12);
	EXPECT_EQ(fipc_send_burst(&t.tx, out, 3), 3);
	EXPECT_EQ(fipc_send(&t.tx, big, 3), 0);
	EXPECT_EQ(fipc_send(&t.tx, out + 3, 1), 0);
	EXPECT_EQ(fipc_recv_burst(&t.rx, in, 16), 3);
	EXPECT(msg_equal(in, out, 3));
	/* stuck at the 3-slot head: nothing consumed, nothing lost */
	EXPECT_EQ(fipc_recv_burst(&t.rx, in, 16), 0);
	EXPECT(fipc_rx_ready(&t.rx));
	EXPECT_EQ(fipc_rx_pending(&t.rx, ~0u), 4);
	EXPECT_EQ(fipc_recv(&t.rx, in, 2), -EMSGSIZE);
	EXPECT_EQ(fipc_recv(&t.rx, in, 16), 3);
	EXPECT(msg_equal(in, big, 3));
	EXPECT_EQ(fipc_recv_burst(&t.rx, in, 16), 1);
	EXPECT(msg_equal(in, out + 3, 1));
	EXPECT_EQ(fipc_ring_error(&t.rx), 0);
	tring_fini(&t);
}

/* Multi-slot messages */

static void test_multislot_all_lengths_all_orders(void)
{
	unsigned int order, len, lap;
	struct tring t;

	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		if (!tring_init(&t, order))
			return;
		/* several laps so that every length starts everywhere */
		for (lap = 0; lap < 3 * (order + 1); lap++)
			for (len = 1; len <= FIPC_MSG_MAX_SLOTS; len++)
				if (!roundtrip(&t, len, lap * 100 + len))
					goto out;
out:
		tring_fini(&t);
	}
}

static void test_multislot_wire_and_wrap(void)
{
	struct fipc_msg out[FIPC_MSG_MAX_SLOTS], in[FIPC_MSG_MAX_SLOTS];
	unsigned int i, start;
	struct tring t;

	if (!tring_init(&t, 0))
		return;
	/* put both cursors 5 slots before the end */
	for (i = 0; i < t.slots - 5; i++)
		if (!roundtrip(&t, 1, i))
			goto out;
	start = t.tx.seq;
	fill_msg(out, 20, 99);
	EXPECT_EQ(fipc_send(&t.tx, out, 20), 0);
	/* continuation slots first, each with its own sequence number */
	EXPECT_EQ(slot_of(&t, start)->flag, ready(start, 20));
	for (i = 1; i < 20; i++) {
		EXPECT_EQ(slot_of(&t, start + i)->flag, ready(start + i, 0));
		EXPECT(!memcmp(slot_of(&t, start + i)->payload, out[i].data,
			       FIPC_SLOT_PAYLOAD));
	}
	EXPECT_EQ(slot_of(&t, start + 20)->flag, FIPC_FLAG_FREE);
	EXPECT_EQ(fipc_rx_pending(&t.rx, ~0u), 20);
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), t.slots - 20);
	EXPECT_EQ(fipc_recv(&t.rx, in, FIPC_MSG_MAX_SLOTS), 20);
	EXPECT(msg_equal(in, out, 20));
	for (i = 0; i < 20; i++)
		EXPECT_EQ(slot_of(&t, start + i)->flag, FIPC_FLAG_FREE);
	/* exactly at the end: a 5-slot message ending on the last slot */
	while (t.tx.seq % t.slots != t.slots - 5)
		if (!roundtrip(&t, 1, 0))
			goto out;
	EXPECT(roundtrip(&t, 5, 5));
	EXPECT_EQ(t.tx.seq % t.slots, 0);
	/* and a 32-slot message across the end */
	while (t.tx.seq % t.slots != t.slots - 1)
		if (!roundtrip(&t, 1, 0))
			goto out;
	EXPECT(roundtrip(&t, 32, 32));
out:
	tring_fini(&t);
}

static void test_multislot_emsgsize(void)
{
	struct fipc_msg out[8], in[8];
	unsigned int max;
	struct tring t;

	if (!tring_init(&t, 0))
		return;
	fill_msg(out, 5, 55);
	EXPECT_EQ(fipc_send(&t.tx, out, 5), 0);
	for (max = 0; max < 5; max++) {
		memset(in, 0x3c, sizeof(in));
		EXPECT_EQ(fipc_recv(&t.rx, in, max), -EMSGSIZE);
		EXPECT_EQ(in[0].data[0], 0x3c);
		EXPECT_EQ(in[4].data[59], 0x3c);
		EXPECT_EQ(t.rx.seq, 0);
		EXPECT_EQ(t.mem[0].flag, ready(0, 5));
		EXPECT(fipc_rx_ready(&t.rx));
		EXPECT_EQ(fipc_rx_pending(&t.rx, ~0u), 5);
		EXPECT_EQ(fipc_ring_error(&t.rx), 0);
	}
	EXPECT_EQ(fipc_recv(&t.rx, in, 5), 5);
	EXPECT(msg_equal(in, out, 5));
	EXPECT_EQ(fipc_recv(&t.rx, in, 5), -EAGAIN);
	tring_fini(&t);
}

static void test_multislot_einval(void)
{
	struct fipc_msg out[FIPC_MSG_MAX_SLOTS + 1];
	unsigned int order;
	struct tring t;

	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		if (!tring_init(&t, order))
			return;
		fill_msg(out, FIPC_MSG_MAX_SLOTS + 1, 1);
		EXPECT_EQ(fipc_send(&t.tx, out, 0), -EINVAL);
		EXPECT_EQ(fipc_send(&t.tx, out, FIPC_MSG_MAX_SLOTS + 1),
			  -EINVAL);
		EXPECT_EQ(fipc_send(&t.tx, out, t.slots), -EINVAL);
		EXPECT_EQ(fipc_send(&t.tx, out, t.slots + 1), -EINVAL);
		EXPECT_EQ(fipc_send(&t.tx, out, ~0u), -EINVAL);
		/* nothing written, the ring is still usable */
		EXPECT_EQ(t.tx.seq, 0);
		EXPECT_EQ(t.mem[0].flag, FIPC_FLAG_FREE);
		EXPECT_EQ(fipc_ring_error(&t.tx), 0);
		EXPECT(roundtrip(&t, FIPC_MSG_MAX_SLOTS, 2));
		tring_fini(&t);
	}
}

/* A message that does not fit is not written at all. */
static void test_multislot_no_room(void)
{
	struct fipc_msg out[FIPC_MSG_MAX_SLOTS], in[FIPC_MSG_MAX_SLOTS];
	struct tring t;
	unsigned int i;

	if (!tring_init(&t, 0))
		return;
	fill_msg(out, FIPC_MSG_MAX_SLOTS, 4);
	for (i = 0; i < 40; i++)
		EXPECT_EQ(fipc_send(&t.tx, out, 1), 0);
	EXPECT_EQ(fipc_send(&t.tx, out, 25), -EAGAIN);
	EXPECT_EQ(fipc_send(&t.tx, out, 32), -EAGAIN);
	for (i = 40; i < t.slots; i++)
		EXPECT_EQ(t.mem[i].flag, FIPC_FLAG_FREE);
	EXPECT_EQ(t.tx.seq, 40);
	EXPECT_EQ(fipc_send(&t.tx, out, 24), 0);
	EXPECT_EQ(fipc_send(&t.tx, out, 1), -EAGAIN);
	/* free the first 10: a 10-slot message across the end fits */
	for (i = 0; i < 10; i++)
		EXPECT_EQ(fipc_recv(&t.rx, in, 1), 1);
	EXPECT_EQ(fipc_send(&t.tx, out, 11), -EAGAIN);
	EXPECT_EQ(fipc_send(&t.tx, out, 10), 0);
	for (i = 10; i < 40; i++)
		EXPECT_EQ(fipc_recv(&t.rx, in, 1), 1);
	EXPECT_EQ(fipc_recv(&t.rx, in, FIPC_MSG_MAX_SLOTS), 24);
	EXPECT(msg_equal(in, out, 24));
	EXPECT_EQ(fipc_recv(&t.rx, in, FIPC_MSG_MAX_SLOTS), 10);
	EXPECT(msg_equal(in, out, 10));
	EXPECT_EQ(fipc_recv(&t.rx, in, FIPC_MSG_MAX_SLOTS), -EAGAIN);
	tring_fini(&t);
}

/* Release batching */

static void test_release_batch(void)
{
	struct fipc_msg out, in[16];
	unsigned int i;
	struct tring t;

	if (!tring_init(&t, 0))
		return;
	EXPECT_EQ(fipc_ring_set_release_batch(&t.rx, 8), 0);
	fill_msg(&out, 1, 8);
	for (i = 0; i < t.slots; i++)
		EXPECT_EQ(fipc_send(&t.tx, &out, 1), 0);
	/* 7 consumed: still held, the sender sees a full ring */
	for (i = 0; i < 7; i++)
		EXPECT_EQ(fipc_recv(&t.rx, in, 1), 1);
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), 0);
	EXPECT_EQ(fipc_send(&t.tx, &out, 1), -EAGAIN);
	EXPECT_EQ(t.mem[0].flag, ready(0, 1));
	/* the 8th frees all 8 at once */
	EXPECT_EQ(fipc_recv(&t.rx, in, 1), 1);
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), 8);
	for (i = 0; i < 8; i++)
		EXPECT_EQ(t.mem[i].flag, FIPC_FLAG_FREE);
	/* bursts count toward the batch the same way */
	EXPECT_EQ(fipc_recv_burst(&t.rx, in, 5), 5);
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), 8);
	EXPECT_EQ(fipc_recv_burst(&t.rx, in, 3), 3);
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), 16);
	/* held slots are not counted as pending */
	EXPECT_EQ(fipc_recv(&t.rx, in, 1), 1);
	EXPECT_EQ(fipc_rx_pending(&t.rx, ~0u), t.slots - 17);
	/* fipc_recv_release() hands them back now */
	fipc_recv_release(&t.rx);
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), 17);
	fipc_recv_release(&t.rx);
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), 17);
	/* drain; finding the ring empty flushes what is held */
	for (i = 17; i < t.slots; i++)
		EXPECT_EQ(fipc_recv(&t.rx, in, 1), 1);
	EXPECT(fipc_tx_space(&t.tx, ~0u) < (int)t.slots);
	EXPECT_EQ(fipc_recv(&t.rx, in, 1), -EAGAIN);
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), t.slots);
	/* same through an empty recv_burst */
	EXPECT_EQ(fipc_send(&t.tx, &out, 1), 0);
	EXPECT_EQ(fipc_recv(&t.rx, in, 1), 1);
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), t.slots - 1);
	EXPECT_EQ(fipc_recv_burst(&t.rx, in, 16), 0);
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), t.slots);
	tring_fini(&t);
}

/* Batch of half the ring with the longest messages: no stale reads. */
static void test_release_batch_max(void)
{
	struct fipc_msg out[FIPC_MSG_MAX_SLOTS], in[FIPC_MSG_MAX_SLOTS];
	unsigned int order, i, len, sent, rcvd;
	struct tring t;
	int ret;

	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		if (!tring_init(&t, order))
			return;
		EXPECT_EQ(fipc_ring_set_release_batch(&t.rx, t.slots / 2), 0);
		sent = 0;
		rcvd = 0;
		for (i = 0; i < 4000 && rcvd < 3000; i++) {
			len = 1 + (sent * 13) % FIPC_MSG_MAX_SLOTS;
			fill_msg(out, len, sent);
			ret = fipc_send(&t.tx, out, len);
			if (ret == 0) {
				sent++;
				if (i % 3)
					continue;
			} else if (!EXPECT_EQ(ret, -EAGAIN)) {
				break;
			}
			len = 1 + (rcvd * 13) % FIPC_MSG_MAX_SLOTS;
			ret = fipc_recv(&t.rx, in, FIPC_MSG_MAX_SLOTS);
			if (ret == -EAGAIN && rcvd == sent)
				continue;
			if (!EXPECT_EQ(ret, len))
				break;
			fill_msg(out, len, rcvd);
			if (!EXPECT(msg_equal(in, out, len)))
				break;
			rcvd++;
		}
		EXPECT(rcvd >= 1000);
		EXPECT_EQ(fipc_ring_error(&t.rx), 0);
		EXPECT_EQ(fipc_ring_error(&t.tx), 0);
		tring_fini(&t);
	}
}

static void test_space_pending_ready(void)
{
	struct fipc_msg out[FIPC_MSG_MAX_SLOTS], in[FIPC_MSG_MAX_SLOTS];
	struct tring t;

	if (!tring_init(&t, 1))
		return;
	fill_msg(out, FIPC_MSG_MAX_SLOTS, 6);
	EXPECT(!fipc_rx_ready(&t.rx));
	EXPECT_EQ(fipc_send(&t.tx, out, 3), 0);
	EXPECT_EQ(fipc_send(&t.tx, out, 1), 0);
	EXPECT(fipc_rx_ready(&t.rx));
	EXPECT_EQ(fipc_rx_pending(&t.rx, ~0u), 4);
	EXPECT_EQ(fipc_rx_pending(&t.rx, 2), 2);
	EXPECT_EQ(fipc_rx_pending(&t.rx, 0), 0);
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), t.slots - 4);
	EXPECT_EQ(fipc_tx_space(&t.tx, 10), 10);
	EXPECT_EQ(fipc_recv(&t.rx, in, FIPC_MSG_MAX_SLOTS), 3);
	EXPECT_EQ(fipc_rx_pending(&t.rx, ~0u), 1);
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), t.slots - 1);
	EXPECT(fipc_rx_ready(&t.rx));
	EXPECT_EQ(fipc_recv(&t.rx, in, FIPC_MSG_MAX_SLOTS), 1);
	EXPECT(!fipc_rx_ready(&t.rx));
	/* the query functions never change state */
	EXPECT_EQ(t.rx.seq, 4);
	EXPECT_EQ(t.tx.seq, 4);
	tring_fini(&t);
}

/* A hostile peer: the receiving side */

/*
 * Put a broken ring in front of the receiver at cursor @at (after @at
 * good messages) and check that every receive call reports -EPROTO,
 * copies nothing, and keeps doing so.
 */
static void expect_rx_broken(struct tring *t)
{
	struct fipc_msg in[FIPC_MSG_MAX_SLOTS];
	struct fipc_waiter w;
	u32 seq = t->rx.seq;

	memset(in, 0x77, sizeof(in));
	EXPECT_EQ(fipc_recv(&t->rx, in, FIPC_MSG_MAX_SLOTS), -EPROTO);
	EXPECT_EQ(fipc_ring_error(&t->rx), -EPROTO);
	EXPECT_EQ(in[0].data[0], 0x77);
	EXPECT_EQ(in[1].data[0], 0x77);
	EXPECT_EQ(t->rx.seq, seq);
	/* sticky, whatever the memory holds from now on */
	fipc_ring_clear(t->mem, t->order);
	EXPECT_EQ(fipc_recv(&t->rx, in, FIPC_MSG_MAX_SLOTS), -EPROTO);
	EXPECT_EQ(fipc_recv(&t->rx, in, 0), -EPROTO);
	EXPECT_EQ(fipc_recv_burst(&t->rx, in, 4), -EPROTO);
	EXPECT_EQ(fipc_rx_pending(&t->rx, ~0u), -EPROTO);
	EXPECT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 4, NULL, NULL), 0);
	EXPECT_EQ(fipc_wait_rx(&t->rx, &w), -EPROTO);
	EXPECT_EQ(in[0].data[0], 0x77);
	EXPECT_EQ(t->rx.seq, seq);
	EXPECT_EQ(fipc_ring_error(&t->rx), -EPROTO);
	/* the sender's view of the same memory is a different ring */
	EXPECT_EQ(fipc_ring_error(&t->tx), 0);
}

/* Bad head flags, at the start and after some traffic. */
static void test_hostile_rx_head(void)
{
	static const u32 bad_kind[] = {
		0x5a000000u, 0xa4000000u, 0xff000000u, 0x25000000u,
		0x01000000u, 0xb5000000u,
	};
	unsigned int k, pre, c;
	struct tring t;
	u32 seq, flag;

	for (pre = 0; pre < 3; pre++) {
		for (c = 0; c < ARRAY_SIZE(bad_kind) + 7; c++) {
			if (!tring_init(&t, pre))
				return;
			for (k = 0; k < pre * 45; k++)
				roundtrip(&t, 1 + k % 3, k);
			seq = t.rx.seq;
			if (c < ARRAY_SIZE(bad_kind))
				flag = bad_kind[c] | (1 << 16) | (seq & 0xffff);
			else if (c == ARRAY_SIZE(bad_kind))
				flag = ready(seq + 1, 1);	/* wrong seq */
			else if (c == ARRAY_SIZE(bad_kind) + 1)
				flag = ready(seq ^ 0x8000, 1);
			else if (c == ARRAY_SIZE(bad_kind) + 2)
				flag = ready(seq, 0);		/* length 0 */
			else if (c == ARRAY_SIZE(bad_kind) + 3)
				flag = ready(seq, 33);		/* > max */
			else if (c == ARRAY_SIZE(bad_kind) + 4)
				flag = ready(seq, 0xff);
			else if (c == ARRAY_SIZE(bad_kind) + 5)
				/* stale: the flag of one lap ago */
				flag = ready(seq - t.slots, 1);
			else
				flag = 0x00000001u;	/* FREE kind, not 0 */
			slot_of(&t, seq)->flag = flag;
			expect_rx_broken(&t);
			tring_fini(&t);
		}
	}
}

/* Bad continuation slots of a multi-slot message. */
static void test_hostile_rx_continuation(void)
{
	struct fipc_msg out[4];
	unsigned int c, pre;
	struct tring t;
	u32 seq, flag;

	for (pre = 0; pre < 2; pre++) {
		for (c = 0; c < 6; c++) {
			if (!tring_init(&t, 0))
				return;
			/* pre = 1: the message wraps across the ring's end */
			if (pre)
				while (t.tx.seq != t.slots - 2)
					roundtrip(&t, 1, 0);
			seq = t.tx.seq;
			fill_msg(out, 4, 1);
			EXPECT_EQ(fipc_send(&t.tx, out, 4), 0);
			flag = slot_of(&t, seq + 2)->flag;
			if (c == 0)
				flag = ready(seq + 3, 0);	/* wrong seq */
			else if (c == 1)
				flag = ready(seq + 2, 1);	/* len != 0 */
			else if (c == 2)
				flag = ready(seq + 2, 4);
			else if (c == 3)
				flag = FIPC_FLAG_FREE;		/* missing */
			else if (c == 4)
				flag = ready(seq + 2 - t.slots, 0); /* stale */
			else
				flag ^= 0x5a000000u;		/* kind */
			slot_of(&t, seq + 2)->flag = flag;
			expect_rx_broken(&t);
			tring_fini(&t);
		}
	}
}

/* A head that claims more slots than were written. */
static void test_hostile_rx_long_head(void)
{
	struct fipc_msg out[2];
	struct tring t;

	if (!tring_init(&t, 0))
		return;
	fill_msg(out, 2, 1);
	EXPECT_EQ(fipc_send(&t.tx, out, 2), 0);
	t.mem[0].flag = ready(0, 3);
	expect_rx_broken(&t);
	tring_fini(&t);
}

/* recv_burst delivers what was good, then reports the error. */
static void test_hostile_rx_burst(void)
{
	struct fipc_msg out[4], in[8];
	struct tring t;

	if (!tring_init(&t, 0))
		return;
	fill_msg(out, 4, 3);
	EXPECT_EQ(fipc_send_burst(&t.tx, out, 4), 4);
	t.mem[2].flag = ready(7, 1);
	EXPECT_EQ(fipc_recv_burst(&t.rx, in, 8), 2);
	EXPECT(msg_equal(in, out, 2));
	EXPECT_EQ(fipc_ring_error(&t.rx), -EPROTO);
	EXPECT_EQ(fipc_recv_burst(&t.rx, in, 8), -EPROTO);
	EXPECT_EQ(fipc_recv(&t.rx, in, 8), -EPROTO);
	tring_fini(&t);
}

/* The library passes payload bytes through, copied exactly, once. */
static void test_payload_passthrough(void)
{
	struct fipc_msg out[3], in[3], copy[3];
	struct tring t;
	unsigned int i;

	if (!tring_init(&t, 0))
		return;
	fill_msg(out, 3, 21);
	EXPECT_EQ(fipc_send(&t.tx, out, 3), 0);
	/* the peer scribbles over the payload after publishing it */
	for (i = 0; i < 3; i++)
		memset(t.mem[i].payload + 7 * i, 0xee, 9);
	memcpy(copy[0].data, t.mem[0].payload, FIPC_SLOT_PAYLOAD);
	memcpy(copy[1].data, t.mem[1].payload, FIPC_SLOT_PAYLOAD);
	memcpy(copy[2].data, t.mem[2].payload, FIPC_SLOT_PAYLOAD);
	EXPECT(!msg_equal(copy, out, 3));
	EXPECT_EQ(fipc_recv(&t.rx, in, 3), 3);
	EXPECT(msg_equal(in, copy, 3));
	EXPECT_EQ(fipc_ring_error(&t.rx), 0);
	/* the receiver only wrote the flags, never the payload */
	for (i = 0; i < 3; i++)
		EXPECT(!memcmp(t.mem[i].payload, copy[i].data,
			       FIPC_SLOT_PAYLOAD));
	/* the copy is private: later writes to the slot do not reach it */
	memset(t.mem[0].payload, 0x11, FIPC_SLOT_PAYLOAD);
	EXPECT(msg_equal(in, copy, 1));
	/* all-ones and all-zero payloads are just bytes */
	memset(out, 0xff, sizeof(out[0]));
	EXPECT_EQ(fipc_send(&t.tx, out, 1), 0);
	EXPECT_EQ(fipc_recv(&t.rx, in, 1), 1);
	EXPECT(msg_equal(in, out, 1));
	memset(out, 0, sizeof(out[0]));
	EXPECT_EQ(fipc_send(&t.tx, out, 1), 0);
	EXPECT_EQ(fipc_recv(&t.rx, in, 1), 1);
	EXPECT(msg_equal(in, out, 1));
	tring_fini(&t);
}

/* A hostile peer: the sending side */

static void expect_tx_broken(struct tring *t)
{
	struct fipc_msg out[4];
	u32 seq = t->tx.seq;

	fill_msg(out, 4, 0);
	EXPECT_EQ(fipc_ring_error(&t->tx), -EPROTO);
	fipc_ring_clear(t->mem, t->order);
	EXPECT_EQ(fipc_send(&t->tx, out, 1), -EPROTO);
	EXPECT_EQ(fipc_send(&t->tx, out, 0), -EPROTO);
	EXPECT_EQ(fipc_send_burst(&t->tx, out, 4), -EPROTO);
	EXPECT_EQ(fipc_tx_space(&t->tx, ~0u), -EPROTO);
	EXPECT_EQ(t->tx.seq, seq);
	EXPECT_EQ(slot_of(t, seq)->flag, FIPC_FLAG_FREE);
	EXPECT_EQ(fipc_ring_error(&t->rx), 0);
}

static void test_hostile_tx_garbage(void)
{
	struct fipc_msg out[4];
	unsigned int c, op;
	struct tring t;
	u32 seq, flag;

	for (op = 0; op < 4; op++) {
		for (c = 0; c < 6; c++) {
			if (!tring_init(&t, 0))
				return;
			/* one lap and a bit: the slot ahead was used before */
			while (t.tx.seq < t.slots + 3)
				roundtrip(&t, 1, 0);
			seq = t.tx.seq;
			if (c == 0)
				flag = 0xdeadbeefu;
			else if (c == 1)
				flag = 0x5a000000u | (seq - t.slots);
			else if (c == 2)
				flag = ready(seq, 1);	/* "our" future slot */
			else if (c == 3)
				flag = ready(seq - 2 * t.slots, 1);
			else if (c == 4)
				flag = ready(seq + 1, 0);
			else
				flag = 0x1u;
			slot_of(&t, seq)->flag = flag;
			fill_msg(out, 4, 0);
			if (op == 0)
				EXPECT_EQ(fipc_send(&t.tx, out, 1), -EPROTO);
			else if (op == 1)
				EXPECT_EQ(fipc_send_burst(&t.tx, out, 4),
					  -EPROTO);
			else if (op == 2)
				EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), -EPROTO);
			else
				EXPECT_EQ(fipc_send(&t.tx, out, 3), -EPROTO);
			EXPECT_EQ(slot_of(&t, seq)->flag, flag);
			expect_tx_broken(&t);
			tring_fini(&t);
		}
	}
}

/* Garbage inside the span of a multi-slot message or later in a burst. */
static void test_hostile_tx_later_slot(void)
{
	struct fipc_msg out[8];
	struct tring t;

	if (!tring_init(&t, 0))
		return;
	fill_msg(out, 8, 0);
	t.mem[5].flag = 0x12345678u;
	EXPECT_EQ(fipc_send(&t.tx, out, 8), -EPROTO);
	/* nothing was published */
	EXPECT_EQ(t.mem[0].flag, FIPC_FLAG_FREE);
	EXPECT_EQ(t.mem[1].flag, FIPC_FLAG_FREE);
	EXPECT_EQ(fipc_recv(&t.rx, out, 8), -EAGAIN);
	expect_tx_broken(&t);
	tring_fini(&t);

	if (!tring_init(&t, 0))
		return;
	t.mem[3].flag = 0x12345678u;
	EXPECT_EQ(fipc_send_burst(&t.tx, out, 8), 3);
	EXPECT_EQ(t.tx.seq, 3);
	expect_tx_broken(&t);
	tring_fini(&t);

	if (!tring_init(&t, 0))
		return;
	t.mem[40].flag = 0x12345678u;
	EXPECT_EQ(fipc_tx_space(&t.tx, 10), 10);
	EXPECT_EQ(fipc_ring_error(&t.tx), 0);
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), -EPROTO);
	expect_tx_broken(&t);
	tring_fini(&t);
}

/* Our own message of one lap ago at the cursor: full, not broken. */
static void test_tx_lap_ago_is_full(void)
{
	struct fipc_msg out[4], in[4];
	struct tring t;
	unsigned int i;

	if (!tring_init(&t, 0))
		return;
	fill_msg(out, 4, 0);
	for (i = 0; i < t.slots / 4; i++)
		EXPECT_EQ(fipc_send(&t.tx, out, 4), 0);
	EXPECT_EQ(fipc_send(&t.tx, out, 1), -EAGAIN);
	EXPECT_EQ(fipc_recv(&t.rx, in, 4), 4);
	/* slots 0..3 free, slot 4 holds a head: a 5-slot message waits */
	EXPECT_EQ(fipc_send(&t.tx, out, 4), 0);
	EXPECT_EQ(fipc_send(&t.tx, out, 1), -EAGAIN);
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), 0);
	/* freeing that message lets exactly it through */
	EXPECT_EQ(fipc_recv(&t.rx, in, 4), 4);
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), 4);
	EXPECT_EQ(fipc_send(&t.tx, out, 1), 0);
	EXPECT_EQ(fipc_send(&t.tx, out, 4), -EAGAIN);
	EXPECT_EQ(fipc_send(&t.tx, out, 3), 0);
	EXPECT_EQ(fipc_ring_error(&t.tx), 0);
	tring_fini(&t);
}

/* The waiter */

static void test_wait_methods(void)
{
	struct fipc_waiter w;
	enum fipc_wait_method m, best;

	EXPECT(!strcmp(fipc_wait_method_name(FIPC_WAIT_PAUSE), "pause"));
	EXPECT(!strcmp(fipc_wait_method_name(FIPC_WAIT_MWAITX), "mwaitx"));
	EXPECT(!strcmp(fipc_wait_method_name(FIPC_WAIT_UMWAIT), "umwait"));
	EXPECT(!strcmp(fipc_wait_method_name(FIPC_WAIT_MWAIT), "mwait"));
	EXPECT(!strcmp(fipc_wait_method_name(FIPC_WAIT_NR_METHODS),
		       "invalid"));
	EXPECT(!strcmp(fipc_wait_method_name((enum fipc_wait_method)-1),
		       "invalid"));
	EXPECT(fipc_wait_method_usable(FIPC_WAIT_PAUSE));
	/* ring 0 only: never from userspace */
	EXPECT(!fipc_wait_method_usable(FIPC_WAIT_MWAIT));
	EXPECT(!fipc_wait_method_usable(FIPC_WAIT_NR_METHODS));
	EXPECT(!fipc_wait_method_usable((enum fipc_wait_method)99));
	best = fipc_wait_best_method();
	EXPECT((unsigned int)best < FIPC_WAIT_NR_METHODS);
	EXPECT(fipc_wait_method_usable(best));
	EXPECT_EQ(fipc_waiter_init(&w, best, 1, NULL, NULL), 0);
	for (m = 0; m < FIPC_WAIT_NR_METHODS; m++) {
		memset(&w, 0xff, sizeof(w));
		if (fipc_wait_method_usable(m)) {
			EXPECT_EQ(fipc_waiter_init(&w, m, 3, NULL, &w), 0);
			EXPECT_EQ(w.method, m);
			EXPECT_EQ(w.spin_limit, 3);
			EXPECT(!w.sleep);
			EXPECT(w.arg == &w);
			EXPECT_EQ(w.empty_polls, 0);
			EXPECT_EQ(w.sleeps, 0);
		} else {
			EXPECT_EQ(fipc_waiter_init(&w, m, 3, NULL, NULL),
				  -EOPNOTSUPP);
		}
		printf("    method %s: %s\n", fipc_wait_method_name(m),
		       fipc_wait_method_usable(m) ? "usable" : "not usable");
	}
	EXPECT_EQ(fipc_waiter_init(&w, FIPC_WAIT_NR_METHODS, 3, NULL, NULL),
		  -EOPNOTSUPP);
	EXPECT_EQ(fipc_waiter_init(&w, (enum fipc_wait_method)99, 3, NULL,
				   NULL), -EOPNOTSUPP);
}

static void test_wait_timeout(void)
{
	struct fipc_waiter w;
	struct fipc_msg out;
	enum fipc_wait_method m;
	struct tring t;

	for (m = 0; m < FIPC_WAIT_NR_METHODS; m++) {
		if (!fipc_wait_method_usable(m))
			continue;
		if (!tring_init(&t, 0))
			return;
		EXPECT_EQ(fipc_waiter_init(&w, m, 10, NULL, NULL), 0);
		EXPECT_EQ(fipc_wait_rx(&t.rx, &w), -ETIMEDOUT);
		EXPECT_EQ(w.empty_polls, 10);
		EXPECT_EQ(w.sleeps, 0);
		EXPECT_EQ(fipc_wait_rx(&t.rx, &w), -ETIMEDOUT);
		EXPECT_EQ(w.empty_polls, 20);
		/* a ready message: at once, no empty poll counted */
		fill_msg(&out, 1, 0);
		EXPECT_EQ(fipc_send(&t.tx, &out, 1), 0);
		EXPECT_EQ(fipc_wait_rx(&t.rx, &w), 0);
		EXPECT_EQ(w.empty_polls, 20);
		EXPECT_EQ(fipc_recv(&t.rx, &out, 1), 1);
		/* spin_limit 1 */
		EXPECT_EQ(fipc_waiter_init(&w, m, 1, NULL, NULL), 0);
		EXPECT_EQ(fipc_wait_rx(&t.rx, &w), -ETIMEDOUT);
		EXPECT_EQ(w.empty_polls, 1);
		tring_fini(&t);
	}
}

/* The wait flushes held slots before it gives up or sleeps. */
static void test_wait_flushes_batch(void)
{
	struct fipc_waiter w;
	struct fipc_msg out;
	struct tring t;

	if (!tring_init(&t, 0))
		return;
	EXPECT_EQ(fipc_ring_set_release_batch(&t.rx, 16), 0);
	fill_msg(&out, 1, 0);
	EXPECT_EQ(fipc_send(&t.tx, &out, 1), 0);
	EXPECT_EQ(fipc_send(&t.tx, &out, 1), 0);
	EXPECT_EQ(fipc_recv(&t.rx, &out, 1), 1);
	EXPECT_EQ(fipc_recv(&t.rx, &out, 1), 1);
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), t.slots - 2);
	EXPECT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 5, NULL, NULL), 0);
	EXPECT_EQ(fipc_wait_rx(&t.rx, &w), -ETIMEDOUT);
	EXPECT_EQ(fipc_tx_space(&t.tx, ~0u), t.slots);
	tring_fini(&t);
}

/**
 * struct hook_state - what the test sleep hook saw and does
 * @t: the ring under test
 * @calls: number of calls so far
 * @fail_at: return @err on this call (1-based), 0 never
 * @err: the error to return
 * @send_at: send a message from the hook on this call, 0 never
 * @space_seen: fipc_tx_space() seen by the first call
 */
struct hook_state {
	struct tring *t;
	unsigned int calls;
	unsigned int fail_at;
	int err;
	unsigned int send_at;
	int space_seen;
};

static int test_sleep_hook(void *arg)
{
	struct hook_state *h = arg;
	struct fipc_msg out;

	h->calls++;
	if (h->calls == 1)
		h->space_seen = fipc_tx_space(&h->t->tx, ~0u);
	if (h->calls == h->send_at) {
		fill_msg(&out, 1, 77);
		fipc_send(&h->t->tx, &out, 1);
	}
	if (h->calls == h->fail_at)
		return h->err;
	return 0;
}

static void test_wait_sleep_hook(void)
{
	struct hook_state h = { 0 };
	struct fipc_msg out, in;
	struct fipc_waiter w;
	struct tring t;

	if (!tring_init(&t, 0))
		return;
	h.t = &t;
	EXPECT_EQ(fipc_ring_set_release_batch(&t.rx, 8), 0);
	fill_msg(&out, 1, 0);
	EXPECT_EQ(fipc_send(&t.tx, &out, 1), 0);
	EXPECT_EQ(fipc_recv(&t.rx, &in, 1), 1);
	/* abort on the 3rd call with the hook's error */
	h.fail_at = 3;
	h.err = -EINTR;
	EXPECT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 4, test_sleep_hook,
				   &h), 0);
	EXPECT_EQ(fipc_wait_rx(&t.rx, &w), -EINTR);
	EXPECT_EQ(h.calls, 3);
	EXPECT_EQ(w.sleeps, 3);
	EXPECT_EQ(w.empty_polls, 12);
	/* the held slot was freed before the first sleep */
	EXPECT_EQ(h.space_seen, t.slots);
	/* a hook that sends on its 2nd call: the wait ends with 0 */
	h.calls = 0;
	h.fail_at = 0;
	h.send_at = 2;
	EXPECT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 4, test_sleep_hook,
				   &h), 0);
	EXPECT_EQ(fipc_wait_rx(&t.rx, &w), 0);
	EXPECT_EQ(h.calls, 2);
	EXPECT_EQ(w.sleeps, 2);
	EXPECT_EQ(w.empty_polls, 8);
	EXPECT_EQ(fipc_recv(&t.rx, &in, 1), 1);
	fill_msg(&out, 1, 77);
	EXPECT(msg_equal(&in, &out, 1));
	/* any negative errno is passed through */
	h.calls = 0;
	h.fail_at = 1;
	h.err = -ENOLINK;
	h.send_at = 0;
	EXPECT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 1, test_sleep_hook,
				   &h), 0);
	EXPECT_EQ(fipc_wait_rx(&t.rx, &w), -ENOLINK);
	EXPECT_EQ(w.sleeps, 1);
	tring_fini(&t);
}

/**
 * struct delayed_sender - a thread that sends after a delay
 * @t: the ring
 * @nmsgs: messages to send, one per delay
 * @stop: set by the receiver to make the thread give up
 */
struct delayed_sender {
	struct tring *t;
	unsigned int nmsgs;
	int stop;
};

static void *delayed_sender_fn(void *arg)
{
	struct delayed_sender *d = arg;
	struct fipc_msg out[3];
	unsigned int i, len;

	for (i = 0; i < d->nmsgs; i++) {
		usleep(i ? 2000 : 20000);
		len = 1 + i % 3;
		fill_msg(out, len, 500 + i);
		while (fipc_send(&d->t->tx, out, len) == -EAGAIN)
			if (__atomic_load_n(&d->stop, __ATOMIC_RELAXED))
				return NULL;
	}
	return NULL;
}

/* Ends a wait that has gone on far too long (the peer is lost). */
static int watchdog_sleep(void *arg)
{
	time_t *deadline = arg;

	sched_yield();
	return time(NULL) > *deadline ? -ETIME : 0;
}

static void test_wait_threaded(void)
{
	struct fipc_msg in[3], out[3];
	struct delayed_sender d;
	struct fipc_waiter w;
	enum fipc_wait_method m;
	unsigned int i, limit;
	struct tring t;
	time_t deadline;
	pthread_t th;
	int ret;

	for (m = 0; m < FIPC_WAIT_NR_METHODS; m++) {
		if (!fipc_wait_method_usable(m))
			continue;
		for (limit = 0; limit < 2; limit++) {
			if (!tring_init(&t, 0))
				return;
			d.t = &t;
			d.nmsgs = 20;
			d.stop = 0;
			deadline = time(NULL) + 120;
			EXPECT_EQ(fipc_waiter_init(&w, m, limit ? 1000 : 1,
						   watchdog_sleep, &deadline),
				  0);
			if (!EXPECT_EQ(pthread_create(&th, NULL,
						      delayed_sender_fn, &d),
				       0)) {
				tring_fini(&t);
				return;
			}
			for (i = 0; i < d.nmsgs; i++) {
				ret = fipc_wait_rx(&t.rx, &w);
				if (!EXPECT_EQ(ret, 0))
					break;
				fill_msg(out, 1 + i % 3, 500 + i);
				if (!EXPECT_EQ(fipc_recv(&t.rx, in, 3),
					       1 + i % 3) ||
				    !EXPECT(msg_equal(in, out, 1 + i % 3)))
					break;
			}
			__atomic_store_n(&d.stop, 1, __ATOMIC_RELAXED);
			pthread_join(th, NULL);
			EXPECT(w.empty_polls > 0);
			printf("    method %s spin_limit %u: %llu empty polls, %llu sleeps\n",
			       fipc_wait_method_name(m), w.spin_limit,
			       (unsigned long long)w.empty_polls,
			       (unsigned long long)w.sleeps);
			tring_fini(&t);
		}
	}
}

#define T(fn)	{ #fn, fn }

static const struct t_case cases[] = {
	T(test_ring_init_args),
	T(test_release_batch_args),
	T(test_chan_init),
	T(test_empty),
	T(test_single_message_wire_format),
	T(test_full),
	T(test_wraparound),
	T(test_u32_seq_wrap),
	T(test_burst_basic),
	T(test_burst_partial_when_full),
	T(test_burst_stops_at_multislot),
	T(test_multislot_all_lengths_all_orders),
	T(test_multislot_wire_and_wrap),
	T(test_multislot_emsgsize),
	T(test_multislot_einval),
	T(test_multislot_no_room),
	T(test_release_batch),
	T(test_release_batch_max),
	T(test_space_pending_ready),
	T(test_hostile_rx_head),
	T(test_hostile_rx_continuation),
	T(test_hostile_rx_long_head),
	T(test_hostile_rx_burst),
	T(test_payload_passthrough),
	T(test_hostile_tx_garbage),
	T(test_hostile_tx_later_slot),
	T(test_tx_lap_ago_is_full),
	T(test_wait_methods),
	T(test_wait_timeout),
	T(test_wait_flushes_batch),
	T(test_wait_sleep_hook),
	T(test_wait_threaded),
};

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	return t_run("user-unit", cases, ARRAY_SIZE(cases));
}
