// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: connecting to a frontend, off the xenwatch thread.
 *
 * Mapping a frontend's channels and staging pages takes tens of
 * milliseconds, and on the memshare path mapping the guest's memory takes
 * seconds (131072 pages: 0.8 to 2.3 s in the emulated testbed).  In the
 * xenwatch thread, where the frontend's state changes arrive, that would
 * hold every other device's xenstore events as long, and a guest cycling
 * Initialised and Closing would hold them for good.  So xenwatch only
 * sees that a connect is due, and a work item does it:
 *
 *   xenwatch:     frontend Initialised -> be->connecting, queue the work
 *   connect_work: under be->mutex, read the frontend's choices; without
 *                 it, map the guest's memory and the channels; under it
 *                 again, start the channels, write the geometry, go
 *                 Connected (or undo all: xfb_connect_run()), then
 *                 follow the frontend's state of that moment
 *                 (back_xenbus.c)
 *
 * be->mutex is never held while mapping, and xenwatch does not even take
 * it while be->connecting: state changes are only counted (be->busy_lock)
 * and the work follows the latest state when it ends, as a drain does
 * (xfb_work_follow()), so xenwatch never waits for the work's xenstore
 * reads and writes either.  A frontend seen to change state
 * while we mapped may have closed and set up new channels and memory
 * tables (and read Initialised again): what we mapped may be its old
 * ones, so the connect is undone and starts again.  Removal sets
 * be->removing, which stops the mapping of the guest's memory between two
 * batches, and waits for the work.
 *
 * The work starts when the guest's earlier connects and disconnects allow
 * (xfb_guest_connect_delay(): the guest's next connect waits as long as
 * the last one of them took), so a guest cycling its connection keeps
 * the backend busy half of the time at most.
 */
#include <linux/slab.h>
#include <xen/xenbus.h>
#include "back.h"

/* Connects and drains (xfb_wq is flushed at unload). */
struct workqueue_struct *xfb_wq;

static int xfb_read_choices(struct xfb_be *be, u32 *nr, u32 *order,
			    bool *memshare)
{
	struct xenbus_device *dev = be->dev;
	const char *fe = dev->otherend;
	u32 version;
	char *path;
	int ok;

	if (xfb_read_fe_uint(be, "fipc-protocol", FIPCBLK_PROTOCOL_TWO_RINGS,
			     FIPCBLK_PROTOCOL_DUPLEX, XFB_REQUIRED, &version))
		return -EPROTONOSUPPORT;
	/* The retired versions are named as such, in the error node too. */
	if (version != FIPCBLK_PROTOCOL_DUPLEX) {
		xenbus_dev_error(dev, -EPROTONOSUPPORT,
				 "fipc-protocol %u is retired (%s); only %u is served",
				 version,
				 version == FIPCBLK_PROTOCOL_TWO_RINGS ?
				 "two one-way rings per queue" :
				 "the duplex ring stamped by position",
				 FIPCBLK_PROTOCOL_DUPLEX);
		return -EPROTONOSUPPORT;
	}
	if (xfb_read_fe_uint(be, "multi-queue-num-queues", 1,
			     xfb_queues_offered(be), 1, nr) ||
	    xfb_read_fe_uint(be, "fipc-ring-order", 0,
			     min_t(u32, xfb_max_ring_order, FIPC_MAX_ORDER), 0,
			     order))
		return -EINVAL;
	*memshare = false;
	path = xenbus_read(XBT_NIL, fe, "fipc-data-path", NULL);
	if (IS_ERR(path))
		return 0;	/* grant is the default */
	ok = !strcmp(path, "grant");
	if (!strcmp(path, "memshare") && be->ms_offered)
		ok = *memshare = true;
	if (!ok)
		xenbus_dev_error(dev, -EOPNOTSUPP,
				 "data path \"%s\" not offered", path);
	kfree(path);
	return ok ? 0 : -EOPNOTSUPP;
}

/*
 * The toolstack's fipc-weight (our own directory, which the guest cannot
 * write), read at each connect: absent keeps the current weight; a bad
 * value is logged and ignored.
 */
static void xfb_read_weight(struct xfb_be *be)
{
	char *s;
	u32 w;

	s = xenbus_read(XBT_NIL, be->dev->nodename, "fipc-weight", NULL);
	if (IS_ERR(s))
		return;
	if (xfb_parse_uint(s, 1, FIPC_POLL_WEIGHT_MAX, &w))
		dev_warn(&be->dev->dev, "ignoring fipc-weight \"%*pE\" (want 1 to %u)\n",
			 (int)min_t(size_t, strlen(s), 24), s,
			 FIPC_POLL_WEIGHT_MAX);
	else
		be->weight = w;
	kfree(s);
}

/**
 * xfb_connect() - start connecting to a frontend that is Initialised
 * @be: the device, be->mutex held (xenwatch, or the end of a drain)
 * @fe: the frontend's state
 *
 * Only decides: the mapping is done by connect_work.
 */
void xfb_connect(struct xfb_be *be, enum xenbus_state fe)
{
	struct xenbus_device *dev = be->dev;
	unsigned long delay;

	if (be->chans || be->connecting || dev->state != XenbusStateInitWait)
		return;
	/*
	 * A frontend already Connected is connected to a backend before us
	 * (this device was bound again, or the module reloaded, while the
	 * guest did not look: paused, or its xenwatch thread busy).  Its
	 * rings are in use and we would start reading them at slot 0, past
	 * requests the old backend took and never answered.  Have it close
	 * and set up new ones; it puts those requests back.
	 */
	if (fe == XenbusStateConnected) {
		dev_warn(&dev->dev, "frontend still connected to an earlier backend: asking it to reconnect\n");
		xenbus_switch_state(dev, XenbusStateClosing);
		return;
	}
	if (!be->bdev)
		xfb_open_from_params(be);
	if (!be->bdev)
		return;	/* physical-device will call us again */
	delay = xfb_guest_connect_delay(be->guest);
	if (delay)
		dev_info_ratelimited(&dev->dev, "connecting in %u ms: the guest's last connect or disconnect took as long\n",
				     jiffies_to_msecs(delay));
	xfb_be_set_busy(be, &be->connecting, true);
	queue_delayed_work(xfb_wq, &be->connect_work, delay);
}

/*
 * Under be->mutex: is the connect still wanted, and with what?  Sets up
 * the device's limits for the mapping.  0 if it is to be mapped.
 */
static int xfb_connect_prepare(struct xfb_be *be, u32 *nr, u32 *order,
			       bool *memshare)
{
	int err;

	if (be->removing || be->chans ||
	    be->dev->state != XenbusStateInitWait ||
	    xenbus_read_driver_state(be->dev, be->dev->otherend) !=
	    XenbusStateInitialised)
		return -EAGAIN;
	err = xfb_read_choices(be, nr, order, memshare);
	if (err)
		return err;
	be->lim.memshare = *memshare;
	be->lim.staging = *memshare || be->gs_offered;
	xfb_read_weight(be);
	return xfb_throttle_read(be);
}

/* be->mutex not held: nothing of a connect left mapped. */
static void xfb_connect_undo(struct xfb_be *be)
{
	xfb_chans_free(be);
	xfb_memshare_unmap(be);
	mutex_lock(&be->mutex);
	be->lim.memshare = false;
	be->lim.staging = false;
	mutex_unlock(&be->mutex);
}

/*
 * Under be->mutex, channels mapped: serve them and say so.  Returns 0,
 * or an errno with the channels stopped (to be undone).
 */
static int xfb_connect_finish(struct xfb_be *be, unsigned long t0)
{
	struct xenbus_device *dev = be->dev;
	int err;

	xfb_chans_start(be);
	err = xfb_vbd_write_info(be);
	if (err) {
		xfb_chans_stop(be);
		return err;
	}
	xenbus_switch_state(dev, XenbusStateConnected);
	schedule_delayed_work(&be->resize_work, HZ);
	dev_info(&dev->dev, "connected: %u queue(s), ring order %u, %s data path, weight %u, in %u ms\n",
		 be->nr_chans,
		 be->ring_order, be->ms ? "memshare" : "grant", be->weight,
		 jiffies_to_msecs(jiffies - t0));
	return 0;
}

/**
 * xfb_connect_run() - connect_work's mapping: Connected, or all undone
 * @be: the device, be->mutex not held
 * @t0: when the work began
 * @changes: set to xfb_fe_changes() of the moment it began
 *
 * The caller (connect_work, back_xenbus.c) then follows the frontend's
 * state of that moment.
 *
 * Return: false if no connect was wanted any more (the work was queued
 * again while it ran): nothing done, nothing to follow.
 */
bool xfb_connect_run(struct xfb_be *be, unsigned long t0,
		     unsigned int *changes)
{
	struct xenbus_device *dev = be->dev;
	enum xenbus_state fe;
	bool memshare, started, moved;
	u32 nr, order;
	int err;

	mutex_lock(&be->mutex);
	if (!be->connecting) {
		/* Queued again while it ran (xfb_follow_frontend()): done. */
		mutex_unlock(&be->mutex);
		return false;
	}
	*changes = xfb_fe_changes(be);
	err = xfb_connect_prepare(be, &nr, &order, &memshare);
	mutex_unlock(&be->mutex);
	/*
	 * The guest's memory first: the pollers only ever read be->ms.  If
	 * it cannot be mapped, close: the frontend comes back on grant.
	 */
	if (!err && memshare) {
		err = xfb_memshare_map(be);
		if (err && err != -ESHUTDOWN)
			xenbus_switch_state(dev, XenbusStateClosing);
	}
	if (!err && READ_ONCE(be->removing))
		err = -ESHUTDOWN;
	if (!err) {
		err = xfb_chans_map(be, nr, order);
		if (err)
			xenbus_dev_error(dev, err, "connecting %u channels", nr);
	}

	mutex_lock(&be->mutex);
	fe = xenbus_read_driver_state(dev, dev->otherend);
	moved = xfb_fe_changes(be) != *changes;
	if (!err && (be->removing || moved || fe != XenbusStateInitialised))
		err = -EAGAIN;	/* not wanted any more, or not as mapped */
	started = !err;
	if (started)
		err = xfb_connect_finish(be, t0);
	mutex_unlock(&be->mutex);
	if (err) {
		/* Started, then stopped: requests taken meanwhile end first. */
		if (started)
			xfb_chans_drain(be);
		xfb_connect_undo(be);
	}
	return true;
}

/**
 * xfb_connect_cancel() - wait until no connect is under way or queued
 * @be: the device, being removed (be->removing set), be->mutex not held
 *
 * A mapping of the guest's memory under way stops at its next batch.
 */
void xfb_connect_cancel(struct xfb_be *be)
{
	cancel_delayed_work_sync(&be->connect_work);
	mutex_lock(&be->mutex);
	xfb_be_set_busy(be, &be->connecting, false);
	mutex_unlock(&be->mutex);
}
