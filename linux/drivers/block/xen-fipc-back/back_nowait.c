// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: what the poller hands off so that it never sleeps.
 *
 * One poller serves the channels of many disks and guests, so anything
 * that sleeps in it holds them all up.  Two things could:
 *
 * - submit_bio() sleeps when the device is out of tags (a guest keeping
 *   a slow device busy would stall every other guest on the poller).
 *   The poller submits with REQ_NOWAIT where the device supports it; a
 *   bio the device cannot take at once ends with BLK_STS_AGAIN, and its
 *   request goes to the channel's again list, submitted again, without
 *   REQ_NOWAIT, by a work item on our workqueue (xfb_submit_again() in
 *   back_io.c; statistics/submit_again).  Only that
 *   guest's requests wait for the device.  Discards, which writeback
 *   throttling may hold whatever REQ_NOWAIT says, and every request of
 *   a device without REQ_NOWAIT go to the work item at once.
 * - mapping a grant needs a page from the channel's page cache, and an
 *   empty cache allocates (the balloon, a mutex).  The poller takes a
 *   request only when the cache holds a largest request's pages; below
 *   that a work item refills it and wakes the poller (statistics/
 *   page_waits).  The cache is filled once at connect.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/workqueue.h>
#include <xen/grant_table.h>
#include "back.h"

/*
 * Resubmissions may wait on a device for long: unbound, one worker per
 * waiting channel; WQ_MEM_RECLAIM, as they are on the I/O path.
 */
static struct workqueue_struct *xfb_nowait_wq;

/* Pages for a largest request, allocated where sleeping is allowed. */
static unsigned int xfb_pages_fill(struct xfb_chan *chan)
{
	unsigned int want = chan->be->max_refs, n = 0;
	struct page *page;

	while (READ_ONCE(chan->page_cache.num_pages) < want) {
		if (gnttab_alloc_pages(1, &page))
			break;
		gnttab_page_cache_put(&chan->page_cache, &page, 1);
		n++;
	}
	return n;
}

static void xfb_refill_work(struct work_struct *work)
{
	struct xfb_chan *chan = container_of(work, struct xfb_chan,
					     refill_work);

	if (xfb_pages_fill(chan) || xfb_pages_ready(chan)) {
		fipc_poll_entry_wake(&chan->poll);
		return;
	}
	/* Out of memory: the poller's timed retry asks again. */
	dev_warn_ratelimited(&chan->be->dev->dev,
			     "queue %u: no pages to map grants on\n",
			     chan->index);
}

/**
 * xfb_pages_ready() - may the poller take a request of the grant path
 * @chan: the channel
 *
 * Return: true if the channel's page cache holds the pages of a largest
 * request, so that mapping it allocates nothing.
 */
bool xfb_pages_ready(struct xfb_chan *chan)
{
	return READ_ONCE(chan->page_cache.num_pages) >= chan->be->max_refs;
}

/**
 * xfb_pages_refill() - have the page cache filled, from the poller
 * @chan: the channel, short of pages (!xfb_pages_ready())
 */
void xfb_pages_refill(struct xfb_chan *chan)
{
	if (queue_work(xfb_nowait_wq, &chan->refill_work))
		chan->st[XFB_PAGE_WAITS]++;
}

/**
 * xfb_nowait_chan_init() - set up a channel's hand-off
 * @chan: the channel, before anything else of it is set up
 */
void xfb_nowait_chan_init(struct xfb_chan *chan)
{
	INIT_WORK(&chan->refill_work, xfb_refill_work);
}

/**
 * xfb_nowait_queue() - queue a hand-off work on our workqueue
 * @work: a channel's work (its requests to submit again: back_io.c)
 */
void xfb_nowait_queue(struct work_struct *work)
{
	queue_work(xfb_nowait_wq, work);
}

/**
 * xfb_pages_prefill() - fill a new channel's page cache
 * @chan: the channel, not attached to a poller yet (be->max_refs known)
 *
 * Return: 0 or -ENOMEM.
 */
int xfb_pages_prefill(struct xfb_chan *chan)
{
	xfb_pages_fill(chan);
	return xfb_pages_ready(chan) ? 0 : -ENOMEM;
}

/**
 * xfb_nowait_chan_stop() - wait for a drained channel's hand-off work
 * @chan: the channel, detached, every bio ended
 */
void xfb_nowait_chan_stop(struct xfb_chan *chan)
{
	flush_work(&chan->again_work);
	cancel_work_sync(&chan->refill_work);
}

/**
 * xfb_nowait_init() - create the hand-off workqueue
 *
 * Return: 0 or -ENOMEM.
 */
int xfb_nowait_init(void)
{
	xfb_nowait_wq = alloc_workqueue("xfb-nowait",
					WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return xfb_nowait_wq ? 0 : -ENOMEM;
}

/**
 * xfb_nowait_exit() - destroy the hand-off workqueue
 */
void xfb_nowait_exit(void)
{
	destroy_workqueue(xfb_nowait_wq);
}
