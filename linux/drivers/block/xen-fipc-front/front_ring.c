// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: the channel's ring, one duplex ring (chan->dc, protocol
 * version 3) that we are the client of.  Senders and the taker of
 * responses both change its client state (a request takes room that a
 * response gives back), so the taker of responses holds chan->tx_lock
 * too while it copies them out.  The event handler takes responses, so
 * tx_lock is always taken with interrupts off.
 */
#include "front.h"

/**
 * xff_ring_send() - send chan->txbuf as one request
 * @chan: the channel, with @chan->tx_lock held
 * @nslots: the request's length in slots
 *
 * Return: 0; -EAGAIN if the ring has no room for it now (responses give
 * it back); -EPROTO if the ring is broken.
 */
int xff_ring_send(struct xff_chan *chan, unsigned int nslots)
{
	return fipc_duplex_call(&chan->dc, chan->txbuf, nslots);
}

/**
 * xff_ring_take() - copy responses out of the ring into chan->rxbuf
 * @chan: the channel, its rx_claim bit held
 * @max: most responses to take, at most XFF_RSP_BURST
 *
 * Each response is copied once; only the copy is used.  A run of
 * responses is taken in one go (fipc_duplex_take_replies()).
 *
 * Return: the number taken, 0 if none is there; -EPROTO if the backend
 * broke the ring protocol.
 */
int xff_ring_take(struct xff_chan *chan, unsigned int max)
{
	struct fipc_msg *bufs[XFF_RSP_BURST];
	unsigned long flags;
	unsigned int i;
	int n;

	max = min_t(unsigned int, max, XFF_RSP_BURST);
	for (i = 0; i < max; i++)
		bufs[i] = &chan->rxbuf[i];
	spin_lock_irqsave(&chan->tx_lock, flags);
	n = fipc_duplex_take_replies(&chan->dc, bufs, max);
	spin_unlock_irqrestore(&chan->tx_lock, flags);
	/* A broken ring after good responses: said on the next call. */
	return n == -EAGAIN ? 0 : n;
}

/**
 * xff_ring_pending() - is a response (or a flag the ring refuses) there
 * @chan: the channel
 *
 * Reads one flag and copies nothing.
 *
 * Return: true if xff_ring_take() should be called.
 */
bool xff_ring_pending(struct xff_chan *chan)
{
	unsigned long flags;
	bool ready;

	spin_lock_irqsave(&chan->tx_lock, flags);
	ready = fipc_duplex_reply_ready(&chan->dc);
	spin_unlock_irqrestore(&chan->tx_lock, flags);
	return ready;
}
