// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: a channel's ring and event channel, as its poller and
 * the completions that answer for it (back_io.c) serve them.
 *
 *   ring: receive a request (taken in bursts, back_rxq.c), send a
 *         response, on the duplex ring (protocol version 3); a corrupted
 *         ring breaks the channel (xfb_proto_error())
 *   poller: the sleeping word, the hardware wait, the last look before
 *         sleeping (xfb_poll_ops' set_sleeping, wait, has_work, busy)
 *   event channel: notify the frontend, the late EOI of our interrupt,
 *         timed retries of a channel whose requests wait (xfb_park())
 */
#include <xen/events.h>
#include "back.h"

/**
 * xfb_set_sleeping() - publish our poller's sleeping state
 * @entry: the channel's poll entry
 * @sleeping: the new state
 */
void xfb_set_sleeping(struct fipc_poll_entry *entry, bool sleeping)
{
	struct xfb_chan *chan = xfb_poll_chan(entry);

	/*
	 * Positions no response will retire soon go back before we sleep;
	 * a completion that holds the ring does it on its way out.
	 */
	if (sleeping && xfb_ring_claim(chan)) {
		fipc_duplex_server_flush(&chan->ds);
		xfb_ring_release(chan);
	}
	WRITE_ONCE(chan->ctrl->back_sleeping, sleeping ? 1 : 0);
}

/**
 * xfb_proto_error() - break a channel whose frontend broke the protocol
 * @chan: the channel
 * @why: what the frontend did, for the log
 *
 * Once per channel: counted, logged, and the device closed from
 * @chan->be->proto_work (back_xenbus.c).
 */
void xfb_proto_error(struct xfb_chan *chan, const char *why)
{
	struct xfb_be *be = chan->be;

	if (chan->broken)
		return;
	WRITE_ONCE(chan->broken, true);
	chan->st[XFB_PROTO_ERRORS]++;
	dev_err_ratelimited(&be->dev->dev,
			    "queue %u: frontend protocol error: %s; closing\n",
			    chan->index, why);
	schedule_work(&be->proto_work);
}

/*
 * The channel's ring: we serve one duplex ring (chan->ds), where a
 * response never waits for room: it goes over the position of a request
 * already read.
 */

/**
 * xfb_rx_ready() - is a request taken and not handled yet, or one (or a
 *	flag the ring will refuse) at the read position
 * @chan: the channel
 *
 * Return: true if the next receive has something to hand out or refuse.
 */
bool xfb_rx_ready(struct xfb_chan *chan)
{
	return xfb_rxq_count(&chan->rxq) ||
	       fipc_duplex_request_ready(&chan->ds);
}

/**
 * xfb_recv() - the oldest request taken and not handled yet
 * @chan: the channel
 * @msgs: set to its private copy, copied once from the ring
 *
 * One-slot requests are taken XFB_REQ_BURST at a time (back_rxq.c); the
 * same one comes back until xfb_recv_done() says it is handled, so one
 * that waits (for a free request, pages, grant room or the disk's
 * limits) keeps its place ahead of those taken after it.
 *
 * Return: its length in slots, -EAGAIN if there is none, -EPROTO if the
 * ring is broken (or another error of the ring, which breaks it too).
 */
int xfb_recv(struct xfb_chan *chan, const struct fipc_msg **msgs)
{
	int n = xfb_rxq_peek(&chan->rxq, &chan->ds, msgs);

	if (n == -EBADMSG) {
		xfb_proto_error(chan, "request that wants no response");
		return -EPROTO;
	}
	return n;
}

/**
 * xfb_recv_done() - the request xfb_recv() handed out is handled
 * @chan: the channel
 */
void xfb_recv_done(struct xfb_chan *chan)
{
	xfb_rxq_pop(&chan->rxq);
}

/**
 * xfb_send() - queue one response for the ring
 * @chan: the channel, its ring claimed
 * @rsp: the response
 *
 * Responses go into the ring XFB_RSP_BURST at a time, when the poller
 * has reaped its completions, or at the latest in xfb_notify(), which
 * whoever holds the ring calls before letting it go.
 */
void xfb_send(struct xfb_chan *chan, const struct fipcblk_response *rsp)
{
	memcpy(chan->rsp[chan->rsp_n].data, rsp, sizeof(*rsp));
	if (++chan->rsp_n == XFB_RSP_BURST)
		xfb_send_flush(chan);
}

/**
 * xfb_send_flush() - write the queued responses into the ring, at once
 * @chan: the channel, its ring claimed
 *
 * Each goes over the position of a request already read: a response
 * never waits for room.  Nothing is written on a broken channel.
 */
void xfb_send_flush(struct xfb_chan *chan)
{
	const struct fipc_msg *rsp[XFB_RSP_BURST];
	unsigned int i, n = chan->rsp_n;

	chan->rsp_n = 0;
	if (!n || chan->broken)
		return;
	for (i = 0; i < n; i++)
		rsp[i] = &chan->rsp[i];
	if (fipc_duplex_reply_n(&chan->ds, rsp, n))
		xfb_proto_error(chan, "ring corrupted");
	else
		chan->answered += n;
}

/**
 * xfb_wait() - wait for the channel's next request in hardware, a while
 * @entry: the channel's poll entry
 * @w: the poller's waiter (fipc_poll_ops.wait)
 *
 * Return: what the ring's wait returns.
 */
int xfb_wait(struct fipc_poll_entry *entry, struct fipc_waiter *w)
{
	struct xfb_chan *chan = xfb_poll_chan(entry);

	return fipc_duplex_server_wait(&chan->ds, w);
}

/**
 * xfb_has_work() - can the poller make progress on this channel now
 * @entry: the channel's poll entry
 *
 * Only work the poller can do counts: requests waiting while every
 * request slot is busy, or for grant room or pages, do not (a frontend
 * could otherwise keep the poller spinning at no cost to itself).  Those
 * resume from a bio completion (which kicks the poller) or from the
 * channel's timed retry (xfb_park()).
 *
 * Return: true if the poller should look again before sleeping.
 */
bool xfb_has_work(struct fipc_poll_entry *entry)
{
	struct xfb_chan *chan = xfb_poll_chan(entry);

	if (!llist_empty(&chan->done))
		return true;
	/* Held over the disk's limits: its EOI waits too (xfb_eoi()). */
	if (atomic_read(&chan->eoi_pending) && !xfb_limit_retry_us(chan))
		return true;
	if (chan->broken)
		return false;
	/* A request held over the disk's limits waits for its retry. */
	return !chan->limit_held && !list_empty(&chan->free_reqs) &&
	       !chan->grant_wait && !chan->page_wait && xfb_rx_ready(chan);
}

/**
 * xfb_busy() - are bios of the channel in flight
 * @entry: the channel's poll entry
 *
 * They end on other CPUs and kick only a sleeping poller, so a poller
 * serving this channel alone must not wait on its ring in hardware
 * meanwhile (fipc_poll_ops.busy).
 *
 * Return: true while bios are in flight or ended unanswered.
 */
bool xfb_busy(struct fipc_poll_entry *entry)
{
	struct xfb_chan *chan = xfb_poll_chan(entry);

	return atomic_read(&chan->inflight) || !llist_empty(&chan->done);
}

/* Timed retries of a parked channel: from the idle window up to this. */
#define XFB_PARK_MAX_US		(100 * USEC_PER_MSEC)

/**
 * xfb_park() - park or unpark the channel after a poll
 * @chan: the channel
 *
 * Requests waiting for grant room (the guest's budget, or the backend
 * domain's grant mappings) or for pages: nothing notifies us when those
 * free up, so the channel is parked, not counted as work, and a sleeping
 * poller looks again after a while, less and less often (up to every
 * XFB_PARK_MAX_US) while they stay short.  Counted once per parking
 * (debugfs parked).  A request held over the disk's limits is looked at
 * again when its buckets allow it (xfb_limit_retry_us()).
 */
void xfb_park(struct xfb_chan *chan)
{
	if ((!chan->grant_wait && !chan->page_wait) || chan->broken) {
		chan->park_us = 0;
		fipc_poll_entry_retry(&chan->poll, xfb_limit_retry_us(chan));
		return;
	}
	if (!chan->park_us) {
		chan->st[XFB_PARKED]++;
		chan->park_us = max(READ_ONCE(xfb_pollers.idle_us), 100u);
	} else {
		chan->park_us = min_t(unsigned int, chan->park_us * 2,
				      XFB_PARK_MAX_US);
	}
	fipc_poll_entry_retry(&chan->poll,
			      min_not_zero(chan->park_us,
					   xfb_limit_retry_us(chan)));
}

/**
 * xfb_eoi() - the late EOI of the channel's interrupt
 * @chan: the channel
 *
 * Spurious if no request was taken since the last one; see
 * xfb_chan_interrupt().  Not while a request is held over the disk's
 * limits: the frontend sent it, and we chose not to take it yet.  The
 * port stays masked until the held request is taken (a frontend that
 * keeps notifying meanwhile costs nothing), and the EOI then is not
 * spurious: flagged so, Xen would delay the port's next events more and
 * more, and the disk would fall below its limits.
 */
void xfb_eoi(struct xfb_chan *chan)
{
	unsigned int flags = 0;

	if (xfb_limit_retry_us(chan))
		return;
	if (!atomic_read(&chan->eoi_pending) ||
	    !atomic_xchg(&chan->eoi_pending, 0))
		return;
	if (chan->taken == chan->taken_at_eoi) {
		flags = XEN_EOI_FLAG_SPURIOUS;
		chan->st[XFB_SPURIOUS_IRQS]++;
	}
	chan->taken_at_eoi = chan->taken;
	xen_irq_lateeoi(chan->irq, flags);
}

/**
 * xfb_notify() - write the queued responses and notify the frontend of
 *	what we wrote, if it sleeps
 * @chan: the channel, its ring claimed
 */
void xfb_notify(struct xfb_chan *chan)
{
	xfb_send_flush(chan);
	if (!chan->answered)
		return;
	chan->answered = 0;
	virt_mb();	/* our responses before the front_sleeping load */
	if (READ_ONCE(chan->ctrl->front_sleeping)) {
		notify_remote_via_irq(chan->irq);
		chan->st[XFB_NOTIFY_SENT]++;
		chan->st[XFB_HYPERCALLS]++;
	}
}
