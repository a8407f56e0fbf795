// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: the data path, run by the channel's poller (a thread
 * of xfb_pollers, <fipc/fipc_poller.h>, driven by xfb_poll_ops).
 *
 *   poll: answer finished requests (unmap their grants first), then
 *         handle new requests (taken from the ring in bursts, kept in
 *         ring order until handled: back_rxq.c), up to poll_budget,
 *         while request slots are free
 *   request: validate, map its grants in one batch (memshare: look its
 *         pfns up in the mapping of the guest's memory, back_memshare.c,
 *         or its staging page indices, back_staging.c), build one bio
 *         over the pages, submit (REQ_NOWAIT where the device allows it)
 *   end_io: (any context) answer the request there if the poller sleeps
 *         (xfb_end_answer()), else put it on the channel's done list and
 *         wake the poller; a REQ_NOWAIT bio the device could not take
 *         goes to a worker instead (back_nowait.c)
 *
 * The ring and event channel themselves are back_ring.c's.  A bit of the
 * channel (xfb_ring_claim()) lets one of the poller and a completion at
 * a time serve the ring and the request pool.  Nothing here sleeps: the
 * poller serves other channels, of other guests too.  Requests are taken
 * only while the page cache holds a largest request's pages
 * (back_nowait.c refills it).
 *
 * A request the frontend got wrong is answered FIPCBLK_RSP_ERROR (or
 * EOPNOTSUPP) with a rate-limited log line; a corrupted ring (-EPROTO)
 * breaks the channel and has the device closed (back_xenbus.c).
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <xen/page.h>
#include "back.h"

/*
 * Where disconnects wait for the bios of their channels.  Not in the
 * channel: once the in-flight count drops to 0 the channel may be freed,
 * and the last end_io still has to wake the waiter.
 */
DECLARE_WAIT_QUEUE_HEAD(xfb_drain_wq);

static void xfb_req_free(struct xfb_chan *chan, struct xfb_req *req)
{
	list_add(&req->node, &chan->free_reqs);
}

/*
 * Queue a request's response (xfb_send(): written with the next burst)
 * and free the request.
 */
static void xfb_answer(struct xfb_chan *chan, struct xfb_req *req)
{
	struct fipcblk_response rsp;

	if (!chan->broken) {
		memset(&rsp, 0, sizeof(rsp));
		rsp.id = req->id;
		rsp.status = req->status;
		rsp.op = req->op;
		xfb_send(chan, &rsp);
	}
	xfb_req_free(chan, req);
}

/*
 * Pages about to be recycled that something below us still holds (a
 * lower layer that sends pages and keeps them after the bio ends, as
 * iscsi_tcp, NBD and DRBD can): counted and logged, never expected, as
 * such requests wait on the held list (back_held.c) until their pages
 * are free.
 */
static void xfb_count_recycled_held(struct xfb_chan *chan,
				    struct page **pages, unsigned int n)
{
	unsigned int i, held = 0;

	for (i = 0; i < n; i++)
		if (page_count(pages[i]) > 1)
			held++;
	if (!held)
		return;
	chan->st[XFB_RECYCLED_HELD] += held;
	dev_err_ratelimited(&chan->be->dev->dev,
			    "queue %u: %u pages recycled still in use below the backend\n",
			    chan->index, held);
}

/* Unmap in the poller (or drain), with the channel's scratch. */
static void xfb_unmap_now(struct xfb_chan *chan, struct xfb_req *req)
{
	unsigned int n;

	xfb_count_recycled_held(chan, req->pages, req->nrefs);
	n = xfb_unmap_pages(chan, req, chan->unmap_ops, chan->unmap_pages);
	chan->st[XFB_GRANT_OPS] += n;
	if (n)
		chan->st[XFB_HYPERCALLS]++;
}

/*
 * Undo a finished request's mappings; false if its pages are still held
 * below us: it then waits on the held list, to be answered once the held
 * work has unmapped them (back_held.c).
 */
static bool xfb_unmap(struct xfb_chan *chan, struct xfb_req *req)
{
	if (req->shared) {
		/* The memshare mapping's pages: nothing to undo. */
		req->shared = false;
		req->nrefs = 0;
		return true;
	}
	if (req->late) {
		/* Back from the held list, unmapped there. */
		req->late = false;
		chan->st[XFB_GRANT_OPS] += req->late_unmaps;
		if (req->late_unmaps)
			chan->st[XFB_HYPERCALLS]++;
		req->late_unmaps = 0;
		return true;
	}
	if (xfb_req_held(req)) {
		chan->st[XFB_HELD_UNMAPS]++;
		xfb_held_add(chan, req);
		return false;
	}
	xfb_unmap_now(chan, req);
	return true;
}

/* Unmap and answer a request whose bio has ended (or later: held). */
static void xfb_finish(struct xfb_chan *chan, struct xfb_req *req)
{
	if (!xfb_unmap(chan, req))
		return;
	if (req->bio_status) {
		req->status = FIPCBLK_RSP_ERROR;
		chan->st[XFB_IO_ERRORS]++;
	}
	xfb_answer(chan, req);
}

/* Unmap and answer the requests whose bio has ended. */
static int xfb_reap(struct xfb_chan *chan)
{
	struct llist_node *list = llist_del_all(&chan->done);
	struct fipc_poller *pl = fipc_poll_entry_poller(&chan->poll);
	struct xfb_poll_lat *lat = pl ? fipc_poller_priv(pl) : NULL;
	struct xfb_req *req, *tmp;
	int n = 0;

	list = llist_reverse_order(list);
	llist_for_each_entry_safe(req, tmp, list, done) {
		if (lat && !req->late) {
			u64 dev = req->t_done - req->t_seen;
			u64 reap = ktime_get_ns() - req->t_done;

			lat->dev[fipc_poll_lat_bucket(dev)]++;
			lat->reap[fipc_poll_lat_bucket(reap)]++;
		}
		xfb_finish(chan, req);
		n++;
	}
	/* Before we take new requests: their handling may take a while. */
	xfb_send_flush(chan);
	return n;
}

/**
 * xfb_end_answer() - answer a request from its bio's completion
 * @chan: the request's channel
 * @req: the request, its bio ended
 *
 * As blkback answers from the bio's completion: while the channel's
 * poller sleeps, a lone request slower than the poller's idle window is
 * answered here, and the poller is not woken just to do it (one thread
 * wake-up and one more poll round per request).  Not while the poller is
 * awake (it answers in its next round, and a stream is answered with no
 * thread switch at all), nor while it holds the ring, nor behind
 * completions it has yet to reap.  The poller is kicked if work is left
 * for it: requests the frontend posted meanwhile.  The claim is held
 * with preemption off: a completion in a preemptible kworker must not be
 * preempted holding it while the poller spins on work it cannot take
 * (issue 45, finding 4).
 * Safe from any context, as the unmap of a grant
 * request (xfb_unmap()) and the notification are.
 *
 * Return: false if the caller is to hand the request to the poller.
 */
static bool xfb_end_answer(struct xfb_chan *chan, struct xfb_req *req)
{
	bool kick;

	if (!fipc_poll_entry_asleep(&chan->poll) || READ_ONCE(chan->broken) ||
	    xfb_req_held(req))
		return false;
	/*
	 * Bios end in kworkers too (loop, dm-crypt): preempted with the
	 * claim held, we would keep the poller spinning on the channel's
	 * work it cannot take (a priority inversion under poll_fifo).
	 */
	preempt_disable();
	if (!xfb_ring_claim(chan)) {
		preempt_enable();
		return false;
	}
	if (!llist_empty(&chan->done) || chan->broken) {
		xfb_ring_release(chan);
		preempt_enable();
		return false;
	}
	xfb_finish(chan, req);
	chan->st[XFB_END_ANSWERS]++;
	if (!chan->broken) {
		xfb_notify(chan);
		/* The poller sleeps: hand back what it would before sleeping. */
		fipc_duplex_server_flush(&chan->ds);
	}
	kick = xfb_has_work(&chan->poll);
	xfb_ring_release(chan);
	preempt_enable();
	if (kick) {
		/* Our request slot freed before the poller's sleeping word. */
		smp_mb();
		fipc_poll_entry_wake(&chan->poll);
	}
	return true;
}

static void xfb_bio_end(struct bio *bio)
{
	struct xfb_req *req = bio->bi_private;
	struct xfb_chan *chan = req->chan;

	req->bio_status = bio->bi_status;
	bio_uninit(bio);
	/* Would have waited for the device: submitted again by a worker. */
	if (req->bio_status == BLK_STS_AGAIN && (req->opf & REQ_NOWAIT)) {
		xfb_submit_again(req);
		return;
	}
	req->t_done = ktime_get_ns();
	if (!xfb_end_answer(chan, req)) {
		xfb_req_done(chan, req);
		return;
	}
	/* The last access to the channel: it may be freed right after. */
	if (atomic_dec_and_test(&chan->inflight))
		wake_up(&xfb_drain_wq);
}

/* Submit again, from a worker, what the device could not take at once. */
static void xfb_again_work(struct work_struct *work)
{
	struct xfb_chan *chan = container_of(work, struct xfb_chan,
					     again_work);
	struct llist_node *list = llist_del_all(&chan->again);
	struct xfb_req *req, *tmp;

	/*
	 * Once its last bio is submitted the channel may be drained and
	 * freed: nothing of it is touched after (xfb_chan_free() flushes
	 * this work before freeing it).
	 */
	list = llist_reverse_order(list);
	llist_for_each_entry_safe(req, tmp, list, done) {
		chan->st[XFB_SUBMIT_AGAIN]++;
		xfb_bio_build(req, false);
		submit_bio(&req->bio);
	}
}

/**
 * xfb_submit_again() - have a worker submit a request's bio
 * @req: the request, counted in flight, its bio not built or ended with
 *	BLK_STS_AGAIN (any context)
 *
 * The request stays in flight (@chan->inflight) until its bio submitted
 * again ends.
 */
void xfb_submit_again(struct xfb_req *req)
{
	struct xfb_chan *chan = req->chan;

	llist_add(&req->done, &chan->again);
	xfb_nowait_queue(&chan->again_work);
}

/**
 * xfb_io_chan_init() - a new channel's list of requests to submit again
 * @chan: the channel
 */
void xfb_io_chan_init(struct xfb_chan *chan)
{
	init_llist_head(&chan->again);
	INIT_WORK(&chan->again_work, xfb_again_work);
}

/*
 * Map the request's grants in one batch: the references it carries, or
 * (@staged) those of the staging pages it names.  False (all undone) on
 * failure.
 */
static bool xfb_map(struct xfb_chan *chan, struct xfb_req *req,
		    const struct fipc_msg *msgs, unsigned int nrefs,
		    bool staged)
{
	domid_t domid = chan->be->dev->otherend_id;
	u32 flags = GNTMAP_host_map;
	unsigned int i;
	bool ok = true;
	int err;

	/* The device reads the guest's pages for a write. */
	if (req->op == FIPCBLK_OP_WRITE)
		flags |= GNTMAP_readonly;
	req->nrefs = 0;
	for (i = 0; i < nrefs; i++) {
		if (gnttab_page_cache_get(&chan->page_cache, &req->pages[i])) {
			gnttab_page_cache_put(&chan->page_cache, req->pages, i);
			return false;
		}
		req->handles[i] = INVALID_GRANT_HANDLE;
		gnttab_set_map_op(&chan->map_ops[i],
				  (unsigned long)page_address(req->pages[i]),
				  flags, staged ?
				  xfb_staging_ref(chan, xfb_ref_at(msgs, i)) :
				  xfb_ref_at(msgs, i), domid);
		chan->map_ops[i].status = GNTST_general_error;
		chan->map_ops[i].handle = INVALID_GRANT_HANDLE;
	}
	req->nrefs = nrefs;
	xfb_guest_grants_charge(chan->be->guest, nrefs);
	xfb_maptrack_charge(nrefs);
	err = gnttab_map_refs(chan->map_ops, NULL, req->pages, nrefs);
	chan->st[XFB_GRANT_OPS] += nrefs;
	chan->st[XFB_HYPERCALLS]++;
	if (err)
		ok = false;
	/* Whatever the call returned, keep every mapping that was made. */
	for (i = 0; i < nrefs; i++) {
		if (chan->map_ops[i].status == GNTST_okay)
			req->handles[i] = chan->map_ops[i].handle;
		else
			ok = false;
	}
	if (!ok)
		xfb_unmap_now(chan, req);
	return ok;
}

/**
 * xfb_bio_build() - (re)build a request's bio over its pages
 * @req: the request, its pages mapped and its bio fields set
 * @nowait: submit with REQ_NOWAIT (the caller knows the device takes it)
 */
void xfb_bio_build(struct xfb_req *req, bool nowait)
{
	struct xfb_be *be = req->chan->be;
	struct bio *bio = &req->bio;
	u32 left = req->nr_bytes, off = req->first_offset;
	unsigned int i;

	req->opf &= ~REQ_NOWAIT;
	if (nowait)
		req->opf |= REQ_NOWAIT;
	bio_init(bio, be->bdev, req->bvecs, req->nrefs, req->opf);
	bio->bi_iter.bi_sector = req->sector;
	bio->bi_end_io = xfb_bio_end;
	bio->bi_private = req;
	if (req->op == FIPCBLK_OP_DISCARD) {
		bio->bi_iter.bi_size = req->nr_bytes;
	} else if (req->op != FIPCBLK_OP_FLUSH) {
		for (i = 0; i < req->nrefs; i++) {
			u32 len = min_t(u32, left, FIPCBLK_PAGE_BYTES - off);

			__bio_add_page(bio, req->pages[i], len, off);
			left -= len;
			off = 0;
		}
	}
}

static void xfb_submit(struct xfb_chan *chan, struct xfb_req *req,
		       const struct fipcblk_request *r)
{
	blk_opf_t opf;

	switch (r->op) {
	case FIPCBLK_OP_READ:
		opf = REQ_OP_READ;
		chan->st[XFB_RD_REQ]++;
		chan->st[XFB_RD_SECT] += r->nr_bytes >> SECTOR_SHIFT;
		break;
	case FIPCBLK_OP_WRITE:
		/*
		 * As direct I/O (and blkback): REQ_SYNC | REQ_IDLE keeps
		 * the guest's writes out of dom0's writeback throttling,
		 * which would sleep in submit_bio() whatever REQ_NOWAIT says.
		 */
		opf = REQ_OP_WRITE | REQ_SYNC | REQ_IDLE;
		if (r->flags & FIPCBLK_F_FUA) {
			opf |= REQ_FUA;
			chan->st[XFB_F_REQ]++;
		}
		chan->st[XFB_WR_REQ]++;
		chan->st[XFB_WR_SECT] += r->nr_bytes >> SECTOR_SHIFT;
		break;
	case FIPCBLK_OP_FLUSH:
		opf = REQ_OP_WRITE | REQ_PREFLUSH | REQ_SYNC | REQ_IDLE;
		chan->st[XFB_F_REQ]++;
		break;
	default:
		opf = r->flags & FIPCBLK_F_SECURE ? REQ_OP_SECURE_ERASE :
						    REQ_OP_DISCARD;
		chan->st[XFB_DS_REQ]++;
		break;
	}

	req->opf = opf;
	/* A flush has no sector (xfb_validate() refuses any but 0). */
	req->sector = r->op == FIPCBLK_OP_FLUSH ? 0 : r->sector;
	req->nr_bytes = r->nr_bytes;
	req->first_offset = r->first_offset;
	req->bio_status = BLK_STS_OK;
	atomic_inc(&chan->inflight);
	/*
	 * What may wait goes to a worker at once: every request of a
	 * device without REQ_NOWAIT, and discards (writeback throttling
	 * holds them whatever REQ_NOWAIT says).
	 */
	if (!chan->be->nowait || r->op == FIPCBLK_OP_DISCARD) {
		xfb_submit_again(req);
		return;
	}
	xfb_bio_build(req, true);
	submit_bio(&req->bio);
}

/*
 * Memshare: take the request's pages from the mapping of the guest's
 * memory (pfns) or from the channel's staging pages (indices), no grant
 * operation; or, where the channel keeps no staging page mapped (a
 * budget), map the staging pages it names for this request.  False
 * (request answered) if a pfn or index is out of range, a pfn is not
 * mapped or a staging page cannot be mapped.
 */
static bool xfb_ms_lookup(struct xfb_chan *chan, struct xfb_req *req,
			  const struct fipc_msg *msgs, unsigned int nrefs,
			  bool staged)
{
	const char *why = "";
	int err;

	if (staged)
		err = xfb_staging_check(chan, msgs, nrefs, &why);
	else
		err = xfb_memshare_pages(chan->be->ms, req->op, msgs, nrefs,
					 req->pages, &why);
	/* No staging page kept mapped: map the ones it names, for it. */
	if (!err && staged && !chan->stg_pages &&
	    !xfb_map(chan, req, msgs, nrefs, true)) {
		err = -ENOENT;
		why = "a staging page cannot be mapped";
	}
	if (err) {
		chan->st[err == -ENOENT ? XFB_GRANT_ERRORS : XFB_INVALID_REQ]++;
		dev_warn_ratelimited(&chan->be->dev->dev,
				     "queue %u: bad %s request: %s\n",
				     chan->index, staged ? "staged" : "memshare",
				     why);
		req->status = FIPCBLK_RSP_ERROR;
		xfb_answer(chan, req);
		return false;
	}
	if (staged) {
		chan->st[XFB_STAGED_REQ]++;
		if (!chan->stg_pages) {
			chan->st[XFB_STAGED_GRANT_REQ]++;
			return true;	/* mapped, as a grant request */
		}
		xfb_staging_pages(chan, msgs, nrefs, req->pages);
	}
	req->nrefs = nrefs;
	req->shared = true;
	return true;
}

static void xfb_handle(struct xfb_chan *chan, const struct fipc_msg *msgs,
		       unsigned int nslots)
{
	struct xfb_be *be = chan->be;
	struct fipcblk_request r;
	struct xfb_limits lim;
	struct xfb_req *req;
	const char *why = "";
	unsigned int nrefs;

	req = list_first_entry(&chan->free_reqs, struct xfb_req, node);
	list_del(&req->node);
	chan->taken++;
	req->t_seen = ktime_get_ns();
	memcpy(&r, msgs[0].data, sizeof(r));
	req->id = r.id;
	req->op = r.op;
	req->nrefs = 0;
	req->shared = false;
	req->status = FIPCBLK_RSP_OKAY;

	lim = be->lim;
	lim.sectors = READ_ONCE(be->lim.sectors);
	req->status = xfb_validate(&lim, &r, nslots, &nrefs, &why);
	if (req->status) {
		chan->st[XFB_INVALID_REQ]++;
		dev_warn_ratelimited(&be->dev->dev,
				     "queue %u: bad request (op %u flags %#x sector %llu bytes %u offset %u slots %u): %s\n",
				     chan->index, r.op, r.flags, r.sector,
				     r.nr_bytes, r.first_offset, nslots, why);
		xfb_answer(chan, req);
		return;
	}
	/* Validated: STAGED only where staging pages may be, on either path. */
	if (nrefs && (be->ms || (r.flags & FIPCBLK_F_STAGED)) &&
	    !(r.flags & FIPCBLK_F_GRANTREFS)) {
		if (!xfb_ms_lookup(chan, req, msgs, nrefs,
				   r.flags & FIPCBLK_F_STAGED))
			return;
	} else if (nrefs && !xfb_map(chan, req, msgs, nrefs, false)) {
		chan->st[XFB_GRANT_ERRORS]++;
		dev_warn_ratelimited(&be->dev->dev,
				     "queue %u: cannot map the %u grants of a request\n",
				     chan->index, nrefs);
		req->status = FIPCBLK_RSP_ERROR;
		xfb_answer(chan, req);
		return;
	}
	xfb_submit(chan, req, &r);
}

/**
 * xfb_poll() - do what waits on a channel
 * @entry: the channel's poll entry
 * @budget: most new requests to take (poll_budget)
 *
 * Return: the amount of work done (0 if none).
 */
static int xfb_poll(struct fipc_poll_entry *entry, unsigned int budget)
{
	struct xfb_chan *chan = xfb_poll_chan(entry);
	const struct fipc_msg *msgs;
	struct blk_plug plug;
	int work, n;

	/* A completion answers (xfb_end_answer()); it kicks us if need be. */
	if (!xfb_ring_claim(chan))
		return 0;
	chan->st[XFB_POLL_LOOPS]++;
	work = xfb_reap(chan);
	/* Our own completions: not gaps the poller should learn to fill. */
	fipc_poll_entry_local_work(entry, work);

	/*
	 * Without a plug, a bio for a device with an I/O scheduler (any
	 * single-queue device: mq-deadline) is only inserted and its queue
	 * run from kblockd, one more thread to wake per request; flushing
	 * the plug here dispatches the batch from the poller itself.
	 */
	blk_start_plug(&plug);
	chan->grant_wait = false;
	chan->page_wait = false;
	while (!chan->broken && budget--) {
		if (list_empty(&chan->free_reqs)) {
			if (xfb_rx_ready(chan))
				chan->st[XFB_OO_REQ]++;
			break;
		}
		if (!xfb_pages_ready(chan)) {
			/* Resumed by the refill or a timed retry. */
			if (xfb_rx_ready(chan)) {
				chan->page_wait = true;
				xfb_pages_refill(chan);
			}
			break;
		}
		if (!xfb_guest_grants_room(chan->be->guest, chan->be->max_refs) ||
		    (!chan->be->ms &&
		     !xfb_maptrack_room(atomic_read(&chan->be->guest->grants),
					chan->be->max_refs))) {
			/* Resumed by the guest's own completions or a retry. */
			if (xfb_rx_ready(chan)) {
				chan->grant_wait = true;
				chan->st[XFB_GRANT_WAITS]++;
			}
			break;
		}
		/* A request held over the limits, or taken before: again. */
		n = xfb_recv(chan, &msgs);
		if (n == -EAGAIN)
			break;
		if (n < 0) {
			xfb_proto_error(chan, "request ring corrupted");
			break;
		}
		if (xfb_throttle(chan, msgs, n))
			break;	/* held: asked again after chan->limit_us */
		xfb_handle(chan, msgs, n);
		xfb_recv_done(chan);
		work++;
	}
	blk_finish_plug(&plug);
	if (!chan->broken)
		xfb_notify(chan);
	xfb_park(chan);
	xfb_eoi(chan);
	if (!work)
		chan->st[XFB_EMPTY_POLLS]++;
	xfb_ring_release(chan);
	return work;
}

/* The latency histograms after each poller's line of poller_cpus. */
static int xfb_poll_show(struct fipc_poller *pl, char *buf, size_t size)
{
	const struct xfb_poll_lat *lat = fipc_poller_priv(pl);
	int n;

	n = fipc_poll_lat_show(buf, size, "dev_us", lat->dev);
	n += fipc_poll_lat_show(buf + n, size - n, "reap_us", lat->reap);
	return n;
}

/* What the pollers of xfb_pollers do with our channels. */
const struct fipc_poll_ops xfb_poll_ops = {
	.poll = xfb_poll,
	.set_sleeping = xfb_set_sleeping,
	.has_work = xfb_has_work,
	.busy = xfb_busy,
	.wait = xfb_wait,
	.show = xfb_poll_show,
};

/**
 * xfb_chan_drain() - wait for every bio of a detached channel and unmap
 * @chan: the channel, no longer attached to a poller
 *
 * No response is sent: the channel is going away.
 */
void xfb_chan_drain(struct xfb_chan *chan)
{
	do {
		while (!wait_event_timeout(xfb_drain_wq,
					   !atomic_read(&chan->inflight),
					   10 * HZ))
			dev_warn(&chan->be->dev->dev,
				 "queue %u: still waiting for %d requests of the device or pages it holds\n",
				 chan->index, atomic_read(&chan->inflight));
		chan->broken = true;
		xfb_reap(chan);
		/* A request reaped may wait for its pages: in flight again. */
	} while (atomic_read(&chan->inflight));
	xfb_held_chan_stop(chan);
}
