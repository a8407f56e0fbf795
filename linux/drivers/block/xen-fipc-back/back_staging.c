// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: staging pages of a memshare channel.
 *
 * A PV guest's memory is mapped read-only (back_memshare.c), so a READ
 * cannot be written into the guest's pages by pfn.  Instead each channel
 * of a memshare connection may come with staging pages: pages the
 * frontend granted writable once and listed in one granted list page
 * (queue-<q>/fipc-staging-ref, queue-<q>/fipc-staging-pages; fipcblk.h).
 * We copy the list once into private memory, map every page writable for
 * the life of the connection, and a request with FIPCBLK_F_STAGED names
 * them by index: its bio is built on the mapped staging pages, with no
 * grant operation and no hypercall.  The frontend copies READ data out
 * after our response.
 *
 * Kept mapped, each staging page is one of the backend domain's grant
 * mappings (maptrack) for as long as the guest stays connected.  So the
 * pages a guest's channels keep are bounded per guest
 * (max_guest_staging_pages, back_guest.c) and, with the guests' memshare
 * tables, for all guests (memshare_max_mib, back_memshare.c).  A channel
 * whose pages would pass either keeps only the list: each request then
 * maps the staging pages it names for itself, as a grant request does
 * (statistics/staged_grant_req), and counts in the guest's
 * max_guest_grants like one.  The frontend sees no difference.
 *
 * The frontend is untrusted: the count is bounded by what we offered
 * (fipc-staging-max-pages) and every index is checked (array_index_nospec)
 * before use.  A list naming a reference that cannot be mapped fails the
 * connection with an error in xenstore (kept mapped) or the request that
 * names it (mapped per request).  Unmapped when the channel goes, after
 * its bios have ended.
 */
#include <linux/nospec.h>
#include <linux/slab.h>
#include <xen/grant_table.h>
#include <xen/xenbus.h>
#include "back.h"

/* Read queue-<q>/fipc-staging-{pages,ref}; 0 pages if absent. */
static int xfb_staging_keys(struct xfb_be *be, struct xfb_chan *chan,
			    unsigned int *n, grant_ref_t *list_ref)
{
	unsigned int max = min_t(unsigned int, xfb_staging_max_pages,
				 FIPCBLK_STAGING_MAX_PAGES);
	char key[48];

	/* At most what we offered (fipc-staging-max-pages). */
	snprintf(key, sizeof(key), "queue-%u/fipc-staging-pages", chan->index);
	if (xfb_read_fe_uint(be, key, 0, max, 0, n))
		goto bad;
	if (!*n)
		return 0;
	snprintf(key, sizeof(key), "queue-%u/fipc-staging-ref", chan->index);
	if (xfb_read_fe_uint(be, key, GNTTAB_NR_RESERVED_ENTRIES, U32_MAX,
			     XFB_REQUIRED, list_ref))
		goto bad;
	return 0;

bad:
	xenbus_switch_state(be->dev, XenbusStateClosing);
	return -EINVAL;
}

/*
 * Map the n pages the list names, writable; all or nothing.  Once the
 * pages are allocated they are the channel's (@chan->stg_pages), mapped
 * or not: xfb_staging_unmap() ends what was mapped.
 */
static int xfb_staging_map_pages(struct xfb_be *be, struct xfb_chan *chan,
				 const u32 *refs, unsigned int n)
{
	struct gnttab_map_grant_ref *ops;
	grant_handle_t *handles;
	struct page **pages;
	unsigned int i;
	int err;

	ops = kvcalloc(n, sizeof(*ops), GFP_KERNEL);
	pages = kvcalloc(n, sizeof(*pages), GFP_KERNEL);
	handles = kvcalloc(n, sizeof(*handles), GFP_KERNEL);
	err = ops && pages && handles ? gnttab_alloc_pages(n, pages) : -ENOMEM;
	if (err) {
		kvfree(pages);
		kvfree(handles);
		goto out;
	}
	chan->stg_pages = pages;
	chan->stg_handles = handles;
	for (i = 0; i < n; i++) {
		handles[i] = INVALID_GRANT_HANDLE;
		gnttab_set_map_op(&ops[i], (unsigned long)page_address(pages[i]),
				  GNTMAP_host_map, refs[i],
				  be->dev->otherend_id);
		ops[i].status = GNTST_general_error;
		ops[i].handle = INVALID_GRANT_HANDLE;
	}
	err = gnttab_map_refs(ops, NULL, pages, n);
	/* Whatever it returned, keep the handle of every page mapped. */
	for (i = 0; i < n; i++) {
		if (ops[i].status == GNTST_okay)
			handles[i] = ops[i].handle;
		else if (!err)
			err = -EINVAL;
	}
out:
	kvfree(ops);
	return err;
}

/* Uncount what xfb_staging_charge() counted. */
static void xfb_staging_uncharge(struct xfb_be *be, unsigned int n)
{
	xfb_guest_staging_uncharge(be->guest, n);
	xfb_memshare_budget_give(n);
	xfb_maptrack_give(n);
}

/*
 * Count @n pages to keep mapped for the guest, for the backend's
 * memshare budget and for its grant mappings.
 */
static bool xfb_staging_charge(struct xfb_be *be, struct xfb_chan *chan,
			       unsigned int n)
{
	const char *which = "the guest's max_guest_staging_pages";

	if (xfb_guest_staging_charge(be->guest, n)) {
		if (xfb_memshare_budget_take(n)) {
			if (xfb_maptrack_take(n))
				return true;
			xfb_memshare_budget_give(n);
			which = "the backend's max_grant_mappings";
		} else {
			which = "the backend's memshare_max_mib";
		}
		xfb_guest_staging_uncharge(be->guest, n);
	}
	dev_notice(&be->dev->dev, "queue %u: keeping %u staging pages mapped would pass %s; requests map the pages they name\n",
		   chan->index, n, which);
	return false;
}

/**
 * xfb_staging_map() - take a channel's staging pages, if it has any
 * @be: the device, connecting with staging pages allowed (memshare, or
 *	grant with fipc-grant-staging)
 * @chan: the channel, its rings mapped
 *
 * Copies the list; maps the pages for the connection where the budgets
 * allow it, else leaves them to be mapped per request.
 *
 * Return: 0 (chan->stg_nr staging pages, maybe none) or a negative errno,
 * reported in xenstore; the caller then frees the channel
 * (xfb_staging_unmap()).
 */
int xfb_staging_map(struct xfb_be *be, struct xfb_chan *chan)
{
	grant_ref_t list_ref;
	unsigned int n;
	void *list;
	int err;

	err = xfb_staging_keys(be, chan, &n, &list_ref);
	if (err || !n)
		return err;
	chan->stg_refs = kcalloc(n, sizeof(*chan->stg_refs), GFP_KERNEL);
	if (!chan->stg_refs)
		return -ENOMEM;
	/* The list, copied once: the frontend may rewrite it any time. */
	err = xenbus_map_ring_valloc(be->dev, &list_ref, 1, &list);
	if (err)
		return err;
	memcpy(chan->stg_refs, list, n * sizeof(*chan->stg_refs));
	xenbus_unmap_ring_vfree(be->dev, list);
	chan->stg_nr = n;
	if (!xfb_staging_charge(be, chan, n))
		return 0;
	err = xfb_staging_map_pages(be, chan, chan->stg_refs, n);
	if (err) {
		/* Pages allocated: xfb_staging_unmap() uncounts them. */
		if (!chan->stg_pages)
			xfb_staging_uncharge(be, n);
		xenbus_dev_fatal(be->dev, err,
				 "mapping the %u staging pages of queue %u",
				 n, chan->index);
	}
	return err;
}

/**
 * xfb_staging_unmap() - unmap a channel's staging pages
 * @be: the device
 * @chan: the channel, no bio in flight
 *
 * Pages whose unmap fails are leaked, never reused, and stay charged to
 * the guest and the backend's budget.
 */
void xfb_staging_unmap(struct xfb_be *be, struct xfb_chan *chan)
{
	struct gnttab_unmap_grant_ref *ops = NULL;
	struct page **pages = NULL;
	unsigned int i, n = 0, unmapped = 0, leaked = 0;

	if (!chan->stg_pages)
		goto out;
	ops = kvcalloc(chan->stg_nr, sizeof(*ops), GFP_KERNEL);
	pages = kvcalloc(chan->stg_nr, sizeof(*pages), GFP_KERNEL);
	if (!ops || !pages) {
		dev_err(&be->dev->dev, "queue %u: no memory to unmap, leaking %u staging pages\n",
			chan->index, chan->stg_nr);
		leaked = chan->stg_nr;
		goto free;
	}
	/* Mapped pages are unmapped and freed; the others only freed. */
	for (i = 0; i < chan->stg_nr; i++) {
		if (chan->stg_handles[i] == INVALID_GRANT_HANDLE) {
			chan->stg_pages[unmapped++] = chan->stg_pages[i];
			continue;
		}
		gnttab_set_unmap_op(&ops[n],
				    (unsigned long)page_address(chan->stg_pages[i]),
				    GNTMAP_host_map, chan->stg_handles[i]);
		pages[n++] = chan->stg_pages[i];
	}
	if (n)
		leaked = xfb_unmap_free_pages(be, ops, pages, n);
	if (unmapped)
		gnttab_free_pages(unmapped, chan->stg_pages);
free:
	kvfree(ops);
	kvfree(pages);
	/* A page whose unmap failed is leaked (and logged), still counted. */
	xfb_staging_uncharge(be, chan->stg_nr - leaked);
out:
	kfree(chan->stg_refs);
	chan->stg_refs = NULL;
	kvfree(chan->stg_pages);
	kvfree(chan->stg_handles);
	chan->stg_pages = NULL;
	chan->stg_handles = NULL;
	chan->stg_nr = 0;
}

/**
 * xfb_staging_check() - are a request's staging page indices in range
 * @chan: the channel
 * @msgs: the request message (private copy)
 * @nrefs: number of indices it carries (validated)
 * @why: set to a reason on failure
 *
 * Return: 0, or -ERANGE if an index is at or past the channel's staging
 * pages (none: every index is).
 */
int xfb_staging_check(const struct xfb_chan *chan, const struct fipc_msg *msgs,
		      unsigned int nrefs, const char **why)
{
	unsigned int i;

	for (i = 0; i < nrefs; i++) {
		if (xfb_ref_at(msgs, i) >= chan->stg_nr) {
			*why = "staging page index out of range";
			return -ERANGE;
		}
	}
	return 0;
}

/**
 * xfb_staging_pages() - the kept-mapped staging pages a request names
 * @chan: the channel, its staging pages mapped (@chan->stg_pages)
 * @msgs: the request message (private copy), checked by
 *	xfb_staging_check()
 * @nrefs: number of indices it carries
 * @pages: filled with the pages
 */
void xfb_staging_pages(const struct xfb_chan *chan, const struct fipc_msg *msgs,
		       unsigned int nrefs, struct page **pages)
{
	unsigned int i;

	for (i = 0; i < nrefs; i++)
		pages[i] = chan->stg_pages[array_index_nospec(xfb_ref_at(msgs, i),
							      chan->stg_nr)];
}

/**
 * xfb_staging_ref() - the grant reference of a staging page
 * @chan: the channel
 * @idx: the page's index, checked by xfb_staging_check()
 *
 * Return: the reference, from the channel's private copy of the list.
 */
u32 xfb_staging_ref(const struct xfb_chan *chan, u32 idx)
{
	return chan->stg_refs[array_index_nospec(idx, chan->stg_nr)];
}
