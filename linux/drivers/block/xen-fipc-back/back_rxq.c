// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: the requests a channel has taken from its ring and not
 * handled yet.
 *
 * The poller takes one-slot requests XFB_REQ_BURST at a time
 * (fipc_duplex_take_requests()), each copied once into the queue, and
 * hands them out one by one: the head stays until the poller says it is
 * handled (xfb_rxq_pop()), so a request that must wait (for a free
 * request, pages, grant room or the disk's I/O limits) is handed out
 * again at the next poll, before any taken after it.  What the burst
 * leaves (a request of several slots, a posted one, a bad flag) is for
 * the single take, once the queue is empty.
 */
#include <linux/errno.h>
#include "back_rxq.h"

/* Take the next requests from the ring into the empty queue. */
static int xfb_rxq_fill(struct xfb_rxq *q, struct fipc_duplex_server *ds)
{
	struct fipc_msg *bufs[XFB_REQ_BURST];
	unsigned int i;
	bool posted;
	int n;

	for (i = 0; i < XFB_REQ_BURST; i++)
		bufs[i] = &q->req[i];
	n = fipc_duplex_take_requests(ds, bufs, XFB_REQ_BURST);
	if (n > 0) {
		q->n = n;
		q->cur = 0;
		return n;
	}
	if (n < 0)
		return n;
	/* Another kind of request is next: taken alone. */
	n = fipc_duplex_take_request(ds, q->big, FIPC_MSG_MAX_SLOTS, &posted);
	if (n <= 0)
		return n ?: -EAGAIN;
	/* Every fipcblk request wants its response: never kept. */
	if (posted)
		return -EBADMSG;
	q->big_slots = n;
	return n;
}

/**
 * xfb_rxq_peek() - the oldest request taken and not handled yet
 * @q: the queue
 * @ds: the ring it takes from, when empty
 * @msgs: set to the request's private copy, valid until the queue is
 *	taken into again (the next peek after xfb_rxq_pop())
 *
 * The same request until xfb_rxq_pop(); the ring is read only when the
 * queue is empty.
 *
 * Return: its length in slots; -EAGAIN if none is there; -EBADMSG for a
 * posted request (it wants no response: not fipcblk); -EPROTO if the
 * ring is broken, or another error of fipc_duplex_take_request().
 */
int xfb_rxq_peek(struct xfb_rxq *q, struct fipc_duplex_server *ds,
		 const struct fipc_msg **msgs)
{
	int n;

	if (q->cur == q->n && !q->big_slots) {
		n = xfb_rxq_fill(q, ds);
		if (n < 0)
			return n;
	}
	if (q->cur < q->n) {
		*msgs = &q->req[q->cur];
		return 1;
	}
	*msgs = q->big;
	return q->big_slots;
}

/**
 * xfb_rxq_pop() - the request xfb_rxq_peek() handed out is handled
 * @q: the queue, not empty
 */
void xfb_rxq_pop(struct xfb_rxq *q)
{
	if (q->cur < q->n)
		q->cur++;
	else
		q->big_slots = 0;
}
