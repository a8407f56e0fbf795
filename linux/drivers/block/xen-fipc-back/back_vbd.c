// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: the physical block device behind a fipc disk.
 *
 * Opened from physical-device (major:minor in hex, written by the
 * hotplug script or by hand) or, failing that, from the path in params.
 * Its geometry and features are what the frontend is told and what each
 * request is validated against.  A periodic check follows resizes (the
 * new size goes to "sectors", which the frontend watches) and trims the
 * channels' caches of grant-mapping pages.
 */
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <xen/xenbus.h>
#include "back.h"

#define XFB_VDISK_READONLY	4	/* blkif's VDISK_READONLY bit */

/**
 * xfb_vbd_open() - open the device and record its limits
 * @be: the backend device
 * @devt: the block device number
 *
 * Return: 0 or a negative errno (reported in xenstore).
 */
int xfb_vbd_open(struct xfb_be *be, dev_t devt)
{
	struct xenbus_device *dev = be->dev;
	struct block_device *bdev;
	struct file *bdev_file;
	struct xfb_limits *lim = &be->lim;
	blk_mode_t mode = BLK_OPEN_READ;
	char *access;
	u32 max;

	access = xenbus_read(XBT_NIL, dev->nodename, "mode", NULL);
	if (!IS_ERR(access)) {
		if (strchr(access, 'w'))
			mode |= BLK_OPEN_WRITE;
		kfree(access);
	}
	/* Not exclusive (no holder), as blkback opens its devices. */
	bdev_file = bdev_file_open_by_dev(devt, mode, NULL, NULL);
	if (IS_ERR(bdev_file)) {
		xenbus_dev_fatal(dev, PTR_ERR(bdev_file), "opening device %u:%u",
				 MAJOR(devt), MINOR(devt));
		return PTR_ERR(bdev_file);
	}
	bdev = file_bdev(bdev_file);
	lim->lbs = bdev_logical_block_size(bdev);
	if (lim->lbs != 512 && lim->lbs != 4096) {
		xenbus_dev_fatal(dev, -EINVAL,
				 "logical block size %u is not 512 or 4096",
				 lim->lbs);
		bdev_fput(bdev_file);
		return -EINVAL;
	}
	be->bdev_file = bdev_file;
	be->bdev = bdev;
	/* Else every request is submitted by a worker (back_nowait.c). */
	be->nowait = bdev_nowait(bdev);
	if (!be->nowait)
		dev_info(&dev->dev,
			 "device %u:%u does not take REQ_NOWAIT: its requests are submitted from a worker\n",
			 MAJOR(devt), MINOR(devt));
	be->devt = devt;
	lim->sectors = bdev_nr_sectors(bdev);
	lim->ro = !(mode & BLK_OPEN_WRITE) || bdev_read_only(bdev);
	max = clamp(xfb_max_request_bytes, FIPCBLK_PAGE_BYTES,
		    FIPCBLK_MAX_REQUEST_BYTES);
	lim->max_bytes = round_down(max, FIPCBLK_PAGE_BYTES);
	lim->discard = bdev_max_discard_sectors(bdev) > 0;
	lim->secure = lim->discard && bdev_max_secure_erase_sectors(bdev) > 0;
	be->pbs = bdev_physical_block_size(bdev);
	be->discard_granularity = bdev_discard_granularity(bdev);
	be->discard_alignment = bdev_discard_alignment(bdev);
	/* An unaligned first page adds one reference. */
	be->max_refs = lim->max_bytes / FIPCBLK_PAGE_BYTES + 1;
	dev_info(&dev->dev, "device %u:%u, %llu sectors of %u bytes%s%s\n",
		 MAJOR(devt), MINOR(devt), lim->sectors, lim->lbs,
		 lim->ro ? ", read-only" : "",
		 lim->discard ? ", discard" : "");
	return 0;
}

/**
 * xfb_vbd_close() - close the device
 * @be: the backend device, with no channel connected
 */
void xfb_vbd_close(struct xfb_be *be)
{
	if (!be->bdev)
		return;
	bdev_fput(be->bdev_file);
	be->bdev_file = NULL;
	be->bdev = NULL;
}

/**
 * xfb_vbd_write_info() - tell the frontend about the device
 * @be: the backend device, with its device open
 *
 * Flush and FUA are always offered: the block layer turns them into
 * nothing on a device without a volatile cache.
 *
 * Return: 0 or a negative errno (reported in xenstore).
 */
int xfb_vbd_write_info(struct xfb_be *be)
{
	struct xenbus_device *dev = be->dev;
	const char *node = dev->nodename;
	struct xenbus_transaction xbt;
	int err;

again:
	err = xenbus_transaction_start(&xbt);
	if (err) {
		xenbus_dev_fatal(dev, err, "starting transaction");
		return err;
	}
	err = xenbus_printf(xbt, node, "sectors", "%llu", be->lim.sectors) ?:
	      xenbus_printf(xbt, node, "info", "%u",
			    be->lim.ro ? XFB_VDISK_READONLY : 0) ?:
	      xenbus_printf(xbt, node, "sector-size", "%u", be->lim.lbs) ?:
	      xenbus_printf(xbt, node, "physical-sector-size", "%u",
			    be->pbs) ?:
	      xenbus_printf(xbt, node, "feature-flush-cache", "%d", 1) ?:
	      xenbus_printf(xbt, node, "feature-fua", "%d", 1) ?:
	      xenbus_printf(xbt, node, "feature-discard", "%d",
			    be->lim.discard) ?:
	      xenbus_printf(xbt, node, "discard-granularity", "%u",
			    be->discard_granularity) ?:
	      xenbus_printf(xbt, node, "discard-alignment", "%u",
			    be->discard_alignment) ?:
	      xenbus_printf(xbt, node, "discard-secure", "%d",
			    be->lim.secure);
	if (err) {
		xenbus_transaction_end(xbt, 1);
		xenbus_dev_fatal(dev, err, "writing the device's features");
		return err;
	}
	err = xenbus_transaction_end(xbt, 0);
	if (err == -EAGAIN)
		goto again;
	if (err)
		xenbus_dev_fatal(dev, err, "ending transaction");
	return err;
}

/**
 * xfb_vbd_resize_work() - follow the device's size, trim page caches
 * @work: the backend device's resize_work
 *
 * Runs every second while connected.
 */
void xfb_vbd_resize_work(struct work_struct *work)
{
	struct xfb_be *be = container_of(to_delayed_work(work), struct xfb_be,
					 resize_work);
	unsigned int i;
	u64 sectors;

	if (!mutex_trylock(&be->mutex))
		goto again;
	if (!be->chans || !be->bdev) {
		mutex_unlock(&be->mutex);
		return;
	}
	sectors = bdev_nr_sectors(be->bdev);
	if (sectors != be->lim.sectors) {
		dev_info(&be->dev->dev, "device size %llu -> %llu sectors\n",
			 be->lim.sectors, sectors);
		WRITE_ONCE(be->lim.sectors, sectors);
		if (xenbus_printf(XBT_NIL, be->dev->nodename, "sectors",
				  "%llu", sectors))
			dev_warn(&be->dev->dev, "cannot write the new size\n");
	}
	/* Never below a largest request: the poller needs those pages. */
	for (i = 0; i < be->nr_chans; i++)
		gnttab_page_cache_shrink(&be->chans[i].page_cache,
					 max(xfb_max_buffer_pages,
					     be->max_refs));
	mutex_unlock(&be->mutex);
again:
	schedule_delayed_work(&be->resize_work, HZ);
}

/*
 * No physical-device yet.  With a hotplug script (the toolstack writes
 * "script" for every disk) wait for it: connecting before it ran lets the
 * frontend of a running guest reach Connected while the toolstack (xl
 * devd in a driver domain) still waits for InitWait, and it then tears
 * the device down.  Without a script (disks made by hand) open the path
 * in params.
 */
void xfb_open_from_params(struct xfb_be *be)
{
	char *params, *path;
	dev_t devt;

	path = xenbus_read(XBT_NIL, be->dev->nodename, "script", NULL);
	if (!IS_ERR(path)) {
		kfree(path);
		return;
	}
	params = xenbus_read(XBT_NIL, be->dev->nodename, "params", NULL);
	if (IS_ERR(params))
		return;
	path = params[0] == '/' ? kstrdup(params, GFP_KERNEL) :
				  kasprintf(GFP_KERNEL, "/dev/%s", params);
	if (path && !lookup_bdev(path, &devt))
		xfb_vbd_open(be, devt);
	kfree(path);
	kfree(params);
}
