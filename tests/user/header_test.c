// SPDX-License-Identifier: GPL-2.0
/*
 * The public header is enough to write a peer: tests/user/header_peer.c,
 * written from xen/include/public/io/fipcblk.h alone (C99, no lib/fipc),
 * exchanges messages with lib/fipc in both directions, over many laps,
 * fills the ring as lib/fipc counts it, and each side finds the other's
 * forged flags.  A request the peer lays out with the header's helpers
 * is read back through the header's structures.  Userspace only (the
 * peer is plain C99); it uses the ring tests' runner (ring_test.h).
 */
#include <stdint.h>
#include "../ring/ring_test.h"
#include <public/io/fipcblk.h>
#include "header_peer.h"

/* Reference i of request n: distinct for every (n, i). */
static u32 hdr_ref(unsigned int n, unsigned int i)
{
	return 0x10000000u + n * 1000 + i;
}

/* Reference i of a received request, through fipcblk.h's structures. */
static u32 hdr_ref_of(const struct fipc_msg *msgs, unsigned int i)
{
	struct fipcblk_request_cont cont;
	struct fipcblk_request head;

	if (i < FIPCBLK_HEAD_REFS) {
		memcpy(&head, msgs[0].data, sizeof(head));
		return head.refs[i];
	}
	memcpy(&cont, msgs[1 + (i - FIPCBLK_HEAD_REFS) / FIPCBLK_CONT_REFS].data,
	       sizeof(cont));
	return cont.refs[(i - FIPCBLK_HEAD_REFS) % FIPCBLK_CONT_REFS];
}

/* Requests of 0 to FIPCBLK_MAX_REFS references, peer to lib/fipc. */
static void hdr_test_peer_to_lib(struct kunit *test)
{
	void *mem = rt_ring_alloc(test, 0);
	struct fipc_msg *bufs = rt_bufs(test, FIPC_MSG_MAX_SLOTS);
	static u32 refs[FIPCBLK_MAX_REFS];
	struct fipcblk_request req, got;
	struct peer_ring peer;
	struct fipc_ring rx;
	unsigned int n, i;
	int len;

	RT_ASSERT(mem && bufs);
	RT_ASSERT_EQ(fipc_ring_init(&rx, mem, 0), 0);
	peer_ring_init(&peer, mem, 0);
	for (n = 0; n <= FIPCBLK_MAX_REFS; n++) {
		memset(&req, 0, sizeof(req));
		req.id = 0xabcd000000000000ull + n;
		req.sector = 8ull * n;
		req.nr_bytes = n * FIPCBLK_PAGE_BYTES;
		req.op = FIPCBLK_OP_WRITE;
		for (i = 0; i < n; i++)
			refs[i] = hdr_ref(n, i);
		RT_ASSERT_EQ(peer_send_request(&peer, &req, refs, n), 0);
		len = fipc_recv(&rx, bufs, FIPC_MSG_MAX_SLOTS);
		if (!RT_EXPECT_EQ_MSG(len, FIPCBLK_REQ_SLOTS(n),
				      "%u references", n))
			return;
		memcpy(&got, bufs[0].data, sizeof(got));
		RT_EXPECT_EQ(got.id, req.id);
		RT_EXPECT_EQ(got.sector, req.sector);
		RT_EXPECT_EQ(got.nr_bytes, req.nr_bytes);
		RT_EXPECT_EQ(got.op, FIPCBLK_OP_WRITE);
		for (i = 0; i < n; i++)
			if (!RT_EXPECT_EQ_MSG(hdr_ref_of(bufs, i), hdr_ref(n, i),
					      "request %u, reference %u", n, i))
				return;
	}
	RT_EXPECT(peer.seq > 8 * FIPCBLK_RING_SLOTS(0));
	RT_EXPECT_EQ(fipc_ring_error(&rx), 0);
}

/* Messages of every length, lib/fipc to peer, flags as the header says. */
static void hdr_test_lib_to_peer(struct kunit *test)
{
	void *mem = rt_ring_alloc(test, 0);
	struct fipc_msg *msgs = rt_bufs(test, FIPC_MSG_MAX_SLOTS);
	struct fipcblk_slot got[FIPCBLK_MSG_MAX_SLOTS];
	struct peer_ring peer;
	struct fipc_ring tx;
	unsigned int round, len, i, j;
	u32 seq = 0;

	RT_ASSERT(mem && msgs);
	RT_ASSERT_EQ(fipc_ring_init(&tx, mem, 0), 0);
	peer_ring_init(&peer, mem, 0);
	for (round = 0; round < 3 * FIPCBLK_MSG_MAX_SLOTS; round++) {
		len = 1 + round % FIPCBLK_MSG_MAX_SLOTS;
		for (i = 0; i < len; i++)
			for (j = 0; j < FIPC_SLOT_PAYLOAD; j++)
				msgs[i].data[j] = (uint8_t)(round + i * 7 + j);
		RT_ASSERT_EQ(fipc_send(&tx, msgs, len), 0);
		if (!RT_EXPECT_EQ_MSG(peer_recv(&peer, got,
						FIPCBLK_MSG_MAX_SLOTS),
				      len, "round %u", round))
			return;
		for (i = 0; i < len; i++) {
			RT_EXPECT_EQ(got[i].flag,
				     FIPCBLK_FLAG(i ? 0 : len, seq + i));
			RT_EXPECT(!memcmp(got[i].payload, msgs[i].data,
					  FIPCBLK_MSG_BYTES));
		}
		seq += len;
		RT_EXPECT_EQ(peer_recv(&peer, got, FIPCBLK_MSG_MAX_SLOTS),
			     PEER_EMPTY);
	}
	RT_EXPECT_EQ(peer.seq, seq);
}

/* The ring holds FIPCBLK_RING_SLOTS(order) one-slot messages, both ways. */
static void hdr_test_full(struct kunit *test)
{
	void *mem = rt_ring_alloc(test, 1);
	void *mem2 = rt_ring_alloc(test, 1);
	struct fipc_msg *bufs = rt_bufs(test, FIPC_MSG_MAX_SLOTS);
	struct fipcblk_slot got[FIPCBLK_MSG_MAX_SLOTS];
	struct fipcblk_request req;
	struct peer_ring peer, peer2;
	struct fipc_ring rx, tx;
	unsigned int sent = 0;
	int err;

	RT_ASSERT(mem && mem2 && bufs);
	RT_ASSERT_EQ(fipc_ring_init(&rx, mem, 1), 0);
	RT_ASSERT_EQ(fipc_ring_init(&tx, mem2, 1), 0);
	peer_ring_init(&peer, mem, 1);
	peer_ring_init(&peer2, mem2, 1);
	memset(&req, 0, sizeof(req));
	/* A lap first, so that "full" means our message of one lap ago. */
	while (sent < FIPCBLK_RING_SLOTS(1)) {
		RT_ASSERT_EQ(peer_send_request(&peer, &req, NULL, 0), 0);
		RT_ASSERT_EQ(fipc_recv(&rx, bufs, 1), 1);
		sent++;
	}
	sent = 0;
	while (!(err = peer_send_request(&peer, &req, NULL, 0)))
		sent++;
	RT_EXPECT_EQ(err, PEER_FULL);
	RT_EXPECT_EQ(sent, FIPCBLK_RING_SLOTS(1));
	RT_ASSERT_EQ(fipc_recv(&rx, bufs, 1), 1);
	RT_EXPECT_EQ(peer_send_request(&peer, &req, NULL, 0), 0);
	RT_EXPECT_EQ(peer_send_request(&peer, &req, NULL, 0), PEER_FULL);

	sent = 0;
	while (!fipc_send(&tx, bufs, 1))
		sent++;
	RT_EXPECT_EQ(sent, FIPCBLK_RING_SLOTS(1));
	RT_EXPECT_EQ(peer_recv(&peer2, got, 1), 1);
	RT_EXPECT_EQ(fipc_send(&tx, bufs, 1), 0);
	RT_EXPECT_EQ(fipc_send(&tx, bufs, 1), -EAGAIN);
	RT_EXPECT_EQ(fipc_ring_error(&tx), 0);
}

/* Each side refuses a flag the header's rules do not allow. */
static void hdr_test_forged(struct kunit *test)
{
	void *mem = rt_ring_alloc(test, 0);
	struct fipc_msg *bufs = rt_bufs(test, FIPC_MSG_MAX_SLOTS);
	struct fipcblk_slot got[FIPCBLK_MSG_MAX_SLOTS];
	struct fipcblk_slot *slots = mem;
	struct peer_ring peer;
	struct fipc_ring rx;

	RT_ASSERT(mem && bufs);
	/* A stamp one ahead: lib/fipc breaks the ring, for good. */
	RT_ASSERT_EQ(fipc_ring_init(&rx, mem, 0), 0);
	slots[0].flag = FIPCBLK_FLAG(1, 1);
	RT_EXPECT_EQ(fipc_recv(&rx, bufs, 1), -EPROTO);
	slots[0].flag = FIPCBLK_FLAG(1, 0);
	RT_EXPECT_EQ(fipc_recv(&rx, bufs, 1), -EPROTO);

	/* A continuation without its stamp, a length of 0, another kind. */
	memset(mem, 0, FIPC_RING_BYTES(0));
	peer_ring_init(&peer, mem, 0);
	slots[0].flag = FIPCBLK_FLAG(2, 0);
	slots[1].flag = FIPCBLK_FLAG(0, 0);
	RT_EXPECT_EQ(peer_recv(&peer, got, 2), PEER_BROKEN);
	slots[0].flag = FIPCBLK_FLAG(0, 0);
	RT_EXPECT_EQ(peer_recv(&peer, got, 2), PEER_BROKEN);
	slots[0].flag = (FIPCBLK_FLAG(1, 0) & ~FIPCBLK_FLAG_KIND_MASK) |
			0x5a000000u;
	RT_EXPECT_EQ(peer_recv(&peer, got, 2), PEER_BROKEN);
	slots[0].flag = FIPCBLK_FLAG(1, 0);
	RT_EXPECT_EQ(peer_recv(&peer, got, 2), 1);
	RT_EXPECT_EQ(slots[0].flag, FIPCBLK_FLAG_FREE);
}

static struct rt_case hdr_cases[] = {
	RT_CASE(hdr_test_peer_to_lib),
	RT_CASE(hdr_test_lib_to_peer),
	RT_CASE(hdr_test_full),
	RT_CASE(hdr_test_forged),
	RT_END
};

RT_SUITE(fipcblk_header, hdr_cases);
