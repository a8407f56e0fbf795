// SPDX-License-Identifier: GPL-2.0
/*
 * fipc_attack_back: a hostile fipcblk backend, for the testbed only
 * (scenario fipc-hostile-backend, docs/testbed.md).  Not shipped.
 *
 * Loaded in dom0 instead of xen-fipc-back, it binds the "fipcblk"
 * backend devices the toolstack creates (xl's phy1: disks), offers the
 * keys xen-fipc-front needs, maps the frontend's channel (one queue, one
 * duplex ring of order 0: protocol version 3, the only one offered) and
 * serves it with lib/fipc's server API from a kthread per device, polled
 * every few ms.  It has no disk behind it: READs see
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
 * storm_ms=N (default 3000, 0: off): after answering a WRITE whose
 * data starts with FAB_STORM_MAGIC (served honestly), the device's thread
 * notifies the frontend as fast as it can for N ms, with no response
 * behind any notification (issue 45, finding 7): the frontend's handler
 * must flag them spurious, so that its kernel's late EOI throttles them.
 *
 * dx_vdevs=LIST (default empty): on the devices named (their vdev
 * numbers, e.g. "51776" for xvde, comma-separated) the guest may arm one
 * of the duplex ring's attacks with a WRITE that starts with
 * FAB_DX_MAGIC and the attack's name: its next READ or WRITE gets it
 * (fab_duplex.c; issue 45, finding 11).  Every device is served
 * honestly on the ring otherwise.
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
 * honestly afterwards.  We offer fipc-memshare-writable too: a PVH guest
 * then shares writable and its READs name pfns, looked up in our copy
 * of its table (read at each memshare connect).  Its READ of sector S
 * is the one we keep mapped, writable and never answered, and write
 * just before we let go (issue 45, finding 5, fab_linger.c).
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
 * once (fipc_duplex_take_request()), every index is bounded by our own limits, every
 * number it wrote is checked before use.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <xen/events.h>
#include <xen/xen.h>
#include "fab.h"

char *mode = "keepmap";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "keepmap (the only mode)");

unsigned int hold_s = 20;
module_param(hold_s, uint, 0444);
MODULE_PARM_DESC(hold_s,
		 "Seconds a request's grants stay mapped after its answer (default 20)");

unsigned int hold_count;
module_param(hold_count, uint, 0444);
MODULE_PARM_DESC(hold_count,
		 "Requests held per device, then served honestly again (default 0: no limit)");

bool wait_arm = true;
module_param(wait_arm, bool, 0444);
MODULE_PARM_DESC(wait_arm,
		 "Serve honestly until the guest writes the arm block (default Y)");

unsigned long long linger_sector;
module_param(linger_sector, ullong, 0444);
MODULE_PARM_DESC(linger_sector,
		 "Memshare disks: after a READ of this sector, close with guest pages still mapped (default 0: off)");

unsigned long long sectors = 2097152;
module_param(sectors, ullong, 0444);
MODULE_PARM_DESC(sectors, "Disk size offered, in 512-byte sectors (default 1 GiB)");

char *dx_vdevs = "";
module_param(dx_vdevs, charp, 0444);
MODULE_PARM_DESC(dx_vdevs,
		 "vdev numbers (comma-separated) where the guest may arm the duplex ring's attacks (default none)");

unsigned int storm_ms = 3000;
module_param(storm_ms, uint, 0444);
MODULE_PARM_DESC(storm_ms,
		 "After a WRITE starting FIPC-ATTACKB-STORM, notify the frontend for this many ms (default 3000; 0: never)");

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
int fab_read_uint(struct fab_dev *fb, const char *key, u32 min, u32 max,
		  u32 *val)
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

	err = fab_read_uint(fb, "fipc-protocol", FIPCBLK_PROTOCOL_DUPLEX,
			    FIPCBLK_PROTOCOL_DUPLEX, &v) ?:
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
	if (fb->ring)
		xenbus_unmap_ring_vfree(fb->dev, fb->ring);
	if (fb->ctrl)
		xenbus_unmap_ring_vfree(fb->dev, fb->ctrl);
	fb->ring = NULL;
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

	/* The duplex ring is in the pages of req-ring-ref. */
	err = fab_map_ring(fb, "queue-0/req-ring-ref0", &fb->ring) ?:
	      fab_map_ring(fb, "queue-0/ctrl-ring-ref", &ctrl);
	fb->ctrl = ctrl;
	if (err)
		return err;
	err = fab_dx_init(fb);
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
			     FIPCBLK_PROTOCOL_DUPLEX) ?:
	       xenbus_printf(XBT_NIL, node, "multi-queue-max-queues", "%u", 1) ?:
	       xenbus_printf(XBT_NIL, node, "fipc-max-ring-order", "%u",
			     FAB_RING_ORDER) ?:
	       xenbus_printf(XBT_NIL, node, "fipc-max-request-bytes", "%u",
			     FAB_MAX_REQ_BYTES) ?:
	       xenbus_printf(XBT_NIL, node, "fipc-data-paths", "%s",
			     fb->ms_offered ? "grant memshare" : "grant") ?:
	       xenbus_printf(XBT_NIL, node, "fipc-memshare-writable", "%d",
			     fb->ms_offered) ?:
	       xenbus_printf(XBT_NIL, node, "fipc-staging-max-pages", "%u", 0);
}

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
	if (fb->ms_chan) {
		fb->ms_writable = xenbus_read_unsigned(dev->otherend,
						       "fipc-memshare-writable",
						       0) == 1;
		/* Without a table, READs by pfn get errors. */
		if (!fab_ms_read_table(fb) && !fb->ms_done && !fb->ms)
			fab_ms_map(fb);
	}
	xenbus_switch_state(dev, XenbusStateConnected);
	fb->connects++;
	pr_info("@@FIPC-ATTACKB connected dom=%u ms=%d path=%s connects=%llu armed=%d held_total=%llu dx=%d\n",
		dev->otherend_id, fb->ms_offered,
		fb->ms_chan ? "memshare" : "grant", fb->connects, fb->armed,
		fb->held_total, fb->dx);
}

/*
 * Unmap and say Closed.  Not where the toolstack already took the
 * device's directory away (gone): a plain write of its state would
 * create that directory again, a node no toolstack removes.
 */
static void fab_closed(struct fab_dev *fb, const char *why, bool gone)
{
	struct xenbus_device *dev = fb->dev;

	fab_dx_closing(fb);
	fab_chan_unmap(fb);
	if (fb->ms && !fb->ms_closed) {
		/* The frontend sees Closed with these still mapped. */
		fb->ms_closed = true;
		fb->ms->since = jiffies;
	}
	if (gone)
		dev->state = XenbusStateClosed;
	else if (dev->state == XenbusStateClosed)
		/* The toolstack wrote Closing over our Closed: say it again. */
		xenbus_printf(XBT_NIL, dev->nodename, "state", "%d", XenbusStateClosed);
	else
		xenbus_switch_state(dev, XenbusStateClosed);
	pr_info("@@FIPC-ATTACKB closed dom=%u ms=%d why=%s held_total=%llu unmapped=%llu unmapped_early=%llu honest=%llu flushes=%llu refused=%llu map_errors=%llu grants_max=%u ms_mapped=%u ms_read_mapped=%u dx=%d\n",
		dev->otherend_id, fb->ms_offered, why, fb->held_total,
		fb->unmapped, fb->unmapped_early, fb->honest, fb->flushes,
		fb->refused, fb->map_errors, fb->grants_max,
		fb->ms ? fb->ms->nrefs : 0,
		fb->ms_read ? fb->ms_read->nrefs : 0, fb->dx);
}

/*
 * One step of the device's state machine.  Returns true while a channel
 * is being served (poll again soon).
 */
static bool fab_step(struct fab_dev *fb)
{
	struct xenbus_device *dev = fb->dev;
	enum xenbus_state fe = READ_ONCE(fb->fe_state);
	enum xenbus_state be;

	fab_release(fb, false);
	fab_ms_release(fb, false);

	/*
	 * The toolstack takes the device away (online 0, it wrote Closing
	 * and waits for Closed): nobody is left to protect, let go now.
	 * Checked once a second: a xenstore read costs dom0 a round trip.
	 * A state that reads Unknown is gone: the toolstack removed the
	 * directory (it stopped waiting for Closed).
	 */
	if (time_after_eq(jiffies, fb->next_online_check)) {
		fb->next_online_check = jiffies + HZ;
		be = xenbus_read_driver_state(dev, dev->nodename);
		if (!xenbus_dev_is_online(dev) && be != XenbusStateClosed) {
			fab_release(fb, true);
			fab_closed(fb, "offline", be == XenbusStateUnknown);
			return false;
		}
	}

	switch (dev->state) {
	case XenbusStateInitWait:
		/* Initialised only: a Connected one still uses old rings. */
		if (fe == XenbusStateInitialised)
			fab_connect(fb);
		break;
	case XenbusStateConnected:
		if (fe == XenbusStateConnected || fe == XenbusStateInitialised) {
			fab_dx_serve(fb);
			return dev->state == XenbusStateConnected;
		}
		/* The frontend closes (or is gone): serve nothing more. */
		xenbus_switch_state(dev, XenbusStateClosing);
		pr_info("@@FIPC-ATTACKB closing dom=%u frontend=%s held_now=%u grants_now=%u dx=%d\n",
			dev->otherend_id, xenbus_strstate(fe), fb->nheld,
			fb->grants_now, fb->dx);
		fab_dx_closing(fb);
		break;
	case XenbusStateClosing:
		/* Closed only once no page of the frontend is mapped. */
		if (!fb->nheld)
			fab_closed(fb, "frontend", false);
		break;
	case XenbusStateClosed:
		if ((fe == XenbusStateClosed || fe == XenbusStateInitialising) &&
		    xenbus_dev_is_online(dev))
			/* Ready for the frontend to come back. */
			xenbus_switch_state(dev, XenbusStateInitWait);
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

	fb = kzalloc_obj(*fb, GFP_KERNEL);
	if (!fb)
		return -ENOMEM;
	fb->dev = dev;
	INIT_LIST_HEAD(&fb->held);
	fb->armed = !wait_arm;
	fb->ms_offered = linger_sector &&
			 xenbus_read_unsigned(dev->nodename,
					      "fipc-memshare-allowed", 0) == 1;
	fb->dx = fab_dx_wanted(dev);
	fb->fe_state = xenbus_read_driver_state(dev, dev->otherend);
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
	xenbus_switch_state(dev, XenbusStateInitWait);
	pr_info("@@FIPC-ATTACKB bound dom=%u ms=%d dev=%s mode=%s hold_s=%u hold_count=%u wait_arm=%d linger_sector=%llu dx=%d\n",
		dev->otherend_id, fb->ms_offered, dev->nodename, mode, hold_s,
		hold_count, wait_arm, linger_sector,
		fb->dx);
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
	vfree(fb->ms_table);
	fab_chan_unmap(fb);
	pr_info("@@FIPC-ATTACKB removed dom=%u ms=%d vdev=%s held_left=%u held_total=%llu unmapped=%llu unmapped_early=%llu honest=%llu flushes=%llu refused=%llu map_errors=%llu grants_max=%u connects=%llu ms_writes=%llu checked_pages=%llu exposed_pages=%llu exposed_bytes=%llu dx=%d dx_attacks=%llu dx_caught=%llu dx_uncaught=%llu dx_leak_pages=%llu\n",
		dev->otherend_id, fb->ms_offered, kbasename(dev->nodename),
		left, fb->held_total, fb->unmapped, fb->unmapped_early,
		fb->honest, fb->flushes, fb->refused, fb->map_errors,
		fb->grants_max, fb->connects, fb->ms_writes, fb->checked_pages,
		fb->exposed_pages, fb->exposed_bytes,
		fb->dx, fb->dx_attacks, fb->dx_caught,
		fb->dx_uncaught, fb->dx_leak_pages);
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
