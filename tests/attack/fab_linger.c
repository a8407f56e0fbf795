// SPDX-License-Identifier: GPL-2.0
/*
 * fipc_attack_back: the linger attack (linger_sector=, memshare disks):
 * map some of the guest pages its memshare table grants, close with them
 * still mapped once the guest read linger_sector, let them go hold_s
 * later.  The frontend must not end those grants with a page reference
 * (issue 12, front_linger.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "fab.h"

/*
 * The linger attack: map FAB_LINGER_REFS of the pages the frontend's
 * memshare table grants (from its first table page), read-only.  The
 * directory and table page are copied once; their entries are checked
 * before use.
 */
void fab_ms_map(struct fab_dev *fb)
{
	grant_ref_t refs[FAB_LINGER_REFS], ref;
	u32 dir_ref, pfns, *table;
	unsigned int i, n = 0;
	void *addr;
	int err;

	err = fab_read_uint(fb, "fipc-memshare-dir-ref",
			    GNTTAB_NR_RESERVED_ENTRIES, U32_MAX, &dir_ref) ?:
	      fab_read_uint(fb, "fipc-memshare-pfns", 1,
			    FIPCBLK_MEMSHARE_MAX_PFNS, &pfns);
	table = kmalloc(FIPCBLK_PAGE_BYTES, GFP_KERNEL);
	if (err || !table)
		goto out;
	ref = dir_ref;
	err = xenbus_map_ring_valloc(fb->dev, &ref, 1, &addr);
	if (err)
		goto out;
	memcpy(&ref, addr, sizeof(ref));	/* table page 0 */
	xenbus_unmap_ring_vfree(fb->dev, addr);
	err = -EINVAL;
	if (ref < GNTTAB_NR_RESERVED_ENTRIES)
		goto out;
	err = xenbus_map_ring_valloc(fb->dev, &ref, 1, &addr);
	if (err)
		goto out;
	memcpy(table, addr, FIPCBLK_PAGE_BYTES);
	xenbus_unmap_ring_vfree(fb->dev, addr);
	pfns = min_t(u32, pfns, FIPCBLK_MEMSHARE_REFS_PER_PAGE);
	for (i = 0; i < pfns && n < FAB_LINGER_REFS; i++)
		if (table[i] >= GNTTAB_NR_RESERVED_ENTRIES)
			refs[n++] = table[i];
	err = -ENOENT;
	if (!n)
		goto out;
	fb->ms = fab_map(fb, refs, n, true);
	err = fb->ms ? 0 : -EIO;
out:
	kfree(table);
	pr_info("@@FIPC-ATTACKB ms-mapped dom=%u refs=%u err=%d table0_pfns=%u\n",
		fb->dev->otherend_id, fb->ms ? fb->ms->nrefs : 0, err,
		err ? 0 : pfns);
}

/* hold_s after the close (or at once if now): let the memshare pages go. */
void fab_ms_release(struct fab_dev *fb, bool now)
{
	unsigned long hold = (unsigned long)hold_s * HZ;
	struct fab_held *h = fb->ms;

	if (!h || (!now && (!fb->ms_closed ||
			    time_before(jiffies, h->since + hold))))
		return;
	pr_info("@@FIPC-ATTACKB ms-unmapped dom=%u refs=%u held_ms=%u early=%d\n",
		fb->dev->otherend_id, h->nrefs,
		fb->ms_closed ? jiffies_to_msecs(jiffies - h->since) : 0,
		!fb->ms_closed || time_before(jiffies, h->since + hold));
	fb->ms = NULL;
	fab_unmap(fb, h);
}
