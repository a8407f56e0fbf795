// SPDX-License-Identifier: GPL-2.0
/*
 * Both ends of a fipcblk duplex ring (protocol 3) from the public header
 * alone: the rules of fipcblk.h's "Rings" part with its constants,
 * structures and helpers only.  Built as C99 with -pedantic and without
 * lib/fipc's include path (tests/user/rules.mk), as an OS-neutral peer
 * would be; the orderings the header asks for are GCC's __atomic
 * builtins.  Each flag is loaded once and judged by that value.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <public/io/fipcblk.h>
#include "header_peer.h"

#define PEER_KIND(flag)		((flag) & FIPCBLK_FLAG_KIND_MASK)
#define PEER_COUNT(flag) \
	(((flag) & FIPCBLK_FLAG_LEN_MASK) >> FIPCBLK_FLAG_LEN_SHIFT)
#define PEER_COUNT_MAX	(FIPCBLK_FLAG_LEN_MASK >> FIPCBLK_FLAG_LEN_SHIFT)

static uint32_t peer_load_acquire(const struct fipcblk_slot *s)
{
	return __atomic_load_n(&s->flag, __ATOMIC_ACQUIRE);
}

static uint32_t peer_load(const struct fipcblk_slot *s)
{
	return __atomic_load_n(&s->flag, __ATOMIC_RELAXED);
}

static void peer_store_release(struct fipcblk_slot *s, uint32_t flag)
{
	__atomic_store_n(&s->flag, flag, __ATOMIC_RELEASE);
}

static void peer_store(struct fipcblk_slot *s, uint32_t flag)
{
	__atomic_store_n(&s->flag, flag, __ATOMIC_RELAXED);
}

static struct fipcblk_slot *peer_slot(struct fipcblk_slot *slots,
				      uint32_t nr_slots, uint32_t pos)
{
	return &slots[pos & (nr_slots - 1)];
}

/* The flag of kind and count at position pos of a ring of this order. */
static uint32_t peer_flag(uint32_t kind, uint32_t count, uint32_t pos,
			  uint32_t order)
{
	return FIPCBLK_DUPLEX_FLAG(kind, count, FIPCBLK_DUPLEX_LAP(pos, order));
}

static int peer_stamped(uint32_t flag, uint32_t pos, uint32_t order)
{
	return (flag & FIPCBLK_FLAG_STAMP_MASK) ==
	       (FIPCBLK_DUPLEX_LAP(pos, order) & FIPCBLK_FLAG_STAMP_MASK);
}

/*
 * "Nothing yet" at pos: what position pos - slots left there; a response
 * or acknowledgment only if that position has been retired.
 */
static int peer_nothing_yet(uint32_t flag, uint32_t pos, uint32_t nr_slots,
			    uint32_t order, int retired)
{
	uint32_t count = PEER_COUNT(flag);

	if (flag == FIPCBLK_FLAG_FREE)
		return pos < nr_slots;
	if (pos < nr_slots || !peer_stamped(flag, pos - nr_slots, order))
		return 0;
	switch (PEER_KIND(flag)) {
	case FIPCBLK_DUPLEX_CALL:
	case FIPCBLK_DUPLEX_POST:
		return count <= FIPCBLK_MSG_MAX_SLOTS;
	case FIPCBLK_DUPLEX_REPLY:
	case FIPCBLK_DUPLEX_ACK:
		return retired && count >= 1;
	default:
		return 0;
	}
}

void peer_front_init(struct peer_front *f, void *mem, unsigned int order)
{
	memset(f, 0, sizeof(*f));
	f->slots = mem;
	f->order = order;
	f->nr_slots = FIPCBLK_RING_SLOTS(order);
}

/*
 * Look at done once: PEER_OK with the response copied into rsp (if rsp)
 * or, for an acknowledgment, with rsp left alone and *ack set; done moves
 * by the count.  PEER_EMPTY or PEER_BROKEN otherwise.
 */
static int peer_front_look(struct peer_front *f, struct fipcblk_response *rsp,
			   int *ack)
{
	struct fipcblk_slot *s = peer_slot(f->slots, f->nr_slots, f->done);
	uint32_t held = f->submit - f->done;
	uint32_t flag = peer_load_acquire(s), count = PEER_COUNT(flag);

	*ack = 0;
	if (!held) {
		if (peer_nothing_yet(flag, f->done, f->nr_slots, f->order, 1))
			return PEER_EMPTY;
		goto broken;
	}
	if (!peer_stamped(flag, f->done, f->order))
		goto broken;
	switch (PEER_KIND(flag)) {
	case FIPCBLK_DUPLEX_CALL:
		if (count > FIPCBLK_MSG_MAX_SLOTS)
			goto broken;
		return PEER_EMPTY;
	case FIPCBLK_DUPLEX_REPLY:
		if (!f->calls || !count || count > held - (f->calls - 1))
			goto broken;
		if (!rsp)
			return PEER_EMPTY;
		memcpy(rsp, s->payload, sizeof(*rsp));
		f->calls--;
		break;
	case FIPCBLK_DUPLEX_ACK:
		if (!count || count > held - f->calls)
			goto broken;
		*ack = 1;
		break;
	default:
		goto broken;
	}
	f->done += count;
	return PEER_OK;
broken:
	f->broken = 1;
	return PEER_BROKEN;
}

/*
 * Post a request with nr_refs references: PEER_OK, PEER_FULL (take
 * responses and try again) or PEER_BROKEN.  Acknowledgments at done are
 * taken when room is short; responses only by peer_front_response().
 */
int peer_front_request(struct peer_front *f,
		       const struct fipcblk_request *req, const uint32_t *refs,
		       unsigned int nr_refs)
{
	struct fipcblk_slot msg[FIPCBLK_MSG_MAX_SLOTS];
	uint32_t n, i, pos = f->submit;
	int err, ack;

	if (f->broken || nr_refs > FIPCBLK_MAX_REFS)
		return PEER_BROKEN;
	n = FIPCBLK_REQ_SLOTS(nr_refs);
	while (f->nr_slots - (f->submit - f->done) < n) {
		err = peer_front_look(f, NULL, &ack);
		if (err == PEER_BROKEN)
			return err;
		if (!ack)
			return PEER_FULL;
	}
	memset(msg, 0, sizeof(msg));
	memcpy(msg[0].payload, req, sizeof(*req));
	memset(msg[0].payload + offsetof(struct fipcblk_request, refs), 0,
	       sizeof(req->refs));
	for (i = 0; i < nr_refs; i++)
		memcpy(msg[FIPCBLK_REF_SLOT(i)].payload + FIPCBLK_REF_OFFSET(i),
		       &refs[i], sizeof(refs[i]));
	for (i = 1; i < n; i++) {
		struct fipcblk_slot *s = peer_slot(f->slots, f->nr_slots,
						   pos + i);

		memcpy(s->payload, msg[i].payload, FIPCBLK_MSG_BYTES);
		peer_store(s, peer_flag(FIPCBLK_DUPLEX_CALL, 0, pos + i,
					f->order));
	}
	memcpy(peer_slot(f->slots, f->nr_slots, pos)->payload, msg[0].payload,
	       FIPCBLK_MSG_BYTES);
	peer_store_release(peer_slot(f->slots, f->nr_slots, pos),
			   peer_flag(FIPCBLK_DUPLEX_CALL, n, pos, f->order));
	f->submit = pos + n;
	f->calls++;
	return PEER_OK;
}

/*
 * Take the next response (acknowledgments on the way): PEER_OK with it in
 * rsp, PEER_EMPTY, or PEER_BROKEN.  The caller checks rsp->id.
 */
int peer_front_response(struct peer_front *f, struct fipcblk_response *rsp)
{
	int err, ack;

	if (f->broken)
		return PEER_BROKEN;
	do
		err = peer_front_look(f, rsp, &ack);
	while (!err && ack);
	return err;
}

void peer_back_init(struct peer_back *b, void *mem, unsigned int order,
		    unsigned int ack_batch)
{
	memset(b, 0, sizeof(*b));
	b->slots = mem;
	b->order = order;
	b->nr_slots = FIPCBLK_RING_SLOTS(order);
	b->ack_batch = ack_batch ? ack_batch : 1;
}

/* References a request's fields call for (data addressing, fipcblk.h). */
unsigned int peer_request_refs(const struct fipcblk_request *req)
{
	uint64_t bytes = (uint64_t)req->first_offset + req->nr_bytes;

	if (req->op != FIPCBLK_OP_READ && req->op != FIPCBLK_OP_WRITE)
		return 0;
	bytes = (bytes + FIPCBLK_PAGE_BYTES - 1) / FIPCBLK_PAGE_BYTES;
	return bytes > FIPCBLK_MAX_REFS ? FIPCBLK_MAX_REFS + 1 :
	       (unsigned int)bytes;
}

/* Hand back n positions at complete, at most PEER_COUNT_MAX a flag. */
static void peer_back_ack(struct peer_back *b, uint32_t n)
{
	uint32_t count;

	while (n) {
		count = n < PEER_COUNT_MAX ? n : PEER_COUNT_MAX;
		peer_store_release(peer_slot(b->slots, b->nr_slots,
					     b->complete),
				   peer_flag(FIPCBLK_DUPLEX_ACK, count,
					     b->complete, b->order));
		b->complete += count;
		n -= count;
	}
}

/*
 * Take the next request into req and refs (room for FIPCBLK_MAX_REFS),
 * its references' number in *nr_refs: its length in slots;
 * PEER_INVALID when the length is not what its fields call for (taken:
 * answer it with an error); PEER_EMPTY; PEER_BROKEN.
 */
int peer_back_request(struct peer_back *b, struct fipcblk_request *req,
		      uint32_t *refs, unsigned int *nr_refs)
{
	struct fipcblk_slot msg[FIPCBLK_MSG_MAX_SLOTS];
	uint32_t pos = b->read, flag, n, i, retirable;
	unsigned int nr;

	if (b->broken)
		return PEER_BROKEN;
	flag = peer_load_acquire(peer_slot(b->slots, b->nr_slots, pos));
	n = PEER_COUNT(flag);
	if (PEER_KIND(flag) != FIPCBLK_DUPLEX_CALL ||
	    !peer_stamped(flag, pos, b->order)) {
		if (peer_nothing_yet(flag, pos, b->nr_slots, b->order,
				     pos - b->complete < b->nr_slots))
			return PEER_EMPTY;
		goto broken;
	}
	if (n < 1 || n > FIPCBLK_MSG_MAX_SLOTS ||
	    pos + n - b->complete > b->nr_slots)
		goto broken;
	for (i = 1; i < n; i++)
		if (peer_load(peer_slot(b->slots, b->nr_slots, pos + i)) !=
		    peer_flag(FIPCBLK_DUPLEX_CALL, 0, pos + i, b->order))
			goto broken;
	for (i = 0; i < n; i++)
		memcpy(msg[i].payload,
		       peer_slot(b->slots, b->nr_slots, pos + i)->payload,
		       FIPCBLK_MSG_BYTES);
	b->read = pos + n;
	b->unanswered++;
	retirable = b->read - b->complete - b->unanswered;
	if (retirable >= b->ack_batch)
		peer_back_ack(b, retirable);

	/* Only the private copy from here on. */
	memcpy(req, msg[0].payload, sizeof(*req));
	nr = peer_request_refs(req);
	*nr_refs = nr;
	if (nr > FIPCBLK_MAX_REFS || FIPCBLK_REQ_SLOTS(nr) != n)
		return PEER_INVALID;
	for (i = 0; i < nr; i++)
		memcpy(&refs[i],
		       msg[FIPCBLK_REF_SLOT(i)].payload + FIPCBLK_REF_OFFSET(i),
		       sizeof(refs[i]));
	return (int)n;
broken:
	b->broken = 1;
	return PEER_BROKEN;
}

/*
 * Answer one request taken earlier, in any order: PEER_OK, or
 * PEER_BROKEN when none waits for its response (or the ring is broken).
 */
int peer_back_response(struct peer_back *b,
		       const struct fipcblk_response *rsp)
{
	struct fipcblk_slot *s;
	uint32_t count;

	if (b->broken || !b->unanswered)
		return PEER_BROKEN;
	count = b->read - b->complete - b->unanswered + 1;
	if (count > PEER_COUNT_MAX) {
		peer_back_ack(b, count - 1);
		count = 1;
	}
	s = peer_slot(b->slots, b->nr_slots, b->complete);
	memcpy(s->payload, rsp, sizeof(*rsp));
	peer_store_release(s, peer_flag(FIPCBLK_DUPLEX_REPLY, count,
					b->complete, b->order));
	b->complete += count;
	b->unanswered--;
	return PEER_OK;
}
