// SPDX-License-Identifier: GPL-2.0
/*
 * A ring peer from the public header alone: sends fipcblk requests and
 * receives messages following the rules of fipcblk.h's "Rings" part,
 * with its constants and helpers only.  Built as C99 with -pedantic
 * (tests/user/rules.mk), as an OS-neutral peer would be; the orderings
 * the header asks for are GCC's __atomic builtins.
 */
#include <stdint.h>
#include <string.h>
#include <public/io/fipcblk.h>
#include "header_peer.h"

static uint32_t peer_flag_load(const struct fipcblk_slot *s)
{
	return __atomic_load_n(&s->flag, __ATOMIC_ACQUIRE);
}

static void peer_flag_store(struct fipcblk_slot *s, uint32_t flag)
{
	__atomic_store_n(&s->flag, flag, __ATOMIC_RELEASE);
}

static struct fipcblk_slot *peer_slot(struct peer_ring *r, uint32_t seq)
{
	return &r->slots[seq & (r->nr_slots - 1)];
}

void peer_ring_init(struct peer_ring *r, void *mem, unsigned int order)
{
	r->slots = mem;
	r->nr_slots = FIPCBLK_RING_SLOTS(order);
	r->seq = 0;
}

/*
 * Send req with nr_refs references: PEER_EMPTY (0) when sent, PEER_FULL
 * when a slot still holds our message of one lap ago, PEER_BROKEN when a
 * slot holds anything else.
 */
int peer_send_request(struct peer_ring *r, const struct fipcblk_request *req,
		      const uint32_t *refs, unsigned int nr_refs)
{
	unsigned int n = FIPCBLK_REQ_SLOTS(nr_refs), i;
	struct fipcblk_slot msg[FIPCBLK_MSG_MAX_SLOTS];
	uint32_t f;

	if (nr_refs > FIPCBLK_MAX_REFS)
		return PEER_BROKEN;
	for (i = 0; i < n; i++) {
		f = peer_flag_load(peer_slot(r, r->seq + i));
		if (f == FIPCBLK_FLAG_FREE)
			continue;
		if ((f & ~FIPCBLK_FLAG_LEN_MASK) ==
		    FIPCBLK_FLAG(0, r->seq + i - r->nr_slots))
			return PEER_FULL;
		return PEER_BROKEN;
	}
	memset(msg, 0, sizeof(msg));
	memcpy(msg[0].payload, req, sizeof(*req));
	for (i = 0; i < nr_refs; i++)
		memcpy(msg[FIPCBLK_REF_SLOT(i)].payload + FIPCBLK_REF_OFFSET(i),
		       &refs[i], sizeof(refs[i]));
	for (i = 1; i < n; i++) {
		memcpy(peer_slot(r, r->seq + i)->payload, msg[i].payload,
		       FIPCBLK_MSG_BYTES);
		peer_slot(r, r->seq + i)->flag = FIPCBLK_FLAG(0, r->seq + i);
	}
	memcpy(peer_slot(r, r->seq)->payload, msg[0].payload,
	       FIPCBLK_MSG_BYTES);
	peer_flag_store(peer_slot(r, r->seq), FIPCBLK_FLAG(n, r->seq));
	r->seq += n;
	return PEER_EMPTY;
}

/*
 * Receive one message into buf (payloads copied once, with the flags
 * they were checked against):
 * its number of slots, PEER_EMPTY, or PEER_BROKEN for a flag the rules
 * do not allow or a message longer than max_slots.  The slots are handed
 * back at once.
 */
int peer_recv(struct peer_ring *r, struct fipcblk_slot *buf,
	      unsigned int max_slots)
{
	uint32_t f = peer_flag_load(peer_slot(r, r->seq));
	unsigned int n, i;

	if (f == FIPCBLK_FLAG_FREE)
		return PEER_EMPTY;
	n = (f & FIPCBLK_FLAG_LEN_MASK) >> FIPCBLK_FLAG_LEN_SHIFT;
	if (n < 1 || n > FIPCBLK_MSG_MAX_SLOTS || n > max_slots ||
	    f != FIPCBLK_FLAG(n, r->seq))
		return PEER_BROKEN;
	for (i = 1; i < n; i++)
		if (__atomic_load_n(&peer_slot(r, r->seq + i)->flag,
				    __ATOMIC_RELAXED) !=
		    FIPCBLK_FLAG(0, r->seq + i))
			return PEER_BROKEN;
	for (i = 0; i < n; i++) {
		memcpy(buf[i].payload, peer_slot(r, r->seq + i)->payload,
		       FIPCBLK_MSG_BYTES);
		buf[i].flag = FIPCBLK_FLAG(i ? 0 : n, r->seq + i);
	}
	for (i = 0; i < n; i++)
		peer_flag_store(peer_slot(r, r->seq + i), FIPCBLK_FLAG_FREE);
	r->seq += n;
	return (int)n;
}
