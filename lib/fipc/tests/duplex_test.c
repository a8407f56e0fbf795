// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the fipc duplex ring (fipc_duplex.h), one source for KUnit
 * and userspace (see ring_test.h).
 *
 * Both ends live in the test: a client and a server view of the same
 * ring memory, driven in turn.  The hostile cases write flags into the
 * shared memory directly, as a peer in another VM would, and check that
 * the side reading them fails with -EPROTO and stays failed.  Flags are
 * built here from the wire format in docs/protocol.md, not with the
 * library's helpers.
 */
#include <fipc/fipc_duplex.h>
#include "ring_test.h"

#define DX_CALL		0xc1000000u
#define DX_POST		0xc2000000u
#define DX_REPLY	0xc4000000u
#define DX_ACK		0xc8000000u
#define DX_MAX		FIPC_MSG_MAX_SLOTS

/**
 * struct dx_pair - both ends of one duplex ring
 * @mem: the shared slots
 * @order: ring order
 * @slots: number of slots
 * @c: the client
 * @s: the server
 */
struct dx_pair {
	struct fipc_slot *mem;
	unsigned int order;
	unsigned int slots;
	struct fipc_duplex_client c;
	struct fipc_duplex_server s;
};

/* The flag at @pos of a ring of 64 << @order slots: the lap is stamped. */
static u32 dx_flag_o(unsigned int order, u32 kind, u32 count, u32 pos)
{
	return kind | (count << 16) | ((pos >> (6 + order)) & 0xffff);
}

/* The same in a ring of one page (64 slots), as most tests use. */
static u32 dx_flag(u32 kind, u32 count, u32 pos)
{
	return dx_flag_o(0, kind, count, pos);
}

static u32 dx_flag_at(const struct dx_pair *p, u32 pos)
{
	return READ_ONCE(p->mem[pos & (p->slots - 1)].flag);
}

static void dx_forge(struct dx_pair *p, u32 pos, u32 flag)
{
	WRITE_ONCE(p->mem[pos & (p->slots - 1)].flag, flag);
}

/* A ring of @order over garbage that fipc_ring_clear() makes empty. */
static bool dx_pair_init(struct kunit *test, struct dx_pair *p,
			 unsigned int order)
{
	p->order = order;
	p->slots = FIPC_RING_SLOTS(order);
	p->mem = rt_ring_alloc(test, order);
	if (!p->mem)
		return false;
	memset(p->mem, 0x5a, FIPC_RING_BYTES(order));
	fipc_ring_clear(p->mem, order);
	return !fipc_duplex_client_init(&p->c, p->mem, order) &&
	       !fipc_duplex_server_init(&p->s, p->mem, order);
}

/* The same ring memory, both ends attached again, cleared. */
static bool dx_pair_reset(struct dx_pair *p)
{
	fipc_ring_clear(p->mem, p->order);
	return !fipc_duplex_client_init(&p->c, p->mem, p->order) &&
	       !fipc_duplex_server_init(&p->s, p->mem, p->order);
}

static u32 dx_tag(const struct fipc_msg *m)
{
	u32 tag;

	memcpy(&tag, m->data, sizeof(tag));
	return tag;
}

/* Does the slot of @pos hold slot @n of the message tagged @tag? */
static bool dx_slot_holds(const struct dx_pair *p, u32 pos, u32 tag,
			  unsigned int n)
{
	return rt_slot_match(p->mem[pos & (p->slots - 1)].payload, tag, n);
}

/* Set-up */

static void dx_test_init_args(struct kunit *test)
{
	struct fipc_duplex_client c;
	struct fipc_duplex_server s;
	unsigned int order;
	u8 *mem = rt_ring_alloc(test, FIPC_MAX_ORDER);

	RT_ASSERT(mem);
	RT_EXPECT_EQ(fipc_duplex_client_init(&c, mem, FIPC_MAX_ORDER + 1),
		     -EINVAL);
	RT_EXPECT_EQ(fipc_duplex_server_init(&s, mem, FIPC_MAX_ORDER + 1),
		     -EINVAL);
	RT_EXPECT_EQ(fipc_duplex_client_init(&c, mem, ~0u), -EINVAL);
	RT_EXPECT_EQ(fipc_duplex_client_init(&c, NULL, 0), -EINVAL);
	RT_EXPECT_EQ(fipc_duplex_server_init(&s, NULL, 0), -EINVAL);
	RT_EXPECT_EQ(fipc_duplex_client_init(&c, mem + 8, 0), -EINVAL);
	RT_EXPECT_EQ(fipc_duplex_server_init(&s, mem + 32, 0), -EINVAL);
	for (order = FIPC_MIN_ORDER; order <= FIPC_MAX_ORDER; order++) {
		memset(&c, 0xff, sizeof(c));
		memset(&s, 0xff, sizeof(s));
		RT_EXPECT_EQ(fipc_duplex_client_init(&c, mem, order), 0);
		RT_EXPECT_EQ(fipc_duplex_server_init(&s, mem, order), 0);
		RT_EXPECT_EQ(fipc_duplex_room(&c), 64u << order);
		RT_EXPECT_EQ(fipc_duplex_calls(&c), 0);
		RT_EXPECT_EQ(fipc_duplex_unanswered(&s), 0);
		RT_EXPECT_EQ(fipc_duplex_client_error(&c), 0);
		RT_EXPECT_EQ(fipc_duplex_server_error(&s), 0);
		RT_EXPECT_EQ(c.submit, 0);
		RT_EXPECT_EQ(c.done, 0);
		RT_EXPECT_EQ(s.read, 0);
		RT_EXPECT_EQ(s.complete, 0);
		/* A quarter of the ring, at most what a flag can count. */
		RT_EXPECT_EQ(s.ack_batch, order < 4 ? 16u << order : 255);
		RT_EXPECT_EQ(fipc_duplex_set_ack_batch(&s, 0), -EINVAL);
		RT_EXPECT_EQ(fipc_duplex_set_ack_batch(&s, 256), -EINVAL);
		RT_EXPECT_EQ(fipc_duplex_set_ack_batch(&s, (64u << order) + 1),
			     -EINVAL);
		RT_EXPECT_EQ(fipc_duplex_set_ack_batch(&s, 1), 0);
		RT_EXPECT_EQ(s.ack_batch, 1);
		RT_EXPECT_EQ(fipc_duplex_set_ack_batch(&s, order < 2 ?
						       64u << order : 255), 0);
	}
}

/* Basic operation */

static void dx_test_empty(struct kunit *test)
{
	struct fipc_msg *buf = rt_bufs(test, DX_MAX);
	unsigned int order;
	struct dx_pair p;
	bool posted;

	RT_ASSERT(buf);
	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		RT_ASSERT(dx_pair_init(test, &p, order));
		RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, buf), -EAGAIN);
		RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, buf, DX_MAX,
						      &posted), -EAGAIN);
		RT_EXPECT(!fipc_duplex_reply_ready(&p.c));
		RT_EXPECT(!fipc_duplex_request_ready(&p.s));
		RT_EXPECT_EQ(fipc_duplex_room(&p.c), p.slots);
		/* Looking changed nothing, in memory or in state. */
		RT_EXPECT_EQ(dx_flag_at(&p, 0), 0);
		RT_EXPECT_EQ(p.s.read, 0);
		RT_EXPECT_EQ(p.c.done, 0);
		RT_EXPECT_EQ(fipc_duplex_client_error(&p.c), 0);
		RT_EXPECT_EQ(fipc_duplex_server_error(&p.s), 0);
	}
}

/* Every flag and payload in memory, as docs/protocol.md has them. */
static void dx_test_wire_format(struct kunit *test)
{
	struct fipc_msg *m = rt_bufs(test, DX_MAX), *in = rt_bufs(test, DX_MAX);
	struct dx_pair p;
	bool posted = true;

	RT_ASSERT(m && in);
	RT_ASSERT(dx_pair_init(test, &p, 0));

	/* A one-slot call and its reply, in place. */
	rt_fill(m, 1, 1);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 0), dx_flag(DX_CALL, 1, 0));
	RT_EXPECT(dx_slot_holds(&p, 0, 1, 0));
	RT_EXPECT_EQ(fipc_duplex_calls(&p.c), 1);
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 63);
	RT_EXPECT(!fipc_duplex_reply_ready(&p.c));
	RT_EXPECT(fipc_duplex_request_ready(&p.s));
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, DX_MAX, &posted), 1);
	RT_EXPECT(!posted);
	RT_EXPECT(rt_match(in, 1, 1));
	RT_EXPECT_EQ(fipc_duplex_unanswered(&p.s), 1);
	RT_EXPECT(!fipc_duplex_request_ready(&p.s));
	/* Taking a request writes nothing. */
	RT_EXPECT_EQ(dx_flag_at(&p, 0), dx_flag(DX_CALL, 1, 0));
	rt_fill(m, 1, 2);
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 0), dx_flag(DX_REPLY, 1, 0));
	RT_EXPECT(dx_slot_holds(&p, 0, 2, 0));
	RT_EXPECT_EQ(fipc_duplex_unanswered(&p.s), 0);
	RT_EXPECT(fipc_duplex_reply_ready(&p.c));
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), 0);
	RT_EXPECT(rt_match(in, 1, 2));
	RT_EXPECT_EQ(fipc_duplex_calls(&p.c), 0);
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 64);
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), -EAGAIN);

	/* Three slots: continuations first, the reply spans all three. */
	rt_fill(m, 3, 3);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 3), 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 1), dx_flag(DX_CALL, 3, 1));
	RT_EXPECT_EQ(dx_flag_at(&p, 2), dx_flag(DX_CALL, 0, 2));
	RT_EXPECT_EQ(dx_flag_at(&p, 3), dx_flag(DX_CALL, 0, 3));
	RT_EXPECT(dx_slot_holds(&p, 1, 3, 0));
	RT_EXPECT(dx_slot_holds(&p, 2, 3, 1));
	RT_EXPECT(dx_slot_holds(&p, 3, 3, 2));
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 61);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, DX_MAX, &posted), 3);
	RT_EXPECT(rt_match(in, 3, 3));
	rt_fill(m, 1, 4);
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 1), dx_flag(DX_REPLY, 3, 1));
	/* The retired continuation slots are left as they were. */
	RT_EXPECT_EQ(dx_flag_at(&p, 2), dx_flag(DX_CALL, 0, 2));
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), 0);
	RT_EXPECT(rt_match(in, 1, 4));
	RT_EXPECT_EQ(p.c.done, 4);
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 64);

	/* A posted message is acknowledged at once, in its own slot. */
	rt_fill(m, 1, 5);
	RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 1), 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 4), dx_flag(DX_POST, 1, 4));
	RT_EXPECT_EQ(fipc_duplex_calls(&p.c), 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, DX_MAX, &posted), 1);
	RT_EXPECT(posted);
	RT_EXPECT(rt_match(in, 1, 5));
	RT_EXPECT_EQ(dx_flag_at(&p, 4), dx_flag(DX_ACK, 1, 4));
	RT_EXPECT_EQ(fipc_duplex_unanswered(&p.s), 0);
	/* Two posted slots, one acknowledgment for both. */
	rt_fill(m, 2, 6);
	RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 2), 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 5), dx_flag(DX_POST, 2, 5));
	RT_EXPECT_EQ(dx_flag_at(&p, 6), dx_flag(DX_POST, 0, 6));
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 61);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, DX_MAX, &posted), 2);
	RT_EXPECT(posted);
	RT_EXPECT(rt_match(in, 2, 6));
	RT_EXPECT_EQ(dx_flag_at(&p, 5), dx_flag(DX_ACK, 2, 5));
	RT_EXPECT_EQ(dx_flag_at(&p, 6), dx_flag(DX_POST, 0, 6));
	/* The client takes acknowledgments on its way to replies. */
	RT_EXPECT(fipc_duplex_reply_ready(&p.c));
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), -EAGAIN);
	RT_EXPECT_EQ(p.c.done, 7);
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 64);
	RT_EXPECT_EQ(fipc_duplex_client_error(&p.c), 0);
	RT_EXPECT_EQ(fipc_duplex_server_error(&p.s), 0);
}

/* Fill every order's ring, refuse more, empty it, for several laps. */
static void dx_test_full_laps(struct kunit *test)
{
	struct fipc_msg *m = rt_bufs(test, 1), *in = rt_bufs(test, 1);
	unsigned int order, lap, i;
	struct dx_pair p;
	u32 tag = 0;

	RT_ASSERT(m && in);
	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		RT_ASSERT(dx_pair_init(test, &p, order));
		for (lap = 0; lap < 3; lap++) {
			for (i = 0; i < p.slots; i++) {
				rt_fill(m, 1, tag + i);
				RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
			}
			RT_EXPECT_EQ(fipc_duplex_room(&p.c), 0);
			RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), -EAGAIN);
			RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 1), -EAGAIN);
			RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), -EAGAIN);
			for (i = 0; i < p.slots; i++) {
				RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in,
								      1, NULL),
					     1);
				RT_EXPECT_EQ(dx_tag(in), tag + i);
			}
			RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, 1,
							      NULL), -EAGAIN);
			/* All read, none answered: still no room. */
			RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), -EAGAIN);
			for (i = 0; i < p.slots; i++) {
				rt_fill(m, 1, tag + i + 100000);
				RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
			}
			RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), -EINVAL);
			for (i = 0; i < p.slots; i++) {
				RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), 0);
				RT_EXPECT(rt_match(in, 1, tag + i + 100000));
			}
			RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), -EAGAIN);
			RT_EXPECT_EQ(fipc_duplex_room(&p.c), p.slots);
			tag += p.slots;
		}
		RT_EXPECT_EQ(p.c.submit, 3 * p.slots);
		RT_EXPECT_EQ(p.s.complete, 3 * p.slots);
		RT_EXPECT_EQ(fipc_duplex_client_error(&p.c), 0);
		RT_EXPECT_EQ(fipc_duplex_server_error(&p.s), 0);
	}
}

/*
 * Mixed traffic from cursors just below 2^32: calls of 1..3 slots,
 * replies in reverse order, posted messages.  The ring memory holds what
 * the lap before the start would have left.
 */
static void dx_test_u32_wrap(struct kunit *test)
{
	struct fipc_msg *m = rt_bufs(test, 3), *in = rt_bufs(test, 3);
	u32 start = 0xffffffffu - 100, tag, i;
	unsigned int round, k, len;
	struct dx_pair p;

	RT_ASSERT(m && in);
	RT_ASSERT(dx_pair_init(test, &p, 0));
	for (i = 0; i < p.slots; i++)
		dx_forge(&p, start + i, dx_flag(DX_REPLY, 1, start + i - 64));
	fipc_duplex_client_seek(&p.c, start);
	fipc_duplex_server_seek(&p.s, start);
	for (round = 0, tag = 1; round < 40; round++) {
		for (k = 0; k < 4; k++) {
			len = 1 + (round + k) % 3;
			rt_fill(m, len, tag + k);
			RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, len), 0);
		}
		rt_fill(m, 1, tag + 4);
		RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 1), 0);
		for (k = 0; k < 5; k++) {
			len = k < 4 ? 1 + (round + k) % 3 : 1;
			RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, 3,
							      NULL), len);
			RT_EXPECT(rt_match(in, len, tag + k));
		}
		for (k = 4; k-- > 0; ) {
			rt_fill(m, 1, tag + k + 1000);
			RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
		}
		for (k = 4; k-- > 0; ) {
			RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), 0);
			RT_EXPECT_EQ(dx_tag(in), tag + k + 1000);
		}
		RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), -EAGAIN);
		RT_EXPECT_EQ(fipc_duplex_room(&p.c), p.slots);
		tag += 5;
	}
	RT_EXPECT(p.c.submit < start);	/* wrapped */
	RT_EXPECT_EQ(p.c.done, p.c.submit);
	RT_EXPECT_EQ(p.s.complete, p.c.submit);
	RT_EXPECT_EQ(fipc_duplex_client_error(&p.c), 0);
	RT_EXPECT_EQ(fipc_duplex_server_error(&p.s), 0);
}

/* Replies in any order; the client sees them in ring order. */
static void dx_test_out_of_order(struct kunit *test)
{
	static const u32 order[] = { 3, 5, 1, 4, 2 };
	struct fipc_msg *m = rt_bufs(test, 1), *in = rt_bufs(test, 1);
	struct dx_pair p;
	unsigned int i;

	RT_ASSERT(m && in);
	RT_ASSERT(dx_pair_init(test, &p, 0));
	for (i = 1; i <= 5; i++) {
		rt_fill(m, 1, i);
		RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
	}
	for (i = 1; i <= 5; i++) {
		RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, 1, NULL), 1);
		RT_EXPECT_EQ(dx_tag(in), i);
	}
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		rt_fill(m, 1, 100 + order[i]);
		RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
		/* Each reply in the next position, retiring only its own. */
		RT_EXPECT_EQ(dx_flag_at(&p, i), dx_flag(DX_REPLY, 1, i));
	}
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), 0);
		RT_EXPECT(rt_match(in, 1, 100 + order[i]));
		RT_EXPECT_EQ(fipc_duplex_calls(&p.c), 4 - i);
	}
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 64);
}

/*
 * Multi-slot calls of every length in every order of ring; a reply
 * retires every position no other unanswered call needs.
 */
static void dx_test_multislot_spans(struct kunit *test)
{
	struct fipc_msg *m = rt_bufs(test, DX_MAX), *in = rt_bufs(test, DX_MAX);
	unsigned int order, len;
	struct dx_pair p;
	u32 pos;

	RT_ASSERT(m && in);
	for (order = 0; order <= FIPC_MAX_ORDER; order++) {
		RT_ASSERT(dx_pair_init(test, &p, order));
		/* Longer than any batch: no acknowledgment in between. */
		RT_ASSERT_EQ(fipc_duplex_set_ack_batch(&p.s, order < 2 ?
						       p.slots : 255), 0);
		for (len = 1; len <= DX_MAX; len++) {
			pos = p.c.submit;
			rt_fill(m, len, len);
			RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, len), 0);
			RT_EXPECT_EQ(fipc_duplex_room(&p.c), p.slots - len);
			RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, len,
							      NULL), len);
			RT_EXPECT(rt_match(in, len, len));
			rt_fill(m, 1, 1000 + len);
			RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
			RT_EXPECT_EQ(dx_flag_at(&p, pos),
				     dx_flag_o(order, DX_REPLY, len, pos));
			RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), 0);
			RT_EXPECT(rt_match(in, 1, 1000 + len));
			RT_EXPECT_EQ(p.c.done, pos + len);
		}
		RT_EXPECT_EQ(fipc_duplex_room(&p.c), p.slots);
	}

	/* A (3 slots) and B (1), answered B first: B's reply takes A's. */
	RT_ASSERT(dx_pair_init(test, &p, 0));
	rt_fill(m, 3, 1);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 3), 0);
	rt_fill(m, 1, 2);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, DX_MAX, NULL), 3);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, DX_MAX, NULL), 1);
	rt_fill(m, 1, 12);
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 0), dx_flag(DX_REPLY, 3, 0));
	rt_fill(m, 1, 11);
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 3), dx_flag(DX_REPLY, 1, 3));
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), 0);
	RT_EXPECT(rt_match(in, 1, 12));
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 63);
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), 0);
	RT_EXPECT(rt_match(in, 1, 11));
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 64);

	/* A reply before the next request is read spans only what was read. */
	rt_fill(m, 2, 3);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 2), 0);
	rt_fill(m, 2, 4);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 2), 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, DX_MAX, NULL), 2);
	rt_fill(m, 1, 13);
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 4), dx_flag(DX_REPLY, 2, 4));
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, DX_MAX, NULL), 2);
	rt_fill(m, 1, 14);
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 6), dx_flag(DX_REPLY, 2, 6));
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), 0);
	RT_EXPECT(rt_match(in, 1, 13));
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), 0);
	RT_EXPECT(rt_match(in, 1, 14));
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 64);
}

/* Continuation slots of calls are acknowledged by the batch. */
static void dx_test_ack_batch(struct kunit *test)
{
	struct fipc_msg *m = rt_bufs(test, DX_MAX), *in = rt_bufs(test, DX_MAX);
	struct dx_pair p;
	unsigned int i;

	RT_ASSERT(m && in);
	RT_ASSERT(dx_pair_init(test, &p, 0));
	RT_EXPECT_EQ(p.s.ack_batch, 16);
	rt_fill(m, 8, 1);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 8), 0);
	rt_fill(m, 10, 2);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 10), 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, DX_MAX, NULL), 8);
	/* 7 retirable: below the batch, nothing written. */
	RT_EXPECT_EQ(dx_flag_at(&p, 0), dx_flag(DX_CALL, 8, 0));
	RT_EXPECT_EQ(p.s.complete, 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, DX_MAX, NULL), 10);
	/* 16: acknowledged, two positions kept for the two calls. */
	RT_EXPECT_EQ(dx_flag_at(&p, 0), dx_flag(DX_ACK, 16, 0));
	RT_EXPECT_EQ(p.s.complete, 16);
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), -EAGAIN);
	RT_EXPECT_EQ(p.c.done, 16);
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 62);
	rt_fill(m, 1, 3);
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 16), dx_flag(DX_REPLY, 1, 16));
	rt_fill(m, 1, 4);
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 17), dx_flag(DX_REPLY, 1, 17));
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), 0);
	RT_EXPECT(rt_match(in, 1, 3));
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), 0);
	RT_EXPECT(rt_match(in, 1, 4));
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 64);

	/* A batch is set only when nothing waits to be acknowledged. */
	rt_fill(m, 2, 5);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 2), 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, DX_MAX, NULL), 2);
	RT_EXPECT_EQ(fipc_duplex_set_ack_batch(&p.s, 1), -EBUSY);
	RT_EXPECT_EQ(p.s.ack_batch, 16);
	fipc_duplex_server_flush(&p.s);
	RT_EXPECT_EQ(dx_flag_at(&p, 18), dx_flag(DX_ACK, 1, 18));
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 19), dx_flag(DX_REPLY, 1, 19));
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), 0);
	RT_EXPECT(rt_match(in, 2, 5));

	/* Batch 1: every multi-slot call is acknowledged when read. */
	RT_EXPECT_EQ(fipc_duplex_set_ack_batch(&p.s, 1), 0);
	rt_fill(m, 5, 5);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 5), 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, DX_MAX, NULL), 5);
	RT_EXPECT_EQ(dx_flag_at(&p, 20), dx_flag(DX_ACK, 4, 20));
	rt_fill(m, 1, 6);
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 24), dx_flag(DX_REPLY, 1, 24));
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), 0);
	RT_EXPECT(rt_match(in, 1, 6));

	/* An acknowledgment longer than a flag's count is split. */
	RT_ASSERT(dx_pair_init(test, &p, 4));
	RT_EXPECT_EQ(fipc_duplex_set_ack_batch(&p.s, 255), 0);
	for (i = 0; i < 9; i++) {
		rt_fill(m, DX_MAX, i);
		RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, DX_MAX), 0);
		RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, DX_MAX, NULL),
			     DX_MAX);
	}
	/* 9 calls of 32: 279 retirable at the ninth, 255 + 24. */
	RT_EXPECT_EQ(dx_flag_at(&p, 0), dx_flag_o(4, DX_ACK, 255, 0));
	RT_EXPECT_EQ(dx_flag_at(&p, 255), dx_flag_o(4, DX_ACK, 24, 255));
	RT_EXPECT_EQ(p.s.complete, 279);
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), -EAGAIN);
	RT_EXPECT_EQ(p.c.done, 279);
	RT_EXPECT_EQ(fipc_duplex_client_error(&p.c), 0);
}

/* Posted messages, alone and between calls. */
static void dx_test_posted(struct kunit *test)
{
	struct fipc_msg *m = rt_bufs(test, 3), *in = rt_bufs(test, 3);
	struct dx_pair p;
	bool posted;
	u32 i;

	RT_ASSERT(m && in);
	RT_ASSERT(dx_pair_init(test, &p, 0));
	/*
	 * A call, then a posted message: the acknowledgment retires the
	 * call's slot, the reply goes into the posted message's.
	 */
	rt_fill(m, 1, 1);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
	rt_fill(m, 1, 2);
	RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 1), 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, 1, &posted), 1);
	RT_EXPECT(!posted);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, 1, &posted), 1);
	RT_EXPECT(posted);
	RT_EXPECT(rt_match(in, 1, 2));
	RT_EXPECT_EQ(dx_flag_at(&p, 0), dx_flag(DX_ACK, 1, 0));
	rt_fill(m, 1, 3);
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 1), dx_flag(DX_REPLY, 1, 1));
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), 0);
	RT_EXPECT(rt_match(in, 1, 3));
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 64);

	/* After a call of 3, a posted message's ack takes 3 positions. */
	rt_fill(m, 1, 4);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 3), 0);
	RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 1), 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, 3, &posted), 3);
	RT_EXPECT(!posted);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, 3, &posted), 1);
	RT_EXPECT(posted);
	RT_EXPECT_EQ(dx_flag_at(&p, 2), dx_flag(DX_ACK, 3, 2));
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 5), dx_flag(DX_REPLY, 1, 5));
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), 0);
	RT_EXPECT(rt_match(in, 1, 4));
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 64);

	/* A ring full of posted messages; room comes back with the acks. */
	for (i = 0; i < 64; i++) {
		rt_fill(m, 1, 10 + i);
		RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 1), 0);
	}
	RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 1), -EAGAIN);
	for (i = 0; i < 10; i++) {
		RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, 1, &posted), 1);
		RT_EXPECT(posted && rt_match(in, 1, 10 + i));
	}
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 0);
	for (i = 0; i < 10; i++) {
		rt_fill(m, 1, 100 + i);
		RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 1), 0);
	}
	RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 1), -EAGAIN);
	/* A call does not fit either, and a reply cannot be in the way. */
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), -EAGAIN);
	for (i = 0; i < 64; i++) {
		RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, 1, &posted), 1);
		RT_EXPECT(posted);
		RT_EXPECT_EQ(dx_tag(in), i < 54 ? 20 + i : 100 + i - 54);
	}
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, in), -EAGAIN);
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 64);
	RT_EXPECT_EQ(fipc_duplex_client_error(&p.c), 0);
	RT_EXPECT_EQ(fipc_duplex_server_error(&p.s), 0);
}

/* Caller errors: refused, never sticky. */
static void dx_test_caller_errors(struct kunit *test)
{
	struct fipc_msg *m = rt_bufs(test, DX_MAX + 1);
	struct fipc_msg *in = rt_bufs(test, DX_MAX);
	struct dx_pair p;

	RT_ASSERT(m && in);
	RT_ASSERT(dx_pair_init(test, &p, 0));
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 0), -EINVAL);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, DX_MAX + 1), -EINVAL);
	RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 0), -EINVAL);
	RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, DX_MAX + 1), -EINVAL);
	RT_EXPECT_EQ(p.c.submit, 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 0), 0);
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), -EINVAL);
	RT_EXPECT_EQ(dx_flag_at(&p, 0), 0);
	/* Too long for the caller's buffer: it stays in the ring. */
	rt_fill(m, 1, 1);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, 0, NULL), -EMSGSIZE);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, 1, NULL), 1);
	rt_fill(m, 4, 2);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 4), 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, 3, NULL), -EMSGSIZE);
	RT_EXPECT_EQ(p.s.read, 1);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, in, 4, NULL), 4);
	RT_EXPECT(rt_match(in, 4, 2));
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), -EINVAL);
	/* Larger than the whole room: -EAGAIN until room comes back. */
	RT_ASSERT(dx_pair_reset(&p));
	rt_fill(m, DX_MAX, 3);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, DX_MAX), 0);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 31), 0);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 2), -EAGAIN);
	RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 1), 0);
	RT_EXPECT_EQ(fipc_duplex_client_error(&p.c), 0);
	RT_EXPECT_EQ(fipc_duplex_server_error(&p.s), 0);
}

/* Hostile peers */

/* Every client call on a broken ring fails the same way. */
static void dx_expect_client_broken(struct kunit *test, struct dx_pair *p,
				    struct fipc_msg *m)
{
	struct fipc_waiter w;

	RT_EXPECT_EQ(fipc_duplex_client_error(&p->c), -EPROTO);
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p->c, m), -EPROTO);
	RT_EXPECT_EQ(fipc_duplex_call(&p->c, m, 1), -EPROTO);
	RT_EXPECT_EQ(fipc_duplex_call(&p->c, m, 3), -EPROTO);
	RT_EXPECT_EQ(fipc_duplex_post(&p->c, m, 1), -EPROTO);
	RT_EXPECT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 4, NULL, NULL), 0);
	RT_EXPECT_EQ(fipc_duplex_client_wait(&p->c, &w), -EPROTO);
}

/* Every server call on a broken ring fails the same way. */
static void dx_expect_server_broken(struct kunit *test, struct dx_pair *p,
				    struct fipc_msg *m)
{
	struct fipc_waiter w;
	u32 complete = p->s.complete;

	RT_EXPECT_EQ(fipc_duplex_server_error(&p->s), -EPROTO);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p->s, m, DX_MAX, NULL),
		     -EPROTO);
	RT_EXPECT_EQ(fipc_duplex_reply(&p->s, m), -EPROTO);
	fipc_duplex_server_flush(&p->s);
	RT_EXPECT_EQ(p->s.complete, complete);
	RT_EXPECT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 4, NULL, NULL), 0);
	RT_EXPECT_EQ(fipc_duplex_server_wait(&p->s, &w), -EPROTO);
}

/* @n one-slot calls, each taken by the server, none of them answered. */
static void dx_calls_taken(struct kunit *test, struct dx_pair *p,
			   struct fipc_msg *m, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		RT_EXPECT_EQ(fipc_duplex_call(&p->c, m, 1), 0);
		RT_EXPECT_EQ(fipc_duplex_take_request(&p->s, m, 1, NULL), 1);
	}
}

/*
 * Flags a hostile server may write at the client's done cursor while
 * two one-slot calls (positions 0 and 1) wait.
 */
static const u32 dx_bad_replies[] = {
	0xa5010000u,			/* the one-way ring's READY */
	0x5a010000u,			/* no kind at all */
	0xffffffffu,
	0,				/* never zero once written */
	0xc4000000u,			/* reply of span 0 */
	0xc4020000u,			/* span past what one call may retire */
	0xc4ff0000u,
	0xc8010000u,			/* ack: both positions are reserved */
	0xc401ffffu,			/* a reply one lap old */
	0xc4010001u,			/* the next lap's */
	0xc4010040u,			/* position 64's stamp of old */
	0xc1210000u,			/* our own call, 33 slots long */
	0xc3010000u,			/* two kinds at once */
};

static void dx_test_hostile_server(struct kunit *test)
{
	struct fipc_msg *m = rt_bufs(test, 4);
	struct dx_pair p;
	unsigned int i;

	RT_ASSERT(m);
	RT_ASSERT(dx_pair_init(test, &p, 0));
	for (i = 0; i < ARRAY_SIZE(dx_bad_replies); i++) {
		RT_ASSERT(dx_pair_reset(&p));
		rt_fill(m, 1, i);
		RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
		RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
		dx_forge(&p, 0, dx_bad_replies[i]);
		RT_EXPECT(fipc_duplex_reply_ready(&p.c));
		RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, m), -EPROTO);
		if (fipc_duplex_client_error(&p.c) != -EPROTO)
			rt_note(test, "reply flag %08x accepted",
				dx_bad_replies[i]);
		RT_EXPECT_EQ(p.c.done, 0);
		RT_EXPECT_EQ(fipc_duplex_calls(&p.c), 2);
		dx_expect_client_broken(test, &p, m);
		/* Nothing was written over the server's flag. */
		RT_EXPECT_EQ(dx_flag_at(&p, 0), dx_bad_replies[i]);

		/* The same flag found by a full ring looking for room. */
		RT_ASSERT(dx_pair_reset(&p));
		while (fipc_duplex_room(&p.c))
			RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
		dx_forge(&p, 0, dx_bad_replies[i]);
		RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 1), -EPROTO);
		dx_expect_client_broken(test, &p, m);
	}

	/* A reply when only posted messages are out. */
	RT_ASSERT(dx_pair_reset(&p));
	RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 1), 0);
	RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 1), 0);
	dx_forge(&p, 0, dx_flag(DX_REPLY, 1, 0));
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, m), -EPROTO);
	dx_expect_client_broken(test, &p, m);

	/* A reply at a position the client has not submitted. */
	RT_ASSERT(dx_pair_reset(&p));
	dx_forge(&p, 0, dx_flag(DX_REPLY, 1, 0));
	RT_EXPECT(fipc_duplex_reply_ready(&p.c));
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, m), -EPROTO);
	dx_expect_client_broken(test, &p, m);
	RT_ASSERT(dx_pair_reset(&p));
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
	dx_forge(&p, 0, dx_flag(DX_REPLY, 1, 0));
	dx_forge(&p, 1, dx_flag(DX_REPLY, 1, 1));
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, m), 0);
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, m), -EPROTO);
	dx_expect_client_broken(test, &p, m);

	/* An acknowledgment taking a called position. */
	RT_ASSERT(dx_pair_reset(&p));
	RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 1), 0);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
	dx_forge(&p, 0, dx_flag(DX_ACK, 2, 0));
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, m), -EPROTO);
	dx_expect_client_broken(test, &p, m);
	/* ... where one position is fine. */
	RT_ASSERT(dx_pair_reset(&p));
	RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 1), 0);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
	dx_forge(&p, 0, dx_flag(DX_ACK, 1, 0));
	dx_forge(&p, 1, dx_flag(DX_REPLY, 1, 1));
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, m), 0);
	RT_EXPECT_EQ(fipc_duplex_client_error(&p.c), 0);
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 64);
}

/* A reply's span: never past what the client submitted. */
static void dx_test_hostile_span(struct kunit *test)
{
	struct fipc_msg *m = rt_bufs(test, 4);
	struct dx_pair p;
	u32 span;

	RT_ASSERT(m);
	RT_ASSERT(dx_pair_init(test, &p, 0));
	/* One call of 3 slots and one of 1: a reply may retire 1..3. */
	for (span = 0; span <= 6; span++) {
		RT_ASSERT(dx_pair_reset(&p));
		RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 3), 0);
		RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
		dx_forge(&p, 0, dx_flag(DX_REPLY, span, 0));
		if (span >= 1 && span <= 3) {
			RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, m), 0);
			RT_EXPECT_EQ(p.c.done, span);
			RT_EXPECT_EQ(fipc_duplex_client_error(&p.c), 0);
			/* The last call's reply may retire the rest. */
			dx_forge(&p, span, dx_flag(DX_REPLY, 4 - span, span));
			RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, m), 0);
			RT_EXPECT_EQ(fipc_duplex_room(&p.c), 64);
			/* ... and nothing after it. */
			dx_forge(&p, 4, dx_flag(DX_REPLY, 1, 4));
		}
		RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, m), -EPROTO);
		dx_expect_client_broken(test, &p, m);
	}
}

/*
 * Flags a hostile client may write at the server's read cursor
 * (position 0, first lap).
 */
static const u32 dx_bad_requests[] = {
	0xa5010000u,			/* the one-way ring's READY */
	0x5a010000u,
	0xffffffffu,
	0xc4010000u,			/* a client may not write a reply */
	0xc8010000u,			/* nor an acknowledgment */
	0xc1000000u,			/* a continuation as a head */
	0xc2000000u,
	0xc1210000u,			/* 33 slots */
	0xc1ff0000u,
	0xc1010001u,			/* one lap ahead */
	0xc1010040u,			/* position 64's stamp of old */
	0xc3010000u,
};

static void dx_test_hostile_client(struct kunit *test)
{
	struct fipc_msg *m = rt_bufs(test, DX_MAX);
	struct dx_pair p;
	unsigned int i;

	RT_ASSERT(m);
	RT_ASSERT(dx_pair_init(test, &p, 0));
	for (i = 0; i < ARRAY_SIZE(dx_bad_requests); i++) {
		RT_ASSERT(dx_pair_reset(&p));
		dx_forge(&p, 0, dx_bad_requests[i]);
		RT_EXPECT(fipc_duplex_request_ready(&p.s));
		RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, DX_MAX, NULL),
			     -EPROTO);
		if (fipc_duplex_server_error(&p.s) != -EPROTO)
			rt_note(test, "request flag %08x accepted",
				dx_bad_requests[i]);
		RT_EXPECT_EQ(p.s.read, 0);
		dx_expect_server_broken(test, &p, m);
		RT_EXPECT_EQ(dx_flag_at(&p, 0), dx_bad_requests[i]);
	}

	/* What the lap before may have left is not a request, nor an error. */
	RT_ASSERT(dx_pair_reset(&p));
	dx_forge(&p, 0, dx_flag(DX_REPLY, 5, 0 - 64));
	RT_EXPECT(!fipc_duplex_request_ready(&p.s));
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, DX_MAX, NULL), -EAGAIN);
	dx_forge(&p, 0, dx_flag(DX_CALL, 0, 0 - 64));
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, DX_MAX, NULL), -EAGAIN);
	dx_forge(&p, 0, dx_flag(DX_POST, 32, 0 - 64));
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, DX_MAX, NULL), -EAGAIN);
	RT_EXPECT_EQ(fipc_duplex_server_error(&p.s), 0);
	/* ... but a count no slot can have is. */
	dx_forge(&p, 0, dx_flag(DX_CALL, 33, 0 - 64));
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, DX_MAX, NULL), -EPROTO);
	dx_expect_server_broken(test, &p, m);

	/* Zero is "never written" in the first lap only. */
	RT_ASSERT(dx_pair_reset(&p));
	for (i = 0; i < 64; i++) {
		RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
		RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, 1, NULL), 1);
		RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
		RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, m), 0);
	}
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, 1, NULL), -EAGAIN);
	dx_forge(&p, 64, 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, 1, NULL), -EPROTO);
	dx_expect_server_broken(test, &p, m);
}

/* A multi-slot request whose continuation slots are not all there. */
static void dx_test_hostile_torn(struct kunit *test)
{
	static const struct {
		unsigned int slot;
		u32 flag;
	} bad[] = {
		{ 1, 0 },				/* not written */
		{ 2, 0xc100ffffu },			/* one lap old */
		{ 3, 0xc1000001u },			/* the next lap's */
		{ 2, 0xc1010002u },			/* a head */
		{ 1, 0xc2000001u },			/* posted, in a call */
		{ 3, 0xc4010003u },
		{ 1, 0xffffffffu },
	};
	struct fipc_msg *m = rt_bufs(test, DX_MAX);
	struct dx_pair p;
	unsigned int i;

	RT_ASSERT(m);
	RT_ASSERT(dx_pair_init(test, &p, 0));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		RT_ASSERT(dx_pair_reset(&p));
		rt_fill(m, 4, i);
		RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 4), 0);
		dx_forge(&p, bad[i].slot, bad[i].flag);
		RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, DX_MAX, NULL),
			     -EPROTO);
		RT_EXPECT_EQ(p.s.read, 0);
		RT_EXPECT_EQ(fipc_duplex_unanswered(&p.s), 0);
		dx_expect_server_broken(test, &p, m);
	}
	/* A head claiming more slots than were written. */
	RT_ASSERT(dx_pair_reset(&p));
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 2), 0);
	dx_forge(&p, 0, dx_flag(DX_CALL, 3, 0));
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, DX_MAX, NULL), -EPROTO);
	dx_expect_server_broken(test, &p, m);
}

/* Requests reaching positions the server has not handed back. */
static void dx_test_hostile_overfill(struct kunit *test)
{
	struct fipc_msg *m = rt_bufs(test, DX_MAX);
	struct dx_pair p;

	RT_ASSERT(m);
	RT_ASSERT(dx_pair_init(test, &p, 0));
	dx_calls_taken(test, &p, m, 64);
	/* Position 64 is slot 0, whose call is still unanswered. */
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, 1, NULL), -EAGAIN);
	dx_forge(&p, 64, dx_flag(DX_CALL, 1, 64));
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, 1, NULL), -EPROTO);
	dx_expect_server_broken(test, &p, m);
	/* ... nor a posted message. */
	RT_ASSERT(dx_pair_reset(&p));
	dx_calls_taken(test, &p, m, 64);
	dx_forge(&p, 64, dx_flag(DX_POST, 1, 64));
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, 1, NULL), -EPROTO);
	RT_EXPECT_EQ(dx_flag_at(&p, 64), dx_flag(DX_POST, 1, 64));
	dx_expect_server_broken(test, &p, m);
	/*
	 * Nor can it hold a reply of the lap before: the server has
	 * written none there since the call in it.
	 */
	RT_ASSERT(dx_pair_reset(&p));
	dx_calls_taken(test, &p, m, 64);
	dx_forge(&p, 64, dx_flag(DX_REPLY, 1, 0));
	RT_EXPECT(fipc_duplex_request_ready(&p.s));
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, 1, NULL), -EPROTO);
	dx_expect_server_broken(test, &p, m);
	/* One answered: it can. */
	RT_ASSERT(dx_pair_reset(&p));
	dx_calls_taken(test, &p, m, 64);
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
	RT_EXPECT(!fipc_duplex_request_ready(&p.s));
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, 1, NULL), -EAGAIN);
	RT_EXPECT_EQ(fipc_duplex_server_error(&p.s), 0);

	/* A request of 3 slots from position 62 with none answered ... */
	RT_ASSERT(dx_pair_reset(&p));
	dx_calls_taken(test, &p, m, 62);
	dx_forge(&p, 63, dx_flag(DX_CALL, 0, 63));
	dx_forge(&p, 64, dx_flag(DX_CALL, 0, 64));
	dx_forge(&p, 62, dx_flag(DX_CALL, 3, 62));
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, DX_MAX, NULL), -EPROTO);
	dx_expect_server_broken(test, &p, m);
	/* ... is fine once one reply has handed a position back. */
	RT_ASSERT(dx_pair_reset(&p));
	dx_calls_taken(test, &p, m, 62);
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
	dx_forge(&p, 63, dx_flag(DX_CALL, 0, 63));
	dx_forge(&p, 64, dx_flag(DX_CALL, 0, 64));
	dx_forge(&p, 62, dx_flag(DX_CALL, 3, 62));
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, DX_MAX, NULL), 3);
	RT_EXPECT_EQ(fipc_duplex_server_error(&p.s), 0);
}

/* Once broken, always broken, even if the peer repairs the flag. */
static void dx_test_sticky(struct kunit *test)
{
	struct fipc_msg *m = rt_bufs(test, DX_MAX);
	struct dx_pair p;

	RT_ASSERT(m);
	RT_ASSERT(dx_pair_init(test, &p, 0));
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
	dx_forge(&p, 0, dx_flag(DX_REPLY, 0, 0));
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, m), -EPROTO);
	dx_forge(&p, 0, dx_flag(DX_REPLY, 1, 0));
	RT_EXPECT(fipc_duplex_reply_ready(&p.c));
	dx_expect_client_broken(test, &p, m);

	RT_ASSERT(dx_pair_reset(&p));
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
	dx_forge(&p, 0, dx_flag(DX_CALL, 0, 0));
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, 1, NULL), -EPROTO);
	dx_forge(&p, 0, dx_flag(DX_CALL, 1, 0));
	dx_expect_server_broken(test, &p, m);
	/* A fresh init is the only way back. */
	RT_ASSERT(dx_pair_reset(&p));
	rt_fill(m, 1, 7);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, 1, NULL), 1);
	RT_EXPECT(rt_match(m, 1, 7));
}

/* Bursts */

#define DX_BURST	64

/**
 * struct dx_bufs - a burst's buffers and the pointers the calls take
 * @m: the buffers
 * @p: a pointer to each
 */
struct dx_bufs {
	struct fipc_msg *m;
	struct fipc_msg *p[DX_BURST];
};

static bool dx_bufs_init(struct kunit *test, struct dx_bufs *b)
{
	unsigned int i;

	b->m = rt_bufs(test, DX_BURST);
	for (i = 0; b->m && i < DX_BURST; i++)
		b->p[i] = &b->m[i];
	return b->m;
}

/* Do the buffers from @from on hold one slot each, tagged @tag on? */
static bool dx_bufs_match(const struct dx_bufs *b, unsigned int from,
			  unsigned int n, u32 tag)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!rt_match(b->p[from + i], 1, tag + i))
			return false;
	return true;
}

/* Answer @n calls with the buffers of @b. */
static int dx_reply_n(struct dx_pair *p, const struct dx_bufs *b,
		      unsigned int n)
{
	return fipc_duplex_reply_n(&p->s, (const struct fipc_msg *const *)b->p,
				   n);
}

/* @n one-slot calls tagged @tag on. */
static void dx_calls(struct kunit *test, struct dx_pair *p, unsigned int n,
		     u32 tag)
{
	struct fipc_msg m;
	unsigned int i;

	for (i = 0; i < n; i++) {
		rt_fill(&m, 1, tag + i);
		RT_EXPECT_EQ(fipc_duplex_call(&p->c, &m, 1), 0);
	}
}

/* The first @n buffers of @b, tagged @tag on. */
static void dx_bufs_fill(struct dx_bufs *b, unsigned int n, u32 tag)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		rt_fill(b->p[i], 1, tag + i);
}

/* Order, partial bursts, laps, and what a burst leaves to single calls. */
static void dx_test_bursts(struct kunit *test)
{
	struct fipc_msg *m = rt_bufs(test, DX_MAX);
	struct dx_bufs rq, rp;
	unsigned int lap, k;
	struct dx_pair p;
	bool posted;
	u32 pos;

	RT_ASSERT(m && dx_bufs_init(test, &rq) && dx_bufs_init(test, &rp));
	RT_ASSERT(dx_pair_init(test, &p, 0));
	RT_EXPECT_EQ(fipc_duplex_take_requests(&p.s, rq.p, 4), -EAGAIN);
	RT_EXPECT_EQ(fipc_duplex_take_replies(&p.c, rp.p, 4), -EAGAIN);
	dx_calls(test, &p, 5, 1);
	RT_EXPECT_EQ(fipc_duplex_take_requests(&p.s, rq.p, 0), 0);
	RT_EXPECT_EQ(fipc_duplex_take_requests(&p.s, rq.p, 3), 3);
	RT_EXPECT_EQ(fipc_duplex_take_requests(&p.s, rq.p + 3, 8), 2);
	RT_EXPECT(dx_bufs_match(&rq, 0, 5, 1));
	RT_EXPECT_EQ(fipc_duplex_take_requests(&p.s, rq.p, 8), -EAGAIN);
	RT_EXPECT_EQ(fipc_duplex_unanswered(&p.s), 5);
	RT_EXPECT_EQ(fipc_duplex_take_replies(&p.c, rp.p, 4), -EAGAIN);
	/* More replies than calls: nothing written. */
	RT_EXPECT_EQ(dx_reply_n(&p, &rq, 6), -EINVAL);
	RT_EXPECT_EQ(dx_flag_at(&p, 0), dx_flag(DX_CALL, 1, 0));
	dx_bufs_fill(&rq, 5, 101);
	RT_EXPECT_EQ(dx_reply_n(&p, &rq, 5), 0);
	for (k = 0; k < 5; k++)
		RT_EXPECT_EQ(dx_flag_at(&p, k), dx_flag(DX_REPLY, 1, k));
	RT_EXPECT_EQ(fipc_duplex_unanswered(&p.s), 0);
	RT_EXPECT_EQ(fipc_duplex_take_replies(&p.c, rp.p, 2), 2);
	RT_EXPECT_EQ(fipc_duplex_take_replies(&p.c, rp.p + 2, 9), 3);
	RT_EXPECT(dx_bufs_match(&rp, 0, 5, 101));
	RT_EXPECT_EQ(fipc_duplex_take_replies(&p.c, rp.p, 9), -EAGAIN);
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 64);
	RT_EXPECT_EQ(fipc_duplex_calls(&p.c), 0);

	/* Whole laps, and bursts across the wrap of every cursor. */
	for (lap = 0; lap < 4; lap++) {
		pos = p.c.submit;
		k = lap ? 64 : 59;
		dx_calls(test, &p, k, pos);
		RT_EXPECT_EQ(fipc_duplex_take_requests(&p.s, rq.p, DX_BURST),
			     k);
		RT_EXPECT(dx_bufs_match(&rq, 0, k, pos));
		dx_bufs_fill(&rq, k, pos + 1000);
		RT_EXPECT_EQ(dx_reply_n(&p, &rq, k), 0);
		RT_EXPECT_EQ(fipc_duplex_take_replies(&p.c, rp.p, DX_BURST), k);
		RT_EXPECT(dx_bufs_match(&rp, 0, k, pos + 1000));
		RT_EXPECT_EQ(dx_flag_at(&p, pos + k - 1),
			     dx_flag(DX_REPLY, 1, pos + k - 1));
	}
	RT_EXPECT_EQ(p.c.done, 5 + 59 + 3 * 64);
	RT_EXPECT_EQ(p.s.complete, p.c.done);
	/* A full ring: the server's burst stops at the room it handed out. */
	dx_calls(test, &p, 64, 7);
	RT_EXPECT_EQ(fipc_duplex_take_requests(&p.s, rq.p, DX_BURST), 64);
	RT_EXPECT_EQ(fipc_duplex_take_requests(&p.s, rq.p, DX_BURST), -EAGAIN);
	RT_EXPECT_EQ(dx_reply_n(&p, &rq, 64), 0);
	RT_EXPECT_EQ(fipc_duplex_take_replies(&p.c, rp.p, DX_BURST), 64);

	/* Mixed with single calls: a burst stops at what is not its own. */
	RT_ASSERT(dx_pair_reset(&p));
	dx_calls(test, &p, 1, 1);
	rt_fill(m, 1, 2);
	RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 1), 0);
	rt_fill(m, 2, 3);
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 2), 0);
	dx_calls(test, &p, 1, 4);
	RT_EXPECT_EQ(fipc_duplex_take_requests(&p.s, rq.p, 8), 1);
	RT_EXPECT_EQ(fipc_duplex_take_requests(&p.s, rq.p, 8), 0);
	RT_EXPECT_EQ(p.s.read, 1);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, DX_MAX, &posted), 1);
	RT_EXPECT(posted && rt_match(m, 1, 2));
	RT_EXPECT_EQ(fipc_duplex_take_requests(&p.s, rq.p + 1, 8), 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, DX_MAX, &posted), 2);
	RT_EXPECT(!posted && rt_match(m, 2, 3));
	RT_EXPECT_EQ(fipc_duplex_take_requests(&p.s, rq.p + 1, 8), 1);
	RT_EXPECT(rt_match(rq.p[1], 1, 4));
	/* The post's position handed back first, then the continuation's. */
	RT_EXPECT_EQ(dx_flag_at(&p, 0), dx_flag(DX_ACK, 1, 0));
	rt_fill(m, 1, 5);
	RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 1), dx_flag(DX_REPLY, 2, 1));
	dx_bufs_fill(&rq, 2, 6);
	RT_EXPECT_EQ(dx_reply_n(&p, &rq, 2), 0);
	RT_EXPECT_EQ(dx_flag_at(&p, 3), dx_flag(DX_REPLY, 1, 3));
	RT_EXPECT_EQ(dx_flag_at(&p, 4), dx_flag(DX_REPLY, 1, 4));
	RT_EXPECT_EQ(fipc_duplex_take_replies(&p.c, rp.p, 8), 3);
	RT_EXPECT(dx_bufs_match(&rp, 0, 1, 5));
	RT_EXPECT(dx_bufs_match(&rp, 1, 2, 6));
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 64);
	RT_EXPECT_EQ(fipc_duplex_client_error(&p.c), 0);
	RT_EXPECT_EQ(fipc_duplex_server_error(&p.s), 0);
}

/* A bad flag in the middle of a burst stops it and breaks the ring. */
static void dx_test_bursts_hostile(struct kunit *test)
{
	static const u32 bad[] = {
		0xc1010001u,		/* a call of the next lap */
		0xc1ff0000u,		/* a count no request has */
		0xc4010000u,		/* a reply, from the client */
	};
	struct fipc_msg *m = rt_bufs(test, DX_MAX);
	struct dx_bufs rq, rp;
	struct dx_pair p;
	unsigned int i;

	RT_ASSERT(m && dx_bufs_init(test, &rq) && dx_bufs_init(test, &rp));
	RT_ASSERT(dx_pair_init(test, &p, 0));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		RT_ASSERT(dx_pair_reset(&p));
		dx_calls(test, &p, 4, 1);
		dx_forge(&p, 2, bad[i]);
		RT_EXPECT_EQ(fipc_duplex_take_requests(&p.s, rq.p, 8), 2);
		RT_EXPECT(dx_bufs_match(&rq, 0, 2, 1));
		RT_EXPECT_EQ(p.s.read, 2);
		RT_EXPECT_EQ(fipc_duplex_take_requests(&p.s, rq.p, 8), -EPROTO);
		dx_expect_server_broken(test, &p, m);
		RT_EXPECT_EQ(dx_reply_n(&p, &rq, 1), -EPROTO);
		RT_EXPECT_EQ(dx_flag_at(&p, 0), dx_flag(DX_CALL, 1, 0));
	}

	/* Replies: one of the lap before, then one retiring too much. */
	for (i = 0; i < 2; i++) {
		RT_ASSERT(dx_pair_reset(&p));
		dx_calls(test, &p, 4, 1);
		RT_EXPECT_EQ(fipc_duplex_take_requests(&p.s, rq.p, 8), 4);
		RT_EXPECT_EQ(dx_reply_n(&p, &rq, 4), 0);
		dx_forge(&p, 2, i ? dx_flag(DX_REPLY, 2, 2) :
				    dx_flag(DX_REPLY, 1, 2 - 64));
		RT_EXPECT_EQ(fipc_duplex_take_replies(&p.c, rp.p, 8), 2);
		RT_EXPECT(dx_bufs_match(&rp, 0, 2, 1));
		RT_EXPECT_EQ(p.c.done, 2);
		RT_EXPECT_EQ(fipc_duplex_take_replies(&p.c, rp.p, 8), -EPROTO);
		dx_expect_client_broken(test, &p, m);
	}
	/* A repaired flag changes nothing: the error is sticky. */
	dx_forge(&p, 2, dx_flag(DX_REPLY, 1, 2));
	RT_EXPECT_EQ(fipc_duplex_take_replies(&p.c, rp.p, 8), -EPROTO);
	RT_EXPECT_EQ(p.c.done, 2);

	/*
	 * Replies over posts, with one call or none waiting: the burst
	 * takes no more replies than calls wait, then breaks the ring.
	 */
	for (i = 0; i < 2; i++) {
		RT_ASSERT(dx_pair_reset(&p));
		dx_calls(test, &p, i, 1);
		rt_fill(m, 1, 9);
		RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 1), 0);
		RT_EXPECT_EQ(fipc_duplex_post(&p.c, m, 1), 0);
		RT_EXPECT_EQ(fipc_duplex_take_requests(&p.s, rq.p, 8), i);
		dx_bufs_fill(&rq, i, 21);
		RT_EXPECT_EQ(dx_reply_n(&p, &rq, i), 0);
		dx_forge(&p, i, dx_flag(DX_REPLY, 1, i));
		dx_forge(&p, i + 1, dx_flag(DX_REPLY, 1, i + 1));
		RT_EXPECT_EQ(fipc_duplex_take_replies(&p.c, rp.p, 8),
			     i ? 1 : -EPROTO);
		RT_EXPECT(dx_bufs_match(&rp, 0, i, 21));
		RT_EXPECT_EQ(fipc_duplex_calls(&p.c), 0);
		RT_EXPECT_EQ(p.c.done, i);
		RT_EXPECT_EQ(fipc_duplex_take_replies(&p.c, rp.p, 8), -EPROTO);
		dx_expect_client_broken(test, &p, m);
	}
}

/* Waiting */

/**
 * struct dx_hook - the test sleep hook's state
 * @p: the ring
 * @calls: calls so far
 * @act_at: on this call, play the peer (0: never)
 * @as_client: the peer is the client (it calls), else the server
 * @fail_at: return @err from this call on (0: never)
 * @err: the error to return
 * @complete_seen: the server's completion cursor at the first call
 */
struct dx_hook {
	struct dx_pair *p;
	unsigned int calls;
	unsigned int act_at;
	bool as_client;
	unsigned int fail_at;
	int err;
	u32 complete_seen;
};

static int dx_sleep_hook(void *arg)
{
	struct dx_hook *h = arg;
	struct fipc_msg m;

	if (!h->calls++)
		h->complete_seen = h->p->s.complete;
	if (h->calls == h->act_at) {
		rt_fill(&m, 1, 77);
		if (h->as_client)
			fipc_duplex_call(&h->p->c, &m, 1);
		else
			fipc_duplex_reply(&h->p->s, &m);
	}
	if (h->fail_at && h->calls >= h->fail_at)
		return h->err;
	return 0;
}

static void dx_test_wait(struct kunit *test)
{
	struct fipc_msg *m = rt_bufs(test, DX_MAX);
	struct dx_hook h = { 0 };
	enum fipc_wait_method meth;
	struct fipc_waiter w;
	struct dx_pair p;

	RT_ASSERT(m);
	for (meth = 0; meth < FIPC_WAIT_NR_METHODS; meth++) {
		if (!fipc_wait_method_usable(meth))
			continue;
		RT_ASSERT(dx_pair_init(test, &p, 0));
		RT_ASSERT_EQ(fipc_waiter_init(&w, meth, 10, NULL, NULL), 0);
		RT_EXPECT_EQ(fipc_duplex_client_wait(&p.c, &w), -ETIMEDOUT);
		RT_EXPECT_EQ(w.empty_polls, 10);
		RT_EXPECT_EQ(fipc_duplex_server_wait(&p.s, &w), -ETIMEDOUT);
		RT_EXPECT_EQ(w.empty_polls, 20);
		rt_fill(m, 1, 1);
		RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
		/* Our own request is not a reply. */
		RT_EXPECT_EQ(fipc_duplex_client_wait(&p.c, &w), -ETIMEDOUT);
		RT_EXPECT_EQ(w.empty_polls, 30);
		RT_EXPECT_EQ(fipc_duplex_server_wait(&p.s, &w), 0);
		RT_EXPECT_EQ(w.empty_polls, 30);
		RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, 1, NULL), 1);
		RT_EXPECT_EQ(fipc_duplex_reply(&p.s, m), 0);
		RT_EXPECT_EQ(fipc_duplex_client_wait(&p.c, &w), 0);
		RT_EXPECT_EQ(w.empty_polls, 30);
		RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, m), 0);
		RT_EXPECT_EQ(w.sleeps, 0);
	}

	/* The server hands back what it holds before it gives up ... */
	RT_ASSERT(dx_pair_init(test, &p, 0));
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 4), 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, DX_MAX, NULL), 4);
	RT_EXPECT_EQ(p.s.complete, 0);
	RT_ASSERT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 5, NULL, NULL), 0);
	RT_EXPECT_EQ(fipc_duplex_server_wait(&p.s, &w), -ETIMEDOUT);
	RT_EXPECT_EQ(dx_flag_at(&p, 0), dx_flag(DX_ACK, 3, 0));
	RT_EXPECT_EQ(p.s.complete, 3);
	RT_EXPECT_EQ(fipc_duplex_client_wait(&p.c, &w), 0);
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, m), -EAGAIN);
	RT_EXPECT_EQ(fipc_duplex_room(&p.c), 63);

	/* ... and before it sleeps; the hook's error ends the wait. */
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 2), 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, DX_MAX, NULL), 2);
	h.p = &p;
	h.fail_at = 3;
	h.err = -EINTR;
	RT_ASSERT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 4, dx_sleep_hook,
				      &h), 0);
	RT_EXPECT_EQ(fipc_duplex_server_wait(&p.s, &w), -EINTR);
	RT_EXPECT_EQ(h.calls, 3);
	RT_EXPECT_EQ(w.sleeps, 3);
	RT_EXPECT_EQ(w.empty_polls, 12);
	/* The call's extra position was handed back before the first sleep. */
	RT_EXPECT_EQ(h.complete_seen, 4);

	/* A hook that plays the peer ends the wait with 0. */
	h.calls = 0;
	h.fail_at = 0;
	h.act_at = 2;
	h.as_client = true;
	RT_ASSERT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 4, dx_sleep_hook,
				      &h), 0);
	RT_EXPECT_EQ(fipc_duplex_server_wait(&p.s, &w), 0);
	RT_EXPECT_EQ(h.calls, 2);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, 1, NULL), 1);
	RT_EXPECT(rt_match(m, 1, 77));
	/* (the acknowledgment the server wrote before sleeping first) */
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, m), -EAGAIN);
	h.calls = 0;
	h.as_client = false;
	RT_ASSERT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 4, dx_sleep_hook,
				      &h), 0);
	RT_EXPECT_EQ(fipc_duplex_client_wait(&p.c, &w), 0);
	RT_EXPECT_EQ(h.calls, 2);
	RT_EXPECT_EQ(w.sleeps, 2);
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, m), 0);
	RT_EXPECT(rt_match(m, 1, 77));

	/* Garbage ends a wait at once: the take call reports it. */
	RT_EXPECT_EQ(fipc_duplex_call(&p.c, m, 1), 0);
	dx_forge(&p, p.c.done, 0x12345678u);
	RT_ASSERT_EQ(fipc_waiter_init(&w, FIPC_WAIT_PAUSE, 4, NULL, NULL), 0);
	RT_EXPECT_EQ(fipc_duplex_client_wait(&p.c, &w), 0);
	RT_EXPECT_EQ(w.empty_polls, 0);
	RT_EXPECT_EQ(fipc_duplex_take_reply(&p.c, m), -EPROTO);
	RT_EXPECT_EQ(fipc_duplex_client_wait(&p.c, &w), -EPROTO);
	dx_forge(&p, p.s.read, 0x12345678u);
	RT_EXPECT_EQ(fipc_duplex_server_wait(&p.s, &w), 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&p.s, m, 1, NULL), -EPROTO);
	RT_EXPECT_EQ(fipc_duplex_server_wait(&p.s, &w), -EPROTO);
}

static struct rt_case dx_cases[] = {
	RT_CASE(dx_test_init_args),
	RT_CASE(dx_test_empty),
	RT_CASE(dx_test_wire_format),
	RT_CASE(dx_test_full_laps),
	RT_CASE(dx_test_u32_wrap),
	RT_CASE(dx_test_out_of_order),
	RT_CASE(dx_test_multislot_spans),
	RT_CASE(dx_test_ack_batch),
	RT_CASE(dx_test_posted),
	RT_CASE(dx_test_caller_errors),
	RT_CASE(dx_test_hostile_server),
	RT_CASE(dx_test_hostile_span),
	RT_CASE(dx_test_hostile_client),
	RT_CASE(dx_test_hostile_torn),
	RT_CASE(dx_test_hostile_overfill),
	RT_CASE(dx_test_sticky),
	RT_CASE(dx_test_bursts),
	RT_CASE(dx_test_bursts_hostile),
	RT_CASE(dx_test_wait),
	RT_END
};

RT_SUITE(fipc_duplex, dx_cases);
