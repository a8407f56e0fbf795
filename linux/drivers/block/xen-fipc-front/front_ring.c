// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: the channel's ring, in either protocol version.
 *
 * Version 1 sends requests on the request ring (chan->fc.tx) and takes
 * responses from the response ring (chan->fc.rx).  The two share
 * nothing: senders hold chan->tx_lock, the taker of responses holds the
 * channel's rx_claim bit.  Version 2 is one duplex ring (chan->dc), whose
 * client state both change (a request takes room that a response gives
 * back), so the taker of responses holds chan->tx_lock too while it
 * copies them out.  The event handler takes responses, so tx_lock is
 * always taken with interrupts off.
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
	if (chan->info->duplex)
		return fipc_duplex_call(&chan->dc, chan->txbuf, nslots);
	return fipc_send(&chan->fc.tx, chan->txbuf, nslots);
}

/**
 * xff_ring_take() - copy responses out of the ring into chan->rxbuf
 * @chan: the channel, its rx_claim bit held
 * @max: most responses to take, at most XFF_RSP_BURST
 *
 * Each response is copied once; only the copy is used.
 *
 * Return: the number taken, 0 if none is there; -EMSGSIZE for a
 * message of several slots (never a response) on two rings; -EPROTO if
 * the backend broke the ring protocol.
 */
int xff_ring_take(struct xff_chan *chan, unsigned int max)
{
	unsigned long flags;
	int n, err = 0;

	if (!chan->info->duplex) {
		n = fipc_recv_burst(&chan->fc.rx, chan->rxbuf, max);
		if (n)
			return n;
		/*
		 * Empty, or a multi-slot message.  A one-slot response may
		 * also have landed since the burst looked: fipc_recv() tells
		 * them apart.
		 */
		n = fipc_recv(&chan->fc.rx, chan->rxbuf, 1);
		return n == -EAGAIN ? 0 : n;
	}
	spin_lock_irqsave(&chan->tx_lock, flags);
	for (n = 0; n < max; n++) {
		err = fipc_duplex_take_reply(&chan->dc, &chan->rxbuf[n]);
		if (err)
			break;
	}
	spin_unlock_irqrestore(&chan->tx_lock, flags);
	/* A broken ring after good responses: said on the next call. */
	return n || err == -EAGAIN ? n : err;
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

	if (!chan->info->duplex)
		return fipc_rx_ready(&chan->fc.rx);
	spin_lock_irqsave(&chan->tx_lock, flags);
	ready = fipc_duplex_reply_ready(&chan->dc);
	spin_unlock_irqrestore(&chan->tx_lock, flags);
	return ready;
}
