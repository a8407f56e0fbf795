// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: the memshare data path.
 *
 * At connect the frontend has granted every RAM page it has to us and
 * published a pfn -> grant reference table (fipcblk.h): a directory page
 * listing table pages of 1024 references each.  We copy the directory and
 * the tables once into private memory (the frontend may rewrite them at
 * any time), then map every listed reference, in batches, on pages of our
 * own (gnttab_alloc_pages), keeping an array pfn -> page.  WRITE requests
 * then name their pages by pfn, and a bio is built on the pages of the
 * array: no grant operation and no hypercall per request.  Everything is
 * unmapped at disconnect, after the channels' bios have ended.
 *
 * The mapping is read-only unless the frontend granted its memory
 * writable and says so (fipc-memshare-writable = 1, which we offer unless
 * memshare_writable is off).  In a PV guest a frame that another domain
 * maps writable cannot become a page table (Xen's page types): the guest
 * would fail to pin its next page table on any page we map writable, and
 * every free page may become one.  So a PV guest shares read-only, and its
 * READ requests, whose data we must write, go through the channel's
 * staging pages (FIPCBLK_F_STAGED, back_staging.c) or carry per-request
 * grants (FIPCBLK_F_GRANTREFS); a READ by pfn on a read-only mapping is
 * refused.  PVH and HVM guests have no page types: they share writable
 * and READs name pfns too.  (A PV guest that asks for writable anyway
 * gets what Xen lets us map: a frame of its that is a page table does
 * not map, and requests naming it fail.)
 *
 * The frontend is untrusted: the pfn count is bounded, a reference that
 * cannot be mapped leaves its pfn unmapped (requests naming it fail),
 * and every pfn of a request is checked against the array (with
 * array_index_nospec) before use.  What a guest can make us map is
 * bounded before anything is mapped: a table may not repeat a reference,
 * its references may not outnumber the guest's own maximum memory (Xen's
 * max_pages for the domain, where we may ask: dom0 may, a driver domain
 * usually not) nor the guest's share of memshare_max_mib
 * (memshare_guest_max_mib, by default half), and all the guests' tables
 * together, with the staging pages the channels keep mapped
 * (back_staging.c), stay within memshare_max_mib and, with every other
 * mapping of the backend, within max_grant_mappings (back_maptrack.c):
 * no guest can use up the backend domain's grant mappings (maptrack),
 * which every other guest's blkback, netback and fipc channels need too.
 * The list's lock is never held while a table is read or mapped.
 */
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <xen/grant_table.h>
#include <xen/xenbus.h>
#include <xen/interface/memory.h>
#include <asm/xen/hypercall.h>
#include "back.h"

/* The mappings, one per guest table, shared by that guest's devices. */
static DEFINE_MUTEX(xfb_ms_mutex);
static LIST_HEAD(xfb_ms_maps);
/* Sum of the maps' @reserved, under xfb_ms_mutex. */
static unsigned long xfb_ms_reserved;

/* Grants mapped or unmapped per hypercall. */
#define XFB_MS_BATCH		512
#define XFB_MS_PER_PAGE		FIPCBLK_MEMSHARE_REFS_PER_PAGE

/*
 * Copy @n pages of references, named by @refs, into @dst (@count entries
 * at most), mapping at most XENBUS_MAX_RING_GRANTS pages at a time.
 */
static int xfb_ms_copy_pages(struct xfb_be *be, grant_ref_t *refs,
			     unsigned int n, u32 *dst, unsigned long count)
{
	unsigned int done = 0, chunk;
	unsigned long bytes;
	void *addr;
	int err;

	while (done < n) {
		chunk = min_t(unsigned int, n - done, XENBUS_MAX_RING_GRANTS);
		err = xenbus_map_ring_valloc(be->dev, refs + done, chunk,
					     &addr);
		if (err)
			return err;
		bytes = min_t(unsigned long, (unsigned long)chunk * XFB_MS_PER_PAGE,
			      count - (unsigned long)done * XFB_MS_PER_PAGE);
		memcpy(dst + (unsigned long)done * XFB_MS_PER_PAGE, addr,
		       bytes * sizeof(u32));
		xenbus_unmap_ring_vfree(be->dev, addr);
		done += chunk;
	}
	return 0;
}

/*
 * The most pages the guest may own (its max_pages in Xen), or 0 where we
 * may not ask (a driver domain: XSM lets only the domain itself, its
 * device model and the control domain ask).
 */
static unsigned long xfb_ms_guest_max_pages(domid_t domid)
{
	long ret = HYPERVISOR_memory_op(XENMEM_maximum_reservation, &domid);

	return ret > 0 ? ret : 0;
}

/*
 * Read the frontend's fipc-memshare-pfns and fipc-memshare-dir-ref.  The
 * pfn span may exceed the guest's pages a little (holes), never twice.
 */
static int xfb_ms_read_keys(struct xfb_be *be, unsigned long max_pages,
			    struct xfb_ms_key *key)
{
	u32 max = FIPCBLK_MEMSHARE_MAX_PFNS, n = 0, w = 0;
	int err;

	if (max_pages)
		max = min_t(unsigned long, max, 2 * max_pages);
	err = xfb_read_fe_uint(be, "fipc-memshare-pfns", 1, max, XFB_REQUIRED,
			       &n) ?:
	      xfb_read_fe_uint(be, "fipc-memshare-dir-ref",
			       GNTTAB_NR_RESERVED_ENTRIES, U32_MAX,
			       XFB_REQUIRED, &key->dir_ref) ?:
	      xfb_read_fe_uint(be, "fipc-memshare-writable", 0,
			       be->msw_offered, 0, &w);
	key->npfns = n;
	key->writable = w;
	return err;
}

/* How a mapping's references are mapped and unmapped. */
static u32 xfb_ms_map_flags(const struct xfb_memshare *ms)
{
	return GNTMAP_host_map | (ms->key.writable ? 0 : GNTMAP_readonly);
}

static int xfb_ms_cmp_ref(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Count the table's references (non-zero entries) and refuse a table
 * that repeats one: an honest guest grants each page once, and a repeated
 * reference only multiplies what it makes us map.
 */
static int xfb_ms_count_refs(struct xfb_be *be, const u32 *grefs,
			     unsigned long npfns, unsigned long *nrefs)
{
	unsigned long i, n = 0;
	u32 *sorted;

	sorted = kvmalloc_array(npfns, sizeof(*sorted), GFP_KERNEL);
	if (!sorted)
		return -ENOMEM;
	for (i = 0; i < npfns; i++)
		if (grefs[i])
			sorted[n++] = grefs[i];
	sort(sorted, n, sizeof(*sorted), xfb_ms_cmp_ref, NULL);
	for (i = 1; i < n; i++) {
		if (sorted[i] == sorted[i - 1]) {
			xenbus_dev_error(be->dev, -EINVAL,
					 "memshare table repeats grant reference %u",
					 sorted[i]);
			kvfree(sorted);
			return -EINVAL;
		}
	}
	kvfree(sorted);
	*nrefs = n;
	return 0;
}

/* memshare_max_mib in pages. */
static unsigned long xfb_ms_budget_pages(void)
{
	return (unsigned long)READ_ONCE(xfb_memshare_max_mib) <<
	       (20 - XEN_PAGE_SHIFT);
}

/* One guest's share of the budget: memshare_guest_max_mib, or half. */
static unsigned long xfb_ms_share_pages(void)
{
	unsigned int mib = READ_ONCE(xfb_memshare_guest_max_mib);

	if (!mib)
		return xfb_ms_budget_pages() / 2;
	return (unsigned long)mib << (20 - XEN_PAGE_SHIFT);
}

/*
 * Charge @ms->reserved to the guest's bounds, the backend's budget and
 * its grant mappings, or refuse: all the guest's tables together may not
 * reference more pages than it may own (where we may read that) nor
 * more than its share, all guests' not more than memshare_max_mib, and
 * every mapping of the backend stays within max_grant_mappings.
 */
static int xfb_ms_reserve(struct xfb_be *be, struct xfb_memshare *ms,
			  unsigned long nrefs, unsigned long max_pages)
{
	unsigned long budget = xfb_ms_budget_pages();
	unsigned long share = xfb_ms_share_pages();
	unsigned long guest = 0;
	struct xfb_memshare *o;
	int err = 0;

	mutex_lock(&xfb_ms_mutex);
	list_for_each_entry(o, &xfb_ms_maps, node)
		if (o->key.domid == ms->key.domid)
			guest += o->reserved;
	if (max_pages && guest + nrefs > max_pages) {
		xenbus_dev_error(be->dev, -E2BIG,
				 "memshare table lists %lu pages (%lu already mapped for this guest), the guest may own %lu",
				 nrefs, guest, max_pages);
		err = -E2BIG;
	} else if (guest + nrefs > share) {
		xenbus_dev_error(be->dev, -E2BIG,
				 "memshare: %lu pages (%lu already mapped for this guest) would pass its share of %lu MiB (memshare_guest_max_mib, 0: half of memshare_max_mib); using grants",
				 nrefs, guest, share >> (20 - XEN_PAGE_SHIFT));
		err = -E2BIG;
	} else if (xfb_ms_reserved + nrefs > budget) {
		xenbus_dev_error(be->dev, -ENOSPC,
				 "memshare: %lu pages would pass the backend's budget of %lu MiB (%lu pages mapped for all guests; memshare_max_mib); using grants",
				 nrefs, budget >> (20 - XEN_PAGE_SHIFT),
				 xfb_ms_reserved);
		err = -ENOSPC;
	} else if (!xfb_maptrack_take(nrefs)) {
		xenbus_dev_error(be->dev, -ENOSPC,
				 "memshare: %lu pages would pass the backend's max_grant_mappings (%lu of %lu mapped for all guests); using grants",
				 nrefs, xfb_maptrack_used(),
				 READ_ONCE(xfb_max_grant_mappings));
		err = -ENOSPC;
	} else {
		ms->reserved = nrefs;
		xfb_ms_reserved += nrefs;
	}
	mutex_unlock(&xfb_ms_mutex);
	return err;
}

/**
 * xfb_memshare_budget_take() - count @n pages kept mapped outside a table
 * @n: pages (a channel's staging pages, back_staging.c)
 *
 * They share memshare_max_mib with the guests' tables: all of them are
 * grant mappings kept for a connection's life.
 *
 * Return: true if counted, false if they would pass the budget.
 */
bool xfb_memshare_budget_take(unsigned long n)
{
	unsigned long budget = xfb_ms_budget_pages();
	bool ok;

	mutex_lock(&xfb_ms_mutex);
	ok = xfb_ms_reserved + n <= budget;
	if (ok)
		xfb_ms_reserved += n;
	mutex_unlock(&xfb_ms_mutex);
	return ok;
}

/**
 * xfb_memshare_budget_give() - uncount pages no longer kept mapped
 * @n: what xfb_memshare_budget_take() counted
 */
void xfb_memshare_budget_give(unsigned long n)
{
	mutex_lock(&xfb_ms_mutex);
	xfb_ms_reserved -= min(n, xfb_ms_reserved);
	mutex_unlock(&xfb_ms_mutex);
}

/* Copy the directory and the tables into a private array. */
static u32 *xfb_ms_read_table(struct xfb_be *be, unsigned long n,
			      grant_ref_t dir_ref)
{
	struct xenbus_device *dev = be->dev;
	grant_ref_t *tables = NULL;
	unsigned int nr_tables;
	u32 *grefs = NULL;
	int err;

	nr_tables = DIV_ROUND_UP(n, XFB_MS_PER_PAGE);
	tables = kcalloc(XFB_MS_PER_PAGE, sizeof(*tables), GFP_KERNEL);
	grefs = kvcalloc(n, sizeof(*grefs), GFP_KERNEL);
	if (!tables || !grefs) {
		err = -ENOMEM;
		goto fail;
	}
	/* The directory, then the tables it names: each copied once. */
	err = xfb_ms_copy_pages(be, &dir_ref, 1, tables, nr_tables);
	if (err)
		goto fail;
	err = xfb_ms_copy_pages(be, tables, nr_tables, grefs, n);
	if (err)
		goto fail;
	kfree(tables);
	return grefs;

fail:
	xenbus_dev_error(dev, err, "reading the memshare table");
	kfree(tables);
	kvfree(grefs);
	return NULL;
}

/* Map one batch of references; unmappable ones leave their pfn NULL. */
static int xfb_ms_map_batch(struct xfb_be *be, struct xfb_memshare *ms,
			    const u32 *grefs, const unsigned long *pfns,
			    unsigned int n, struct gnttab_map_grant_ref *ops,
			    struct page **pages)
{
	domid_t domid = be->dev->otherend_id;
	unsigned int i, nfree = 0;
	int err;

	err = gnttab_alloc_pages(n, pages);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		gnttab_set_map_op(&ops[i], (unsigned long)page_address(pages[i]),
				  xfb_ms_map_flags(ms), grefs[pfns[i]], domid);
		ops[i].status = GNTST_general_error;
		ops[i].handle = INVALID_GRANT_HANDLE;
	}
	/* Whatever it returns, the status of each op says what is mapped. */
	gnttab_map_refs(ops, NULL, pages, n);
	for (i = 0; i < n; i++) {
		if (ops[i].status == GNTST_okay) {
			ms->pages[pfns[i]] = pages[i];
			ms->handles[pfns[i]] = ops[i].handle;
			ms->mapped++;
		} else {
			ms->failed++;
			pages[nfree++] = pages[i];
		}
	}
	if (nfree)
		gnttab_free_pages(nfree, pages);
	return 0;
}

static int xfb_ms_map_all(struct xfb_be *be, struct xfb_memshare *ms,
			  const u32 *grefs)
{
	struct gnttab_map_grant_ref *ops;
	unsigned long pfn = 0, *pfns;
	struct page **pages;
	unsigned int n;
	int err = 0;

	ops = kvcalloc(XFB_MS_BATCH, sizeof(*ops), GFP_KERNEL);
	pfns = kvcalloc(XFB_MS_BATCH, sizeof(*pfns), GFP_KERNEL);
	pages = kvcalloc(XFB_MS_BATCH, sizeof(*pages), GFP_KERNEL);
	if (!ops || !pfns || !pages) {
		err = -ENOMEM;
		goto out;
	}
	while (pfn < ms->key.npfns) {
		for (n = 0; pfn < ms->key.npfns && n < XFB_MS_BATCH; pfn++)
			if (grefs[pfn])
				pfns[n++] = pfn;
		if (!n)
			break;
		/* Removed while connecting: nobody else waits for this one. */
		if (READ_ONCE(be->removing) && refcount_read(&ms->users) == 1) {
			err = -ESHUTDOWN;
			break;
		}
		err = xfb_ms_map_batch(be, ms, grefs, pfns, n, ops, pages);
		if (err)
			break;
		cond_resched();
	}
out:
	kvfree(ops);
	kvfree(pfns);
	kvfree(pages);
	return err;
}

/**
 * xfb_unmap_free_pages() - unmap a batch of long-lived grant mappings
 * @be: the device (for the log)
 * @ops: the unmap operations, set up
 * @pages: the pages they are mapped on (gnttab_alloc_pages)
 * @n: number of mappings
 *
 * Waits (sleeps) until no layer below holds a reference to any of the
 * pages (back_held.c says why), then unmaps them.  Pages unmapped are
 * freed; pages whose unmap failed are leaked, never reused (logged).
 *
 * Return: the number of pages leaked (their budgets stay charged).
 */
unsigned int xfb_unmap_free_pages(struct xfb_be *be,
				  struct gnttab_unmap_grant_ref *ops,
				  struct page **pages, unsigned int n)
{
	struct gntab_unmap_queue_data unmap = {
		.unmap_ops = ops,
		.pages = pages,
		.count = n,
	};
	unsigned int i, nfree = 0;
	int err;

	err = gnttab_unmap_refs_sync(&unmap);
	for (i = 0; i < n; i++) {
		if (!err && ops[i].status == GNTST_okay)
			pages[nfree++] = pages[i];
	}
	if (nfree != n)
		dev_err(&be->dev->dev, "unmap failed (%d), leaking %u pages\n",
			err, n - nfree);
	if (nfree)
		gnttab_free_pages(nfree, pages);
	return n - nfree;
}

/* Unmap and free the whole mapping; returns the pages leaked. */
static unsigned long xfb_ms_unmap_all(struct xfb_be *be,
				      struct xfb_memshare *ms)
{
	struct gnttab_unmap_grant_ref *ops;
	struct page **pages;
	unsigned long pfn, leaked = 0;
	unsigned int n = 0;

	ops = kvcalloc(XFB_MS_BATCH, sizeof(*ops), GFP_KERNEL);
	pages = kvcalloc(XFB_MS_BATCH, sizeof(*pages), GFP_KERNEL);
	if (!ops || !pages) {
		/* Cannot batch: keep everything mapped rather than crash. */
		dev_err(&be->dev->dev, "memshare: no memory to unmap, leaking %lu pages\n",
			ms->mapped);
		leaked = ms->mapped;
		goto out;
	}
	for (pfn = 0; pfn < ms->key.npfns; pfn++) {
		struct page *page = ms->pages[pfn];

		if (!page)
			continue;
		gnttab_set_unmap_op(&ops[n], (unsigned long)page_address(page),
				    xfb_ms_map_flags(ms), ms->handles[pfn]);
		pages[n++] = page;
		ms->pages[pfn] = NULL;
		if (n == XFB_MS_BATCH) {
			leaked += xfb_unmap_free_pages(be, ops, pages, n);
			n = 0;
			cond_resched();
		}
	}
	if (n)
		leaked += xfb_unmap_free_pages(be, ops, pages, n);
	ms->mapped = 0;
out:
	kvfree(ops);
	kvfree(pages);
	return leaked;
}

static void xfb_ms_free(struct xfb_memshare *ms)
{
	kvfree(ms->pages);
	kvfree(ms->handles);
	kfree(ms);
}

/*
 * Fill a new mapping, not yet ready (nobody else looks at its arrays):
 * read, check and charge the table, then map its every reference.  On
 * failure whatever was mapped and reserved stays for xfb_ms_put().
 */
static int xfb_ms_fill(struct xfb_be *be, struct xfb_memshare *ms,
		       unsigned long max_pages)
{
	unsigned long npfns = ms->key.npfns, nrefs;
	u64 t0 = ktime_get_ns();
	u32 *grefs;
	int err;

	grefs = xfb_ms_read_table(be, npfns, ms->key.dir_ref);
	if (!grefs)
		return -EINVAL;
	err = xfb_ms_count_refs(be, grefs, npfns, &nrefs) ?:
	      xfb_ms_reserve(be, ms, nrefs, max_pages);
	if (err)
		goto out;
	ms->pages = kvcalloc(npfns, sizeof(*ms->pages), GFP_KERNEL);
	ms->handles = kvcalloc(npfns, sizeof(*ms->handles), GFP_KERNEL);
	if (!ms->pages || !ms->handles) {
		err = -ENOMEM;
		goto out;
	}
	err = xfb_ms_map_all(be, ms, grefs);
	if (err) {
		if (err != -ESHUTDOWN)
			xenbus_dev_error(be->dev, err,
					 "mapping the guest's memory");
		goto out;
	}
	ms->map_ns = ktime_get_ns() - t0;
	dev_info(&be->dev->dev, "memshare: mapped %lu of %lu pfns %s in %llu ms (%lu refused), array %lu KiB\n",
		 ms->mapped, npfns, ms->key.writable ? "writable" : "read-only",
		 ms->map_ns / NSEC_PER_MSEC, ms->failed,
		 xfb_memshare_array_bytes(ms) / 1024);
	if (ms->failed)
		dev_warn(&be->dev->dev, "memshare: %lu references could not be mapped; requests naming their pfns will fail\n",
			 ms->failed);
out:
	kvfree(grefs);
	return err;
}

/* Drop a device's use of a mapping; the last one unmaps and frees it. */
static void xfb_ms_put(struct xfb_be *be, struct xfb_memshare *ms)
{
	unsigned long mapped = ms->mapped, leaked = 0, unmapped;

	if (!refcount_dec_and_mutex_lock(&ms->users, &xfb_ms_mutex))
		return;
	list_del(&ms->node);
	mutex_unlock(&xfb_ms_mutex);
	if (ms->pages) {
		leaked = xfb_ms_unmap_all(be, ms);
		if (mapped)
			dev_info(&be->dev->dev, "memshare: unmapped %lu pages\n",
				 mapped - leaked);
	}
	/* Pages whose unmap failed stay mapped: they stay in the budgets. */
	unmapped = ms->reserved - min(leaked, ms->reserved);
	mutex_lock(&xfb_ms_mutex);
	xfb_ms_reserved -= unmapped;
	mutex_unlock(&xfb_ms_mutex);
	xfb_maptrack_give(unmapped);
	xfb_ms_free(ms);
}

/*
 * The end of xfb_memshare_map(), for a mapping found or made: @be uses
 * @ms, ready, or on @err drops its reference.
 */
static int xfb_ms_use(struct xfb_be *be, struct xfb_memshare *ms, int err)
{
	if (err) {
		xfb_ms_put(be, ms);
		return err;
	}
	mutex_lock(&be->mutex);
	be->ms = ms;
	mutex_unlock(&be->mutex);
	return 0;
}

/**
 * xfb_memshare_map() - map all of the frontend's shared memory
 * @be: the device, connecting on the memshare path, with no channels,
 *	be->mutex not held (this takes seconds for a large guest)
 *
 * A guest shares its memory once with us for all its disks (the same
 * directory reference): a mapping of that table made for another device
 * of the same guest is shared (refcounted), else the table is mapped.
 * A device removed meanwhile stops mapping between two batches, unless
 * another device waits for the same mapping.
 *
 * Return: 0 (be->ms set, under be->mutex; pfns whose reference could not
 * be mapped stay unmapped), -ESHUTDOWN (removed) or a negative errno,
 * reported in xenstore.
 */
int xfb_memshare_map(struct xfb_be *be)
{
	domid_t domid = be->dev->otherend_id;
	unsigned long max_pages = xfb_ms_guest_max_pages(domid);
	struct xfb_ms_key key = { .domid = domid };
	struct xfb_memshare *ms, *found = NULL;
	int err;

	err = xfb_ms_read_keys(be, max_pages, &key);
	if (err)
		return err;
	mutex_lock(&xfb_ms_mutex);
	list_for_each_entry(ms, &xfb_ms_maps, node) {
		if (ms->key.domid == key.domid &&
		    ms->key.dir_ref == key.dir_ref &&
		    ms->key.npfns == key.npfns &&
		    ms->key.writable == key.writable) {
			found = ms;
			break;
		}
	}
	if (found) {
		refcount_inc(&found->users);
		mutex_unlock(&xfb_ms_mutex);
		wait_for_completion(&found->ready);
		err = xfb_ms_use(be, found, found->err);
		if (!err)
			dev_info(&be->dev->dev, "memshare: using the %lu pages of domain %u already mapped for another disk\n",
				 found->mapped, domid);
		return err;
	}
	ms = kzalloc_obj(*ms, GFP_KERNEL);
	if (!ms) {
		mutex_unlock(&xfb_ms_mutex);
		return -ENOMEM;
	}
	ms->key = key;
	refcount_set(&ms->users, 1);
	init_completion(&ms->ready);
	list_add(&ms->node, &xfb_ms_maps);
	mutex_unlock(&xfb_ms_mutex);

	err = xfb_ms_fill(be, ms, max_pages);
	ms->err = err;
	complete_all(&ms->ready);
	return xfb_ms_use(be, ms, err);
}

/**
 * xfb_memshare_unmap() - let go of the mapping of xfb_memshare_map()
 * @be: the device, its channels already freed (no bio uses the pages),
 *	be->mutex not held (unmapping a large guest takes seconds)
 *
 * The last device using a mapping unmaps and frees it.
 */
void xfb_memshare_unmap(struct xfb_be *be)
{
	struct xfb_memshare *ms;

	mutex_lock(&be->mutex);
	ms = be->ms;
	be->ms = NULL;
	mutex_unlock(&be->mutex);
	if (ms)
		xfb_ms_put(be, ms);
}

/**
 * xfb_memshare_array_bytes() - private memory that tracks the mapping
 * @ms: the mapping
 *
 * Return: bytes of the pfn -> page and pfn -> handle arrays.
 */
unsigned long xfb_memshare_array_bytes(const struct xfb_memshare *ms)
{
	return ms->key.npfns * (sizeof(*ms->pages) + sizeof(*ms->handles));
}

/**
 * xfb_memshare_pages() - the pages a memshare request names by pfn
 * @ms: the mapping
 * @op: the request's op
 * @msgs: the request message (private copy)
 * @nrefs: number of pfns it carries (validated)
 * @pages: filled with the pages
 * @why: set to a reason on failure
 *
 * Return: as xfb_pfn_pages() (back_validate.c).
 */
int xfb_memshare_pages(const struct xfb_memshare *ms, u8 op,
		       const struct fipc_msg *msgs, unsigned int nrefs,
		       struct page **pages, const char **why)
{
	return xfb_pfn_pages(ms->pages, ms->key.npfns, ms->key.writable, op,
			     msgs, nrefs, pages, why);
}
