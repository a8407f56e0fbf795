// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: grant-path pages that a layer below still holds when
 * the bio ends.
 *
 * iscsi_tcp, NBD and DRBD send pages over TCP and may keep references
 * to them after ending the bio, until TCP has them acknowledged.  Such a
 * page stays mapped to the guest's grant until those references are
 * gone: unmapped and put back in the page cache at once, it would get
 * the next request's grant mapped in, maybe another guest's, and what the
 * lower layer sends from it then would be that data (or it would read
 * an unmapped page).  So, as blkback waits with gnttab_unmap_refs_async(),
 * a finished request whose pages are held goes on its channel's held
 * list, not answered, still counted in flight (a disconnect drains it as
 * it drains a bio); a work item looks again every jiffy, unmaps the
 * requests whose pages are free with scratch of its own and hands them to
 * the poller, which answers them.  The guest's pages are its own again
 * only once answered, as with any request.
 *
 * xfb_unmap_pages() unmaps a grant request's pages and recycles them,
 * for the poller and for the held work.
 *
 * Memshare and staging pages are mapped for the connection: their
 * requests never wait here; their teardown waits for the same references
 * (xfb_unmap_free_pages()).
 */
#include <linux/mm.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include "back.h"

/**
 * xfb_unmap_pages() - unmap a grant request's pages and recycle them
 * @chan: the request's channel
 * @req: the request, its grants mapped (or some of them)
 * @ops: scratch, be->max_refs operations
 * @pages: scratch, be->max_refs pages
 *
 * The pages go back to the channel's page cache, uncharged from the
 * guest; if an unmap fails they are leaked (logged), never reused.  The
 * caller owns @ops and @pages: the poller its channel's, the held work
 * its own.
 *
 * Return: the number of unmap operations (0: no hypercall).
 */
unsigned int xfb_unmap_pages(struct xfb_chan *chan, struct xfb_req *req,
			     struct gnttab_unmap_grant_ref *ops,
			     struct page **pages)
{
	unsigned int i, n = 0;
	int err;

	for (i = 0; i < req->nrefs; i++) {
		if (req->handles[i] == INVALID_GRANT_HANDLE)
			continue;
		gnttab_set_unmap_op(&ops[n],
				    (unsigned long)page_address(req->pages[i]),
				    GNTMAP_host_map, req->handles[i]);
		pages[n++] = req->pages[i];
		req->handles[i] = INVALID_GRANT_HANDLE;
	}
	if (n) {
		err = gnttab_unmap_refs(ops, NULL, pages, n);
		for (i = 0; i < n && !err; i++)
			if (ops[i].status != GNTST_okay)
				err = -EIO;
		if (err) {
			/*
			 * Keep the pages out of use rather than reuse them,
			 * and charged to the guest: they may still be mapped.
			 */
			dev_err_ratelimited(&chan->be->dev->dev,
					    "grant unmap failed (%d), leaking %u pages\n",
					    err, n);
			req->nrefs = 0;
			return n;
		}
	}
	atomic_sub(req->nrefs, &chan->be->guest->grants);
	xfb_maptrack_give(req->nrefs);
	gnttab_page_cache_put(&chan->page_cache, req->pages, req->nrefs);
	req->nrefs = 0;
	return n;
}

/**
 * xfb_req_held() - does a layer below hold a page of a finished request
 * @req: the request, its bio ended
 *
 * Return: true if one of the grant pages it has mapped has a reference
 * besides the page cache's own.
 */
bool xfb_req_held(const struct xfb_req *req)
{
	unsigned int i;

	if (req->shared)
		return false;
	for (i = 0; i < req->nrefs; i++)
		if (req->handles[i] != INVALID_GRANT_HANDLE &&
		    page_count(req->pages[i]) > 1)
			return true;
	return false;
}

static void xfb_held_work(struct work_struct *work)
{
	struct xfb_chan *chan = container_of(to_delayed_work(work),
					     struct xfb_chan, held_work);
	struct xfb_req *req, *tmp;
	unsigned long flags;
	LIST_HEAD(free);

	spin_lock_irqsave(&chan->held_lock, flags);
	list_for_each_entry_safe(req, tmp, &chan->held, node)
		if (!xfb_req_held(req))
			list_move_tail(&req->node, &free);
	/* A request still held keeps the channel, and this work, alive. */
	if (!list_empty(&chan->held))
		schedule_delayed_work(&chan->held_work, 1);
	spin_unlock_irqrestore(&chan->held_lock, flags);

	list_for_each_entry_safe(req, tmp, &free, node) {
		list_del(&req->node);
		req->late_unmaps = xfb_unmap_pages(chan, req, chan->held_ops,
						   chan->held_pages);
		/* The last may let the channel go: nothing of it after. */
		xfb_req_done(chan, req);
	}
}

/**
 * xfb_held_add() - have a finished request wait until its pages are free
 * @chan: its channel (the poller's side: under the claim)
 * @req: the request, xfb_req_held()
 *
 * It counts in @chan->inflight again until the held work hands it back.
 */
void xfb_held_add(struct xfb_chan *chan, struct xfb_req *req)
{
	unsigned long flags;

	atomic_inc(&chan->inflight);
	req->late = true;
	spin_lock_irqsave(&chan->held_lock, flags);
	list_add_tail(&req->node, &chan->held);
	schedule_delayed_work(&chan->held_work, 1);
	spin_unlock_irqrestore(&chan->held_lock, flags);
}

/**
 * xfb_held_chan_init() - a new channel's held list
 * @chan: the channel
 */
void xfb_held_chan_init(struct xfb_chan *chan)
{
	spin_lock_init(&chan->held_lock);
	INIT_LIST_HEAD(&chan->held);
	INIT_DELAYED_WORK(&chan->held_work, xfb_held_work);
}

/**
 * xfb_held_chan_stop() - wait for the held work of a drained channel
 * @chan: the channel, nothing in flight (its held list is empty)
 */
void xfb_held_chan_stop(struct xfb_chan *chan)
{
	cancel_delayed_work_sync(&chan->held_work);
}
