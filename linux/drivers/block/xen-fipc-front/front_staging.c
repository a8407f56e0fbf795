// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: staging pages of a channel (memshare, and grant).
 *
 * A PV guest shares its memory read-only (front_memshare.c), so the
 * backend cannot write a READ's data into the request's own pages.
 * Instead of granting those pages for each READ (a map and an unmap
 * hypercall per request in the backend), each channel keeps a few pages
 * of its own (staging_pages, at most what the backend offers), granted
 * writable once at connect and listed in a granted list page
 * (fipcblk.h).  A READ that fits in the free staging pages names them by
 * index (FIPCBLK_F_STAGED), the backend's device writes there, and the
 * data is copied into the request's pages when the response arrives.  A
 * WRITE whose pages cannot go by pfn (their frame changed) is copied in
 * and sent the same way.  These pages are never page tables (we keep
 * them), so sharing them writable is safe for the guest.
 *
 * On the grant path (grant_staging_pages of them, 256 by default, where
 * the backend offers fipc-grant-staging) the same pages carry READs and
 * WRITEs of up to
 * staging_max_kb: blkif's persistent-grant trade, a copy in the guest
 * instead of a grant map and unmap (with its TLB flush) in the backend
 * per request.  Larger requests, and those that find too few pages free,
 * carry grants of their own.
 *
 * The free pages are a stack under the channel's staging lock: taken by
 * submitters, given back by the poller (completions) and at requeue.
 */
#include <linux/blk-mq.h>
#include <linux/highmem.h>
#include <linux/slab.h>
#include <xen/grant_table.h>
#include <xen/page.h>
#include "front.h"

/* Grant references the grant path's staging pages leave free. */
#define XFF_STAGING_RESERVE	1024

/**
 * xff_staging_setup() - give a channel its staging pages
 * @info: the disk, on the memshare path, or the grant path with staging
 * @chan: the channel, being set up
 *
 * As many pages as staging_pages (memshare) or grant_staging_pages (grant
 * path) asks, capped by the backend's fipc-staging-max-pages; none if the
 * backend offers none.  A failure (memory, grant references; on the grant
 * path, fewer than XFF_STAGING_RESERVE references left beside them)
 * leaves the channel without staging pages: its requests then carry
 * grants.
 */
void xff_staging_setup(struct xff_info *info, struct xff_chan *chan)
{
	struct xff_staging *stg = &chan->stg;
	domid_t domid = info->xbdev->otherend_id;
	unsigned int n, i;
	grant_ref_t head;
	u32 *list;

	spin_lock_init(&stg->lock);
	n = xenbus_read_unsigned(info->xbdev->otherend,
				 "fipc-staging-max-pages", 0);
	n = min3(n, info->ms ? READ_ONCE(xff_staging_pages) :
			       READ_ONCE(xff_grant_staging_pages),
		 (unsigned int)FIPCBLK_STAGING_MAX_PAGES);
	if (!n)
		return;
	/*
	 * The grant path: keep XFF_STAGING_RESERVE references free for the
	 * requests that carry grants (this disk's large ones, other disks'),
	 * or go without staging pages.
	 */
	if (!info->ms) {
		if (gnttab_alloc_grant_references(XFF_STAGING_RESERVE + n + 1,
						  &head)) {
			dev_notice(&info->xbdev->dev, "queue %u: too few grant references left for %u staging pages; requests carry grants\n",
				   chan->index, n);
			return;
		}
		gnttab_free_grant_references(head);
	}
	stg->pages = kcalloc(n, sizeof(*stg->pages), GFP_KERNEL);
	stg->refs = kcalloc(n, sizeof(*stg->refs), GFP_KERNEL);
	stg->free = kcalloc(n, sizeof(*stg->free), GFP_KERNEL);
	stg->list = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!stg->pages || !stg->refs || !stg->free || !stg->list)
		goto fail;
	for (i = 0; i < n; i++) {
		stg->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!stg->pages[i])
			goto fail;
	}
	if (gnttab_alloc_grant_references(n + 1, &head)) {
		dev_warn(&info->xbdev->dev, "queue %u: no grant references for %u staging pages; READs go with grants\n",
			 chan->index, n);
		goto fail;
	}
	list = page_address(stg->list);
	for (i = 0; i < n; i++) {
		stg->refs[i] = gnttab_claim_grant_reference(&head);
		gnttab_grant_foreign_access_ref(stg->refs[i], domid,
						xen_page_to_gfn(stg->pages[i]),
						0);
		list[i] = stg->refs[i];
		stg->free[i] = n - 1 - i;
	}
	/*
	 * Writable: the backend maps it with xenbus_map_ring_valloc(), which
	 * maps writable.  We never read it back.
	 */
	stg->list_ref = gnttab_claim_grant_reference(&head);
	gnttab_grant_foreign_access_ref(stg->list_ref, domid,
					xen_page_to_gfn(stg->list), 0);
	gnttab_free_grant_references(head);
	stg->nr = n;
	stg->nfree = n;
	return;

fail:
	xff_free_pages(stg->pages, n);
	if (stg->list)
		__free_page(stg->list);
	kfree(stg->refs);
	kfree(stg->free);
	memset(stg, 0, sizeof(*stg));
	spin_lock_init(&stg->lock);
}

/**
 * xff_staging_teardown() - take a channel's staging pages back
 * @chan: the channel; the backend has unmapped them (disconnect)
 *
 * A page the backend still maps is freed later, when it lets it go
 * (gnttab_end_foreign_access()).
 */
void xff_staging_teardown(struct xff_chan *chan)
{
	struct xff_staging *stg = &chan->stg;
	unsigned int i;

	if (!stg->nr)
		return;
	for (i = 0; i < stg->nr; i++)
		gnttab_end_foreign_access(stg->refs[i], stg->pages[i]);
	gnttab_end_foreign_access(stg->list_ref, stg->list);
	kfree(stg->pages);
	kfree(stg->refs);
	kfree(stg->free);
	memset(stg, 0, sizeof(*stg));
	spin_lock_init(&stg->lock);
}

/**
 * xff_staging_write_keys() - publish a channel's staging pages
 * @xbt: the transaction writing the channel's keys
 * @info: the disk
 * @chan: the channel
 *
 * Return: 0 or a negative errno.
 */
int xff_staging_write_keys(struct xenbus_transaction xbt,
			   struct xff_info *info, struct xff_chan *chan)
{
	const char *node = info->xbdev->nodename;
	char key[48];
	int err;

	if (!chan->stg.nr)
		return 0;
	snprintf(key, sizeof(key), "queue-%u/fipc-staging-ref", chan->index);
	err = xenbus_printf(xbt, node, key, "%u", chan->stg.list_ref);
	if (err)
		return err;
	snprintf(key, sizeof(key), "queue-%u/fipc-staging-pages", chan->index);
	return xenbus_printf(xbt, node, key, "%u", chan->stg.nr);
}

struct xff_staging_walk {
	struct xff_page_walk walk;
	struct xff_staging *stg;
	bool to_stage;
};

static int xff_staging_copy(struct xff_page_walk *walk, unsigned int i,
			    struct page *page)
{
	struct xff_staging_walk *w = container_of(walk, struct xff_staging_walk,
						  walk);
	void *stage = page_address(w->stg->pages[walk->p->refs[i]]);
	unsigned int start, len;
	void *data;

	len = xff_walk_span(walk, i, &start);
	data = kmap_local_page(page);
	if (w->to_stage)
		memcpy(stage + start, data + start, len);
	else
		memcpy(data + start, stage + start, len);
	kunmap_local(data);
	return 0;
}

static int xff_staging_noop(struct xff_page_walk *walk, unsigned int i,
			    struct page *page)
{
	return 0;
}

/* Give a request's staging pages back. */
static void xff_staging_put(struct xff_staging *stg, struct xff_rq *p)
{
	unsigned long flags;
	unsigned int i;

	/* Also from the event handler (xff_irq_take()). */
	spin_lock_irqsave(&stg->lock, flags);
	for (i = 0; i < p->nrefs; i++)
		stg->free[stg->nfree++] = p->refs[i];
	spin_unlock_irqrestore(&stg->lock, flags);
}

/**
 * xff_staging_take() - stage a request's data in the channel's staging pages
 * @chan: the channel the request goes on
 * @rq: the request (READ or WRITE)
 * @p: its driver data: p->refs filled with staging page indices
 * @nrefs: number of pages the request spans
 *
 * A WRITE's data is copied into the staging pages now.
 *
 * Requests larger than staging_max_kb are not staged: for very large
 * ones one grant map batch costs less than copying the data.
 *
 * Return: the first page offset, -EAGAIN if not enough staging pages
 * are free or the request is large (send it another way), or -EIO if the request breaks
 * the page-boundary layout.
 */
int xff_staging_take(struct xff_chan *chan, struct request *rq,
		     struct xff_rq *p, unsigned int nrefs)
{
	struct xff_staging *stg = &chan->stg;
	struct xff_staging_walk w = {
		.stg = stg,
		.walk.p = p,
		.to_stage = true,
	};
	unsigned long flags;
	unsigned int i;
	int first;

	if (nrefs > READ_ONCE(xff_staging_max_kb) / (PAGE_SIZE / 1024) ||
	    nrefs > READ_ONCE(stg->nfree))
		return -EAGAIN;
	spin_lock_irqsave(&stg->lock, flags);
	if (nrefs > stg->nfree) {
		spin_unlock_irqrestore(&stg->lock, flags);
		return -EAGAIN;
	}
	for (i = 0; i < nrefs; i++)
		p->refs[i] = stg->free[--stg->nfree];
	spin_unlock_irqrestore(&stg->lock, flags);
	p->nrefs = nrefs;
	p->data = XFF_DATA_STAGED;
	/* The layout first (and a WRITE's data). */
	w.walk.page = req_op(rq) == REQ_OP_WRITE ? xff_staging_copy :
						   xff_staging_noop;
	first = xff_walk_data_pages(rq, nrefs, &w.walk);
	if (first < 0)
		xff_staging_release(chan, p, NULL);
	return first;
}

/**
 * xff_staging_release() - end a request's use of staging pages
 * @chan: the channel it went on
 * @p: its driver data (p->data is XFF_DATA_STAGED)
 * @rq: a READ that succeeded, whose data is copied out first; NULL
 *	when nothing is to be copied (WRITE, error, requeue)
 */
void xff_staging_release(struct xff_chan *chan, struct xff_rq *p,
			 struct request *rq)
{
	struct xff_staging_walk w = {
		.walk.page = xff_staging_copy,
		.stg = &chan->stg,
		.walk.p = p,
	};

	if (rq) {
		/* Checked at submission: the layout cannot fail here. */
		xff_walk_data_pages(rq, p->nrefs, &w.walk);
	}
	xff_staging_put(&chan->stg, p);
	p->nrefs = 0;
	p->data = XFF_DATA_GRANTS;
}
