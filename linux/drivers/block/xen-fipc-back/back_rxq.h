/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xen-fipc-back: the requests a channel has taken from its ring and not
 * handled yet (back_rxq.c).
 *
 * The fipc ring and generic kernel headers only: the KUnit suite
 * (tests/back_rxq_kunit.c) runs the queue under UML on a ring of its own.
 */
#ifndef _XEN_FIPC_BACK_RXQ_H
#define _XEN_FIPC_BACK_RXQ_H

#include <linux/compiler.h>
#include <linux/types.h>
#include <fipc/fipc.h>
#include <fipc/fipc_duplex.h>

/* One-slot requests taken from a ring at once (fipc_duplex_take_requests()). */
#define XFB_REQ_BURST		16

/**
 * struct xfb_rxq - requests taken from the ring, in ring order, each a
 *	private copy, until the poller has handled them
 * @req: one-slot requests taken in one burst
 * @n: how many @req holds
 * @cur: the next of @req to hand out; @req is taken again only once
 *	@cur reaches @n
 * @big_slots: slots of the request in @big, 0 if none; taken alone, and
 *	only once @req is empty, so it comes after them
 * @big: a request the burst leaves (longer than a slot), taken alone
 */
struct xfb_rxq {
	struct fipc_msg req[XFB_REQ_BURST];
	unsigned int n;
	unsigned int cur;
	unsigned int big_slots;
	struct fipc_msg big[FIPC_MSG_MAX_SLOTS];
};

int xfb_rxq_peek(struct xfb_rxq *q, struct fipc_duplex_server *ds,
		 const struct fipc_msg **msgs);
void xfb_rxq_pop(struct xfb_rxq *q);

/**
 * xfb_rxq_count() - requests taken and not handled yet
 * @q: the queue
 *
 * Exact for its owner; a racy reader (debugfs) gets 0..XFB_REQ_BURST + 1.
 *
 * Return: their number.
 */
static inline unsigned int xfb_rxq_count(const struct xfb_rxq *q)
{
	unsigned int n = READ_ONCE(q->n), cur = READ_ONCE(q->cur);

	return (n > cur ? n - cur : 0) + !!READ_ONCE(q->big_slots);
}

#endif /* _XEN_FIPC_BACK_RXQ_H */
