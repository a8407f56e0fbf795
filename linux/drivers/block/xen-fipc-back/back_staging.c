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
 * The frontend is untrusted: the count is bounded by what we offered
 * (fipc-staging-max-pages) and every index is checked (array_index_nospec)
 * before use.  A list naming a reference that cannot be mapped fails the
 * connection with an error in xenstore.  Unmapped when the channel goes,
 * after its bios have ended.
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
	xenbus_switch_state(be->dev, XS_CLOSING);
	return -EINVAL;
}

/* Map the n pages the list names, writable; all or nothing. */
static int xfb_staging_map_pages(struct xfb_be *be, struct xfb_chan *chan,
				 const u32 *refs, unsigned int n)
{
	struct gnttab_map_grant_ref *ops;
	unsigned int i;
	int err;

	ops = kvcalloc(n, sizeof(*ops), GFP_KERNEL);
	chan->stg_pages = kvcalloc(n, sizeof(*chan->stg_pages), GFP_KERNEL);
	chan->stg_handles = kvcalloc(n, sizeof(*chan->stg_handles),
				     GFP_KERNEL);
	if (!ops || !chan->stg_pages || !chan->stg_handles) {
		err = -ENOMEM;
		goto out;
	}
	err = gnttab_alloc_pages(n, chan->stg_pages);
	if (err)
		goto out;
	chan->stg_nr = n;
	for (i = 0; i < n; i++) {
		chan->stg_handles[i] = INVALID_GRANT_HANDLE;
		gnttab_set_map_op(&ops[i],
				  (unsigned long)page_address(chan->stg_pages[i]),
				  GNTMAP_host_map, refs[i],
				  be->dev->otherend_id);
		ops[i].status = GNTST_general_error;
		ops[i].handle = INVALID_GRANT_HANDLE;
	}
	err = gnttab_map_refs(ops, NULL, chan->stg_pages, n);
	/* Whatever it returned, keep the handle of every page mapped. */
	for (i = 0; i < n; i++) {
		if (ops[i].status == GNTST_okay)
			chan->stg_handles[i] = ops[i].handle;
		else if (!err)
			err = -EINVAL;
	}
out:
	kvfree(ops);
	return err;
}

/**
 * xfb_staging_map() - map a channel's staging pages, if it has any
 * @be: the device, connecting on the memshare path
 * @chan: the channel, its rings mapped
 *
 * Return: 0 (chan->stg_nr pages mapped, maybe none) or a negative errno,
 * reported in xenstore; the caller then frees the channel
 * (xfb_staging_unmap()).
 */
int xfb_staging_map(struct xfb_be *be, struct xfb_chan *chan)
{
	grant_ref_t list_ref;
	unsigned int n;
	void *list;
	u32 *refs;
	int err;

	err = xfb_staging_keys(be, chan, &n, &list_ref);
	if (err || !n)
		return err;
	refs = kcalloc(n, sizeof(*refs), GFP_KERNEL);
	if (!refs)
		return -ENOMEM;
	/* The list, copied once: the frontend may rewrite it any time. */
	err = xenbus_map_ring_valloc(be->dev, &list_ref, 1, &list);
	if (err)
		goto out;
	memcpy(refs, list, n * sizeof(*refs));
	xenbus_unmap_ring_vfree(be->dev, list);
	err = xfb_staging_map_pages(be, chan, refs, n);
	if (err)
		xenbus_dev_fatal(be->dev, err,
				 "mapping the %u staging pages of queue %u",
				 n, chan->index);
out:
	kfree(refs);
	return err;
}

/**
 * xfb_staging_unmap() - unmap a channel's staging pages
 * @be: the device
 * @chan: the channel, no bio in flight
 *
 * Pages whose unmap fails are leaked, never reused.
 */
void xfb_staging_unmap(struct xfb_be *be, struct xfb_chan *chan)
{
	struct gnttab_unmap_grant_ref *ops = NULL;
	struct page **pages = NULL;
	unsigned int i, n = 0, unmapped = 0;

	if (!chan->stg_nr)
		goto out;
	ops = kvcalloc(chan->stg_nr, sizeof(*ops), GFP_KERNEL);
	pages = kvcalloc(chan->stg_nr, sizeof(*pages), GFP_KERNEL);
	if (!ops || !pages) {
		dev_err(&be->dev->dev, "queue %u: no memory to unmap, leaking %u staging pages\n",
			chan->index, chan->stg_nr);
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
		xfb_unmap_free_pages(be, ops, pages, n);
	if (unmapped)
		gnttab_free_pages(unmapped, chan->stg_pages);
free:
	kvfree(ops);
	kvfree(pages);
out:
	kvfree(chan->stg_pages);
	kvfree(chan->stg_handles);
	chan->stg_pages = NULL;
	chan->stg_handles = NULL;
	chan->stg_nr = 0;
}

/**
 * xfb_staging_pages() - the staging pages a request names by index
 * @chan: the channel
 * @msgs: the request message (private copy)
 * @nrefs: number of indices it carries (validated)
 * @pages: filled with the pages
 * @why: set to a reason on failure
 *
 * Return: 0, or -ERANGE if an index is at or past the channel's staging
 * pages (none: every index is).
 */
int xfb_staging_pages(const struct xfb_chan *chan, const struct fipc_msg *msgs,
		      unsigned int nrefs, struct page **pages, const char **why)
{
	unsigned int i;

	for (i = 0; i < nrefs; i++) {
		u32 idx = xfb_ref_at(msgs, i);

		if (idx >= chan->stg_nr) {
			*why = "staging page index out of range";
			return -ERANGE;
		}
		pages[i] = chan->stg_pages[array_index_nospec(idx,
							      chan->stg_nr)];
	}
	return 0;
}
