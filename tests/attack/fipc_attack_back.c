// SPDX-License-Identifier: GPL-2.0
/*
 * fipc_attack_back: a hostile fipcblk backend, for the testbed only
 * (scenario fipc-hostile-backend, docs/testbed.md).  Not shipped.
 *
 * Loaded in dom0 instead of xen-fipc-back, it binds the "fipcblk"
 * backend devices the toolstack creates (xl's phy1: disks), offers the
 * keys xen-fipc-front needs, maps the frontend's channel (one queue,
 * ring order 0) with lib/fipc's ring API and serves it from a kthread
 * per device, polled every few ms.  It has no disk behind it: READs see
 * zeros, WRITEs are dropped.
 *
 * mode=keepmap (the only mode): every READ and WRITE has its grants
 * mapped and is answered FIPCBLK_RSP_OKAY at once, but the mapping is
 * kept for hold_s seconds after the answer (issue 12, finding 8: the
 * frontend must not complete a request whose pages the backend still
 * maps).  FLUSH is answered OKAY.  When the frontend closes, nothing more
 * is served; the backend goes Closed only once every held mapping has
 * been let go (hold_s after its answer), so the frontend sees its grants
 * ended before it may take its pages back.
 *
 * wait_arm=Y (default): until the frontend writes a block that starts
 * with FAB_ARM_MAGIC, every request is served honestly (mapped, a READ's
 * data zeroed, unmapped, then answered): the guest's partition scan at
 * disk creation runs in xenwatch and would otherwise stall it for
 * hold_s per read.  hold_count=N (0: no limit) holds only the first N
 * requests after arming, then serves honestly again, so the guest can
 * check that its disk reconnects and works once the attack is over.
 *
 * linger_sector=S (0: off), on a disk whose toolstack allowed memshare
 * (fipc-memshare-allowed): we offer the memshare data path.  When the
 * frontend takes it, we map FAB_LINGER_REFS of the guest pages its table
 * grants (read-only, as a real backend would) and serve honestly (READs
 * come with grants, WRITEs name pfns and are dropped) until we have
 * answered a READ of sector S; then we close with those pages still
 * mapped and keep them hold_s more: the frontend must not end those
 * grants with a page reference (issue 12, front_linger.c).  A sector the
 * guest reads on purpose, not a count: the partition scan at disk
 * creation runs in the guest's xenwatch, which a close in its middle
 * would deadlock.  Once per device; the disk reconnects and is served
 * honestly afterwards.
 *
 * On every request it maps, it counts the bytes of the mapped pages
 * outside the request's data that are not zero (exposed_pages,
 * exposed_bytes in the removed line): what a backend sees of the guest
 * beyond its I/O.  An untrusted disk (bounce pages, finding 10) must
 * show none.
 *
 * Every event is a "@@FIPC-ATTACKB <event> key=value ..." line in the
 * kernel log, for the scenario.
 *
 * The frontend is the peer here: each request is copied out of the ring
 * once (fipc_recv()), every index is bounded by our own limits, every
 * number it wrote is checked before use.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <xen/events.h>
#include <xen/grant_table.h>
#include <xen/page.h>
#include <xen/xen.h>
#include <xen/xenbus.h>
#include <fipc/fipc.h>
#include <public/io/fipcblk.h>

/* The xenbus states without CamelCase (their values are the ABI). */
#define XS_UNKNOWN		((enum xenbus_state)0)
#define XS_INITIALISING		((enum xenbus_state)1)
#define XS_INITWAIT		((enum xenbus_state)2)
#define XS_INITIALISED		((enum xenbus_state)3)
#define XS_CONNECTED		((enum xenbus_state)4)
#define XS_CLOSING		((enum xenbus_state)5)
#define XS_CLOSED		((enum xenbus_state)6)

/* What we offer: one queue, one-page rings, requests of up to 128 KiB. */
#define FAB_RING_ORDER		0
#define FAB_MAX_REQ_BYTES	(128 * 1024)
/* An unaligned first page adds one reference. */
#define FAB_MAX_REFS		(FAB_MAX_REQ_BYTES / FIPCBLK_PAGE_BYTES + 1)
#define FAB_MAX_SLOTS		(1 + DIV_ROUND_UP(FAB_MAX_REFS - \
						  FIPCBLK_HEAD_REFS, \
						  FIPCBLK_CONT_REFS))
/* Requests held at once; beyond, a request is refused, nothing mapped. */
#define FAB_MAX_HELD		64
/* Requests taken per poll. */
#define FAB_BUDGET		32

/* Memshare grants mapped by the linger attack. */
#define FAB_LINGER_REFS		32

/* The first bytes of the block a guest writes to arm the attack. */
#define FAB_ARM_MAGIC		"FIPC-ATTACKB-ARM"
#define FAB_ARM_LEN		(sizeof(FAB_ARM_MAGIC) - 1)

static_assert(sizeof(struct fipcblk_request) == FIPC_SLOT_PAYLOAD);
static_assert(sizeof(struct fipcblk_response) == FIPC_SLOT_PAYLOAD);
static_assert(FAB_MAX_SLOTS <= FIPC_MSG_MAX_SLOTS);

static char *mode = "keepmap";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "keepmap (the only mode)");

static unsigned int hold_s = 20;
module_param(hold_s, uint, 0444);
MODULE_PARM_DESC(hold_s,
		 "Seconds a request's grants stay mapped after its answer (default 20)");

static unsigned int hold_count;
module_param(hold_count, uint, 0444);
MODULE_PARM_DESC(hold_count,
		 "Requests held per device, then served honestly again (default 0: no limit)");

static bool wait_arm = true;
module_param(wait_arm, bool, 0444);
MODULE_PARM_DESC(wait_arm,
		 "Serve honestly until the guest writes the arm block (default Y)");

static unsigned long long linger_sector;
module_param(linger_sector, ullong, 0444);
MODULE_PARM_DESC(linger_sector,
		 "Memshare disks: after a READ of this sector, close with guest pages still mapped (default 0: off)");

static unsigned long long sectors = 2097152;
module_param(sectors, ullong, 0444);
MODULE_PARM_DESC(sectors, "Disk size offered, in 512-byte sectors (default 1 GiB)");

/* An answered request whose grants we keep mapped. */
struct fab_held {
	struct list_head node;
	unsigned long since;		/* jiffies of the answer */
	u64 id;
	u8 op;
	unsigned int nrefs;
	struct page *pages[FAB_MAX_REFS];
	grant_handle_t handles[FAB_MAX_REFS];
};

struct fab_dev {
	struct xenbus_device *dev;
	struct task_struct *task;
	enum xenbus_state fe_state;	/* written by the xenbus watch */
	unsigned long next_online_check;

	/* The channel, while mapped (dev->state Connected or Closing). */
	void *req_ring;
	void *rsp_ring;
	struct fipcblk_ctrl *ctrl;
	int irq;
	struct fipc_chan fc;
	bool broken;

	struct list_head held;
	unsigned int nheld;
	unsigned int grants_now;
	unsigned int grants_max;
	bool armed;

	/* The linger attack (memshare disks, linger_sector). */
	bool ms_offered;	/* the toolstack allowed memshare here */
	bool ms_chan;		/* this connection took the memshare path */
	bool ms_done;		/* closed once with ms mapped: never again */
	bool ms_closed;		/* ms->since is the time of that close */
	bool ms_trigger;	/* the READ of linger_sector was answered */
	struct fab_held *ms;	/* the guest's memshare grants we map */
	u64 ms_served;
	u64 ms_writes;		/* WRITEs by pfn: answered, data dropped */
	/* Private copies and hypercall arguments: one request at a time. */
	struct fipc_msg msgs[FAB_MAX_SLOTS];
	struct gnttab_map_grant_ref map_ops[FAB_MAX_REFS];
	struct gnttab_unmap_grant_ref unmap_ops[FAB_MAX_REFS];
	struct page *unmap_pages[FAB_MAX_REFS];

	/* Counters, printed in the log lines. */
	u64 connects;
	u64 held_total;		/* answered while mapped */
	u64 unmapped;		/* let go once hold_s had passed */
	u64 unmapped_early;	/* let go early: removal, toolstack close */
	u64 honest;
	u64 flushes;
	u64 refused;
	u64 map_errors;
	u64 checked_pages;	/* mapped data pages looked at */
	u64 exposed_pages;	/* ... with a non-zero byte outside the data */
	u64 exposed_bytes;
};

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

/* The frontend notifies only while we sleep, which we never say we do. */
static irqreturn_t fab_interrupt(int irq, void *arg)
{
	xen_irq_lateeoi(irq, XEN_EOI_FLAG_SPURIOUS);
	return IRQ_HANDLED;
}

/*
 * A number the frontend wrote: plain decimal in [min, max].  Errors are
 * reported in xenstore, as the real backend does.
 */
static int fab_read_uint(struct fab_dev *fb, const char *key, u32 min,
			 u32 max, u32 *val)
{
	char *s;
	int err;

	s = xenbus_read(XBT_NIL, fb->dev->otherend, key, NULL);
	if (IS_ERR(s)) {
		xenbus_dev_error(fb->dev, PTR_ERR(s), "reading %s", key);
		return PTR_ERR(s);
	}
	err = s[0] >= '0' && s[0] <= '9' ? kstrtou32(s, 10, val) : -EINVAL;
	if (!err && (*val < min || *val > max))
		err = -ERANGE;
	if (err)
		xenbus_dev_error(fb->dev, err, "bad %s", key);
	kfree(s);
	return err;
}

/* What the frontend chose must be what we offered. */
static int fab_check_choices(struct fab_dev *fb)
{
	u32 v;
	char *path;
	int err;

	err = fab_read_uint(fb, "fipc-protocol", FIPCBLK_PROTOCOL_VERSION,
			    FIPCBLK_PROTOCOL_VERSION, &v) ?:
	      fab_read_uint(fb, "multi-queue-num-queues", 1, 1, &v) ?:
	      fab_read_uint(fb, "fipc-ring-order", FAB_RING_ORDER,
			    FAB_RING_ORDER, &v);
	if (err)
		return err;
	fb->ms_chan = false;
	path = xenbus_read(XBT_NIL, fb->dev->otherend, "fipc-data-path", NULL);
	if (IS_ERR(path))
		return 0;	/* grant is the default */
	if (fb->ms_offered && !strcmp(path, "memshare"))
		fb->ms_chan = true;
	else if (strcmp(path, "grant"))
		err = -EOPNOTSUPP;
	kfree(path);
	if (err)
		xenbus_dev_error(fb->dev, err, "unknown data path");
	return err;
}

static void fab_chan_unmap(struct fab_dev *fb)
{
	if (fb->irq > 0)
		unbind_from_irqhandler(fb->irq, fb);
	fb->irq = 0;
	if (fb->req_ring)
		xenbus_unmap_ring_vfree(fb->dev, fb->req_ring);
	if (fb->rsp_ring)
		xenbus_unmap_ring_vfree(fb->dev, fb->rsp_ring);
	if (fb->ctrl)
		xenbus_unmap_ring_vfree(fb->dev, fb->ctrl);
	fb->req_ring = NULL;
	fb->rsp_ring = NULL;
	fb->ctrl = NULL;
	fb->broken = false;
}

static int fab_map_ring(struct fab_dev *fb, const char *key, void **addr)
{
	grant_ref_t ref;
	u32 v;
	int err;

	/* Never a reserved entry (the guest's console and xenstore pages). */
	err = fab_read_uint(fb, key, GNTTAB_NR_RESERVED_ENTRIES, U32_MAX, &v);
	if (err)
		return err;
	ref = v;
	return xenbus_map_ring_valloc(fb->dev, &ref, 1, addr);
}

static int fab_chan_map(struct fab_dev *fb)
{
	void *ctrl = NULL;
	u32 evtchn;
	int err;

	err = fab_map_ring(fb, "queue-0/req-ring-ref0", &fb->req_ring) ?:
	      fab_map_ring(fb, "queue-0/rsp-ring-ref0", &fb->rsp_ring) ?:
	      fab_map_ring(fb, "queue-0/ctrl-ring-ref", &ctrl);
	fb->ctrl = ctrl;
	if (err)
		return err;
	/* We receive on the request ring and send on the response ring. */
	err = fipc_chan_init(&fb->fc, fb->rsp_ring, fb->req_ring,
			     FAB_RING_ORDER);
	if (err)
		return err;
	err = fab_read_uint(fb, "queue-0/event-channel", 1, S32_MAX, &evtchn);
	if (err)
		return err;
	err = bind_interdomain_evtchn_to_irqhandler_lateeoi(fb->dev, evtchn,
							    fab_interrupt, 0,
							    KBUILD_MODNAME, fb);
	if (err <= 0)
		return err ?: -EINVAL;
	fb->irq = err;
	return 0;
}

static int fab_write_geometry(struct fab_dev *fb)
{
	const char *node = fb->dev->nodename;

	return xenbus_printf(XBT_NIL, node, "sectors", "%llu", sectors) ?:
	       xenbus_printf(XBT_NIL, node, "info", "%u", 0) ?:
	       xenbus_printf(XBT_NIL, node, "sector-size", "%u",
			     FIPCBLK_SECTOR_BYTES) ?:
	       xenbus_printf(XBT_NIL, node, "physical-sector-size", "%u",
			     FIPCBLK_SECTOR_BYTES) ?:
	       xenbus_printf(XBT_NIL, node, "feature-flush-cache", "%d", 1) ?:
	       xenbus_printf(XBT_NIL, node, "feature-fua", "%d", 0) ?:
	       xenbus_printf(XBT_NIL, node, "feature-discard", "%d", 0);
}

static int fab_write_offer(struct fab_dev *fb)
{
	const char *node = fb->dev->nodename;

	return xenbus_printf(XBT_NIL, node, "fipc-protocol-versions", "%u",
			     FIPCBLK_PROTOCOL_VERSION) ?:
	       xenbus_printf(XBT_NIL, node, "multi-queue-max-queues", "%u", 1) ?:
	       xenbus_printf(XBT_NIL, node, "fipc-max-ring-order", "%u",
			     FAB_RING_ORDER) ?:
	       xenbus_printf(XBT_NIL, node, "fipc-max-request-bytes", "%u",
			     FAB_MAX_REQ_BYTES) ?:
	       xenbus_printf(XBT_NIL, node, "fipc-data-paths", "%s",
			     fb->ms_offered ? "grant memshare" : "grant") ?:
	       xenbus_printf(XBT_NIL, node, "fipc-staging-max-pages", "%u", 0);
}

static void fab_ms_map(struct fab_dev *fb);

/* Frontend Initialised, we are in InitWait: map its channel, connect. */
static void fab_connect(struct fab_dev *fb)
{
	struct xenbus_device *dev = fb->dev;
	int err;

	err = fab_check_choices(fb) ?: fab_chan_map(fb) ?:
	      fab_write_geometry(fb);
	if (err) {
		fab_chan_unmap(fb);
		/* Closing; the frontend closes too and may come back. */
		xenbus_dev_fatal(dev, err, "connecting");
		return;
	}
	if (fb->ms_chan && !fb->ms_done && !fb->ms)
		fab_ms_map(fb);
	xenbus_switch_state(dev, XS_CONNECTED);
	fb->connects++;
	pr_info("@@FIPC-ATTACKB connected dom=%u ms=%d path=%s connects=%llu armed=%d held_total=%llu\n",
		dev->otherend_id, fb->ms_offered,
		fb->ms_chan ? "memshare" : "grant", fb->connects, fb->armed,
		fb->held_total);
}

/* Reference i of a request of nslots slots (i < its nrefs). */
static grant_ref_t fab_ref(const struct fipc_msg *msgs, unsigned int i)
{
	size_t off;
	u32 ref;

	if (i < FIPCBLK_HEAD_REFS) {
		off = offsetof(struct fipcblk_request, refs) + i * sizeof(ref);
		memcpy(&ref, msgs[0].data + off, sizeof(ref));
	} else {
		i -= FIPCBLK_HEAD_REFS;
		off = (i % FIPCBLK_CONT_REFS) * sizeof(ref);
		memcpy(&ref, msgs[1 + i / FIPCBLK_CONT_REFS].data + off,
		       sizeof(ref));
	}
	return ref;
}

static unsigned int fab_slots(unsigned int nrefs)
{
	if (nrefs <= FIPCBLK_HEAD_REFS)
		return 1;
	return 1 + DIV_ROUND_UP(nrefs - FIPCBLK_HEAD_REFS, FIPCBLK_CONT_REFS);
}

/*
 * A READ or WRITE we can map: its length, offset, slot count, range and
 * references within what we offered.  Sets *nrefs.
 */
static bool fab_valid(const struct fipcblk_request *r, unsigned int nslots,
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
	if (n > FAB_MAX_REFS || nslots != fab_slots(n))
		return false;
	for (i = 0; i < n; i++)
		if (fab_ref(msgs, i) < GNTTAB_NR_RESERVED_ENTRIES)
			return false;
	*nrefs = n;
	return true;
}

/* Unmap what is mapped of h and free it. */
static void fab_unmap(struct fab_dev *fb, struct fab_held *h)
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
static struct fab_held *fab_map(struct fab_dev *fb, const grant_ref_t *refs,
				unsigned int nrefs, bool readonly)
{
	u32 flags = GNTMAP_host_map | (readonly ? GNTMAP_readonly : 0);
	struct fab_held *h;
	unsigned int i;
	bool ok = true;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
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

/* Let go of the held mappings whose time is up (all of them if all). */
static void fab_release(struct fab_dev *fb, bool all)
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

/*
 * The linger attack: map FAB_LINGER_REFS of the pages the frontend's
 * memshare table grants (from its first table page), read-only.  The
 * directory and table page are copied once; their entries are checked
 * before use.
 */
static void fab_ms_map(struct fab_dev *fb)
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
static void fab_ms_release(struct fab_dev *fb, bool now)
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
	/* Room was checked before the request was taken. */
	err = fipc_send(&fb->fc.tx, &msg, 1);
	if (err) {
		fb->broken = true;
		pr_info("@@FIPC-ATTACKB ring-error dom=%u where=response err=%d\n",
			fb->dev->otherend_id, err);
	}
}

static void fab_handle(struct fab_dev *fb, unsigned int nslots)
{
	struct fipcblk_request r;
	unsigned int nrefs;
	s16 status;

	/* Our private copy (fipc_recv()); the ring is not read again. */
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
	fab_answer(fb, r.id, r.op, status);
	if (fb->ms && r.op == FIPCBLK_OP_READ && r.sector == linger_sector &&
	    status == FIPCBLK_RSP_OKAY)
		fb->ms_trigger = true;
}

/* Take and answer the requests waiting, while there is room to answer. */
static void fab_serve(struct fab_dev *fb)
{
	unsigned int budget = FAB_BUDGET;
	bool sent = false;
	int n;

	while (!fb->broken && budget-- && fipc_tx_room(&fb->fc.tx)) {
		n = fipc_recv(&fb->fc.rx, fb->msgs, FAB_MAX_SLOTS);
		if (n == -EAGAIN)
			break;
		if (n < 0) {
			/* Corrupted, or longer than anything we offered. */
			fb->broken = true;
			pr_info("@@FIPC-ATTACKB ring-error dom=%u where=request err=%d\n",
				fb->dev->otherend_id, n);
			break;
		}
		fab_handle(fb, n);
		sent = true;
		fb->ms_served += fb->ms_chan;
		if (fb->ms_trigger && !fb->ms_done) {
			/* Close with the memshare pages still mapped. */
			fb->ms_done = true;
			xenbus_switch_state(fb->dev, XS_CLOSING);
			pr_info("@@FIPC-ATTACKB ms-closing dom=%u served=%llu writes=%llu refs=%u\n",
				fb->dev->otherend_id, fb->ms_served,
				fb->ms_writes, fb->ms->nrefs);
			break;
		}
	}
	if (sent) {
		virt_mb();	/* our responses before the front_sleeping load */
		if (READ_ONCE(fb->ctrl->front_sleeping))
			notify_remote_via_irq(fb->irq);
	}
	if (fb->broken)
		xenbus_switch_state(fb->dev, XS_CLOSING);
}

static void fab_closed(struct fab_dev *fb, const char *why)
{
	struct xenbus_device *dev = fb->dev;

	fab_chan_unmap(fb);
	if (fb->ms && !fb->ms_closed) {
		/* The frontend sees Closed with these still mapped. */
		fb->ms_closed = true;
		fb->ms->since = jiffies;
	}
	if (dev->state == XS_CLOSED)
		/* The toolstack wrote Closing over our Closed: say it again. */
		xenbus_printf(XBT_NIL, dev->nodename, "state", "%d", XS_CLOSED);
	else
		xenbus_switch_state(dev, XS_CLOSED);
	pr_info("@@FIPC-ATTACKB closed dom=%u ms=%d why=%s held_total=%llu unmapped=%llu unmapped_early=%llu honest=%llu flushes=%llu refused=%llu map_errors=%llu grants_max=%u ms_mapped=%u\n",
		dev->otherend_id, fb->ms_offered, why, fb->held_total,
		fb->unmapped, fb->unmapped_early, fb->honest, fb->flushes,
		fb->refused, fb->map_errors, fb->grants_max,
		fb->ms ? fb->ms->nrefs : 0);
}

/*
 * One step of the device's state machine.  Returns true while a channel
 * is being served (poll again soon).
 */
static bool fab_step(struct fab_dev *fb)
{
	struct xenbus_device *dev = fb->dev;
	enum xenbus_state fe = READ_ONCE(fb->fe_state);

	fab_release(fb, false);
	fab_ms_release(fb, false);

	/*
	 * The toolstack takes the device away (online 0, it wrote Closing
	 * and waits for Closed): nobody is left to protect, let go now.
	 * Checked once a second: a xenstore read costs dom0 a round trip.
	 */
	if (time_after_eq(jiffies, fb->next_online_check)) {
		fb->next_online_check = jiffies + HZ;
		if (!xenbus_dev_is_online(dev) &&
		    xenbus_read_driver_state(dev->nodename) != XS_CLOSED) {
			fab_release(fb, true);
			fab_closed(fb, "offline");
			return false;
		}
	}

	switch (dev->state) {
	case XS_INITWAIT:
		/* Initialised only: a Connected one still uses old rings. */
		if (fe == XS_INITIALISED)
			fab_connect(fb);
		break;
	case XS_CONNECTED:
		if (fe == XS_CONNECTED || fe == XS_INITIALISED) {
			fab_serve(fb);
			return dev->state == XS_CONNECTED;
		}
		/* The frontend closes (or is gone): serve nothing more. */
		xenbus_switch_state(dev, XS_CLOSING);
		pr_info("@@FIPC-ATTACKB closing dom=%u frontend=%s held_now=%u grants_now=%u\n",
			dev->otherend_id, xenbus_strstate(fe), fb->nheld,
			fb->grants_now);
		break;
	case XS_CLOSING:
		/* Closed only once no page of the frontend is mapped. */
		if (!fb->nheld)
			fab_closed(fb, "frontend");
		break;
	case XS_CLOSED:
		if ((fe == XS_CLOSED || fe == XS_INITIALISING) &&
		    xenbus_dev_is_online(dev))
			/* Ready for the frontend to come back. */
			xenbus_switch_state(dev, XS_INITWAIT);
		break;
	default:
		break;
	}
	return false;
}

static int fab_thread(void *arg)
{
	struct fab_dev *fb = arg;

	while (!kthread_should_stop()) {
		if (fab_step(fb))
			usleep_range(2000, 4000);
		else
			schedule_timeout_interruptible(HZ / 20);
	}
	return 0;
}

static void fab_frontend_changed(struct xenbus_device *dev,
				 enum xenbus_state state)
{
	struct fab_dev *fb = dev_get_drvdata(&dev->dev);

	if (!fb)
		return;
	WRITE_ONCE(fb->fe_state, state);
	wake_up_process(fb->task);
}

static int fab_probe(struct xenbus_device *dev,
		     const struct xenbus_device_id *id)
{
	struct fab_dev *fb;
	int err;

	fb = kzalloc(sizeof(*fb), GFP_KERNEL);
	if (!fb)
		return -ENOMEM;
	fb->dev = dev;
	INIT_LIST_HEAD(&fb->held);
	fb->armed = !wait_arm;
	fb->ms_offered = linger_sector &&
			 xenbus_read_unsigned(dev->nodename,
					      "fipc-memshare-allowed", 0) == 1;
	fb->fe_state = xenbus_read_driver_state(dev->otherend);
	err = fab_write_offer(fb);
	if (err) {
		xenbus_dev_fatal(dev, err, "writing the offer");
		kfree(fb);
		return err;
	}
	fb->task = kthread_create(fab_thread, fb, "fipc-attackb/%u",
				  dev->otherend_id);
	if (IS_ERR(fb->task)) {
		err = PTR_ERR(fb->task);
		kfree(fb);
		return err;
	}
	dev_set_drvdata(&dev->dev, fb);
	/* libxl waits for InitWait before it runs the hotplug script. */
	xenbus_switch_state(dev, XS_INITWAIT);
	pr_info("@@FIPC-ATTACKB bound dom=%u ms=%d dev=%s mode=%s hold_s=%u hold_count=%u wait_arm=%d linger_sector=%llu\n",
		dev->otherend_id, fb->ms_offered, dev->nodename, mode, hold_s,
		hold_count, wait_arm, linger_sector);
	wake_up_process(fb->task);
	return 0;
}

static void fab_remove(struct xenbus_device *dev)
{
	struct fab_dev *fb = dev_get_drvdata(&dev->dev);
	unsigned int left;

	kthread_stop(fb->task);
	left = fb->nheld + (fb->ms ? 1 : 0);
	fab_release(fb, true);
	fab_ms_release(fb, true);
	fab_chan_unmap(fb);
	pr_info("@@FIPC-ATTACKB removed dom=%u ms=%d vdev=%s held_left=%u held_total=%llu unmapped=%llu unmapped_early=%llu honest=%llu flushes=%llu refused=%llu map_errors=%llu grants_max=%u connects=%llu ms_writes=%llu checked_pages=%llu exposed_pages=%llu exposed_bytes=%llu\n",
		dev->otherend_id, fb->ms_offered, kbasename(dev->nodename),
		left, fb->held_total, fb->unmapped, fb->unmapped_early,
		fb->honest, fb->flushes, fb->refused, fb->map_errors,
		fb->grants_max, fb->connects, fb->ms_writes, fb->checked_pages,
		fb->exposed_pages, fb->exposed_bytes);
	dev_set_drvdata(&dev->dev, NULL);
	kfree(fb);
}

static const struct xenbus_device_id fab_ids[] = {
	{ "fipcblk" },
	{ "" }
};

static struct xenbus_driver fab_driver = {
	.ids = fab_ids,
	.probe = fab_probe,
	.remove = fab_remove,
	.otherend_changed = fab_frontend_changed,
};

static int __init fab_init(void)
{
	if (!xen_domain())
		return -ENODEV;
	if (strcmp(mode, "keepmap")) {
		pr_err("unknown mode %s\n", mode);
		return -EINVAL;
	}
	if (!sectors || sectors > U64_MAX / FIPCBLK_SECTOR_BYTES)
		return -EINVAL;
	return xenbus_register_backend(&fab_driver);
}

static void __exit fab_exit(void)
{
	xenbus_unregister_driver(&fab_driver);
}

module_init(fab_init);
module_exit(fab_exit);

MODULE_DESCRIPTION("Hostile fipcblk backend for the fipc testbed (test only)");
MODULE_LICENSE("GPL");
