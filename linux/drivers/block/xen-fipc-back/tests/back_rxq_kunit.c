// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the fipcblk backend's queue of requests taken from the
 * ring and not handled yet (linux/drivers/block/xen-fipc-back/back_rxq.c).
 *
 * Built by this directory's Kbuild (CONFIG_XEN_FIPC_BACK_RXQ_KUNIT_TEST)
 * with back_rxq.c unchanged and without Xen (back_units.c).  Each case
 * drives both ends of a one-page duplex ring: the test is the frontend
 * (fipc_duplex_call(), _post(), a flag written over a slot as a hostile
 * one would) and the poller (peek, then pop once "handled").  Requests
 * must come out once each, in ring order, whatever is taken in a burst
 * and whatever is taken alone; one peeked and not popped (a poll that
 * held it: no free request, pages, grant room, the disk's limits) comes
 * out again first, however much the frontend sent since; what fipcblk
 * refuses (a posted request, a bad flag) is refused.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "../back_rxq.h"
#include "back_kunit.h"

/**
 * struct xfb_rxq_ring - a ring, both its ends, and the queue under test
 * @mem: the shared slots, one page
 * @c: the frontend's end
 * @s: the backend's end
 * @q: the queue
 * @msg: a request being sent, up to FIPC_MSG_MAX_SLOTS slots
 */
struct xfb_rxq_ring {
	struct fipc_slot *mem;
	struct fipc_duplex_client c;
	struct fipc_duplex_server s;
	struct xfb_rxq q;
	struct fipc_msg msg[FIPC_MSG_MAX_SLOTS];
};

static struct xfb_rxq_ring *xfb_rxq_ring_new(struct kunit *test)
{
	struct xfb_rxq_ring *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->mem = kunit_kzalloc(test, FIPC_RING_BYTES(0), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->mem);
	fipc_ring_clear(r->mem, 0);
	KUNIT_ASSERT_EQ(test, fipc_duplex_client_init(&r->c, r->mem, 0), 0);
	KUNIT_ASSERT_EQ(test, fipc_duplex_server_init(&r->s, r->mem, 0), 0);
	return r;
}

/* Slot @j of request @tag says so in its first 8 bytes. */
static void xfb_rxq_tag(struct fipc_msg *m, unsigned int nslots, u32 tag)
{
	unsigned int j;

	for (j = 0; j < nslots; j++) {
		memset(m[j].data, 0, sizeof(m[j].data));
		memcpy(m[j].data, &tag, sizeof(tag));
		memcpy(m[j].data + 4, &j, sizeof(j));
	}
}

static u32 xfb_rxq_tag_of(const struct fipc_msg *m, unsigned int j)
{
	u32 tag, idx;

	memcpy(&tag, m[j].data, sizeof(tag));
	memcpy(&idx, m[j].data + 4, sizeof(idx));
	return idx == j ? tag : U32_MAX;
}

/* The frontend sends request @tag of @nslots slots, wanting a response. */
static void xfb_rxq_call(struct kunit *test, struct xfb_rxq_ring *r,
			 u32 tag, unsigned int nslots)
{
	xfb_rxq_tag(r->msg, nslots, tag);
	KUNIT_ASSERT_EQ(test, fipc_duplex_call(&r->c, r->msg, nslots), 0);
}

/*
 * The poller's next request must be @tag, of @nslots slots, every slot
 * its own; @polls times, as polls that hold it (not popped) would see it.
 */
static void xfb_rxq_expect(struct kunit *test, struct xfb_rxq_ring *r,
			   u32 tag, unsigned int nslots, unsigned int polls)
{
	const struct fipc_msg *msgs = NULL;
	unsigned int i, j;

	for (i = 0; i < polls; i++) {
		KUNIT_ASSERT_EQ(test, xfb_rxq_peek(&r->q, &r->s, &msgs),
				(int)nslots);
		for (j = 0; j < nslots; j++)
			KUNIT_EXPECT_EQ_MSG(test, xfb_rxq_tag_of(msgs, j), tag,
					    "slot %u of request %u, poll %u",
					    j, tag, i);
	}
}

/* Handle @tag: peeked once more, then popped. */
static void xfb_rxq_handle(struct kunit *test, struct xfb_rxq_ring *r,
			   u32 tag, unsigned int nslots)
{
	xfb_rxq_expect(test, r, tag, nslots, 1);
	xfb_rxq_pop(&r->q);
}

/* Nothing left, and nothing taken but not handled. */
static void xfb_rxq_expect_empty(struct kunit *test, struct xfb_rxq_ring *r)
{
	const struct fipc_msg *msgs;

	KUNIT_EXPECT_EQ(test, xfb_rxq_peek(&r->q, &r->s, &msgs), -EAGAIN);
	KUNIT_EXPECT_EQ(test, xfb_rxq_count(&r->q), 0u);
}

/* One-slot requests are taken XFB_REQ_BURST at a time, in ring order. */
static void xfb_rxq_test_burst_in_order(struct kunit *test)
{
	struct xfb_rxq_ring *r = xfb_rxq_ring_new(test);
	u32 i, total = XFB_REQ_BURST + 4;

	xfb_rxq_expect_empty(test, r);
	for (i = 0; i < total; i++)
		xfb_rxq_call(test, r, i, 1);
	xfb_rxq_expect(test, r, 0, 1, 1);
	/* One burst, taken from the ring at once: its copies are ours. */
	KUNIT_EXPECT_EQ(test, xfb_rxq_count(&r->q), XFB_REQ_BURST);
	KUNIT_EXPECT_EQ(test, r->s.read, XFB_REQ_BURST);
	for (i = 0; i < total; i++)
		xfb_rxq_handle(test, r, i, 1);
	KUNIT_EXPECT_EQ(test, r->s.read, total);
	KUNIT_EXPECT_EQ(test, fipc_duplex_unanswered(&r->s), total);
	xfb_rxq_expect_empty(test, r);
}

/*
 * A request a poll held (peeked, not popped) comes out first at every
 * poll after, and the rest of its burst in order after it; the ring is
 * not read while requests taken wait, whatever the frontend sends.
 */
static void xfb_rxq_test_held_stays_first(struct kunit *test)
{
	struct xfb_rxq_ring *r = xfb_rxq_ring_new(test);
	u32 i;

	for (i = 0; i < 5; i++)
		xfb_rxq_call(test, r, i, 1);
	xfb_rxq_expect(test, r, 0, 1, 3);
	for (i = 5; i < 30; i++)
		xfb_rxq_call(test, r, i, 1);
	xfb_rxq_expect(test, r, 0, 1, 3);
	KUNIT_EXPECT_EQ(test, xfb_rxq_count(&r->q), 5u);
	KUNIT_EXPECT_EQ(test, r->s.read, 5u);
	xfb_rxq_pop(&r->q);
	/* Held again in the middle of its burst. */
	xfb_rxq_handle(test, r, 1, 1);
	xfb_rxq_expect(test, r, 2, 1, 4);
	KUNIT_EXPECT_EQ(test, xfb_rxq_count(&r->q), 3u);
	for (i = 2; i < 30; i++)
		xfb_rxq_handle(test, r, i, 1);
	xfb_rxq_expect_empty(test, r);
}

/*
 * A request of several slots stops the burst and is taken alone once
 * the burst's requests are handled, then the next burst: ring order.
 */
static void xfb_rxq_test_long_request_in_order(struct kunit *test)
{
	struct xfb_rxq_ring *r = xfb_rxq_ring_new(test);

	xfb_rxq_call(test, r, 0, 1);
	xfb_rxq_call(test, r, 1, 1);
	xfb_rxq_call(test, r, 2, 3);
	xfb_rxq_call(test, r, 3, 1);
	xfb_rxq_call(test, r, 4, FIPC_MSG_MAX_SLOTS);
	xfb_rxq_call(test, r, 5, 2);
	xfb_rxq_call(test, r, 6, 1);
	xfb_rxq_expect(test, r, 0, 1, 1);
	KUNIT_EXPECT_EQ(test, xfb_rxq_count(&r->q), 2u);
	xfb_rxq_pop(&r->q);
	xfb_rxq_expect(test, r, 1, 1, 2);
	xfb_rxq_pop(&r->q);
	KUNIT_EXPECT_EQ(test, r->s.read, 2u);
	/* Taken alone, and held: the same copy, the ring not read. */
	xfb_rxq_expect(test, r, 2, 3, 3);
	KUNIT_EXPECT_EQ(test, xfb_rxq_count(&r->q), 1u);
	KUNIT_EXPECT_EQ(test, r->s.read, 5u);
	xfb_rxq_pop(&r->q);
	xfb_rxq_expect(test, r, 3, 1, 2);
	KUNIT_EXPECT_EQ(test, xfb_rxq_count(&r->q), 1u);
	xfb_rxq_pop(&r->q);
	xfb_rxq_handle(test, r, 4, FIPC_MSG_MAX_SLOTS);
	xfb_rxq_handle(test, r, 5, 2);
	xfb_rxq_handle(test, r, 6, 1);
	xfb_rxq_expect_empty(test, r);
}

/*
 * Requests answered as they are handled keep the ring going over many
 * laps, the bursts crossing the wrap: each once, in order.
 */
static void xfb_rxq_test_laps(struct kunit *test)
{
	struct xfb_rxq_ring *r = xfb_rxq_ring_new(test);
	const u32 total = 1000;
	struct fipc_msg rsp;
	u32 sent = 0, seen = 0, answered = 0;
	unsigned int nslots;

	while (seen < total) {
		/* Mostly one slot, every seventh longer. */
		while (sent < total) {
			nslots = sent % 7 == 6 ? 1 + sent % 5 : 1;
			if (fipc_duplex_room(&r->c) < nslots)
				break;
			xfb_rxq_call(test, r, sent++, nslots);
		}
		nslots = seen % 7 == 6 ? 1 + seen % 5 : 1;
		xfb_rxq_handle(test, r, seen++, nslots);
		KUNIT_ASSERT_EQ(test, fipc_duplex_reply(&r->s, &rsp), 0);
		while (fipc_duplex_take_reply(&r->c, &rsp) == 0)
			answered++;
	}
	xfb_rxq_expect_empty(test, r);
	KUNIT_EXPECT_EQ(test, answered, total);
	KUNIT_EXPECT_GT(test, r->s.read, 4 * FIPC_RING_SLOTS(0));
}

/* A posted request wants no response: refused, never handed out. */
static void xfb_rxq_test_posted_refused(struct kunit *test)
{
	struct xfb_rxq_ring *r = xfb_rxq_ring_new(test);
	const struct fipc_msg *msgs;

	xfb_rxq_call(test, r, 0, 1);
	xfb_rxq_tag(r->msg, 1, 1);
	KUNIT_ASSERT_EQ(test, fipc_duplex_post(&r->c, r->msg, 1), 0);
	xfb_rxq_handle(test, r, 0, 1);
	KUNIT_EXPECT_EQ(test, xfb_rxq_peek(&r->q, &r->s, &msgs), -EBADMSG);
	KUNIT_EXPECT_EQ(test, xfb_rxq_count(&r->q), 0u);
}

/*
 * A bad flag after good requests: the good ones come out first, in
 * order, then the ring's error, for good.
 */
static void xfb_rxq_test_bad_flag(struct kunit *test)
{
	struct xfb_rxq_ring *r = xfb_rxq_ring_new(test);
	const struct fipc_msg *msgs;
	u32 i;

	for (i = 0; i < 3; i++)
		xfb_rxq_call(test, r, i, 1);
	WRITE_ONCE(r->mem[3].flag, 0xffffffffu);
	xfb_rxq_expect(test, r, 0, 1, 1);
	KUNIT_EXPECT_EQ(test, xfb_rxq_count(&r->q), 3u);
	for (i = 0; i < 3; i++)
		xfb_rxq_handle(test, r, i, 1);
	KUNIT_EXPECT_EQ(test, xfb_rxq_peek(&r->q, &r->s, &msgs), -EPROTO);
	KUNIT_EXPECT_EQ(test, xfb_rxq_peek(&r->q, &r->s, &msgs), -EPROTO);
	KUNIT_EXPECT_EQ(test, xfb_rxq_count(&r->q), 0u);

	/* At the head of the ring: nothing handed out. */
	r = xfb_rxq_ring_new(test);
	xfb_rxq_call(test, r, 0, 1);
	WRITE_ONCE(r->mem[0].flag, 0xc1210000u);	/* 33 slots */
	KUNIT_EXPECT_EQ(test, xfb_rxq_peek(&r->q, &r->s, &msgs), -EPROTO);
	KUNIT_EXPECT_EQ(test, xfb_rxq_count(&r->q), 0u);
}

static struct kunit_case xfb_rxq_test_cases[] = {
	KUNIT_CASE(xfb_rxq_test_burst_in_order),
	KUNIT_CASE(xfb_rxq_test_held_stays_first),
	KUNIT_CASE(xfb_rxq_test_long_request_in_order),
	KUNIT_CASE(xfb_rxq_test_laps),
	KUNIT_CASE(xfb_rxq_test_posted_refused),
	KUNIT_CASE(xfb_rxq_test_bad_flag),
	{}
};

XFB_KUNIT_SUITE(fipcblk_rxq, xfb_rxq_test_cases,
		"KUnit tests of the fipcblk backend's queue of requests taken");
