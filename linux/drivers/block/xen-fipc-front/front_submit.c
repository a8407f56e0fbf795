// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: request submission.
 *
 * Each data page of a request is granted to the backend for the life of
 * the request (no persistent grants): read-only for writes, writable for
 * reads.  The queue's virtual boundary is the page size, so the data is
 * one run that starts at first_offset in its first page and continues
 * through whole pages (segments may also go on within a page: merged
 * small I/Os from one buffer), and the references form a PRP-like list: the
 * first FIPCBLK_HEAD_REFS in the head slot, then FIPCBLK_CONT_REFS per
 * continuation slot.  On the memshare path (front_memshare.c) a WRITE's
 * references are the pages' pfns instead, and nothing is granted; a READ
 * (or a WRITE with a page whose frame changed since connect) goes through
 * the channel's staging pages (front_staging.c) if it fits, else with
 * grants of its own.  The data is taken back from the backend by
 * xff_end_data() (front_complete.c), here too when a request fails
 * before it is sent.
 */
#include <linux/blk-mq.h>
#include <xen/events.h>
#include <xen/page.h>
#include "front.h"

/* Reference i of a request into its place (fipcblk.h, native order). */
static void xff_put_ref(struct fipc_msg *msgs, unsigned int i, u32 ref)
{
	memcpy(msgs[FIPCBLK_REF_SLOT(i)].data + FIPCBLK_REF_OFFSET(i), &ref,
	       sizeof(ref));
}

struct xff_grant_walk {
	struct xff_page_walk walk;
	grant_ref_t head;
	domid_t domid;
	bool ro;
};

static int xff_grant_page(struct xff_page_walk *walk, unsigned int i,
			  struct page *page)
{
	struct xff_grant_walk *w = container_of(walk, struct xff_grant_walk,
						walk);

	walk->p->refs[i] = gnttab_claim_grant_reference(&w->head);
	gnttab_page_grant_foreign_access_ref_one(walk->p->refs[i], w->domid,
						 page, w->ro);
	walk->p->nrefs = i + 1;
	return 0;
}

/*
 * Grant the pages of a data request.  Returns the first page offset, or
 * a negative errno (-ENOSPC: out of grant references, try later; -EIO:
 * the block layer broke the page-boundary promise).
 */
static int xff_grant_data(struct xff_info *info, struct request *rq,
			  struct xff_rq *p, unsigned int nrefs, bool ro)
{
	struct xff_grant_walk w = {
		.walk.page = xff_grant_page,
		.walk.p = p,
		.domid = info->xbdev->otherend_id,
		.ro = ro,
	};
	int first;

	if (gnttab_alloc_grant_references(nrefs, &w.head))
		return -ENOSPC;
	first = xff_walk_data_pages(rq, nrefs, &w.walk);
	if (first == -EIO)
		pr_err_ratelimited(XFF_NAME ": %s: request breaks the page-boundary layout\n",
				   info->disk->disk_name);
	gnttab_free_grant_references(w.head);
	return first;
}

/*
 * Through the channel's staging pages, if it has enough free and the
 * request is small enough (-EAGAIN otherwise): the request says so.
 */
static int xff_stage_data(struct xff_chan *chan, struct request *rq,
			  struct xff_rq *p, struct fipcblk_request *r,
			  unsigned int nrefs)
{
	int first = xff_staging_take(chan, rq, p, nrefs);

	if (first >= 0)
		r->flags |= FIPCBLK_F_STAGED;
	return first;
}

/* Memshare: may the request name its pages by pfn? */
static bool xff_memshare_by_pfn(const struct xff_info *info, u8 op)
{
	return op == FIPCBLK_OP_WRITE || info->ms->writable;
}

/*
 * Memshare: by pfn if it can (WRITEs; READs too where the memory is
 * shared writable), else through staging pages, else with grants.
 * Returns the first page offset or a negative errno.
 */
static int xff_memshare_data(struct xff_info *info, struct xff_chan *chan,
			     struct request *rq, struct xff_rq *p,
			     struct fipcblk_request *r, unsigned int nrefs)
{
	int first = -EAGAIN;

	if (xff_memshare_by_pfn(info, r->op))
		first = xff_memshare_refs(info, rq, p, nrefs);
	if (first == -EAGAIN)
		first = xff_stage_data(chan, rq, p, r, nrefs);
	if (first == -EAGAIN) {
		r->flags |= FIPCBLK_F_GRANTREFS;
		first = xff_grant_data(info, rq, p, nrefs,
				       r->op == FIPCBLK_OP_WRITE);
	}
	return first;
}

/*
 * Grant path: through the channel's staging pages if it has them and the
 * request fits (a copy instead of a grant map and unmap in the backend),
 * else with grants of its own.
 */
static int xff_grant_path_data(struct xff_info *info, struct xff_chan *chan,
			       struct request *rq, struct xff_rq *p,
			       struct fipcblk_request *r, unsigned int nrefs)
{
	int first = xff_stage_data(chan, rq, p, r, nrefs);

	if (first == -EAGAIN)
		first = xff_grant_data(info, rq, p, nrefs,
				       r->op == FIPCBLK_OP_WRITE);
	return first;
}

static blk_status_t xff_prepare(struct xff_info *info, struct xff_chan *chan,
				struct request *rq, struct xff_rq *p,
				struct fipcblk_request *r, unsigned int *nslots)
{
	unsigned int nrefs = 0;
	int first = 0;

	memset(r, 0, sizeof(*r));
	p->nrefs = 0;
	p->data = XFF_DATA_GRANTS;
	r->sector = blk_rq_pos(rq);
	switch (req_op(rq)) {
	case REQ_OP_READ:
		r->op = FIPCBLK_OP_READ;
		break;
	case REQ_OP_WRITE:
		r->op = FIPCBLK_OP_WRITE;
		if (rq->cmd_flags & REQ_FUA)
			r->flags |= FIPCBLK_F_FUA;
		break;
	case REQ_OP_FLUSH:
		r->op = FIPCBLK_OP_FLUSH;
		r->sector = 0;
		break;
	case REQ_OP_SECURE_ERASE:
		r->flags |= FIPCBLK_F_SECURE;
		fallthrough;
	case REQ_OP_DISCARD:
		r->op = FIPCBLK_OP_DISCARD;
		r->nr_bytes = blk_rq_bytes(rq);
		break;
	default:
		return BLK_STS_NOTSUPP;
	}
	if (r->op == FIPCBLK_OP_READ || r->op == FIPCBLK_OP_WRITE) {
		r->nr_bytes = blk_rq_bytes(rq);
		first = bio_iter_iovec(rq->bio, rq->bio->bi_iter).bv_offset;
		nrefs = DIV_ROUND_UP(first + r->nr_bytes, FIPCBLK_PAGE_BYTES);
		if (!r->nr_bytes || nrefs > info->max_refs)
			return BLK_STS_IOERR;
		if (info->ms)
			first = xff_memshare_data(info, chan, rq, p, r, nrefs);
		else if (info->bounce)
			first = xff_bounce_data(info, rq, p, nrefs);
		else
			first = xff_grant_path_data(info, chan, rq, p, r, nrefs);
		if (first < 0)
			return first == -ENOSPC ? BLK_STS_RESOURCE :
						  BLK_STS_IOERR;
		r->first_offset = first;
	}
	*nslots = FIPCBLK_REQ_SLOTS(nrefs);
	return BLK_STS_OK;
}

static blk_status_t xff_queue_rq(struct blk_mq_hw_ctx *hctx,
				 const struct blk_mq_queue_data *bd)
{
	struct xff_info *info = hctx->queue->queuedata;
	struct request *rq = bd->rq;
	struct xff_rq *p = blk_mq_rq_to_pdu(rq);
	struct fipcblk_request head;
	struct xff_chan *chan;
	unsigned int i, nslots = 1;
	unsigned long flags;
	blk_status_t sts;
	int err;

	if (unlikely(READ_ONCE(info->removing)))
		return BLK_STS_IOERR;
	if (unlikely(READ_ONCE(info->link) != XFF_UP))
		return BLK_STS_RESOURCE;
	chan = &info->chans[hctx->queue_num % info->nr_chans];

	blk_mq_start_request(rq);
	p->chan = chan;
	sts = xff_prepare(info, chan, rq, p, &head, &nslots);
	if (sts)
		goto end_data;

	spin_lock_irqsave(&chan->tx_lock, flags);
	if (unlikely(chan->broken)) {
		err = -EPROTO;
		goto fail;
	}
	/* Unique among the channel's requests in flight, not only the tag's. */
	chan->next_gen = (chan->next_gen + 1) & 0x7fffffff;
	p->gen = chan->next_gen;
	head.id = (u64)p->gen << 32 | hctx->queue_num << 16 | rq->tag;
	memcpy(chan->txbuf[0].data, &head, sizeof(head));
	for (i = 0; i < p->nrefs; i++)
		xff_put_ref(chan->txbuf, i, p->refs[i]);
	p->t_sub = ktime_get_ns();
	/* Before the backend can see the request and answer it. */
	WRITE_ONCE(p->inflight, true);
	atomic_inc(&chan->inflight);
	err = xff_ring_send(chan, nslots);
	if (unlikely(err)) {
		atomic_dec(&chan->inflight);
		WRITE_ONCE(p->inflight, false);
		goto fail;
	}
	chan->st[XFF_REQUESTS]++;
	if (head.flags & FIPCBLK_F_STAGED)
		chan->st[info->ms ? XFF_MS_STAGED : XFF_GRANT_STAGED]++;
	if (info->ms && xff_memshare_by_pfn(info, head.op) &&
	    (head.flags & (FIPCBLK_F_STAGED | FIPCBLK_F_GRANTREFS)))
		chan->st[XFF_MS_FALLBACKS]++;
	else if (head.flags & FIPCBLK_F_GRANTREFS)
		chan->st[XFF_MS_READ_GRANTS]++;
	if (info->ms && head.op == FIPCBLK_OP_READ &&
	    !(head.flags & (FIPCBLK_F_STAGED | FIPCBLK_F_GRANTREFS)))
		chan->st[XFF_MS_READ_PFNS]++;
	if (p->data == XFF_DATA_BOUNCE)
		chan->st[XFF_BOUNCED]++;
	if (bd->last)
		xff_chan_notify(chan);
	spin_unlock_irqrestore(&chan->tx_lock, flags);

	/*
	 * Answers come sooner if our own poller is awake to take them, if
	 * they come within its window; else the event handler takes them.
	 */
	if (xff_poller_wanted(chan) && fipc_poll_entry_wake(&chan->poll))
		chan->st[XFF_LOCAL_KICKS]++;
	return BLK_STS_OK;

fail:
	if (err == -EAGAIN) {
		/* Request ring full: any completion restarts the queue. */
		xff_chan_notify(chan);
	}
	spin_unlock_irqrestore(&chan->tx_lock, flags);
	if (err == -EPROTO)
		xff_protocol_error(chan, "request ring corrupted");
	sts = err == -EAGAIN || err == -EPROTO ? BLK_STS_RESOURCE :
						 BLK_STS_IOERR;
end_data:
	if (unlikely(!xff_end_data(info, p, NULL))) {
		/*
		 * Never sent, yet mapped: the backend maps references it
		 * guessed.  The request is ours until they are ended.
		 */
		xff_stuck_add(info, rq);
		xff_protocol_error(chan, "data page mapped before the request was sent");
		return BLK_STS_OK;
	}
	return sts;
}

static void xff_commit_rqs(struct blk_mq_hw_ctx *hctx)
{
	struct xff_info *info = hctx->queue->queuedata;
	struct xff_chan *chan;
	unsigned long flags;

	if (READ_ONCE(info->link) != XFF_UP)
		return;
	chan = &info->chans[hctx->queue_num % info->nr_chans];
	spin_lock_irqsave(&chan->tx_lock, flags);
	xff_chan_notify(chan);
	spin_unlock_irqrestore(&chan->tx_lock, flags);
}

/*
 * The backend may hold a request for as long as it likes (its pages stay
 * granted until it answers or disconnects), so never complete one here.
 */
static enum blk_eh_timer_return xff_timeout(struct request *rq)
{
	return BLK_EH_RESET_TIMER;
}

const struct blk_mq_ops xff_mq_ops = {
	.queue_rq	= xff_queue_rq,
	.commit_rqs	= xff_commit_rqs,
	.complete	= xff_complete_rq,
	.timeout	= xff_timeout,
};
