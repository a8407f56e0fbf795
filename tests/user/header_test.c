// SPDX-License-Identifier: GPL-2.0
/*
 * The public header is enough to write a peer: tests/user/header_peer.c,
 * both ends of a fipcblk duplex ring (protocol 3) written from
 * xen/include/public/io/fipcblk.h alone (C99, no lib/fipc), works with
 * lib/fipc's other end.  Its frontend posts requests of 0 to
 * FIPCBLK_MAX_REFS references to lib/fipc's server and takes the
 * responses, answered out of order; lib/fipc's client does the same with
 * its backend; many laps each, interleaved and in two threads.  Each side
 * fills the ring as the other counts it, and each refuses a forged or
 * stale flag.  Requests are laid out and read back with the header's
 * structures and helpers.  Userspace only (the peer is plain C99); it
 * uses the ring tests' runner (lib/fipc/tests/ring_test.h).
 */
#include <stdint.h>
#include <fipc/fipc_duplex.h>
#include "ring_test.h"
#include <public/io/fipcblk.h>
#include "header_peer.h"

/* Flags as fipcblk.h writes them. */
#define HDR_FLAG(kind, count, pos, order) \
	FIPCBLK_DUPLEX_FLAG(FIPCBLK_DUPLEX_##kind, count, \
			    FIPCBLK_DUPLEX_LAP(pos, order))

/* Reference i of request k: distinct for every (k, i). */
static u32 hdr_ref(u32 k, unsigned int i)
{
	return 0x40000000u ^ (k << 9) ^ i;
}

/* References of request k: every count from 0 to FIPCBLK_MAX_REFS. */
static unsigned int hdr_nr_refs(u32 k, unsigned int max)
{
	return (k * 37u) % (max + 1);
}

/*
 * Request k with nr_refs references, fields such that fipcblk.h's data
 * addressing calls for exactly that many.
 */
static void hdr_make(struct fipcblk_request *req, u32 *refs, u32 k,
		     unsigned int nr_refs)
{
	unsigned int i, tail = (k % 3) * 512;

	memset(req, 0, sizeof(*req));
	req->id = 0x5eed000000000000ull + k;
	req->sector = 8ull * k;
	if (!nr_refs) {
		req->op = k & 1 ? FIPCBLK_OP_FLUSH : FIPCBLK_OP_DISCARD;
		req->nr_bytes = k & 1 ? 0 : 4096 * (k % 5 + 1);
		req->sector = k & 1 ? 0 : req->sector;
	} else {
		req->op = k & 1 ? FIPCBLK_OP_READ : FIPCBLK_OP_WRITE;
		req->flags = k & 2 ? FIPCBLK_F_FUA : 0;
		req->first_offset = nr_refs > 1 ? (k % 8) * 512 : 0;
		req->nr_bytes = nr_refs * FIPCBLK_PAGE_BYTES -
				req->first_offset - tail;
	}
	for (i = 0; i < nr_refs; i++)
		refs[i] = hdr_ref(k, i);
}

/* Lay request k out in lib/fipc's message buffers: its length in slots. */
static unsigned int hdr_encode(struct fipc_msg *msgs, u32 k,
			       unsigned int nr_refs)
{
	static u32 refs[FIPCBLK_MAX_REFS];
	struct fipcblk_request req;
	unsigned int i, n = FIPCBLK_REQ_SLOTS(nr_refs);

	hdr_make(&req, refs, k, nr_refs);
	memset(msgs, 0, n * sizeof(*msgs));
	memcpy(msgs[0].data, &req, sizeof(req));
	for (i = 0; i < nr_refs; i++)
		memcpy(msgs[FIPCBLK_REF_SLOT(i)].data + FIPCBLK_REF_OFFSET(i),
		       &refs[i], sizeof(refs[i]));
	return n;
}

/*
 * Is the request in @msgs (@n slots, as lib/fipc took it) request k,
 * read through fipcblk.h's structures?  0 if so, else a line number.
 */
static int hdr_check_msgs(const struct fipc_msg *msgs, unsigned int n, u32 k,
			  unsigned int nr_refs)
{
	static u32 refs[FIPCBLK_MAX_REFS];
	struct fipcblk_request_cont cont;
	struct fipcblk_request want, got;
	unsigned int i;
	u32 ref;

	hdr_make(&want, refs, k, nr_refs);
	if (n != FIPCBLK_REQ_SLOTS(nr_refs))
		return __LINE__;
	memcpy(&got, msgs[0].data, sizeof(got));
	if (got.id != want.id || got.sector != want.sector ||
	    got.nr_bytes != want.nr_bytes ||
	    got.first_offset != want.first_offset || got.op != want.op ||
	    got.flags != want.flags || peer_request_refs(&got) != nr_refs)
		return __LINE__;
	for (i = 0; i < nr_refs; i++) {
		if (i < FIPCBLK_HEAD_REFS) {
			ref = got.refs[i];
		} else {
			memcpy(&cont, msgs[FIPCBLK_REF_SLOT(i)].data,
			       sizeof(cont));
			ref = cont.refs[(i - FIPCBLK_HEAD_REFS) %
					FIPCBLK_CONT_REFS];
		}
		if (ref != refs[i])
			return __LINE__;
	}
	return 0;
}

/* Is what the header's backend took (n slots) request k?  As above. */
static int hdr_check_req(const struct fipcblk_request *got, const u32 *refs,
			 int n, unsigned int nr, u32 k, unsigned int nr_refs)
{
	static u32 want_refs[FIPCBLK_MAX_REFS];
	struct fipcblk_request want;

	hdr_make(&want, want_refs, k, nr_refs);
	if (n != (int)FIPCBLK_REQ_SLOTS(nr_refs) || nr != nr_refs)
		return __LINE__;
	if (got->id != want.id || got->sector != want.sector ||
	    got->nr_bytes != want.nr_bytes ||
	    got->first_offset != want.first_offset || got->op != want.op ||
	    got->flags != want.flags)
		return __LINE__;
	if (memcmp(refs, want_refs, nr_refs * sizeof(*refs)))
		return __LINE__;
	return 0;
}

static void hdr_make_rsp(struct fipcblk_response *rsp, u64 id, u8 op)
{
	memset(rsp, 0, sizeof(*rsp));
	rsp->id = id;
	rsp->op = op;
	rsp->status = id & 4 ? FIPCBLK_RSP_ERROR : FIPCBLK_RSP_OKAY;
}

/* The order the k-th of @n requests taken together is answered in. */
static unsigned int hdr_perm(unsigned int round, unsigned int k,
			     unsigned int n)
{
	switch (round % 3) {
	case 0:
		return k;
	case 1:
		return n - 1 - k;
	default:
		return (k + round) % n;
	}
}

#define HDR_BATCH	FIPCBLK_RING_SLOTS(FIPCBLK_RING_MAX_ORDER)
#define HDR_AGAIN	1	/* the ring is full, or nothing came yet */

/*
 * Both ends of a ring under test, parameterised by the header's peer's
 * side: with peer_back clear, the header's frontend asks and lib/fipc's
 * server answers; with it set, lib/fipc's client asks the header's
 * backend.  The asking end uses front or cl and the ask_ buffers, the
 * answering one srv or back and the ans_ buffers (each in its own thread
 * in hdr_threads()).  The helpers below are each end's step, whichever
 * it is, so that one loop drives either pairing.
 */
struct hdr_ends {
	bool peer_back;
	struct peer_front front;
	struct fipc_duplex_server srv;
	struct fipc_duplex_client cl;
	struct peer_back back;
	struct fipc_msg ask_bufs[FIPC_MSG_MAX_SLOTS];
	struct fipc_msg ans_bufs[FIPC_MSG_MAX_SLOTS];
	u32 ask_refs[FIPCBLK_MAX_REFS];
	u32 ans_refs[FIPCBLK_MAX_REFS];
};

/* Both ends on the zeroed ring @mem; @batch: the answerer's (0: default). */
static int hdr_ends_init(struct hdr_ends *e, bool peer_back, void *mem,
			 unsigned int order, unsigned int batch)
{
	int err;

	e->peer_back = peer_back;
	if (peer_back) {
		peer_back_init(&e->back, mem, order, batch);
		return fipc_duplex_client_init(&e->cl, mem, order);
	}
	peer_front_init(&e->front, mem, order);
	err = fipc_duplex_server_init(&e->srv, mem, order);
	if (!err && batch)
		err = fipc_duplex_set_ack_batch(&e->srv, batch);
	return err;
}

/* The asker sends request @k with @nr references: 0, HDR_AGAIN, error. */
static int hdr_send(struct hdr_ends *e, u32 k, unsigned int nr)
{
	struct fipcblk_request req;
	int err;

	if (e->peer_back) {
		err = fipc_duplex_call(&e->cl, e->ask_bufs,
				       hdr_encode(e->ask_bufs, k, nr));
		return err == -EAGAIN ? HDR_AGAIN : err;
	}
	hdr_make(&req, e->ask_refs, k, nr);
	err = peer_front_request(&e->front, &req, e->ask_refs, nr);
	return err == PEER_FULL ? HDR_AGAIN : err;
}

/*
 * The answerer takes the next request into @req: its slots, 0 if there is
 * none yet, or an error; *@line: 0 if it is request @k with @nr
 * references, else where the check failed.
 */
static int hdr_take(struct hdr_ends *e, struct fipcblk_request *req, u32 k,
		    unsigned int nr, int *line)
{
	unsigned int got_nr;
	int len;

	*line = 0;
	if (e->peer_back) {
		len = peer_back_request(&e->back, req, e->ans_refs, &got_nr);
		if (len == PEER_EMPTY)
			return 0;
		*line = hdr_check_req(req, e->ans_refs, len, got_nr, k, nr);
		return len;
	}
	len = fipc_duplex_take_request(&e->srv, e->ans_bufs,
				       FIPC_MSG_MAX_SLOTS, NULL);
	if (len == -EAGAIN)
		return 0;
	if (len > 0) {
		*line = hdr_check_msgs(e->ans_bufs, len, k, nr);
		memcpy(req, e->ans_bufs[0].data, sizeof(*req));
	}
	return len;
}

/* The answerer answers a request taken: 0 or an error. */
static int hdr_answer(struct hdr_ends *e, const struct fipcblk_response *rsp)
{
	struct fipc_msg reply;

	if (e->peer_back)
		return peer_back_response(&e->back, rsp);
	memset(&reply, 0, sizeof(reply));
	memcpy(reply.data, rsp, sizeof(*rsp));
	return fipc_duplex_reply(&e->srv, &reply);
}

/* The asker takes the next response: 0, HDR_AGAIN or an error. */
static int hdr_receive(struct hdr_ends *e, struct fipcblk_response *rsp)
{
	struct fipc_msg reply;
	int err;

	if (!e->peer_back) {
		err = peer_front_response(&e->front, rsp);
		return err == PEER_EMPTY ? HDR_AGAIN : err;
	}
	err = fipc_duplex_take_reply(&e->cl, &reply);
	if (!err)
		memcpy(rsp, reply.data, sizeof(*rsp));
	return err == -EAGAIN ? HDR_AGAIN : err;
}

/* Neither end found the other breaking the protocol. */
static void hdr_ends_sound(struct kunit *test, struct hdr_ends *e)
{
	if (e->peer_back) {
		RT_EXPECT_EQ(fipc_duplex_client_error(&e->cl), 0);
		RT_EXPECT_EQ(e->back.broken, 0);
	} else {
		RT_EXPECT_EQ(fipc_duplex_server_error(&e->srv), 0);
		RT_EXPECT_EQ(e->front.broken, 0);
	}
}

/* Both ends after many laps: no error, and the header's end did laps. */
static void hdr_ends_check(struct kunit *test, struct hdr_ends *e)
{
	hdr_ends_sound(test, e);
	if (e->peer_back) {
		RT_EXPECT_EQ(e->back.unanswered, 0);
		RT_EXPECT(e->back.read > 16u * e->back.nr_slots);
	} else {
		RT_EXPECT_EQ(e->front.calls, 0);
		RT_EXPECT(e->front.submit > 16u * e->front.nr_slots);
	}
}

/* A ring of the largest order, its ends, and a batch's ids and ops. */
struct hdr_mem {
	void *mem;
	struct hdr_ends *ends;
	u64 *ids;
	u8 *ops;
	u64 *order_ids;
};

static struct hdr_mem *hdr_mem(struct kunit *test)
{
	struct hdr_mem *m = rt_zalloc(test, sizeof(*m));

	RT_ASSERT(m);
	m->mem = rt_ring_alloc(test, FIPCBLK_RING_MAX_ORDER);
	m->ends = rt_zalloc(test, sizeof(*m->ends));
	m->ids = rt_zalloc(test, HDR_BATCH * sizeof(*m->ids));
	m->ops = rt_zalloc(test, HDR_BATCH);
	m->order_ids = rt_zalloc(test, HDR_BATCH * sizeof(*m->order_ids));
	RT_ASSERT(m->mem && m->ends && m->ids && m->ops && m->order_ids);
	return m;
}

/*
 * An asker against an answerer, interleaved: the asker fills the ring,
 * the answerer takes every request, in order and intact, and answers them
 * in a permuted order, the asker takes every response as it was written.
 */
static void hdr_laps(struct kunit *test, struct hdr_mem *m, bool peer_back,
		     unsigned int order, unsigned int batch, u32 total)
{
	struct hdr_ends *e = m->ends;
	u64 *ids = m->ids;
	u8 *ops = m->ops;
	u64 *order_ids = m->order_ids;
	struct fipcblk_request req;
	struct fipcblk_response rsp;
	u32 sent = 0, taken = 0, answered = 0, round = 0, fulls = 0;
	unsigned int n, i, j;
	int len, err, line;

	memset(m->mem, 0, FIPCBLK_PAGE_BYTES << order);
	RT_ASSERT_EQ(hdr_ends_init(e, peer_back, m->mem, order, batch), 0);
	while (answered < total) {
		/* The asker sends until the ring is full. */
		while (sent < total) {
			err = hdr_send(e, sent,
				       hdr_nr_refs(sent, FIPCBLK_MAX_REFS));
			if (err == HDR_AGAIN) {
				fulls++;
				break;
			}
			RT_ASSERT_MSG(!err, "request %u: %d", sent, err);
			sent++;
		}
		/* The answerer takes them all, in order, intact. */
		for (n = 0; ; n++) {
			len = hdr_take(e, &req, taken,
				       hdr_nr_refs(taken, FIPCBLK_MAX_REFS),
				       &line);
			if (!len)
				break;
			RT_ASSERT_MSG(len > 0 && !line,
				      "request %u: %d slots, check line %d",
				      taken, len, line);
			RT_ASSERT(n < HDR_BATCH);
			ids[n] = req.id;
			ops[n] = req.op;
			taken++;
		}
		RT_ASSERT_EQ(taken, sent);
		/* ... and answers them in another order. */
		for (i = 0; i < n; i++) {
			j = hdr_perm(round, i, n);
			hdr_make_rsp(&rsp, ids[j], ops[j]);
			order_ids[i] = ids[j];
			RT_ASSERT_EQ(hdr_answer(e, &rsp), 0);
		}
		/* The asker takes the responses as they were written. */
		for (i = 0; i < n; i++) {
			err = hdr_receive(e, &rsp);
			RT_ASSERT_MSG(!err, "response %u of %u: %d", i, n, err);
			RT_ASSERT_EQ(rsp.id, order_ids[i]);
			RT_EXPECT_EQ(rsp.op, ops[hdr_perm(round, i, n)]);
			RT_EXPECT_EQ(rsp.status, rsp.id & 4 ?
				     FIPCBLK_RSP_ERROR : FIPCBLK_RSP_OKAY);
		}
		RT_ASSERT_EQ(hdr_receive(e, &rsp), HDR_AGAIN);
		answered += n;
		round++;
	}
	hdr_ends_check(test, e);
	/* The ring was found full on the way. */
	RT_EXPECT(fulls > 16);
}

/* Ring orders, the answerer's acknowledgment batches, requests. */
static const struct {
	unsigned int order;
	unsigned int batch;
	u32 total;
} hdr_laps_runs[2][4] = {
	/* The header's frontend; batch 0: the server's default. */
	{ { 0, 0, 3000 }, { 0, 1, 1000 }, { 2, 255, 2000 }, { 4, 0, 2000 } },
	/*
	 * The header's backend: spans up to 255; with 1000, responses
	 * acknowledge first.
	 */
	{ { 0, 1, 3000 }, { 0, 16, 1000 }, { 2, 255, 2000 }, { 4, 1000, 2000 } },
};

static void hdr_laps_all(struct kunit *test, bool peer_back)
{
	struct hdr_mem *m = hdr_mem(test);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hdr_laps_runs[peer_back]); i++)
		hdr_laps(test, m, peer_back, hdr_laps_runs[peer_back][i].order,
			 hdr_laps_runs[peer_back][i].batch,
			 hdr_laps_runs[peer_back][i].total);
}

/* The header's frontend against lib/fipc's server. */
static void hdr_test_front_to_lib(struct kunit *test)
{
	hdr_laps_all(test, false);
}

/* lib/fipc's client against the header's backend. */
static void hdr_test_lib_to_back(struct kunit *test)
{
	hdr_laps_all(test, true);
}

/*
 * The answerer takes request @k of @nr references, answers it, and the
 * asker takes the response.
 */
static void hdr_round_trip(struct kunit *test, struct hdr_ends *e, u32 k,
			   unsigned int nr)
{
	struct fipcblk_request req;
	struct fipcblk_response rsp;
	int line;

	RT_ASSERT_EQ(hdr_take(e, &req, k, nr, &line), FIPCBLK_REQ_SLOTS(nr));
	RT_ASSERT_EQ(line, 0);
	hdr_make_rsp(&rsp, req.id, req.op);
	RT_ASSERT_EQ(hdr_answer(e, &rsp), 0);
	RT_ASSERT_EQ(hdr_receive(e, &rsp), 0);
	RT_ASSERT_EQ(rsp.id, req.id);
}

/*
 * @count one-slot requests (no references) from the asker, numbered from
 * @k: each taken intact, answered and its response taken.
 */
static void hdr_lap(struct kunit *test, struct hdr_ends *e, u32 k,
		    unsigned int count)
{
	unsigned int i;

	for (i = 0; i < count; i++) {
		RT_ASSERT_EQ(hdr_send(e, k + i, 0), 0);
		hdr_round_trip(test, e, k + i, 0);
	}
}

/* Both ends afresh on the order-0 ring @mem, zeroed again. */
static void hdr_ends_fresh(struct kunit *test, struct hdr_ends *e,
			   bool peer_back, void *mem)
{
	memset(mem, 0, FIPCBLK_PAGE_BYTES);
	RT_ASSERT_EQ(hdr_ends_init(e, peer_back, mem, 0, peer_back ? 1 : 0),
		     0);
}

/*
 * The asker fills the ring as the answerer counts it: the header's
 * frontend against lib/fipc's server, or lib/fipc's client against the
 * header's backend (@peer_back).  Requests are numbered as sent, and
 * each is taken intact.
 */
static void hdr_full(struct kunit *test, bool peer_back)
{
	void *mem = rt_ring_alloc(test, 1);
	struct hdr_ends *e = rt_zalloc(test, sizeof(*e));
	const unsigned int slots = FIPCBLK_RING_SLOTS(1);
	const unsigned int big = FIPCBLK_MAX_REFS;
	const unsigned int fit = slots / FIPCBLK_MSG_MAX_SLOTS;
	/* Refs of a 3-slot and of a 2-slot request. */
	const unsigned int nr3 = FIPCBLK_HEAD_REFS + FIPCBLK_CONT_REFS + 1;
	const unsigned int nr2 = FIPCBLK_HEAD_REFS + 1;
	struct fipcblk_request req;
	struct fipcblk_response rsp;
	u32 sent, taken;
	unsigned int i;
	int err, line;

	RT_ASSERT(mem && e);
	/* The backend acknowledges at once (batch 1), the server later. */
	RT_ASSERT_EQ(hdr_ends_init(e, peer_back, mem, 1, peer_back ? 1 : 0),
		     0);
	/* A lap and a half first, so that the ring holds last lap's flags. */
	hdr_lap(test, e, 0, slots + slots / 2);
	sent = slots + slots / 2;
	taken = sent;
	while (!(err = hdr_send(e, sent, 0)))
		sent++;
	RT_EXPECT_EQ(err, HDR_AGAIN);
	RT_EXPECT_EQ(sent - taken, slots);
	/* A response is in the way until it is taken. */
	RT_ASSERT_EQ(hdr_take(e, &req, taken++, 0, &line), 1);
	RT_EXPECT_EQ(line, 0);
	hdr_make_rsp(&rsp, req.id, req.op);
	RT_ASSERT_EQ(hdr_answer(e, &rsp), 0);
	RT_EXPECT_EQ(hdr_send(e, sent, 0), HDR_AGAIN);
	RT_EXPECT_EQ(hdr_receive(e, &rsp), 0);
	RT_EXPECT_EQ(hdr_send(e, sent++, 0), 0);
	RT_EXPECT_EQ(hdr_send(e, sent, 0), HDR_AGAIN);
	/* Drain: slots requests are left. */
	for (i = 0; i < slots; i++)
		hdr_round_trip(test, e, taken++, 0);
	RT_EXPECT_EQ(hdr_take(e, &req, taken, 0, &line), 0);

	/* Two free positions: a 3-slot request waits, a 2-slot one goes. */
	for (i = 0; i < slots - 2; i++)
		RT_ASSERT_EQ(hdr_send(e, sent++, 0), 0);
	RT_EXPECT_EQ(hdr_send(e, sent, nr3), HDR_AGAIN);
	RT_EXPECT_EQ(hdr_send(e, sent++, nr2), 0);
	RT_EXPECT_EQ(hdr_send(e, sent, 0), HDR_AGAIN);
	for (i = 0; i < slots - 2; i++)
		hdr_round_trip(test, e, taken++, 0);
	hdr_round_trip(test, e, taken++, nr2);

	/*
	 * Acknowledgments give room back before the responses: with a batch
	 * of 1, two maximal requests taken leave two positions held.
	 */
	if (!peer_back)
		RT_ASSERT_EQ(fipc_duplex_set_ack_batch(&e->srv, 1), 0);
	for (i = 0; i < fit; i++)
		RT_ASSERT_EQ(hdr_send(e, sent++, big), 0);
	RT_EXPECT_EQ(hdr_send(e, sent, big), HDR_AGAIN);
	for (i = 0; i < fit; i++) {
		RT_ASSERT_EQ(hdr_take(e, &req, taken++, big, &line),
			     FIPCBLK_MSG_MAX_SLOTS);
		RT_EXPECT_EQ(line, 0);
	}
	for (i = 0; i < fit - 1; i++)
		RT_EXPECT_EQ(hdr_send(e, sent++, big), 0);
	RT_EXPECT_EQ(hdr_send(e, sent, big), HDR_AGAIN);
	hdr_ends_sound(test, e);
}

/* The frontend fills the ring as lib/fipc's server counts it. */
static void hdr_test_front_full(struct kunit *test)
{
	hdr_full(test, false);
}

/* lib/fipc's client fills the ring as the header's backend counts it. */
static void hdr_test_back_full(struct kunit *test)
{
	hdr_full(test, true);
}

/* The header's backend takes no forged or stale flag. */
static void hdr_test_back_forged(struct kunit *test)
{
	void *mem = rt_ring_alloc(test, 0);
	struct hdr_ends *e = rt_zalloc(test, sizeof(*e));
	struct fipc_msg *bufs = rt_bufs(test, FIPC_MSG_MAX_SLOTS);
	static u32 refs[FIPCBLK_MAX_REFS];
	const unsigned int slots = FIPCBLK_RING_SLOTS(0);
	struct fipcblk_slot *ring = mem;
	struct fipcblk_request req;
	struct fipcblk_response rsp;
	struct fipc_msg reply;
	unsigned int nr, i;
	static const u32 bad[] = {
		HDR_FLAG(CALL, 1, 64, 0),	/* next lap's */
		HDR_FLAG(POST, 1, 0, 0),	/* never from a frontend */
		HDR_FLAG(CALL, 0, 0, 0),	/* a continuation as head */
		HDR_FLAG(CALL, 33, 0, 0),	/* too long */
		HDR_FLAG(REPLY, 1, 0, 0),	/* the backend's own kind */
		HDR_FLAG(ACK, 1, 0, 0),
	};

	RT_ASSERT(mem && e && bufs);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		hdr_ends_fresh(test, e, true, mem);
		RT_EXPECT_EQ(peer_back_request(&e->back, &req, refs, &nr),
			     PEER_EMPTY);
		ring[0].flag = bad[i];
		RT_EXPECT_EQ_MSG(peer_back_request(&e->back, &req, refs, &nr),
				 PEER_BROKEN, "flag %x", bad[i]);
		/* Sticky: a good request afterwards is not taken either. */
		ring[0].flag = HDR_FLAG(CALL, 1, 0, 0);
		RT_EXPECT_EQ(peer_back_request(&e->back, &req, refs, &nr),
			     PEER_BROKEN);
		RT_EXPECT_EQ(e->back.read, 0);
	}
	/* The retired one-way ring's flag. */
	hdr_ends_fresh(test, e, true, mem);
	ring[0].flag = FIPCBLK_FLAG(1, 0);
	RT_EXPECT_EQ(peer_back_request(&e->back, &req, refs, &nr),
		     PEER_BROKEN);

	/* A continuation flag not exactly CALL, 0, its lap. */
	hdr_ends_fresh(test, e, true, mem);
	ring[1].flag = HDR_FLAG(CALL, 0, 64, 0);
	ring[0].flag = HDR_FLAG(CALL, 2, 0, 0);
	RT_EXPECT_EQ(peer_back_request(&e->back, &req, refs, &nr),
		     PEER_BROKEN);
	RT_EXPECT_EQ(e->back.read, 0);

	/*
	 * Through lib/fipc's client: a lap, then what the last lap left is
	 * "nothing yet", replayed requests included; anything else is not.
	 */
	hdr_ends_fresh(test, e, true, mem);
	hdr_lap(test, e, 0, slots);
	RT_EXPECT_EQ(ring[0].flag, HDR_FLAG(REPLY, 1, 0, 0));
	RT_EXPECT_EQ(peer_back_request(&e->back, &req, refs, &nr),
		     PEER_EMPTY);
	ring[0].flag = HDR_FLAG(CALL, 1, 0, 0);		/* a replay */
	RT_EXPECT_EQ(peer_back_request(&e->back, &req, refs, &nr),
		     PEER_EMPTY);
	ring[0].flag = HDR_FLAG(ACK, 3, 0, 0);
	RT_EXPECT_EQ(peer_back_request(&e->back, &req, refs, &nr),
		     PEER_EMPTY);
	RT_EXPECT_EQ(e->back.read, slots);
	ring[0].flag = FIPCBLK_FLAG_FREE;		/* zero after a lap */
	RT_EXPECT_EQ(peer_back_request(&e->back, &req, refs, &nr),
		     PEER_BROKEN);

	/* Overfill: a request reaching a position not handed back. */
	hdr_ends_fresh(test, e, true, mem);
	for (i = 0; i < slots; i++) {
		RT_ASSERT_EQ(fipc_duplex_call(&e->cl, bufs,
					      hdr_encode(bufs, i, 0)), 0);
		RT_ASSERT_EQ(peer_back_request(&e->back, &req, refs, &nr), 1);
	}
	/* Last lap's request, not retired: no response may be there. */
	ring[0].flag = HDR_FLAG(REPLY, 1, 0, 0);
	RT_EXPECT_EQ(peer_back_request(&e->back, &req, refs, &nr),
		     PEER_BROKEN);
	e->back.broken = 0;	/* unstick it, for one more forged flag */
	ring[0].flag = HDR_FLAG(CALL, 1, slots, 0);
	RT_EXPECT_EQ(peer_back_request(&e->back, &req, refs, &nr),
		     PEER_BROKEN);
	RT_EXPECT_EQ(e->back.read, slots);

	/* A length its fields do not call for: taken, answered an error. */
	hdr_ends_fresh(test, e, true, mem);
	hdr_encode(bufs, 1, 0);			/* a flush, no references */
	RT_ASSERT_EQ(fipc_duplex_call(&e->cl, bufs, 2), 0);
	RT_EXPECT_EQ(peer_back_request(&e->back, &req, refs, &nr),
		     PEER_INVALID);
	hdr_make_rsp(&rsp, req.id, req.op);
	rsp.status = FIPCBLK_RSP_ERROR;
	RT_EXPECT_EQ(peer_back_response(&e->back, &rsp), PEER_OK);
	RT_EXPECT_EQ(peer_back_response(&e->back, &rsp), PEER_BROKEN);
	RT_EXPECT_EQ(fipc_duplex_take_reply(&e->cl, &reply), 0);
	memcpy(&rsp, reply.data, sizeof(rsp));
	RT_EXPECT_EQ(rsp.status, FIPCBLK_RSP_ERROR);
	RT_EXPECT_EQ(fipc_duplex_client_error(&e->cl), 0);
}

/* The header's frontend takes no forged or stale flag. */
static void hdr_test_front_forged(struct kunit *test)
{
	void *mem = rt_ring_alloc(test, 0);
	struct hdr_ends *e = rt_zalloc(test, sizeof(*e));
	struct fipc_msg *bufs = rt_bufs(test, FIPC_MSG_MAX_SLOTS);
	const unsigned int slots = FIPCBLK_RING_SLOTS(0);
	struct fipcblk_slot *ring = mem;
	struct fipcblk_request req;
	struct fipcblk_response rsp;
	unsigned int i;
	static const struct {
		unsigned int sent;	/* one-slot requests before */
		u32 flag;		/* then at position 0 */
	} bad[] = {
		{ 0, HDR_FLAG(REPLY, 1, 0, 0) },	/* nothing was sent */
		{ 0, HDR_FLAG(ACK, 1, 0, 0) },
		{ 1, HDR_FLAG(REPLY, 2, 0, 0) },	/* past what was sent */
		{ 2, HDR_FLAG(REPLY, 2, 0, 0) },	/* the other call's */
		{ 2, HDR_FLAG(ACK, 1, 0, 0) },		/* both held for calls */
		{ 1, HDR_FLAG(REPLY, 1, 64, 0) },	/* next lap's */
		{ 1, HDR_FLAG(REPLY, 0, 0, 0) },
		{ 1, HDR_FLAG(CALL, 33, 0, 0) },
		{ 1, FIPCBLK_FLAG(1, 0) },		/* retired kind */
	};

	RT_ASSERT(mem && e && bufs);
	memset(&req, 0, sizeof(req));
	req.op = FIPCBLK_OP_FLUSH;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		hdr_ends_fresh(test, e, false, mem);
		RT_EXPECT_EQ(peer_front_response(&e->front, &rsp), PEER_EMPTY);
		while (e->front.submit < bad[i].sent)
			RT_ASSERT_EQ(peer_front_request(&e->front, &req,
							NULL, 0), PEER_OK);
		/* Its own request there: nothing yet. */
		RT_EXPECT_EQ(peer_front_response(&e->front, &rsp), PEER_EMPTY);
		ring[0].flag = bad[i].flag;
		RT_EXPECT_EQ_MSG(peer_front_response(&e->front, &rsp),
				 PEER_BROKEN, "case %u", i);
		RT_EXPECT_EQ(e->front.done, 0);
		RT_EXPECT_EQ(peer_front_request(&e->front, &req, NULL, 0),
			     PEER_BROKEN);
	}

	/* After a lap, last lap's flags are nothing yet; a fresh one not. */
	hdr_ends_fresh(test, e, false, mem);
	hdr_lap(test, e, 0, slots);
	RT_EXPECT_EQ(peer_front_response(&e->front, &rsp), PEER_EMPTY);
	ring[0].flag = HDR_FLAG(CALL, 1, 0, 0);
	RT_EXPECT_EQ(peer_front_response(&e->front, &rsp), PEER_EMPTY);
	ring[0].flag = HDR_FLAG(ACK, 9, 0, 0);
	RT_EXPECT_EQ(peer_front_response(&e->front, &rsp), PEER_EMPTY);
	ring[0].flag = HDR_FLAG(REPLY, 1, slots, 0);	/* this lap's */
	RT_EXPECT_EQ(peer_front_response(&e->front, &rsp), PEER_BROKEN);
	RT_EXPECT_EQ(e->front.done, slots);

	/* lib/fipc's server reads the header's flags as the peer does. */
	hdr_ends_fresh(test, e, false, mem);
	ring[0].flag = HDR_FLAG(CALL, 1, 64, 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&e->srv, bufs, 1, NULL),
		     -EPROTO);
	hdr_ends_fresh(test, e, false, mem);
	hdr_lap(test, e, 0, slots);
	ring[0].flag = HDR_FLAG(CALL, 1, 0, 0);
	RT_EXPECT_EQ(fipc_duplex_take_request(&e->srv, bufs, 1, NULL),
		     -EAGAIN);
}

/* fipcblk.h's constants are lib/fipc's. */
static void hdr_test_constants(struct kunit *test)
{
	unsigned int o;

	RT_EXPECT_EQ(FIPCBLK_DUPLEX_CALL, FIPC_DUPLEX_CALL);
	RT_EXPECT_EQ(FIPCBLK_DUPLEX_POST, FIPC_DUPLEX_POST);
	RT_EXPECT_EQ(FIPCBLK_DUPLEX_REPLY, FIPC_DUPLEX_REPLY);
	RT_EXPECT_EQ(FIPCBLK_DUPLEX_ACK, FIPC_DUPLEX_ACK);
	RT_EXPECT_EQ(FIPCBLK_SLOT_BYTES, sizeof(struct fipc_slot));
	RT_EXPECT_EQ(FIPCBLK_SLOT_FLAG_OFFSET, offsetof(struct fipc_slot, flag));
	RT_EXPECT_EQ(FIPCBLK_MSG_BYTES, FIPC_SLOT_PAYLOAD);
	RT_EXPECT_EQ(FIPCBLK_MSG_MAX_SLOTS, FIPC_MSG_MAX_SLOTS);
	RT_EXPECT_EQ(FIPCBLK_PAGE_BYTES, FIPC_PAGE_BYTES);
	RT_EXPECT_EQ(FIPCBLK_RING_MIN_ORDER, FIPC_MIN_ORDER);
	RT_EXPECT_EQ(FIPCBLK_RING_MAX_ORDER, FIPC_MAX_ORDER);
	for (o = FIPCBLK_RING_MIN_ORDER; o <= FIPCBLK_RING_MAX_ORDER; o++) {
		RT_EXPECT_EQ(FIPCBLK_RING_SLOTS(o), FIPC_RING_SLOTS(o));
		RT_EXPECT_EQ(FIPCBLK_DUPLEX_LAP(12345u, o),
			     12345u >> FIPC_DUPLEX_LAP_SHIFT(o));
	}
}

/*
 * Two threads, one ring: each end runs on its own, as in two domains.
 * A thread records the first thing that went wrong and stops both.
 */
#define HDR_TH_MSGS	100000u
#define HDR_TH_REFS	40	/* up to 3 slots a request */

struct hdr_th {
	struct hdr_ends *ends;
	void *mem;
	unsigned int order;
	u32 total;
	u8 *seen;		/* responses taken, by request number */
	int stop;
	int line;		/* where it failed, 0 if it did not */
	u32 at;			/* at which request */
	int err;		/* with what */
};

static bool hdr_th_stopped(struct hdr_th *t)
{
	return __atomic_load_n(&t->stop, __ATOMIC_RELAXED);
}

static int hdr_th_fail(struct hdr_th *t, int line, u32 at, int err)
{
	if (!__atomic_exchange_n(&t->stop, 1, __ATOMIC_RELAXED)) {
		t->line = line;
		t->at = at;
		t->err = err;
	}
	return -1;
}

/* A response's id names a request sent and not answered yet. */
static bool hdr_th_seen(struct hdr_th *t, u64 id, u32 sent)
{
	u64 k = id - 0x5eed000000000000ull;

	if (k >= sent || t->seen[k])
		return false;
	t->seen[k] = 1;
	return true;
}

/* The asker's thread: sends as the ring has room, takes what comes. */
static int hdr_th_ask(void *arg)
{
	struct hdr_th *t = arg;
	struct fipcblk_response rsp;
	struct hdr_ends *e = t->ends;
	u32 sent = 0, got = 0;
	bool moved;
	int err;

	while (got < t->total && !hdr_th_stopped(t)) {
		moved = false;
		if (sent < t->total) {
			err = hdr_send(e, sent, hdr_nr_refs(sent, HDR_TH_REFS));
			if (!err) {
				sent++;
				moved = true;
			} else if (err != HDR_AGAIN) {
				return hdr_th_fail(t, __LINE__, sent, err);
			}
		}
		err = hdr_receive(e, &rsp);
		if (!err) {
			if (!hdr_th_seen(t, rsp.id, sent))
				return hdr_th_fail(t, __LINE__, got, 0);
			got++;
			moved = true;
		} else if (err != HDR_AGAIN) {
			return hdr_th_fail(t, __LINE__, got, err);
		}
		if (!moved)
			sched_yield();
	}
	return 0;
}

/*
 * The answerer's thread: answers held (if any) after the request just
 * taken, so that pairs of requests are answered swapped.
 */
static int hdr_th_answer(void *arg)
{
	struct hdr_th *t = arg;
	struct fipcblk_request req;
	struct fipcblk_response rsp, held;
	struct hdr_ends *e = t->ends;
	u32 taken = 0, answered = 0;
	bool holding = false;
	int len, line;

	while (answered < t->total && !hdr_th_stopped(t)) {
		len = hdr_take(e, &req, taken, hdr_nr_refs(taken, HDR_TH_REFS),
			       &line);
		if (!len) {
			if (holding) {
				if (hdr_answer(e, &held))
					return hdr_th_fail(t, __LINE__,
							   answered, 0);
				holding = false;
				answered++;
			}
			sched_yield();
			continue;
		}
		if (len < 0 || line)
			return hdr_th_fail(t, __LINE__, taken, len);
		taken++;
		hdr_make_rsp(&rsp, req.id, req.op);
		if (!holding && (taken & 1)) {
			held = rsp;
			holding = true;
			continue;
		}
		if (hdr_answer(e, &rsp))
			return hdr_th_fail(t, __LINE__, answered, 0);
		answered++;
		if (holding) {
			if (hdr_answer(e, &held))
				return hdr_th_fail(t, __LINE__, answered, 0);
			holding = false;
			answered++;
		}
	}
	return 0;
}

/* @batch: the answerer's acknowledgment batch (0: its default). */
static void hdr_threads(struct kunit *test, bool peer_back, unsigned int batch,
			const char *what)
{
	struct hdr_th t = { .order = 0, .total = HDR_TH_MSGS };
	struct rt_thread ta, tb;
	u32 k;

	t.mem = rt_ring_alloc(test, t.order);
	t.seen = rt_zalloc(test, t.total);
	t.ends = rt_zalloc(test, sizeof(*t.ends));
	RT_ASSERT(t.mem && t.seen && t.ends);
	RT_ASSERT_EQ(hdr_ends_init(t.ends, peer_back, t.mem, t.order, batch),
		     0);
	RT_ASSERT_EQ(rt_thread_start(&ta, hdr_th_ask, &t, "hdr-a"), 0);
	if (rt_thread_start(&tb, hdr_th_answer, &t, "hdr-b")) {
		hdr_th_fail(&t, __LINE__, 0, 0);
		rt_thread_join(&ta);
		RT_ASSERT(0);
	}
	if (!rt_thread_wait(&ta, 120000) || !rt_thread_wait(&tb, 1000))
		hdr_th_fail(&t, __LINE__, 0, 0);	/* a watchdog */
	rt_thread_join(&ta);
	rt_thread_join(&tb);
	RT_EXPECT_EQ_MSG(t.line, 0, "%s: line %d at %u, error %d", what,
			 t.line, t.at, t.err);
	for (k = 0; k < t.total && t.seen[k]; k++)
		;
	RT_EXPECT_EQ_MSG(k, t.total, "%s: response %u missing", what, k);
}

static void hdr_test_threads(struct kunit *test)
{
	hdr_threads(test, false, 0, "header front, lib server");
	hdr_threads(test, true, 4, "lib client, header back");
}

static struct rt_case hdr_cases[] = {
	RT_CASE(hdr_test_constants),
	RT_CASE(hdr_test_front_to_lib),
	RT_CASE(hdr_test_lib_to_back),
	RT_CASE(hdr_test_front_full),
	RT_CASE(hdr_test_back_full),
	RT_CASE(hdr_test_front_forged),
	RT_CASE(hdr_test_back_forged),
	RT_CASE(hdr_test_threads),
	RT_END
};

RT_SUITE(fipcblk_header, hdr_cases);
