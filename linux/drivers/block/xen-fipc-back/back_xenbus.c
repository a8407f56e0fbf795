// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: xenbus backend driver and state machine.
 *
 *   probe               -> advertise versions and limits, go InitWait
 *   physical-device     -> open the block device
 *   frontend Initialised-> check its choices, map its channels, write the
 *                          geometry, go Connected (in connect_work,
 *                          back_connect.c)
 *   frontend Closing    -> go Closing, stop the channels; once their
 *                          bios ended, unmap everything, go Closed (the
 *                          frontend may then free its pages)
 *   frontend Closed     -> same; then, if the toolstack still wants the
 *                          device (online), go InitWait for a reconnect,
 *                          else unregister
 *   ring protocol error -> go Closing (the frontend closes, and may come
 *                          back)
 *
 * Mapping (back_connect.c) and waiting for the bios run in work items
 * (connect_work, drain_work), never in the xenwatch thread: a guest with
 * much memory to map, or that fills its channels with slow I/O and
 * closes, must not stall every other device's xenstore watches for as
 * long as that takes.  When the work ends, the frontend's state of that
 * moment is followed.  Removal is the one exception, bounded:
 * the bus writes Closed as soon as it returns, so it waits up to
 * XFB_REMOVE_DRAIN_WAIT for the drain before handing the device over.
 *
 * A reconnecting frontend (after a protocol error, or our module being
 * reloaded) goes through the same steps.
 */
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <xen/xenbus.h>
#include "back.h"

/*
 * How long removal waits for a drain before handing it over.  The bus
 * writes Closed as soon as removal returns, and a frontend then takes
 * back what it shared; memshare pages and staging pages still mapped
 * here would outlive that (the guest must then defer them).  Bios on a
 * healthy device end in milliseconds; a guest's slow I/O stalls xenwatch
 * for at most this long.
 */
#define XFB_REMOVE_DRAIN_WAIT	(5 * HZ)

/*
 * Devices removed while their bios were still in flight: drain_work
 * releases them.  The same xenbus device may be probed again meanwhile
 * (unbound and bound through sysfs): that probe waits until they are gone.
 */
static DEFINE_MUTEX(xfb_released_mutex);
static LIST_HEAD(xfb_released);
static DECLARE_WAIT_QUEUE_HEAD(xfb_released_wq);

static bool xfb_released_has(struct xenbus_device *dev)
{
	struct xfb_be *be;
	bool found = false;

	mutex_lock(&xfb_released_mutex);
	list_for_each_entry(be, &xfb_released, released)
		found |= be->dev == dev;
	mutex_unlock(&xfb_released_mutex);
	return found;
}

static u32 xfb_request_bytes(void)
{
	u32 max = clamp(xfb_max_request_bytes, FIPCBLK_PAGE_BYTES,
			FIPCBLK_MAX_REQUEST_BYTES);

	return round_down(max, FIPCBLK_PAGE_BYTES);
}

/*
 * Start a disconnect: go Closing and stop the channels; drain_work waits
 * for their bios and finishes.  With be->mutex held.  Returns true if a
 * drain is under way (the caller must not act on the frontend's state
 * now: drain_work does once it is done).
 */
static bool xfb_disconnect(struct xfb_be *be)
{
	if (be->draining)
		return true;
	if (!be->chans)
		return false;
	cancel_delayed_work_sync(&be->resize_work);
	xenbus_switch_state(be->dev, XenbusStateClosing);
	xfb_chans_stop(be);
	xfb_be_set_busy(be, &be->draining, true);
	queue_work(xfb_wq, &be->drain_work);
	return true;
}

/*
 * The end of a drain: with be->mutex held, nothing mapped any more.
 * be->draining stays set: the caller clears it.
 */
static void xfb_disconnected(struct xfb_be *be)
{
	be->lim.memshare = false;
	be->lim.staging = false;
	dev_info(&be->dev->dev, "disconnected\n");
}

/* Under be->busy_lock: does a work follow the frontend for xenwatch? */
static bool xfb_be_busy_locked(struct xfb_be *be)
{
	return be->connecting || be->draining || be->removing ||
	       be->following;
}

static bool xfb_be_busy(struct xfb_be *be)
{
	bool busy;

	spin_lock(&be->busy_lock);
	busy = xfb_be_busy_locked(be);
	spin_unlock(&be->busy_lock);
	return busy;
}

static void xfb_physdev_changed(struct xenbus_watch *watch, const char *path,
				const char *token)
{
	struct xfb_be *be = container_of(watch, struct xfb_be, physdev_watch);
	struct xenbus_device *dev = be->dev;
	unsigned int major, minor;
	enum xenbus_state fe;

	if (xenbus_scanf(XBT_NIL, dev->nodename, "physical-device", "%x:%x",
			 &major, &minor) != 2)
		return;
	/* A connect or a drain under way has its device: no waiting. */
	if (xfb_be_busy(be))
		return;
	mutex_lock(&be->mutex);
	if (be->bdev) {
		if (be->devt != MKDEV(major, minor))
			dev_warn(&dev->dev, "physical-device changed to %x:%x; ignored\n",
				 major, minor);
		goto out;
	}
	if (xfb_vbd_open(be, MKDEV(major, minor)))
		goto out;
	fe = xenbus_read_driver_state(dev, dev->otherend);
	if (fe == XenbusStateInitialised || fe == XenbusStateConnected)
		xfb_connect(be, fe);
out:
	mutex_unlock(&be->mutex);
}

/**
 * xfb_follow_frontend() - do what the frontend's state asks
 * @be: the device, be->mutex held
 * @fe: the frontend's state
 *
 * Nothing while a connect or a drain is under way (their work calls us
 * again when it is done) or the device is being removed.
 *
 * Return: true if the device must now be unregistered (by the caller,
 * after unlocking, in the xenwatch thread).
 */
bool xfb_follow_frontend(struct xfb_be *be, enum xenbus_state fe)
{
	struct xenbus_device *dev = be->dev;

	/*
	 * A guard: the callers never get here busy.  xenwatch returns
	 * early while a work is under way (and expedites a paced connect
	 * there), and xfb_work_follow() clears its own flag first.
	 */
	if (be->removing || be->draining || be->connecting)
		return false;
	switch (fe) {
	case XenbusStateInitialising:
		if (dev->state == XenbusStateClosed) {
			dev_info(&dev->dev, "frontend reconnecting\n");
			xenbus_switch_state(dev, XenbusStateInitWait);
		}
		break;
	case XenbusStateInitialised:
	case XenbusStateConnected:
		xfb_connect(be, fe);
		break;
	case XenbusStateClosing:
		if (!xfb_disconnect(be))
			xenbus_switch_state(dev, XenbusStateClosed);
		break;
	case XenbusStateClosed:
		if (xfb_disconnect(be))
			break;
		if (!xenbus_dev_is_online(dev)) {
			xenbus_switch_state(dev, XenbusStateClosed);
			return true;
		}
		if (dev->state != XenbusStateInitWait) {
			xenbus_switch_state(dev, XenbusStateClosed);
			/* Still wanted: ready for the frontend to come back. */
			xenbus_switch_state(dev, XenbusStateInitWait);
		}
		break;
	case XenbusStateUnknown:
		if (xfb_disconnect(be))
			break;
		xenbus_switch_state(dev, XenbusStateClosed);
		return true;
	default:
		break;
	}
	return false;
}

/**
 * xfb_work_follow() - follow the frontend at the end of a connect or drain
 * @be: the device, be->mutex held
 * @flag: &be->connecting or &be->draining, set: cleared here
 * @changes: xfb_fe_changes() when the work began
 * @always: follow the frontend's state even if it is still Initialised
 *	and did not change (else a connect refused waits for its next move)
 *
 * Until the state followed is the latest, xenwatch leaves the following
 * to us (be->following) and never waits for be->mutex, which we hold
 * for xenstore reads and writes: a state that comes meanwhile is
 * followed here, unless what we did started a connect or a drain (which
 * then follows it).  Following a state twice does nothing.
 */
void xfb_work_follow(struct xfb_be *be, bool *flag, unsigned int changes,
		     bool always)
{
	struct xenbus_device *dev = be->dev;
	enum xenbus_state fe;
	unsigned int seen;
	bool moved, again;

	spin_lock(&be->busy_lock);
	WRITE_ONCE(*flag, false);
	be->following = true;
	seen = be->fe_changes;
	moved = seen != changes;
	spin_unlock(&be->busy_lock);
	do {
		fe = xenbus_read_driver_state(dev, dev->otherend);
		if (!be->removing &&
		    (always || moved || fe != XenbusStateInitialised) &&
		    xfb_follow_frontend(be, fe))
			dev_info(&dev->dev, "closed; the toolstack removes the device\n");
		spin_lock(&be->busy_lock);
		again = be->fe_changes != seen && !be->connecting &&
			!be->draining && !be->removing;
		seen = be->fe_changes;
		moved = true;
		if (!again)
			be->following = false;
		spin_unlock(&be->busy_lock);
	} while (again);
}

/*
 * A connect (xfb_connect_run()), then the frontend's state of that
 * moment followed: one that came while we mapped, Initialised too (a
 * connect again, with what the frontend offers now).  A connect refused
 * with no change waits for the frontend's next move.
 */
static void xfb_connect_work(struct work_struct *work)
{
	struct xfb_be *be = container_of(to_delayed_work(work), struct xfb_be,
					 connect_work);
	unsigned long t0 = jiffies;
	unsigned int changes;

	if (!xfb_connect_run(be, t0, &changes))
		return;
	mutex_lock(&be->mutex);
	xfb_work_follow(be, &be->connecting, changes, false);
	mutex_unlock(&be->mutex);
	xfb_guest_connect_cost(be->guest, jiffies - t0);
}

static void xfb_frontend_changed(struct xenbus_device *dev,
				 enum xenbus_state fe)
{
	struct xfb_be *be = dev_get_drvdata(&dev->dev);
	bool busy, gone;

	dev_dbg(&dev->dev, "frontend %s, we are %s\n", xenbus_strstate(fe),
		xenbus_strstate(dev->state));
	/*
	 * While a connect, a drain or a removal is under way, its work
	 * follows the frontend's state when it ends (xfb_work_follow(),
	 * seeing fe_changes move): note the change and return, without
	 * waiting for be->mutex, which the work holds for its xenstore
	 * reads and writes.  Not Initialised any more: no need to wait for
	 * the pacing of a connect.
	 */
	spin_lock(&be->busy_lock);
	if (fe != be->fe_last) {
		be->fe_last = fe;
		be->fe_changes++;
	}
	busy = xfb_be_busy_locked(be);
	if (be->connecting && !be->removing && fe != XenbusStateInitialised)
		mod_delayed_work(xfb_wq, &be->connect_work, 0);
	spin_unlock(&be->busy_lock);
	if (busy)
		return;
	mutex_lock(&be->mutex);
	gone = xfb_follow_frontend(be, fe);
	mutex_unlock(&be->mutex);
	if (gone)
		device_unregister(&dev->dev);
}

static void xfb_release(struct xfb_be *be);
static void xfb_free(struct xfb_be *be);

/*
 * The second half of a disconnect, off the xenwatch thread: wait for the
 * stopped channels' bios (no lock held: nobody else frees the channels
 * while be->draining), unmap and free everything, then follow the
 * frontend's state as it is now; or, if the device was removed
 * meanwhile, release what is left of it.
 *
 * Unregistering is left to the xenwatch thread (the toolstack removes
 * the backend's directory once we are Closed, and the bus unregisters
 * the device): from here it could race with that.
 */
static void xfb_drain_work(struct work_struct *work)
{
	struct xfb_be *be = container_of(work, struct xfb_be, drain_work);
	struct xenbus_device *dev = be->dev;
	unsigned long t0 = jiffies;

	xfb_chans_drain(be);
	/*
	 * Every bio has ended: nothing uses the guest's pages any more.
	 * Unmapping them (on memshare all of the guest's memory, seconds)
	 * holds be->mutex only to take them out of be: xenwatch never
	 * waits for it.  It paces the guest's next connect.
	 */
	xfb_chans_free(be);
	xfb_memshare_unmap(be);
	xfb_guest_connect_cost(be->guest, jiffies - t0);
	mutex_lock(&be->mutex);
	xfb_disconnected(be);
	if (!be->removing) {
		/* As it is now, even if it did not change since we began. */
		xfb_work_follow(be, &be->draining, 0, true);
		mutex_unlock(&be->mutex);
		return;
	}
	xfb_be_set_busy(be, &be->draining, false);
	if (!be->handed_off) {
		/* xfb_remove() waits for us and releases the device. */
		mutex_unlock(&be->mutex);
		wake_up_all(&xfb_released_wq);
		return;
	}
	mutex_unlock(&be->mutex);
	xfb_release(be);
	mutex_lock(&xfb_released_mutex);
	list_del(&be->released);
	mutex_unlock(&xfb_released_mutex);
	wake_up_all(&xfb_released_wq);
	xfb_free(be);
	put_device(&dev->dev);
}

/* Has a channel of the current connection seen a protocol error? */
static bool xfb_chans_broken(struct xfb_be *be)
{
	unsigned int i;

	for (i = 0; i < be->nr_chans; i++)
		if (READ_ONCE(be->chans[i].broken))
			return true;
	return false;
}

/*
 * Queued by a poller (xfb_proto_error()).  It may run after the channels
 * that queued it were torn down and others mapped (a reconnect): only a
 * broken channel of the connection it finds closes it.
 */
static void xfb_proto_work(struct work_struct *work)
{
	struct xfb_be *be = container_of(work, struct xfb_be, proto_work);

	mutex_lock(&be->mutex);
	if (be->chans && be->dev->state == XenbusStateConnected &&
	    xfb_chans_broken(be)) {
		xenbus_dev_error(be->dev, -EPROTO,
				 "frontend broke the ring protocol");
		xenbus_switch_state(be->dev, XenbusStateClosing);
	}
	mutex_unlock(&be->mutex);
}

static int xfb_write_offer(struct xfb_be *be)
{
	struct xenbus_device *dev = be->dev;
	const char *node = dev->nodename;

	return xenbus_printf(XBT_NIL, node, "fipc-protocol-versions", "%u",
			     FIPCBLK_PROTOCOL_DUPLEX) ?:
	       xenbus_printf(XBT_NIL, node, "multi-queue-max-queues", "%u",
			     xfb_queues_offered(be)) ?:
	       xenbus_printf(XBT_NIL, node, "fipc-max-ring-order", "%u",
			     min_t(unsigned int, xfb_max_ring_order,
				   FIPC_MAX_ORDER)) ?:
	       xenbus_printf(XBT_NIL, node, "fipc-max-request-bytes", "%u",
			     xfb_request_bytes()) ?:
	       xenbus_printf(XBT_NIL, node, "fipc-data-paths", "%s",
			     be->ms_offered ? "grant memshare" : "grant") ?:
	       xenbus_printf(XBT_NIL, node, "fipc-memshare-writable", "%u",
			     be->msw_offered) ?:
	       xenbus_printf(XBT_NIL, node, "fipc-grant-staging", "%u",
			     be->gs_offered) ?:
	       xenbus_printf(XBT_NIL, node, "fipc-staging-max-pages", "%u",
			     be->ms_offered || be->gs_offered ?
			     min_t(unsigned int, xfb_staging_max_pages,
				   FIPCBLK_STAGING_MAX_PAGES) : 0);
}

static void xfb_read_poller_cpus(struct xfb_be *be)
{
	char *list;

	list = xenbus_read(XBT_NIL, be->dev->nodename, "fipc-poller-cpus",
			   NULL);
	if (IS_ERR(list))
		return;
	if (cpulist_parse(list, be->poller_cpus) ||
	    !cpumask_intersects(be->poller_cpus, cpu_online_mask)) {
		dev_warn(&be->dev->dev, "ignoring fipc-poller-cpus \"%s\"\n",
			 list);
		cpumask_clear(be->poller_cpus);
	}
	kfree(list);
}

static void xfb_free(struct xfb_be *be)
{
	xfb_guest_del_dev(be);
	xfb_guest_put(be->guest);
	free_cpumask_var(be->poller_cpus);
	kfree(be);
}

static int xfb_probe(struct xenbus_device *dev,
		     const struct xenbus_device_id *id)
{
	struct xfb_be *be;
	int err;

	/* The same device removed a moment ago: let its drain end first. */
	wait_event(xfb_released_wq, !xfb_released_has(dev));
	be = kzalloc_obj(*be, GFP_KERNEL);
	if (!be)
		return -ENOMEM;
	if (!zalloc_cpumask_var(&be->poller_cpus, GFP_KERNEL)) {
		kfree(be);
		return -ENOMEM;
	}
	be->dev = dev;
	be->weight = FIPC_POLL_WEIGHT_DEFAULT;
	xfb_limiter_init(&be->limits);
	INIT_LIST_HEAD(&be->guest_node);
	be->guest = xfb_guest_get(dev->otherend_id);
	if (!be->guest) {
		xfb_free(be);
		return -ENOMEM;
	}
	mutex_init(&be->mutex);
	xfb_stats_init(be);
	spin_lock_init(&be->busy_lock);
	xfb_guest_add_dev(be);
	INIT_WORK(&be->proto_work, xfb_proto_work);
	INIT_WORK(&be->drain_work, xfb_drain_work);
	INIT_DELAYED_WORK(&be->connect_work, xfb_connect_work);
	INIT_DELAYED_WORK(&be->resize_work, xfb_vbd_resize_work);
	dev_set_drvdata(&dev->dev, be);
	xfb_debugfs_add(be);
	xfb_read_poller_cpus(be);
	/* Only the toolstack's word (and ours) allows memshare. */
	be->ms_offered = xfb_memshare_enabled &&
			 xenbus_read_unsigned(dev->nodename,
					      "fipc-memshare-allowed", 0) == 1;
	be->msw_offered = be->ms_offered && READ_ONCE(xfb_memshare_writable);
	be->gs_offered = READ_ONCE(xfb_grant_staging) &&
			 READ_ONCE(xfb_staging_max_pages);

	err = xfb_write_offer(be);
	if (err) {
		xenbus_dev_fatal(dev, err, "writing fipc limits");
		goto fail;
	}
	err = xenbus_watch_pathfmt(dev, &be->physdev_watch, NULL,
				   xfb_physdev_changed, "%s/physical-device",
				   dev->nodename);
	if (err)
		goto fail;
	be->watching = true;
	err = xenbus_switch_state(dev, XenbusStateInitWait);
	if (err)
		goto fail;
	return 0;

fail:
	if (be->watching) {
		unregister_xenbus_watch(&be->physdev_watch);
		kfree(be->physdev_watch.node);
	}
	xfb_debugfs_remove(be);
	dev_set_drvdata(&dev->dev, NULL);
	xfb_free(be);
	return err;
}

static void xfb_remove(struct xenbus_device *dev)
{
	struct xfb_be *be = dev_get_drvdata(&dev->dev);

	xfb_debugfs_remove(be);
	if (be->watching) {
		unregister_xenbus_watch(&be->physdev_watch);
		kfree(be->physdev_watch.node);
		be->watching = false;
	}
	mutex_lock(&be->mutex);
	xfb_be_set_busy(be, &be->removing, true);
	dev_set_drvdata(&dev->dev, NULL);
	mutex_unlock(&be->mutex);
	/* A connect under way stops mapping and undoes what it mapped. */
	xfb_connect_cancel(be);
	mutex_lock(&be->mutex);
	if (xfb_disconnect(be)) {
		mutex_unlock(&be->mutex);
		/* Usually quick: then the guest finds nothing mapped. */
		wait_event_timeout(xfb_released_wq, !READ_ONCE(be->draining),
				   XFB_REMOVE_DRAIN_WAIT);
		mutex_lock(&be->mutex);
	}
	if (be->draining) {
		/*
		 * Bios still in flight: drain_work releases the device when
		 * they end; removal (xenwatch) waits no longer for them.
		 */
		be->handed_off = true;
		/*
		 * When removal returns, the bus writes Closed if the state
		 * is Closing (xenbus_dev_remove()), as ours is: the guest
		 * would take its pages back while our bios still use them.
		 * It skips that write if the state it keeps for the device
		 * already says Closed; xfb_release() writes Closed itself.
		 */
		dev->state = XenbusStateClosed;
		get_device(&dev->dev);
		mutex_lock(&xfb_released_mutex);
		list_add(&be->released, &xfb_released);
		mutex_unlock(&xfb_released_mutex);
		mutex_unlock(&be->mutex);
		dev_info(&dev->dev, "removed; its bios in flight are drained in the background\n");
		return;
	}
	mutex_unlock(&be->mutex);
	/* A drain that just ended may still be leaving its work function. */
	flush_work(&be->drain_work);
	xfb_release(be);
	xfb_free(be);
}

/* Let go of a removed device, nothing of the frontend's mapped any more. */
static void xfb_release(struct xfb_be *be)
{
	struct xenbus_device *dev = be->dev;

	mutex_lock(&be->mutex);
	xfb_vbd_close(be);
	mutex_unlock(&be->mutex);
	/*
	 * Only now: until xfb_disconnect() detached the channels, a poller
	 * could queue proto_work again (and the work takes be->mutex, so it
	 * cannot be cancelled under it).
	 */
	cancel_work_sync(&be->proto_work);
	cancel_delayed_work_sync(&be->resize_work);
	/* Handed off: xenstore still says Closing (see xfb_remove()). */
	if (be->handed_off)
		dev->state = XenbusStateClosing;
	xenbus_switch_state(dev, XenbusStateClosed);
}

static const struct xenbus_device_id xfb_ids[] = {
	{ "fipcblk" },
	{ "" }
};

static struct xenbus_driver xfb_driver = {
	.ids = xfb_ids,
	.probe = xfb_probe,
	.remove = xfb_remove,
	.otherend_changed = xfb_frontend_changed,
	/*
	 * The bus must not write Closed when xfb_remove() returns: a device
	 * whose drain was handed off still maps the guest's pages, and
	 * Closed tells the guest it may take them back.  xfb_release()
	 * writes Closed once nothing is mapped.
	 */
	.allow_rebind = true,
};

/**
 * xfb_xenbus_register() - register the backend driver
 *
 * Return: 0 or a negative errno.
 */
int xfb_xenbus_register(void)
{
	int err;

	xfb_wq = alloc_workqueue("xfb", WQ_UNBOUND, 0);
	if (!xfb_wq)
		return -ENOMEM;
	xfb_sysfs_init();
	xfb_driver.driver.dev_groups = xfb_groups;
	xfb_debugfs_init();
	err = xenbus_register_backend(&xfb_driver);
	if (err) {
		xfb_debugfs_exit();
		destroy_workqueue(xfb_wq);
	}
	return err;
}

/**
 * xfb_xenbus_unregister() - disconnect every device and unregister
 */
void xfb_xenbus_unregister(void)
{
	xenbus_unregister_driver(&xfb_driver);
	/* Waits for the drains that removals handed over. */
	destroy_workqueue(xfb_wq);
	xfb_debugfs_exit();
}
