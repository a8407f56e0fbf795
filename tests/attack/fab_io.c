// SPDX-License-Identifier: GPL-2.0
/*
 * fipc_attack_back: the requests.  Each is copied out of the ring once
 * (fipc_duplex_take_request()) and checked against what we offered before its grants
 * are mapped; it is served honestly (a READ's data zeroed, unmapped,
 * answered) or held (answered with its grants still mapped, unmapped
 * hold_s later).  Every mapped page is scanned for guest bytes outside
 * the request's data (exposed_pages, exposed_bytes).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <xen/events.h>
#include <xen/page.h>
#include "fab.h"

static const char *fab_op(u8 op)
{
	switch (op) {
	case FIPCBLK_OP_READ:
		return "read";
	case FIPCBLK_OP_WRITE:
		return "write";
	case FIPCBLK_OP_FLUSH:
		return "flush";
	default:
		return "other";
	}
}

/**
 * fab_ref() - reference i of a request, from our private copy
 * @msgs: the request's slots, copied out of the ring
 * @i: the reference's index, below the request's number of references
 *
 * Return: the reference as the frontend wrote it (checked by the caller).
 */
grant_ref_t fab_ref(const struct fipc_msg *msgs, unsigned int i)
{
	u32 ref;

	memcpy(&ref, msgs[FIPCBLK_REF_SLOT(i)].data + FIPCBLK_REF_OFFSET(i),
	       sizeof(ref));
	return ref;
}

/**
 * fab_valid() - is this a READ or WRITE we can map
 * @r: the request's head, our private copy
 * @nslots: its length in slots
 * @msgs: its slots, our private copy
 * @nrefs: set to its number of references if it is
 *
 * Its length, offset, slot count, range and references must be within
 * what we offered.
 *
 * Return: true if it is.
 */
bool fab_valid(const struct fipcblk_request *r, unsigned int nslots,
	       const struct fipc_msg *msgs, unsigned int *nrefs)
{
	unsigned int n, i;

	if (!r->nr_bytes || r->nr_bytes > FAB_MAX_REQ_BYTES ||
	    r->nr_bytes % FIPCBLK_SECTOR_BYTES ||
	    r->first_offset >= FIPCBLK_PAGE_BYTES ||
	    r->first_offset % FIPCBLK_SECTOR_BYTES)
		return false;
	if (r->sector > sectors ||
	    r->nr_bytes / FIPCBLK_SECTOR_BYTES > sectors - r->sector)
		return false;
	n = DIV_ROUND_UP(r->first_offset + r->nr_bytes, FIPCBLK_PAGE_BYTES);
	if (n > FAB_MAX_REFS || nslots != FIPCBLK_REQ_SLOTS(n))
		return false;
	for (i = 0; i < n; i++)
		if (fab_ref(msgs, i) < GNTTAB_NR_RESERVED_ENTRIES)
			return false;
	*nrefs = n;
	return true;
}

/* Unmap what is mapped of h and free it. */
void fab_unmap(struct fab_dev *fb, struct fab_held *h)
{
	unsigned int i, n = 0;
	int err = 0;

	for (i = 0; i < h->nrefs; i++) {
		if (h->handles[i] == INVALID_GRANT_HANDLE)
			continue;
		gnttab_set_unmap_op(&fb->unmap_ops[n],
				    (unsigned long)page_address(h->pages[i]),
				    GNTMAP_host_map, h->handles[i]);
		fb->unmap_pages[n++] = h->pages[i];
	}
	if (n)
		err = gnttab_unmap_refs(fb->unmap_ops, NULL, fb->unmap_pages, n);
	for (i = 0; i < n && !err; i++)
		if (fb->unmap_ops[i].status != GNTST_okay)
			err = -EIO;
	if (err)
		/* Maybe still mapped: never give these pages back. */
		pr_err("@@FIPC-ATTACKB unmap-failed dom=%u id=%llu err=%d pages_kept=%u\n",
		       fb->dev->otherend_id, h->id, err, h->nrefs);
	else
		gnttab_free_pages(h->nrefs, h->pages);
	kfree(h);
}

/* Zero the data range of a READ served honestly (we have no disk). */
static void fab_zero(struct fab_held *h, const struct fipcblk_request *r)
{
	u32 left = r->nr_bytes, off = r->first_offset, len;
	unsigned int i;

	for (i = 0; i < h->nrefs && left; i++) {
		len = min_t(u32, left, FIPCBLK_PAGE_BYTES - off);
		memset(page_address(h->pages[i]) + off, 0, len);
		left -= len;
		off = 0;
	}
}

/*
 * Count what the mapped pages show outside the request's data: bytes
 * that are not zero are guest memory the I/O did not need to expose.
 */
static void fab_count_exposed(struct fab_dev *fb, struct fab_held *h,
			      const struct fipcblk_request *r)
{
	u32 left = r->nr_bytes, off = r->first_offset, len, b, n;
	const u8 *p;
	unsigned int i;

	for (i = 0; i < h->nrefs; i++) {
		len = min_t(u32, left, FIPCBLK_PAGE_BYTES - off);
		p = page_address(h->pages[i]);
		n = 0;
		for (b = 0; b < FIPCBLK_PAGE_BYTES; b++)
			if ((b < off || b >= off + len) && p[b])
				n++;
		fb->checked_pages++;
		if (n) {
			fb->exposed_pages++;
			fb->exposed_bytes += n;
		}
		left -= len;
		off = 0;
	}
}

/* A WRITE served honestly: does its data start with the arm word? */
static void fab_check_arm(struct fab_dev *fb, struct fab_held *h,
			  const struct fipcblk_request *r)
{
	char word[FAB_ARM_LEN];

	if (fb->armed || r->nr_bytes < FAB_ARM_LEN ||
	    r->first_offset + FAB_ARM_LEN > FIPCBLK_PAGE_BYTES)
		return;
	/* One copy out of the guest's page, compared in private memory. */
	memcpy(word, page_address(h->pages[0]) + r->first_offset,
	       FAB_ARM_LEN);
	if (memcmp(word, FAB_ARM_MAGIC, FAB_ARM_LEN))
		return;
	fb->armed = true;
	pr_info("@@FIPC-ATTACKB armed dom=%u sector=%llu honest=%llu\n",
		fb->dev->otherend_id, r->sector, fb->honest);
}

/* A WRITE served honestly: does its data start with the storm word? */
static void fab_check_storm(struct fab_dev *fb, struct fab_held *h,
			    const struct fipcblk_request *r)
{
	char word[FAB_STORM_LEN];

	if (!storm_ms || r->nr_bytes < FAB_STORM_LEN ||
	    r->first_offset + FAB_STORM_LEN > FIPCBLK_PAGE_BYTES)
		return;
	memcpy(word, page_address(h->pages[0]) + r->first_offset,
	       FAB_STORM_LEN);
	if (!memcmp(word, FAB_STORM_MAGIC, FAB_STORM_LEN))
		fb->storm_pending = true;
}

/**
 * fab_storm() - the event storm (issue 45, finding 7)
 * @fb: the device, its channel mapped
 *
 * Notify the frontend as fast as we can for storm_ms, with no response
 * behind any of the notifications.  Its handler must flag them spurious,
 * so that the guest kernel's late EOI throttles them (the guest counts
 * how many it handled).
 */
static void fab_storm(struct fab_dev *fb)
{
	unsigned long end = jiffies + msecs_to_jiffies(storm_ms);
	u64 sent = 0;

	fb->storm_pending = false;
	while (time_before(jiffies, end) && !kthread_should_stop()) {
		notify_remote_via_irq(fb->irq);
		if (!(++sent & 63))
			cond_resched();
	}
	pr_info("@@FIPC-ATTACKB storm dom=%u sent=%llu ms=%u dx=%d\n",
		fb->dev->otherend_id, sent, storm_ms, fb->dx);
}

/* Do we keep the next READ/WRITE mapped? */
static bool fab_hold_next(struct fab_dev *fb)
{
	if (strcmp(mode, "keepmap") || !fb->armed || fb->ms_offered)
		return false;
	if (hold_count && fb->held_total >= hold_count)
		return false;
	return fb->nheld < FAB_MAX_HELD;
}

/*
 * Map nrefs grants of the frontend (at most FAB_MAX_REFS) into a new
 * fab_held.  Returns it, or NULL (nothing left mapped, map_errors
 * counted if Xen refused one).
 */
struct fab_held *fab_map(struct fab_dev *fb, const grant_ref_t *refs,
			 unsigned int nrefs, bool readonly)
{
	u32 flags = GNTMAP_host_map | (readonly ? GNTMAP_readonly : 0);
	struct fab_held *h;
	unsigned int i;
	bool ok = true;

	h = kzalloc_obj(*h, GFP_KERNEL);
	if (!h)
		return NULL;
	if (gnttab_alloc_pages(nrefs, h->pages)) {
		kfree(h);
		return NULL;
	}
	h->nrefs = nrefs;
	for (i = 0; i < nrefs; i++) {
		gnttab_set_map_op(&fb->map_ops[i],
				  (unsigned long)page_address(h->pages[i]),
				  flags, refs[i], fb->dev->otherend_id);
		fb->map_ops[i].status = GNTST_general_error;
		fb->map_ops[i].handle = INVALID_GRANT_HANDLE;
		h->handles[i] = INVALID_GRANT_HANDLE;
	}
	if (gnttab_map_refs(fb->map_ops, NULL, h->pages, nrefs))
		ok = false;
	/* Whatever the call returned, keep every mapping that was made. */
	for (i = 0; i < nrefs; i++) {
		if (fb->map_ops[i].status == GNTST_okay)
			h->handles[i] = fb->map_ops[i].handle;
		else
			ok = false;
	}
	if (!ok) {
		fb->map_errors++;
		fab_unmap(fb, h);
		return NULL;
	}
	return h;
}

/*
 * Map a READ or WRITE's grants.  Served honestly: zero a READ's data,
 * unmap, answer.  Held: answer with everything still mapped, unmap only
 * hold_s later (fab_release()).  Returns the response status.
 */
static s16 fab_rw(struct fab_dev *fb, const struct fipcblk_request *r,
		  unsigned int nrefs)
{
	grant_ref_t refs[FAB_MAX_REFS];
	struct fab_held *h;
	unsigned int i;

	for (i = 0; i < nrefs; i++)
		refs[i] = fab_ref(fb->msgs, i);
	/* A WRITE's pages are only read (as a device would). */
	h = fab_map(fb, refs, nrefs, r->op == FIPCBLK_OP_WRITE);
	if (!h)
		return FIPCBLK_RSP_ERROR;
	h->id = r->id;
	h->op = r->op;
	fab_count_exposed(fb, h, r);
	if (!fab_hold_next(fb)) {
		if (r->op == FIPCBLK_OP_READ)
			fab_zero(h, r);
		else if (wait_arm)
			fab_check_arm(fb, h, r);
		if (r->op == FIPCBLK_OP_WRITE)
			fab_check_storm(fb, h, r);
		if (r->op == FIPCBLK_OP_WRITE && fb->dx)
			fab_dx_check_arm(fb, h, r);
		fab_unmap(fb, h);
		fb->honest++;
		return FIPCBLK_RSP_OKAY;
	}
	h->since = jiffies;
	list_add_tail(&h->node, &fb->held);
	fb->nheld++;
	fb->held_total++;
	fb->grants_now += nrefs;
	fb->grants_max = max(fb->grants_max, fb->grants_now);
	pr_info("@@FIPC-ATTACKB answered dom=%u op=%s id=%llu sector=%llu bytes=%u refs=%u status=0 held_now=%u grants_now=%u held_total=%llu hold_s=%u\n",
		fb->dev->otherend_id, fab_op(r->op), r->id, r->sector,
		r->nr_bytes, nrefs, fb->nheld, fb->grants_now, fb->held_total,
		hold_s);
	if (hold_count && fb->held_total == hold_count)
		pr_info("@@FIPC-ATTACKB disarmed dom=%u held_total=%llu\n",
			fb->dev->otherend_id, fb->held_total);
	return FIPCBLK_RSP_OKAY;
}

/* The READ of linger_sector by pfn: kept mapped, never answered. */
#define FAB_NO_ANSWER		1

/*
 * A READ by pfn (memory shared writable): each pfn is looked up in our
 * copy of the table and its grant mapped writable.  Served honestly
 * (zeroed, unmapped, answered), except the READ of linger_sector on the
 * first memshare connection: kept mapped and unanswered, and we close
 * (the linger attack on writable memory, issue 45, finding 5).  Returns
 * the response status, or FAB_NO_ANSWER.
 */
static s16 fab_ms_read(struct fab_dev *fb, const struct fipcblk_request *r,
		       unsigned int nrefs)
{
	grant_ref_t refs[FAB_MAX_REFS];
	struct fab_held *h;
	unsigned int i;
	u32 pfn;

	if (!fb->ms_writable || !fb->ms_table)
		return FIPCBLK_RSP_ERROR;
	for (i = 0; i < nrefs; i++) {
		pfn = fab_ref(fb->msgs, i);
		if (pfn >= fb->ms_pfns ||
		    fb->ms_table[pfn] < GNTTAB_NR_RESERVED_ENTRIES)
			return FIPCBLK_RSP_ERROR;
		refs[i] = fb->ms_table[pfn];
	}
	h = fab_map(fb, refs, nrefs, false);
	if (!h)
		return FIPCBLK_RSP_ERROR;
	h->id = r->id;
	h->op = r->op;
	if (fb->ms && !fb->ms_done && !fb->ms_read &&
	    r->sector == linger_sector) {
		fb->ms_read = h;
		fb->ms_trigger = true;
		pr_info("@@FIPC-ATTACKB ms-read-kept dom=%u id=%llu sector=%llu refs=%u\n",
			fb->dev->otherend_id, r->id, r->sector, nrefs);
		return FAB_NO_ANSWER;
	}
	fab_zero(h, r);
	fab_unmap(fb, h);
	fb->ms_pfn_reads++;
	return FIPCBLK_RSP_OKAY;
}

/* Let go of the held mappings whose time is up (all of them if all). */
void fab_release(struct fab_dev *fb, bool all)
{
	unsigned long hold = (unsigned long)hold_s * HZ;
	struct fab_held *h, *tmp;
	unsigned int ms;

	list_for_each_entry_safe(h, tmp, &fb->held, node) {
		if (!all && time_before(jiffies, h->since + hold))
			continue;
		list_del(&h->node);
		fb->nheld--;
		fb->grants_now -= h->nrefs;
		if (time_before(jiffies, h->since + hold))
			fb->unmapped_early++;
		else
			fb->unmapped++;
		ms = jiffies_to_msecs(jiffies - h->since);
		pr_info("@@FIPC-ATTACKB unmapped dom=%u op=%s id=%llu refs=%u held_ms=%u held_now=%u grants_now=%u\n",
			fb->dev->otherend_id, fab_op(h->op), h->id, h->nrefs,
			ms, fb->nheld, fb->grants_now);
		fab_unmap(fb, h);
	}
}

static void fab_answer(struct fab_dev *fb, u64 id, u8 op, s16 status)
{
	struct fipcblk_response rsp;
	struct fipc_msg msg;
	int err;

	memset(&rsp, 0, sizeof(rsp));
	rsp.id = id;
	rsp.status = status;
	rsp.op = op;
	memcpy(msg.data, &rsp, sizeof(rsp));
	/* A reply goes over its request's position and needs no room. */
	err = fipc_duplex_reply(&fb->ds, &msg);
	if (err) {
		fb->broken = true;
		pr_info("@@FIPC-ATTACKB ring-error dom=%u where=response err=%d\n",
			fb->dev->otherend_id, err);
	}
}

/**
 * fab_handle() - serve the request copied into fb->msgs and answer it
 * @fb: the device
 * @nslots: the request's length in slots
 */
void fab_handle(struct fab_dev *fb, unsigned int nslots)
{
	struct fipcblk_request r;
	unsigned int nrefs;
	s16 status;

	/* Our private copy; the ring is not read again. */
	memcpy(&r, fb->msgs[0].data, sizeof(r));
	switch (r.op) {
	case FIPCBLK_OP_READ:
	case FIPCBLK_OP_WRITE:
		if (fb->ms_chan && r.op == FIPCBLK_OP_WRITE &&
		    !(r.flags & FIPCBLK_F_GRANTREFS)) {
			/* pfns: we have no disk, WRITEs are dropped anyway. */
			fb->ms_writes++;
			status = FIPCBLK_RSP_OKAY;
			break;
		}
		if (!fab_valid(&r, nslots, fb->msgs, &nrefs)) {
			fb->refused++;
			status = FIPCBLK_RSP_ERROR;
			break;
		}
		if (fb->ms_chan && r.op == FIPCBLK_OP_READ &&
		    !(r.flags & (FIPCBLK_F_GRANTREFS | FIPCBLK_F_STAGED)))
			status = fab_ms_read(fb, &r, nrefs);
		else
			status = fab_rw(fb, &r, nrefs);
		break;
	case FIPCBLK_OP_FLUSH:
		fb->flushes++;
		status = nslots == 1 ? FIPCBLK_RSP_OKAY : FIPCBLK_RSP_ERROR;
		break;
	default:
		fb->refused++;
		status = FIPCBLK_RSP_EOPNOTSUPP;
		break;
	}
	if (status == FAB_NO_ANSWER)
		return;
	fab_answer(fb, r.id, r.op, status);
	if (fb->ms && r.op == FIPCBLK_OP_READ && r.sector == linger_sector &&
	    status == FIPCBLK_RSP_OKAY)
		fb->ms_trigger = true;
}

/**
 * fab_serve_end() - after a round of serving
 * @fb: the device
 * @sent: responses or replies were written this round
 *
 * Notifies a frontend that sleeps, runs a storm the round asked for, and
 * closes a channel found broken.
 */
void fab_serve_end(struct fab_dev *fb, bool sent)
{
	if (sent) {
		virt_mb();	/* our answers before the front_sleeping load */
		if (READ_ONCE(fb->ctrl->front_sleeping))
			notify_remote_via_irq(fb->irq);
	}
	if (fb->storm_pending && !fb->broken)
		fab_storm(fb);
	if (fb->broken)
		xenbus_switch_state(fb->dev, XenbusStateClosing);
}
