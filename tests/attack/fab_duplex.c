// SPDX-License-Identifier: GPL-2.0
/*
 * fipc_attack_back: serving the duplex ring (protocol version 3, the
 * only one), and its attacks on the devices dx_vdevs= names (issue 45,
 * finding 11).
 *
 * The ring is served honestly through lib/fipc's server API
 * (fipc_duplex_take_request(), fab_handle(), fipc_duplex_reply()): a
 * disk of zeros.  A WRITE served honestly whose data starts with
 * FAB_DX_MAGIC and an attack's name arms that attack; the next READ or
 * WRITE taken gets it, written raw into the ring at our completion
 * position as a hostile server would, and from then on we serve nothing
 * until the frontend has closed and connected again (our server state no
 * longer matches the ring).  Before a forged reply to a READ we fill its
 * data with FAB_DX_LEAK: a frontend that took the reply would hand that
 * to its caller.  The attacks (fab_dx_names[]):
 *
 *   kind          a reply flag of retired protocol 1's kind (0xa5)
 *   kind-call     a flag of the client's kind CALL, length 33
 *   lap           a reply stamped with the lap before its position's: in
 *                 the ring's second lap, the slot's value of one lap back,
 *                 which is also what a flag torn between that and the new
 *                 reply reads (the guest reads 70 blocks first)
 *   lap-next      ... with the lap after it
 *   span0         a reply retiring no position (a count of 0)
 *   span-over     a reply retiring one position more than is outstanding
 *   ack-reserved  an acknowledgment retiring every position outstanding,
 *                 the one the waiting call needs included
 *   id-gen        a well-formed reply whose id is the same tag's earlier
 *                 request (its generation less one: an id torn between
 *                 an old reply and this one)
 *   id-tag        ... whose id names a tag not in flight
 *   twice         an honest reply, then a second one for the same id,
 *                 when no call waits
 *   withhold      no reply; we close FAB_DX_WITHHOLD_MS later
 *   silent        no reply, ever: until the toolstack detaches the disk
 *
 * The frontend must close on each forged one (dx-caught, with the time it
 * took); one that has not within FAB_DX_CATCH_MS missed it (dx-uncaught,
 * and we close so that the run goes on).  The event storm (FAB_STORM_MAGIC)
 * and the linger attack (fab_linger.c) work on every device.
 *
 * The frontend writes the ring: its requests are copied out once by the
 * library, which checks their flags, and validated (fab_valid()) before
 * any grant is mapped; the arm word is copied once out of the page.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <xen/events.h>
#include "fab.h"

/* What we put in a READ's data before a forged reply: never seen. */
#define FAB_DX_LEAK		"ATTACKB-DX-LEAK!"
#define FAB_DX_LEAK_LEN		(sizeof(FAB_DX_LEAK) - 1)
/* The longest attack name, in the arm block after FAB_DX_MAGIC. */
#define FAB_DX_NAME_MAX		16

static const char * const fab_dx_names[FAB_DX_NR] = {
	[FAB_DX_NONE] = "none",
	[FAB_DX_KIND] = "kind",
	[FAB_DX_KIND_CALL] = "kind-call",
	[FAB_DX_LAP] = "lap",
	[FAB_DX_LAP_NEXT] = "lap-next",
	[FAB_DX_SPAN0] = "span0",
	[FAB_DX_SPAN_OVER] = "span-over",
	[FAB_DX_ACK_RESERVED] = "ack-reserved",
	[FAB_DX_ID_GEN] = "id-gen",
	[FAB_DX_ID_TAG] = "id-tag",
	[FAB_DX_TWICE] = "twice",
	[FAB_DX_WITHHOLD] = "withhold",
	[FAB_DX_SILENT] = "silent",
};

/**
 * fab_dx_wanted() - does dx_vdevs name this device
 * @dev: the backend device
 *
 * Return: true if the duplex ring's attacks may be armed on it.
 */
bool fab_dx_wanted(struct xenbus_device *dev)
{
	const char *vdev = kbasename(dev->nodename), *s = dx_vdevs;
	size_t n = strlen(vdev), len;

	while (s && *s) {
		len = strcspn(s, ",");
		if (len == n && !strncmp(s, vdev, n))
			return true;
		s += len;
		if (*s)
			s++;
	}
	return false;
}

/**
 * fab_dx_init() - serve the frontend's duplex ring, just mapped
 * @fb: the device, fb->ring mapped
 *
 * Return: 0 or a negative errno.
 */
int fab_dx_init(struct fab_dev *fb)
{
	fb->dx_dead = false;
	fb->dx_sent = FAB_DX_NONE;
	return fipc_duplex_server_init(&fb->ds, fb->ring, FAB_RING_ORDER);
}

/**
 * fab_dx_check_arm() - does a WRITE served honestly arm an attack
 * @fb: the device, on protocol 3
 * @h: the WRITE's pages, mapped
 * @r: the WRITE, our private copy
 *
 * Its data must start with FAB_DX_MAGIC and an attack's name, ended by
 * a byte that is not part of a name (the guest pads the block with
 * zeros).
 */
void fab_dx_check_arm(struct fab_dev *fb, struct fab_held *h,
		      const struct fipcblk_request *r)
{
	char word[FAB_DX_LEN + FAB_DX_NAME_MAX + 1];
	const char *name = word + FAB_DX_LEN;
	unsigned int k;
	size_t len;

	if (r->nr_bytes < sizeof(word) ||
	    r->first_offset + sizeof(word) > FIPCBLK_PAGE_BYTES)
		return;
	/* One copy out of the guest's page, looked at in private memory. */
	memcpy(word, page_address(h->pages[0]) + r->first_offset,
	       sizeof(word));
	if (memcmp(word, FAB_DX_MAGIC, FAB_DX_LEN))
		return;
	word[sizeof(word) - 1] = 0;
	len = strcspn(name, "\n ");
	for (k = FAB_DX_NONE + 1; k < FAB_DX_NR; k++)
		if (strlen(fab_dx_names[k]) == len &&
		    !strncmp(name, fab_dx_names[k], len))
			break;
	if (k == FAB_DX_NR) {
		pr_info("@@FIPC-ATTACKB dx-unknown dom=%u\n",
			fb->dev->otherend_id);
		return;
	}
	fb->dx_next = k;
	pr_info("@@FIPC-ATTACKB dx-armed dom=%u kind=%s sector=%llu\n",
		fb->dev->otherend_id, fab_dx_names[k], r->sector);
}

/*
 * Fill a READ's data with FAB_DX_LEAK, through a writable mapping of its
 * grants let go at once.  Returns the pages filled (0 if Xen refused).
 */
static unsigned int fab_dx_fill(struct fab_dev *fb,
				const struct fipcblk_request *r,
				unsigned int nrefs)
{
	grant_ref_t refs[FAB_MAX_REFS];
	u32 left = r->nr_bytes, off = r->first_offset, len, b;
	struct fab_held *h;
	unsigned int i;
	u8 *p;

	for (i = 0; i < nrefs; i++)
		refs[i] = fab_ref(fb->msgs, i);
	h = fab_map(fb, refs, nrefs, false);
	if (!h)
		return 0;
	for (i = 0; i < nrefs && left; i++) {
		len = min_t(u32, left, FIPCBLK_PAGE_BYTES - off);
		p = page_address(h->pages[i]) + off;
		for (b = 0; b < len; b++)
			p[b] = FAB_DX_LEAK[b % FAB_DX_LEAK_LEN];
		left -= len;
		off = 0;
	}
	fab_unmap(fb, h);
	fb->dx_leak_pages += nrefs;
	return nrefs;
}

/* Write one slot at position pos, raw: payload, then flag (release). */
static void fab_dx_put(struct fab_dev *fb, u32 pos,
		       const struct fipcblk_response *rsp, u32 flag)
{
	struct fipc_slot *slot = &fb->ds.slots[pos & fb->ds.mask];
	struct fipc_msg msg;

	memset(&msg, 0, sizeof(msg));
	memcpy(msg.data, rsp, sizeof(*rsp));
	fipc_payload_move(slot->payload, msg.data);
	/* Release: the payload is visible before the flag, as an honest one. */
	virt_store_release(&slot->flag, flag);
}

/* The flag of kind and count at position pos, stamped with lap + dlap. */
static u32 fab_dx_flag(u32 kind, u32 count, u32 pos, int dlap)
{
	u32 lap = FIPCBLK_DUPLEX_LAP(pos, FAB_RING_ORDER) + dlap;

	return FIPCBLK_DUPLEX_FLAG(kind, count, lap);
}

/*
 * The forged flag and reply of attack k against the call just taken (the
 * one unanswered; held positions read and not retired, honest the span
 * an honest reply would have).  Returns false for the attacks that write
 * no forged reply.
 */
static bool fab_dx_forge(enum fab_dx_kind k, u32 pos, u32 held, u32 honest,
			 struct fipcblk_response *rsp, u32 *flag)
{
	u32 gen = (rsp->id >> 32) & 0x7fffffff;

	switch (k) {
	case FAB_DX_KIND:
		*flag = fab_dx_flag(FIPCBLK_FLAG_READY, honest, pos, 0);
		break;
	case FAB_DX_KIND_CALL:
		*flag = fab_dx_flag(FIPCBLK_DUPLEX_CALL,
				    FIPCBLK_MSG_MAX_SLOTS + 1, pos, 0);
		break;
	case FAB_DX_LAP:
		*flag = fab_dx_flag(FIPCBLK_DUPLEX_REPLY, honest, pos, -1);
		break;
	case FAB_DX_LAP_NEXT:
		*flag = fab_dx_flag(FIPCBLK_DUPLEX_REPLY, honest, pos, 1);
		break;
	case FAB_DX_SPAN0:
		*flag = fab_dx_flag(FIPCBLK_DUPLEX_REPLY, 0, pos, 0);
		break;
	case FAB_DX_SPAN_OVER:
		*flag = fab_dx_flag(FIPCBLK_DUPLEX_REPLY, held + 1, pos, 0);
		break;
	case FAB_DX_ACK_RESERVED:
		*flag = fab_dx_flag(FIPCBLK_DUPLEX_ACK, held, pos, 0);
		break;
	case FAB_DX_ID_GEN:
		rsp->id = (u64)((gen - 1) & 0x7fffffff) << 32 |
			  (rsp->id & 0xffffffff);
		*flag = fab_dx_flag(FIPCBLK_DUPLEX_REPLY, honest, pos, 0);
		break;
	case FAB_DX_ID_TAG:
		rsp->id ^= 1;
		*flag = fab_dx_flag(FIPCBLK_DUPLEX_REPLY, honest, pos, 0);
		break;
	default:
		return false;
	}
	return true;
}

/*
 * Attack the request in fb->msgs (nslots slots, taken by the library:
 * one call unanswered).  Returns false if it is not a READ or WRITE we
 * can map: it is then served honestly and the attack stays armed.
 */
static bool fab_dx_attack(struct fab_dev *fb, unsigned int nslots)
{
	enum fab_dx_kind k = fb->dx_next;
	struct fipcblk_response rsp;
	struct fipcblk_request r;
	u32 pos, held, honest, flag = 0;
	unsigned int nrefs, leak = 0;

	memcpy(&r, fb->msgs[0].data, sizeof(r));
	if ((r.op != FIPCBLK_OP_READ && r.op != FIPCBLK_OP_WRITE) ||
	    !fab_valid(&r, nslots, fb->msgs, &nrefs) ||
	    fipc_duplex_unanswered(&fb->ds) != 1)
		return false;
	fb->dx_next = FAB_DX_NONE;
	fb->dx_attacks++;
	if (k == FAB_DX_TWICE) {
		/* Honest, then once more for the same id: no call waits. */
		fab_handle(fb, nslots);
		pos = fb->ds.complete;
		held = 0;
		honest = 1;
		memset(&rsp, 0, sizeof(rsp));
		rsp.id = r.id;
		rsp.op = r.op;
		flag = fab_dx_flag(FIPCBLK_DUPLEX_REPLY, 1, pos, 0);
		fab_dx_put(fb, pos, &rsp, flag);
		fb->dx_dead = true;
	} else {
		pos = fb->ds.complete;
		held = fb->ds.read - pos;
		honest = held;	/* one call waits: it retires them all */
		if (r.op == FIPCBLK_OP_READ)
			leak = fab_dx_fill(fb, &r, nrefs);
		memset(&rsp, 0, sizeof(rsp));
		rsp.id = r.id;
		rsp.op = r.op;
		rsp.status = FIPCBLK_RSP_OKAY;
		if (fab_dx_forge(k, pos, held, honest, &rsp, &flag)) {
			fab_dx_put(fb, pos, &rsp, flag);
			fb->dx_dead = true;
		}
	}
	fb->dx_sent = k;
	fb->dx_at = jiffies;
	pr_info("@@FIPC-ATTACKB dx-attack dom=%u kind=%s op=%s id=%llu sector=%llu bytes=%u slots=%u pos=%u held=%u flag=%#x rsp_id=%llu leak_pages=%u\n",
		fb->dev->otherend_id, fab_dx_names[k],
		r.op == FIPCBLK_OP_READ ? "read" : "write", r.id, r.sector,
		r.nr_bytes, nslots, pos, held, flag, rsp.id, leak);
	/* Whether it sleeps or polls, the frontend looks. */
	notify_remote_via_irq(fb->irq);
	return true;
}

/* The attack's clock: a withheld reply's close, a missed attack's. */
static void fab_dx_timers(struct fab_dev *fb)
{
	unsigned int ms = jiffies_to_msecs(jiffies - fb->dx_at);
	enum fab_dx_kind k = fb->dx_sent;

	if (k == FAB_DX_NONE || k == FAB_DX_SILENT)
		return;
	if (k == FAB_DX_WITHHOLD) {
		if (ms < FAB_DX_WITHHOLD_MS)
			return;
		pr_info("@@FIPC-ATTACKB dx-withheld dom=%u kind=%s ms=%u unanswered=%u\n",
			fb->dev->otherend_id, fab_dx_names[k], ms,
			fipc_duplex_unanswered(&fb->ds));
	} else {
		if (ms < FAB_DX_CATCH_MS)
			return;
		fb->dx_uncaught++;
		pr_info("@@FIPC-ATTACKB dx-uncaught dom=%u kind=%s ms=%u\n",
			fb->dev->otherend_id, fab_dx_names[k], ms);
	}
	fb->dx_sent = FAB_DX_NONE;
	fb->dx_dead = true;
	xenbus_switch_state(fb->dev, XenbusStateClosing);
}

/**
 * fab_dx_closing() - the connection ends: the outcome of the last attack
 * @fb: the device
 *
 * A forged reply the frontend closed on is caught; a silent one ends
 * here (the toolstack took the device away).
 */
void fab_dx_closing(struct fab_dev *fb)
{
	enum fab_dx_kind k = fb->dx_sent;
	unsigned int ms = jiffies_to_msecs(jiffies - fb->dx_at);

	if (k == FAB_DX_NONE)
		return;
	fb->dx_sent = FAB_DX_NONE;
	if (k == FAB_DX_SILENT) {
		pr_info("@@FIPC-ATTACKB dx-silent-end dom=%u kind=%s ms=%u online=%d frontend=%s\n",
			fb->dev->otherend_id, fab_dx_names[k], ms,
			xenbus_dev_is_online(fb->dev),
			xenbus_strstate(READ_ONCE(fb->fe_state)));
		return;
	}
	if (k != FAB_DX_WITHHOLD)
		fb->dx_caught++;
	pr_info("@@FIPC-ATTACKB dx-caught dom=%u kind=%s ms=%u frontend=%s\n",
		fb->dev->otherend_id, fab_dx_names[k], ms,
		xenbus_strstate(READ_ONCE(fb->fe_state)));
}

/**
 * fab_dx_serve() - take and answer the requests waiting on the ring
 * @fb: the device, connected
 *
 * Honest, through the library, except the one READ or WRITE an armed
 * attack takes (fab_dx_attack()); after it, nothing until the frontend
 * connects again.  Once the READ of linger_sector is answered on a
 * memshare connection, we close with the guest's pages still mapped.
 */
void fab_dx_serve(struct fab_dev *fb)
{
	unsigned int budget = FAB_BUDGET;
	bool sent = false, posted;
	int n;

	fab_dx_timers(fb);
	while (!fb->broken && !fb->dx_dead && budget--) {
		n = fipc_duplex_take_request(&fb->ds, fb->msgs, FAB_MAX_SLOTS,
					     &posted);
		if (n == -EAGAIN)
			break;
		if (n < 0 || posted) {
			/* Broken, longer than we offered, or no reply wanted. */
			fb->broken = true;
			pr_info("@@FIPC-ATTACKB ring-error dom=%u where=request err=%d posted=%d dx=%d\n",
				fb->dev->otherend_id, n, n > 0 && posted,
				fb->dx);
			break;
		}
		if (fb->dx_next != FAB_DX_NONE && fab_dx_attack(fb, n))
			break;
		fab_handle(fb, n);
		sent = true;
		fb->ms_served += fb->ms_chan;
		if (fb->ms_trigger && !fb->ms_done) {
			/* Close with the memshare pages still mapped. */
			fb->ms_done = true;
			xenbus_switch_state(fb->dev, XenbusStateClosing);
			pr_info("@@FIPC-ATTACKB ms-closing dom=%u served=%llu writes=%llu pfn_reads=%llu refs=%u read_refs=%u\n",
				fb->dev->otherend_id, fb->ms_served,
				fb->ms_writes, fb->ms_pfn_reads, fb->ms->nrefs,
				fb->ms_read ? fb->ms_read->nrefs : 0);
			break;
		}
	}
	if (!fb->broken && !fb->dx_dead)
		/* What no reply retires goes back now: we never sleep. */
		fipc_duplex_server_flush(&fb->ds);
	fab_serve_end(fb, sent);
}
