// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: xenbus driver and connection state machine.
 *
 *   backend InitWait   -> negotiate, grant channels, we go Initialised
 *   backend Connected  -> read the geometry, create or update the disk,
 *                         restart the queues, we go Connected
 *   backend Closing    -> stop the queues (still taking responses), we
 *                         go Closing
 *   backend Closed     -> the backend has let go of every page: put the
 *                         requests it never answered back on the queue,
 *                         free the channels, we go Closed; a backend that
 *                         comes back (InitWait) gets them again
 *
 * The disk survives a backend reload, a protocol error and a save/restore
 * or migration of the guest (xff_resume()); it goes away only when our
 * xenbus device is removed (detach, module unload).
 */
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <xen/xenbus.h>
#include "front.h"

static void xff_stop_queue(struct xff_info *info)
{
	if (info->disk && !info->quiesced) {
		blk_mq_quiesce_queue(info->disk->queue);
		info->quiesced = true;
	}
}

static void xff_start_queue(struct xff_info *info)
{
	if (info->disk && info->quiesced) {
		info->quiesced = false;
		blk_mq_unquiesce_queue(info->disk->queue);
		blk_mq_kick_requeue_list(info->disk->queue);
	}
}

/*
 * Stop sending on a link that is up or being set up (XFF_CLOSING): the
 * close that follows puts back what is in flight.  False if it was
 * neither.
 */
static bool xff_link_close(struct xff_info *info)
{
	if (info->link != XFF_UP && info->link != XFF_SETUP)
		return false;
	xff_stop_queue(info);
	info->link = XFF_CLOSING;
	return true;
}

static void xff_unwatch(struct xff_info *info)
{
	if (!info->watching)
		return;
	unregister_xenbus_watch(&info->sectors_watch);
	kfree(info->sectors_watch.node);
	info->sectors_watch.node = NULL;
	info->watching = false;
}

/* Does a space-separated list contain a word? */
static bool xff_list_has(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *s = list;

	while ((s = strstr(s, word))) {
		if ((s == list || s[-1] == ' ') && (!s[n] || s[n] == ' '))
			return true;
		s += n;
	}
	return false;
}

static int xff_pick_version(struct xff_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	char *vers;
	int version;

	vers = xenbus_read(XBT_NIL, dev->otherend, "fipc-protocol-versions",
			   NULL);
	if (IS_ERR(vers))
		return PTR_ERR(vers);
	/* The duplex ring only: version 1 (two one-way rings) is retired. */
	if (xff_list_has(vers, __stringify(FIPCBLK_PROTOCOL_DUPLEX)))
		version = FIPCBLK_PROTOCOL_DUPLEX;
	else
		version = -EPROTONOSUPPORT;
	if (version < 0)
		dev_err(&dev->dev, "backend offers protocol versions \"%s\", we speak only %u\n",
			vers, FIPCBLK_PROTOCOL_DUPLEX);
	kfree(vers);
	return version;
}

static bool xff_path_offered(struct xff_info *info, const char *path)
{
	char *paths;
	bool ok;

	paths = xenbus_read(XBT_NIL, info->xbdev->otherend, "fipc-data-paths",
			    NULL);
	if (IS_ERR(paths))
		return false;
	ok = xff_list_has(paths, path);
	kfree(paths);
	return ok;
}

/*
 * Memshare only with the toolstack's consent in our own directory
 * (fipc-memshare = 1), the backend's offer and our memshare parameter;
 * otherwise, or if the memory cannot be shared, the grant path.
 */
static void xff_pick_data_path(struct xff_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	int err;

	if (!xenbus_read_unsigned(dev->nodename, "fipc-memshare", 0))
		return;
	if (info->bounce) {
		dev_info(&dev->dev, "memshare: refused, the backend is not trusted; using the grant data path\n");
		return;
	}
	if (info->ms_refused) {
		dev_info(&dev->dev, "memshare: the backend failed to connect on it, using the grant data path\n");
		return;
	}
	/* sysfs_streq: a value written to sysfs ends in a newline. */
	if (sysfs_streq(xff_memshare_mode, "off")) {
		dev_info(&dev->dev, "memshare: off (module parameter), using the grant data path\n");
		return;
	}
	if (!xff_path_offered(info, "memshare")) {
		dev_info(&dev->dev, "memshare: not offered by the backend, using the grant data path\n");
		return;
	}
	err = xff_memshare_setup(info);
	if (err)
		dev_warn(&dev->dev, "memshare: cannot share the guest's memory (%d), using the grant data path\n",
			 err);
}

/* Negotiate with a backend in InitWait and hand it our channels. */
static void xff_talk_to_backend(struct xff_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	unsigned int nr, order, max_queues, max_order;
	u32 max_bytes, ours;
	int version, err;

	version = xff_pick_version(info);
	if (version < 0) {
		xenbus_dev_error(dev, version, "no common fipc protocol version");
		xenbus_switch_state(dev, XenbusStateClosed);
		return;
	}
	if (!xff_path_offered(info, "grant")) {
		xenbus_dev_fatal(dev, -EOPNOTSUPP,
				 "backend does not offer the grant data path");
		return;
	}
	max_queues = xenbus_read_unsigned(dev->otherend,
					  "multi-queue-max-queues", 1);
	max_order = xenbus_read_unsigned(dev->otherend,
					 "fipc-max-ring-order", 0);
	max_bytes = xenbus_read_unsigned(dev->otherend,
					 "fipc-max-request-bytes", 0);

	if (info->disk)
		nr = info->tag_set.nr_hw_queues;
	else
		nr = min(xff_max_queues, num_online_cpus());
	nr = clamp(min(nr, max_queues), 1u, 256u);
	order = min3(xff_ring_order, max_order, FIPC_MAX_ORDER);

	ours = min_t(u64, (u64)xff_max_request_kb * 1024,
		     FIPCBLK_MAX_REQUEST_BYTES);
	max_bytes = round_down(min(max_bytes, ours), FIPCBLK_PAGE_BYTES);
	if (!info->disk) {
		if (!max_bytes) {
			xenbus_dev_fatal(dev, -EINVAL,
					 "bad fipc-max-request-bytes");
			return;
		}
		info->max_req_bytes = max_bytes;
		/* An unaligned first page adds one reference. */
		info->max_refs = max_bytes / FIPCBLK_PAGE_BYTES + 1;
		err = info->bounce ? xff_bounce_setup(info) : 0;
		if (err) {
			xenbus_dev_fatal(dev, err, "allocating bounce pages");
			return;
		}
	} else if (max_bytes < info->max_req_bytes) {
		xenbus_dev_fatal(dev, -EINVAL,
				 "backend now takes requests of %u bytes, the disk was set up for %u",
				 max_bytes, info->max_req_bytes);
		return;
	}

	/*
	 * Memory first: it takes most of the grant references; if they
	 * are short, its disk still has room for rings on the grant path.
	 */
	xff_pick_data_path(info);
	/*
	 * The grant path's staging pages: an untrusted backend keeps its
	 * bounce pages (no page of ours stays granted to it).
	 */
	info->grant_staging = !info->ms && !info->bounce &&
			      READ_ONCE(xff_grant_staging_pages) &&
			      xenbus_read_unsigned(dev->otherend,
						   "fipc-grant-staging", 0) == 1;
	err = xff_chans_setup(info, nr, order);
	if (err) {
		xff_memshare_teardown(info);
		xenbus_dev_fatal(dev, err, "setting up %u channels", nr);
		return;
	}
	err = xff_chans_publish(info, version);
	if (err) {
		xff_chans_teardown(info);
		xff_memshare_teardown(info);
		return;
	}
	info->link = XFF_SETUP;
	xenbus_switch_state(dev, XenbusStateInitialised);
}

static int xff_read_geometry(struct xff_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	const char *be = dev->otherend;
	unsigned long long sectors;
	unsigned int binfo, ssize;
	int err;

	err = xenbus_gather(XBT_NIL, be, "sectors", "%llu", &sectors,
			    "info", "%u", &binfo, NULL);
	if (err) {
		xenbus_dev_fatal(dev, err, "reading sectors and info");
		return err;
	}
	ssize = xenbus_read_unsigned(be, "sector-size", 512);
	if (ssize != 512 && ssize != 4096) {
		xenbus_dev_fatal(dev, -EINVAL, "unsupported sector-size %u",
				 ssize);
		return -EINVAL;
	}
	if (info->disk && ssize != info->sector_size) {
		xenbus_dev_fatal(dev, -EINVAL, "sector-size changed %u -> %u",
				 info->sector_size, ssize);
		return -EINVAL;
	}
	info->sectors = sectors;
	info->ro = binfo & 4;	/* VDISK_READONLY */
	info->sector_size = ssize;
	info->physical_sector_size =
		xenbus_read_unsigned(be, "physical-sector-size", ssize);
	if (info->physical_sector_size < ssize ||
	    !is_power_of_2(info->physical_sector_size))
		info->physical_sector_size = ssize;
	info->flush = xenbus_read_unsigned(be, "feature-flush-cache", 0);
	info->fua = info->flush &&
		    xenbus_read_unsigned(be, "feature-fua", 0);
	info->discard = xenbus_read_unsigned(be, "feature-discard", 0);
	info->discard_granularity =
		xenbus_read_unsigned(be, "discard-granularity", 0);
	info->discard_alignment =
		xenbus_read_unsigned(be, "discard-alignment", 0);
	info->secure = info->discard &&
		       xenbus_read_unsigned(be, "discard-secure", 0);
	if (info->discard_granularity &&
	    !is_power_of_2(info->discard_granularity))
		info->discard_granularity = 0;
	return 0;
}

static void xff_sectors_changed(struct xenbus_watch *watch,
				const char *path, const char *token)
{
	struct xff_info *info = container_of(watch, struct xff_info,
					     sectors_watch);
	unsigned long long sectors;

	mutex_lock(&info->mutex);
	if (info->link == XFF_UP && info->disk &&
	    xenbus_scanf(XBT_NIL, info->xbdev->otherend, "sectors", "%llu",
			 &sectors) == 1 && sectors != info->sectors) {
		info->sectors = sectors;
		xff_disk_update(info);
	}
	mutex_unlock(&info->mutex);
}

static void xff_connect(struct xff_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	bool add = false;
	int err;

	if (xff_read_geometry(info))
		return;
	info->link = XFF_UP;
	/*
	 * A refusal of memshare holds for this connection only: the next
	 * one tries it again (the backend's limits may have changed).
	 */
	info->ms_refused = false;
	if (!info->disk) {
		err = xff_disk_alloc(info);
		add = !err;
		if (err) {
			info->link = XFF_SETUP;
			xenbus_dev_fatal(dev, err, "creating the disk");
			return;
		}
		dev_info(&dev->dev, "%s: %llu sectors of %u bytes, %u queue(s), ring order %u, %s data path%s%s%s%s\n",
			 info->disk->disk_name, info->sectors,
			 info->sector_size, info->nr_chans, info->ring_order,
			 info->ms ? "memshare" : "grant",
			 info->bounce ? " (untrusted: bounce pages)" :
			 info->grant_staging ? " (staging pages)" : "",
			 info->ro ? ", read-only" : "",
			 info->flush ? ", flush" : "",
			 info->discard ? ", discard" : "");
	} else {
		xff_disk_update(info);
		xff_start_queue(info);
		dev_info(&dev->dev, "%s: reconnected, %u queue(s), %s data path%s\n",
			 info->disk->disk_name, info->nr_chans,
			 info->ms ? "memshare" : "grant",
			 info->grant_staging ? " (staging pages)" : "");
	}
	if (!info->watching &&
	    !xenbus_watch_pathfmt(dev, &info->sectors_watch, NULL,
				  xff_sectors_changed, "%s/sectors",
				  dev->otherend))
		info->watching = true;
	xenbus_switch_state(dev, XenbusStateConnected);
	/* Its partition scan must not hold up the xenwatch thread. */
	if (add)
		queue_work(system_long_wq, &info->add_work);
}

/* The backend has let go of our pages: take the channels back. */
static void xff_backend_gone(struct xff_info *info)
{
	if (!info->chans)
		return;
	xff_stop_queue(info);
	info->link = XFF_DOWN;
	xff_chans_quiesce(info);
	xff_requeue_inflight(info);
	xff_chans_teardown(info);
	xff_memshare_teardown(info);
}

static void xff_backend_changed(struct xenbus_device *dev,
				enum xenbus_state state)
{
	struct xff_info *info = dev_get_drvdata(&dev->dev);

	dev_dbg(&dev->dev, "backend %s, we are %s\n", xenbus_strstate(state),
		xenbus_strstate(dev->state));
	if (state == XenbusStateUnknown || state == XenbusStateClosed ||
	    state == XenbusStateInitWait)
		xff_unwatch(info);

	mutex_lock(&info->mutex);
	switch (state) {
	case XenbusStateInitWait:
		if (dev->state == XenbusStateInitialising ||
		    dev->state == XenbusStateClosed) {
			/* A backend that (re)starts holds nothing of ours. */
			xff_backend_gone(info);
			xff_talk_to_backend(info);
		} else if (dev->state != XenbusStateClosing) {
			/*
			 * A new backend, and we missed the old one's Closed:
			 * it may be mapping the rings we published.  Close;
			 * its Closed then ends them and we start again.
			 */
			dev_warn(&dev->dev, "backend restarted while we were %s: closing to reconnect\n",
				 xenbus_strstate(dev->state));
			xff_link_close(info);
			xenbus_switch_state(dev, XenbusStateClosing);
		}
		break;
	case XenbusStateConnected:
		if (dev->state == XenbusStateInitialised)
			xff_connect(info);
		break;
	case XenbusStateClosing:
		if (info->link == XFF_SETUP && info->ms) {
			/* It could not take our memory: grant next time. */
			dev_warn(&dev->dev, "memshare: the backend closed while connecting; the grant data path for the next connection\n");
			info->ms_refused = true;
		}
		xff_link_close(info);
		if (dev->state != XenbusStateClosed)
			xenbus_switch_state(dev, XenbusStateClosing);
		break;
	case XenbusStateClosed:
	case XenbusStateUnknown:
		xff_backend_gone(info);
		xenbus_switch_state(dev, XenbusStateClosed);
		break;
	default:
		break;
	}
	mutex_unlock(&info->mutex);
}

/*
 * The guest was restored from a save or migrated (or its suspend was
 * undone): the backend we were connected to is gone with everything it
 * had mapped, our grants and event channels are void, and the toolstack
 * has made our xenstore directory anew.  Take the channels back now, so
 * that nothing more is sent on them, and put what they had in flight
 * back on the queue: the new backend's InitWait connects us again
 * (queues, ring order and data path negotiated anew) and the requests
 * go out once more, each once.  Runs in the xenwatch thread, which
 * delivers no watch event until every device is resumed, and before the
 * pollers, frozen since before the suspend, run again: none of them
 * took a response from rings whose copy may be older than the pages its
 * data is in.  A suspend that was undone (a failed migration) has no
 * resume: the pollers thaw and go on with the rings they had.
 */
static int xff_resume(struct xenbus_device *dev)
{
	struct xff_info *info = dev_get_drvdata(&dev->dev);
	u64 before;

	xff_unwatch(info);
	mutex_lock(&info->mutex);
	before = info->retired[XFF_REQUEUED];
	xff_backend_gone(info);
	info->link = XFF_DOWN;
	/* A new backend may take our memory where the old one could not. */
	info->ms_refused = false;
	info->resumes++;
	dev_info(&dev->dev, "resumed (restore or migration): %llu request(s) in flight put back, waiting for the backend\n",
		 info->retired[XFF_REQUEUED] - before);
	mutex_unlock(&info->mutex);
	return 0;
}

static void xff_error_work(struct work_struct *work)
{
	struct xff_info *info = container_of(work, struct xff_info,
					     error_work);
	struct xenbus_device *dev = info->xbdev;

	mutex_lock(&info->mutex);
	if (xff_link_close(info)) {
		xenbus_dev_error(dev, -EPROTO, "backend broke the protocol");
		xenbus_switch_state(dev, XenbusStateClosing);
	}
	mutex_unlock(&info->mutex);
}

static int xff_probe(struct xenbus_device *dev,
		     const struct xenbus_device_id *id)
{
	struct xff_info *info;
	unsigned int vdevice, index;
	int err;

	err = xenbus_scanf(XBT_NIL, dev->nodename, "virtual-device", "%u",
			   &vdevice);
	if (err != 1) {
		xenbus_dev_fatal(dev, -ENOENT, "reading virtual-device");
		return -ENOENT;
	}
	if (xff_index_check(vdevice, &index)) {
		xenbus_dev_fatal(dev, -EINVAL,
				 "virtual-device %u is not a whole xvd disk",
				 vdevice);
		return -EINVAL;
	}
	info = kzalloc_obj(*info, GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	info->xbdev = dev;
	info->vdevice = vdevice;
	info->index = index;
	/* As blkfront: the toolstack's word, or ours for every disk. */
	info->bounce = !READ_ONCE(xff_trusted) ||
		       !xenbus_read_unsigned(dev->nodename, "trusted", 1);
	mutex_init(&info->mutex);
	xff_stats_init(info);
	INIT_WORK(&info->error_work, xff_error_work);
	INIT_WORK(&info->add_work, xff_disk_add_work);
	xff_stuck_init(info);
	dev_set_drvdata(&dev->dev, info);
	xff_debugfs_add(info);
	return 0;
}

/*
 * Ask the backend to let go, and wait a while for it.  A backend still in
 * InitWait may be mapping what we published (it maps off its xenwatch
 * thread): wait for it too, until it answers our Closing with Closed.
 */
static void xff_close_and_wait(struct xff_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	enum xenbus_state state;
	int i;

	xenbus_switch_state(dev, XenbusStateClosing);
	for (i = 0; i < 250; i++) {
		state = xenbus_read_driver_state(dev, dev->otherend);
		if (state != XenbusStateConnected &&
		    state != XenbusStateClosing &&
		    state != XenbusStateInitWait)
			return;
		msleep(20);
	}
	dev_warn(&dev->dev, "backend did not close in time; pages it still maps are leaked\n");
}

static void xff_remove(struct xenbus_device *dev)
{
	struct xff_info *info = dev_get_drvdata(&dev->dev);

	/* Requests the backend keeps mapped must not hold up del_gendisk(). */
	xff_stuck_force(info);
	xff_unwatch(info);
	xff_debugfs_remove(info);

	mutex_lock(&info->mutex);
	if (info->link != XFF_UP) {
		/* Nobody will answer the waiting requests: fail them. */
		WRITE_ONCE(info->removing, true);
		if (info->chans && info->link != XFF_DOWN)
			xff_close_and_wait(info);
		xff_backend_gone(info);
		xff_start_queue(info);
	}
	mutex_unlock(&info->mutex);
	/*
	 * A partition scan still under way ends: connected, its reads are
	 * answered; else they were just failed.  The work takes the mutex.
	 */
	flush_work(&info->add_work);
	mutex_lock(&info->mutex);
	/* Connected: whatever is in flight completes normally. */
	if (info->disk_added)
		del_gendisk(info->disk);
	WRITE_ONCE(info->removing, true);
	if (info->chans) {
		xff_close_and_wait(info);
		xff_backend_gone(info);
	}
	xff_disk_destroy(info);
	mutex_unlock(&info->mutex);
	/*
	 * Only now: until the channels were detached from the pollers (in
	 * xff_backend_gone()) a bad response could schedule error_work
	 * again.  Nothing can now, and the work takes info->mutex, which we
	 * no longer hold.
	 */
	cancel_work_sync(&info->error_work);
	xff_stuck_exit(info);
	xff_bounce_teardown(info);
	dev_set_drvdata(&dev->dev, NULL);
	kfree(info);
}

static const struct xenbus_device_id xff_ids[] = {
	{ "fipcblk" },
	{ "" }
};

static struct xenbus_driver xff_driver = {
	.ids = xff_ids,
	.probe = xff_probe,
	.remove = xff_remove,
	.otherend_changed = xff_backend_changed,
	.resume = xff_resume,
	.not_essential = true,
};

/**
 * xff_xenbus_register() - register the frontend driver
 *
 * Return: 0 or a negative errno.
 */
int xff_xenbus_register(void)
{
	xff_sysfs_init();
	xff_driver.driver.dev_groups = xff_groups;
	return xenbus_register_frontend(&xff_driver);
}

/**
 * xff_xenbus_unregister() - remove every disk and unregister
 */
void xff_xenbus_unregister(void)
{
	xenbus_unregister_driver(&xff_driver);
}
