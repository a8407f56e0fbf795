// SPDX-License-Identifier: GPL-2.0
/*
 * fipc_attack_back: the linger attack (linger_sector=, memshare disks):
 * map some of the guest pages its memshare table grants, close with them
 * still mapped once the guest read linger_sector, let them go hold_s
 * later.  The frontend must not end those grants with a page reference
 * (issue 12, front_linger.c).  On memory shared writable (a PVH guest),
 * the READ of linger_sector comes by pfn: we keep its pages mapped
 * writable and never answer it, and write them just before we let go, as
 * a late lower layer would: the frontend must hold those pages until
 * then (issue 45, finding 5).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "fab.h"

/*
 * Copy the frontend's memshare table (pfn -> grant reference) into
 * fb->ms_table, at each memshare connect: the directory page, then each
 * table page it lists, mapped read-only one at a time and copied once.
 * The count and every reference are checked before use; a reference in
 * the copy is checked again where it is used.
 */
int fab_ms_read_table(struct fab_dev *fb)
{
	u32 pfns, nr_tables, t, *dir = NULL;
	grant_ref_t ref;
	void *addr;
	int err;

	vfree(fb->ms_table);
	fb->ms_table = NULL;
	fb->ms_pfns = 0;
	err = fab_read_uint(fb, "fipc-memshare-dir-ref",
			    GNTTAB_NR_RESERVED_ENTRIES, U32_MAX, &ref) ?:
	      fab_read_uint(fb, "fipc-memshare-pfns", 1,
			    FIPCBLK_MEMSHARE_MAX_PFNS, &pfns);
	if (err)
		return err;
	nr_tables = DIV_ROUND_UP(pfns, FIPCBLK_MEMSHARE_REFS_PER_PAGE);
	dir = kmalloc(FIPCBLK_PAGE_BYTES, GFP_KERNEL);
	fb->ms_table = vzalloc(array_size(nr_tables, FIPCBLK_PAGE_BYTES));
	err = -ENOMEM;
	if (!dir || !fb->ms_table)
		goto out;
	err = xenbus_map_ring_valloc(fb->dev, &ref, 1, &addr);
	if (err)
		goto out;
	memcpy(dir, addr, FIPCBLK_PAGE_BYTES);
	xenbus_unmap_ring_vfree(fb->dev, addr);
	for (t = 0; t < nr_tables; t++) {
		ref = dir[t];
		err = -EINVAL;
		if (ref < GNTTAB_NR_RESERVED_ENTRIES)
			goto out;
		err = xenbus_map_ring_valloc(fb->dev, &ref, 1, &addr);
		if (err)
			goto out;
		memcpy((u8 *)fb->ms_table + (size_t)t * FIPCBLK_PAGE_BYTES,
		       addr, FIPCBLK_PAGE_BYTES);
		xenbus_unmap_ring_vfree(fb->dev, addr);
	}
	fb->ms_pfns = pfns;
out:
	kfree(dir);
	if (err) {
		vfree(fb->ms_table);
		fb->ms_table = NULL;
	}
	pr_info("@@FIPC-ATTACKB ms-table dom=%u pfns=%u writable=%d err=%d\n",
		fb->dev->otherend_id, fb->ms_pfns, fb->ms_writable, err);
	return err;
}

/*
 * The linger attack: map FAB_LINGER_REFS of the pages the frontend's
 * memshare table grants (from our copy of it), read-only.
 */
void fab_ms_map(struct fab_dev *fb)
{
	grant_ref_t refs[FAB_LINGER_REFS];
	unsigned int i, n = 0;
	int err = -ENOENT;

	for (i = 0; fb->ms_table && i < fb->ms_pfns && n < FAB_LINGER_REFS; i++)
		if (fb->ms_table[i] >= GNTTAB_NR_RESERVED_ENTRIES)
			refs[n++] = fb->ms_table[i];
	if (n) {
		fb->ms = fab_map(fb, refs, n, true);
		err = fb->ms ? 0 : -EIO;
	}
	pr_info("@@FIPC-ATTACKB ms-mapped dom=%u refs=%u err=%d table_pfns=%u writable=%d\n",
		fb->dev->otherend_id, fb->ms ? fb->ms->nrefs : 0, err,
		fb->ms_pfns, fb->ms_writable);
}

/* A late write: what a lower layer finishing after the close would do. */
static void fab_ms_late_write(struct fab_held *h)
{
	unsigned int i;

	for (i = 0; i < h->nrefs; i++)
		memset(page_address(h->pages[i]), 0x5a, FIPCBLK_PAGE_BYTES);
}

/* hold_s after the close (or at once if now): let the memshare pages go. */
void fab_ms_release(struct fab_dev *fb, bool now)
{
	unsigned long hold = (unsigned long)hold_s * HZ;
	struct fab_held *h = fb->ms;

	if (!h || (!now && (!fb->ms_closed ||
			    time_before(jiffies, h->since + hold))))
		return;
	if (fb->ms_read && !now) {
		fab_ms_late_write(fb->ms_read);
		fb->ms_late_write = true;
	}
	pr_info("@@FIPC-ATTACKB ms-unmapped dom=%u refs=%u read_refs=%u late_write=%d held_ms=%u early=%d\n",
		fb->dev->otherend_id, h->nrefs,
		fb->ms_read ? fb->ms_read->nrefs : 0, fb->ms_late_write,
		fb->ms_closed ? jiffies_to_msecs(jiffies - h->since) : 0,
		!fb->ms_closed || time_before(jiffies, h->since + hold));
	fb->ms = NULL;
	fab_unmap(fb, h);
	if (fb->ms_read) {
		fab_unmap(fb, fb->ms_read);
		fb->ms_read = NULL;
	}
}
