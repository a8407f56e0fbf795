// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: bounce pages for a backend we do not trust.
 *
 * A grant names a whole page, but an I/O buffer need only be 512-byte
 * aligned (dma_alignment): a 512-byte buffer inside a kmalloc'ed page
 * would expose the rest of that page, whatever else lives there, to the
 * backend (read-only for a WRITE, writable for a READ).  When the disk
 * is untrusted (its frontend node's "trusted" is 0, or the module
 * parameter trusted=0) every data page of a request is a page of our
 * own instead, taken from the disk's bounce pool: zeroed where the data
 * does not go, with a WRITE's data copied in before the grant; a READ's
 * data is copied out once the grants are ended.  The backend then only
 * ever sees the request's data and zeroes.
 *
 * The pool is a mempool with one largest request's pages in reserve, so
 * that writeback always makes progress; a request that finds no page
 * is retried (BLK_STS_RESOURCE).
 */
#include <linux/blk-mq.h>
#include <linux/highmem.h>
#include <linux/mempool.h>
#include <xen/grant_table.h>
#include "front.h"

/**
 * xff_bounce_setup() - create the disk's bounce pool
 * @info: the disk, untrusted, with its largest request known
 *
 * Return: 0 or -ENOMEM.
 */
int xff_bounce_setup(struct xff_info *info)
{
	if (info->bounce_pool)
		return 0;
	info->bounce_pool = mempool_create_page_pool(info->max_refs, 0);
	return info->bounce_pool ? 0 : -ENOMEM;
}

/**
 * xff_bounce_teardown() - free the pool
 * @info: the disk, removed: no request holds a bounce page
 */
void xff_bounce_teardown(struct xff_info *info)
{
	mempool_destroy(info->bounce_pool);
	info->bounce_pool = NULL;
}

struct xff_bounce_walk {
	struct xff_page_walk walk;
	struct page **pages;
};

/*
 * Copy the data of the request's page @i between @page and its bounce
 * page: @in for a WRITE's submission (zeroes around the data), else out
 * for a READ's completion.
 */
static void xff_bounce_copy(struct xff_page_walk *walk, unsigned int i,
			    struct page *page, bool in)
{
	struct xff_bounce_walk *w = container_of(walk, struct xff_bounce_walk,
						 walk);
	void *bounce = page_address(w->pages[i]);
	unsigned int start, len;
	void *data;

	len = xff_walk_span(walk, i, &start);
	if (in) {
		memset(bounce, 0, start);
		memset(bounce + start + len, 0, PAGE_SIZE - start - len);
	}
	data = kmap_local_page(page);
	if (in)
		memcpy(bounce + start, data + start, len);
	else
		memcpy(data + start, bounce + start, len);
	kunmap_local(data);
}

/* Submission: a WRITE's data in, zeroes around it. */
static int xff_bounce_in(struct xff_page_walk *walk, unsigned int i,
			 struct page *page)
{
	xff_bounce_copy(walk, i, page, true);
	return 0;
}

/* Completion of a READ: its data out. */
static int xff_bounce_out(struct xff_page_walk *walk, unsigned int i,
			  struct page *page)
{
	xff_bounce_copy(walk, i, page, false);
	return 0;
}

/* Submission of a READ: its pages are zeroed whole, only the layout. */
static int xff_bounce_layout(struct xff_page_walk *walk, unsigned int i,
			     struct page *page)
{
	return 0;
}

/* Give the bounce pages still held back to the pool. */
static void xff_bounce_put(struct xff_info *info, struct page **pages,
			   unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (pages[i])
			mempool_free(pages[i], info->bounce_pool);
		pages[i] = NULL;
	}
}

/**
 * xff_bounce_data() - send a READ or WRITE through bounce pages
 * @info: the disk, untrusted
 * @rq: the request
 * @p: its driver data: p->refs gets the grants of the bounce pages
 * @nrefs: number of pages the request spans
 *
 * Return: the first page offset, -ENOSPC if no pages or grant
 * references are to be had now (retry), or -EIO if the request breaks
 * the page-boundary layout.
 */
int xff_bounce_data(struct xff_info *info, struct request *rq,
		    struct xff_rq *p, unsigned int nrefs)
{
	struct page **pages = xff_rq_bounce(info, p);
	struct xff_bounce_walk w = {
		.pages = pages,
	};
	domid_t domid = info->xbdev->otherend_id;
	bool ro = req_op(rq) == REQ_OP_WRITE;
	grant_ref_t head;
	unsigned int i;
	int first;

	for (i = 0; i < nrefs; i++) {
		pages[i] = mempool_alloc(info->bounce_pool,
					 GFP_NOWAIT | __GFP_NOWARN);
		if (!pages[i]) {
			xff_bounce_put(info, pages, i);
			return -ENOSPC;
		}
	}
	/* A READ's pages are zeroed whole: the backend may read them too. */
	if (!ro)
		for (i = 0; i < nrefs; i++)
			clear_highpage(pages[i]);
	w.walk.page = ro ? xff_bounce_in : xff_bounce_layout;
	first = xff_walk_data_pages(rq, nrefs, &w.walk);
	if (first >= 0 && gnttab_alloc_grant_references(nrefs, &head))
		first = -ENOSPC;
	if (first < 0) {
		xff_bounce_put(info, pages, nrefs);
		return first;
	}
	for (i = 0; i < nrefs; i++) {
		p->refs[i] = gnttab_claim_grant_reference(&head);
		gnttab_page_grant_foreign_access_ref_one(p->refs[i], domid,
							 pages[i], ro);
	}
	gnttab_free_grant_references(head);
	p->nrefs = nrefs;
	p->data = XFF_DATA_BOUNCE;
	return first;
}

/**
 * xff_bounce_end() - the request's grants are all ended: its pages back
 * @info: the disk
 * @p: the request's data (p->data is XFF_DATA_BOUNCE)
 * @read_ok: a READ that succeeded, whose data is copied out first; NULL
 *	when nothing is to be copied
 */
void xff_bounce_end(struct xff_info *info, struct xff_rq *p,
		    struct request *read_ok)
{
	struct page **pages = xff_rq_bounce(info, p);
	struct xff_bounce_walk w = {
		.walk.page = xff_bounce_out,
		.pages = pages,
	};

	if (read_ok) {
		/* Checked at submission: the layout cannot fail here. */
		xff_walk_data_pages(read_ok, p->nrefs, &w.walk);
	}
	xff_bounce_put(info, pages, p->nrefs);
}

/**
 * xff_bounce_let_go() - a bounce page still mapped goes to the grant table
 * @info: the disk
 * @p: the request's data (p->data is XFF_DATA_BOUNCE)
 * @i: index of the grant that could not be ended
 *
 * gnttab_end_foreign_access() takes our reference on the page and frees
 * it once the backend unmaps it; the pool never sees it again.
 */
void xff_bounce_let_go(struct xff_info *info, struct xff_rq *p,
		       unsigned int i)
{
	struct page **pages = xff_rq_bounce(info, p);

	gnttab_end_foreign_access(p->refs[i], pages[i]);
	pages[i] = NULL;
}
