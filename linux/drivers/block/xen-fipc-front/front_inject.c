// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: hostile-request test mode (debugfs).
 *
 *   /sys/kernel/debug/xen-fipc-front/<xenbus device>/inject
 *
 * Writing the name of a kind of malformed request sends one such request
 * on the disk's first channel, next to the normal traffic, and waits (30 s
 * at most) for the backend's answer; reading the file gives the result of
 * the last one, "<kind> status <n>" (0 okay, -1 error, -2 not supported)
 * or "<kind> timeout".  "proto" corrupts the ring instead, which
 * must make the backend shut the channel down (the disk then reconnects).
 * Reading also lists the kinds.  The test request's data page is a page
 * of our own, never a page of the disk's users.  On a memshare channel
 * the data requests of the grant kinds carry FIPCBLK_F_GRANTREFS, and the
 * ms_* kinds name pages by pfn: "ms_write" writes our (zeroed) test page
 * to the disk's second-to-last 4 KiB (status 0), "ms_read" reads by pfn
 * (refused, -1: the memory is shared read-only), and WRITEs by pfn of the
 * first pfn past the shared table ("ms_bad_pfn") and of a pfn in the
 * table that is not shared ("ms_unshared_pfn") are refused (-1).  The
 * st_* kinds are READs through staging pages that must be refused (-1):
 * "st_bad_index" names the first index past the channel's staging pages,
 * "st_both_flags" sets FIPCBLK_F_STAGED with FIPCBLK_F_GRANTREFS; they
 * also run on a grant channel with staging pages (grant_staging_pages), where
 * FIPCBLK_F_GRANTREFS is refused outright.  On a grant channel the ms_*
 * kinds, and the st_* kinds without staging pages, fail with
 * -EOPNOTSUPP.  A memshare backend reaches our test page through its
 * mapping of the whole guest, not through a grant we can end: when an
 * ms_write or ms_read gets no answer, the page is never freed (a backend
 * that answers late must not write into a page that is by then some
 * other user's, a page table perhaps); it is logged and leaked.
 */
#include <linux/debugfs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <xen/page.h>
#include "front.h"

enum xff_kind {
	XK_GOOD_READ, XK_BAD_OP, XK_BAD_FLAGS, XK_ZERO_LEN, XK_TOO_BIG,
	XK_BAD_LEN, XK_BAD_OFFSET, XK_OFFSET_PAGE, XK_BEYOND_END,
	XK_STRADDLE_END, XK_OVERFLOW, XK_MISALIGNED, XK_SLOTS_SHORT,
	XK_SLOTS_LONG, XK_BAD_GREF, XK_UNOWNED_GREF, XK_RO_GRANT_READ,
	XK_FLUSH_DATA, XK_DISCARD_OFFSET, XK_DISCARD_SECURE, XK_WRITE_RO,
	XK_PROTO, XK_MS_WRITE, XK_MS_READ, XK_MS_BAD_PFN, XK_MS_UNSHARED_PFN,
	XK_ST_BAD_INDEX, XK_ST_BOTH_FLAGS, XK_NR
};

static const char * const xff_kind_names[XK_NR] = {
	[XK_GOOD_READ] = "good_read",
	[XK_BAD_OP] = "bad_op",
	[XK_BAD_FLAGS] = "bad_flags",
	[XK_ZERO_LEN] = "zero_len",
	[XK_TOO_BIG] = "too_big",
	[XK_BAD_LEN] = "bad_len",
	[XK_BAD_OFFSET] = "bad_offset",
	[XK_OFFSET_PAGE] = "offset_page",
	[XK_BEYOND_END] = "beyond_end",
	[XK_STRADDLE_END] = "straddle_end",
	[XK_OVERFLOW] = "overflow",
	[XK_MISALIGNED] = "misaligned",
	[XK_SLOTS_SHORT] = "slots_short",
	[XK_SLOTS_LONG] = "slots_long",
	[XK_BAD_GREF] = "bad_gref",
	[XK_UNOWNED_GREF] = "unowned_gref",
	[XK_RO_GRANT_READ] = "ro_grant_read",
	[XK_FLUSH_DATA] = "flush_data",
	[XK_DISCARD_OFFSET] = "discard_offset",
	[XK_DISCARD_SECURE] = "discard_secure",
	[XK_WRITE_RO] = "write_ro",
	[XK_PROTO] = "proto",
	[XK_MS_WRITE] = "ms_write",
	[XK_MS_READ] = "ms_read",
	[XK_MS_BAD_PFN] = "ms_bad_pfn",
	[XK_MS_UNSHARED_PFN] = "ms_unshared_pfn",
	[XK_ST_BAD_INDEX] = "st_bad_index",
	[XK_ST_BOTH_FLAGS] = "st_both_flags",
};

/**
 * xff_inject_complete() - the poller got the answer to a test request
 * @chan: the channel it came on
 * @rsp: the response
 */
void xff_inject_complete(struct xff_chan *chan,
			 const struct fipcblk_response *rsp)
{
	struct xff_inject *inj = &chan->info->inject;

	if (rsp->id != (XFF_ID_INJECT | READ_ONCE(inj->seq))) {
		chan->st[XFF_BAD_RESPONSES]++;
		xff_protocol_error(chan, "answer to no test request");
		return;
	}
	inj->status = rsp->status;
	inj->op = rsp->op;
	complete(&inj->done);
}

/* Fill the head (and slot count) for a kind; sets *ro for the grant. */
static void xff_inject_build(struct xff_info *info, enum xff_kind kind,
			     struct fipcblk_request *r, unsigned int *nslots,
			     bool *ro, u32 be_max)
{
	u64 lbs_sectors = info->sector_size >> SECTOR_SHIFT;

	r->op = FIPCBLK_OP_READ;
	r->nr_bytes = FIPCBLK_PAGE_BYTES;
	*nslots = 1;
	*ro = false;
	switch (kind) {
	case XK_BAD_OP:
		r->op = 0x7f;
		break;
	case XK_BAD_FLAGS:
		r->flags = 0x80;
		break;
	case XK_ZERO_LEN:
		r->nr_bytes = 0;
		break;
	case XK_TOO_BIG:
		r->nr_bytes = be_max + FIPCBLK_PAGE_BYTES;
		break;
	case XK_BAD_LEN:
		r->nr_bytes = 100;
		break;
	case XK_BAD_OFFSET:
		r->first_offset = 100;
		r->nr_bytes = FIPCBLK_SECTOR_BYTES;
		break;
	case XK_OFFSET_PAGE:
		r->first_offset = FIPCBLK_PAGE_BYTES;
		r->nr_bytes = FIPCBLK_SECTOR_BYTES;
		break;
	case XK_BEYOND_END:
		r->sector = info->sectors;
		break;
	case XK_STRADDLE_END:
		r->sector = info->sectors - lbs_sectors;
		r->nr_bytes = 2 * FIPCBLK_PAGE_BYTES;
		*nslots = 1;
		break;
	case XK_OVERFLOW:
		r->sector = U64_MAX - 7;
		break;
	case XK_MISALIGNED:
		r->sector = 1;
		break;
	case XK_SLOTS_SHORT:
		r->nr_bytes = 16 * FIPCBLK_PAGE_BYTES;
		break;
	case XK_SLOTS_LONG:
		*nslots = 2;
		break;
	case XK_BAD_GREF:
		break;
	case XK_RO_GRANT_READ:
		*ro = true;
		break;
	case XK_FLUSH_DATA:
		r->op = FIPCBLK_OP_FLUSH;
		break;
	case XK_DISCARD_OFFSET:
		r->op = FIPCBLK_OP_DISCARD;
		r->first_offset = FIPCBLK_SECTOR_BYTES;
		r->sector = info->sectors - FIPCBLK_PAGE_BYTES / 512;
		break;
	case XK_DISCARD_SECURE:
		r->op = FIPCBLK_OP_DISCARD;
		r->flags = FIPCBLK_F_SECURE;
		r->sector = info->sectors - FIPCBLK_PAGE_BYTES / 512;
		break;
	case XK_WRITE_RO:
		r->op = FIPCBLK_OP_WRITE;
		r->sector = info->sectors - FIPCBLK_PAGE_BYTES / 512;
		*ro = true;
		break;
	default:
		break;
	}
}

/*
 * On a memshare channel the kinds above carry grant references, so their
 * data requests get FIPCBLK_F_GRANTREFS; the ms_* kinds name pages by pfn
 * (our test page, the first pfn past the table, a pfn not shared).
 */
static int xff_inject_memshare(struct xff_info *info, enum xff_kind kind,
			       struct fipcblk_request *r, struct page *page)
{
	const struct xff_memshare *ms = info->ms;
	long pfn;

	if (kind < XK_MS_WRITE) {
		if (ms && (r->op == FIPCBLK_OP_READ ||
			   r->op == FIPCBLK_OP_WRITE))
			r->flags |= FIPCBLK_F_GRANTREFS;
		return 0;
	}
	if (kind == XK_ST_BAD_INDEX || kind == XK_ST_BOTH_FLAGS) {
		/* Any channel with staging pages: memshare, or grant path. */
		if (!info->chans[0].stg.nr)
			return -EOPNOTSUPP;
		r->flags = FIPCBLK_F_STAGED;
		if (kind == XK_ST_BOTH_FLAGS)
			r->flags |= FIPCBLK_F_GRANTREFS;
		else
			r->refs[0] = info->chans[0].stg.nr;
		return 0;
	}
	if (!ms)
		return -EOPNOTSUPP;
	if (kind != XK_MS_READ) {
		r->op = FIPCBLK_OP_WRITE;
		r->sector = info->sectors - 2 * FIPCBLK_PAGE_BYTES / 512;
	}
	switch (kind) {
	case XK_MS_WRITE:
	case XK_MS_READ:
		pfn = page_to_pfn(page);
		break;
	case XK_MS_BAD_PFN:
		pfn = ms->npfns;
		break;
	default:
		pfn = xff_memshare_unshared_pfn(ms);
		if (pfn < 0)
			return pfn;
		break;
	}
	r->refs[0] = pfn;
	return 0;
}

/* The flag of the slot the channel's next request goes in, tx_lock held. */
static u32 *xff_inject_next_flag(struct xff_chan *chan)
{
	struct fipc_duplex_client *dc = &chan->dc;

	return &dc->slots[dc->submit_slot].flag;
}

static int xff_inject_send(struct xff_info *info, enum xff_kind kind,
			   struct page *page, grant_ref_t *gref,
			   grant_ref_t *unowned)
{
	struct xff_chan *chan = &info->chans[0];
	domid_t domid = info->xbdev->otherend_id;
	struct fipcblk_request r = { 0 };
	unsigned long flags;
	unsigned int nslots;
	grant_ref_t head;
	u32 be_max;
	bool ro;
	int err;

	be_max = xenbus_read_unsigned(info->xbdev->otherend,
				      "fipc-max-request-bytes", 0);
	xff_inject_build(info, kind, &r, &nslots, &ro, be_max);

	err = gnttab_grant_foreign_access(domid, xen_page_to_gfn(page), ro);
	if (err < 0)
		return err;
	*gref = err;
	r.refs[0] = *gref;
	if (kind == XK_BAD_GREF) {
		r.refs[0] = 0xfffffff0;
	} else if (kind == XK_UNOWNED_GREF) {
		if (gnttab_alloc_grant_references(1, &head))
			return -ENOSPC;
		*unowned = gnttab_claim_grant_reference(&head);
		r.refs[0] = *unowned;
	}
	err = xff_inject_memshare(info, kind, &r, page);
	if (err)
		return err;

	spin_lock_irqsave(&chan->tx_lock, flags);
	if (kind == XK_PROTO) {
		/* A flag no sender may ever write, where the next one goes. */
		WRITE_ONCE(*xff_inject_next_flag(chan), 0x5a5a5a5a);
		err = 0;
	} else {
		info->inject.seq++;
		r.id = XFF_ID_INJECT | info->inject.seq;
		memset(chan->txbuf, 0, nslots * sizeof(chan->txbuf[0]));
		memcpy(chan->txbuf[0].data, &r, sizeof(r));
		reinit_completion(&info->inject.done);
		err = xff_ring_send(chan, nslots);
	}
	xff_chan_notify(chan);
	spin_unlock_irqrestore(&chan->tx_lock, flags);
	return err;
}

static int xff_inject_run(struct xff_info *info, enum xff_kind kind)
{
	struct xff_inject *inj = &info->inject;
	grant_ref_t gref = INVALID_GRANT_REF, unowned = INVALID_GRANT_REF;
	bool by_pfn = false;
	struct page *page;
	long left = 0;
	int err;

	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page)
		return -ENOMEM;
	mutex_lock(&info->mutex);
	if (info->link != XFF_UP || !info->chans || info->chans[0].broken)
		err = -ENOTCONN;
	else
		err = xff_inject_send(info, kind, page, &gref, &unowned);
	by_pfn = !err && info->ms &&
		 (kind == XK_MS_WRITE || kind == XK_MS_READ);
	mutex_unlock(&info->mutex);

	if (!err && kind == XK_PROTO) {
		snprintf(inj->last, sizeof(inj->last), "%s sent\n",
			 xff_kind_names[kind]);
	} else if (!err) {
		left = wait_for_completion_timeout(&inj->done, 30 * HZ);
		if (left)
			snprintf(inj->last, sizeof(inj->last),
				 "%s status %d op %d\n", xff_kind_names[kind],
				 inj->status, inj->op);
		else
			snprintf(inj->last, sizeof(inj->last), "%s timeout\n",
				 xff_kind_names[kind]);
	} else {
		snprintf(inj->last, sizeof(inj->last), "%s failed %d\n",
			 xff_kind_names[kind], err);
	}

	if (unowned != INVALID_GRANT_REF)
		gnttab_free_grant_reference(unowned);
	if (by_pfn && !left) {
		pr_warn_ratelimited(XFF_NAME ": %s: inject %s got no answer: its page (pfn %lu) stays allocated, the backend may still reach it\n",
				    dev_name(&info->xbdev->dev),
				    xff_kind_names[kind], page_to_pfn(page));
		if (gref != INVALID_GRANT_REF)
			gnttab_end_foreign_access(gref, NULL);
		return err;
	}
	if (gref != INVALID_GRANT_REF)
		/* Frees the page now, or once the backend lets it go. */
		gnttab_end_foreign_access(gref, page);
	else
		__free_page(page);
	return err;
}

static ssize_t xff_inject_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	struct xff_info *info = file->private_data;
	char buf[32];
	int kind, err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	kind = match_string(xff_kind_names, XK_NR, strim(buf));
	if (kind < 0)
		return -EINVAL;
	mutex_lock(&info->inject.lock);
	err = xff_inject_run(info, kind);
	mutex_unlock(&info->inject.lock);
	return err ? err : len;
}

static ssize_t xff_inject_read(struct file *file, char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	struct xff_info *info = file->private_data;
	char *buf;
	int i, n;
	ssize_t ret;

	buf = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	mutex_lock(&info->inject.lock);
	n = scnprintf(buf, PAGE_SIZE, "%s", info->inject.last);
	mutex_unlock(&info->inject.lock);
	n += scnprintf(buf + n, PAGE_SIZE - n, "kinds:");
	for (i = 0; i < XK_NR; i++)
		n += scnprintf(buf + n, PAGE_SIZE - n, " %s",
			       xff_kind_names[i]);
	n += scnprintf(buf + n, PAGE_SIZE - n, "\n");
	ret = simple_read_from_buffer(ubuf, len, ppos, buf, n);
	kfree(buf);
	return ret;
}

static const struct file_operations xff_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = xff_inject_read,
	.write = xff_inject_write,
	.llseek = default_llseek,
};

/**
 * xff_inject_add() - create a disk's test-mode file
 * @info: the disk, its debugfs directory made (front_debugfs.c, which
 *	also removes it, waiting for a running injection)
 */
void xff_inject_add(struct xff_info *info)
{
	mutex_init(&info->inject.lock);
	init_completion(&info->inject.done);
	debugfs_create_file("inject", 0600, info->dbg, info,
			    &xff_inject_fops);
}
