// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: the gendisk and its queue.
 *
 * Disks are named from their virtual-device number like blkfront's
 * (51728 = xvdb, extended numbers too), but live under a block major
 * of their own, allocated dynamically at load ("xvd-fipc" in
 * /proc/devices), with 16 minors per disk: first minor = 16 * index.
 */
#include <linux/blkdev.h>
#include <linux/idr.h>
#include <linux/module.h>
#include "front.h"

int xff_major;
static DEFINE_IDA(xff_index_ida);

#define XFF_MINORS		16
#define XFF_MAX_INDEX		((MINORMASK + 1) / XFF_MINORS)

static const struct block_device_operations xff_fops = {
	.owner = THIS_MODULE,
};

/**
 * xff_major_register() - allocate our block major
 *
 * Return: 0 or a negative errno.
 */
int xff_major_register(void)
{
	int major = register_blkdev(0, "xvd-fipc");

	if (major < 0)
		return major;
	xff_major = major;
	return 0;
}

/**
 * xff_major_unregister() - release our block major
 */
void xff_major_unregister(void)
{
	unregister_blkdev(xff_major, "xvd-fipc");
}

/* "xvd" followed by the disk index in base 26 letters: a..z, aa.. */
static void xff_disk_name(char *name, unsigned int index)
{
	char letters[8];
	int n = sizeof(letters) - 1;

	letters[n] = '\0';
	index++;
	while (index && n > 0) {
		index--;
		letters[--n] = 'a' + index % 26;
		index /= 26;
	}
	snprintf(name, DISK_NAME_LEN, "xvd%s", &letters[n]);
}

/* The queue's limits, from the backend's geometry and features. */
static void xff_fill_limits(struct xff_info *info, struct queue_limits *lim)
{
	unsigned int lbs_sectors = info->sector_size >> SECTOR_SHIFT;

	lim->logical_block_size = info->sector_size;
	lim->physical_block_size = info->physical_sector_size;
	lim->max_hw_sectors = info->max_req_bytes >> SECTOR_SHIFT;
	lim->max_segments = info->max_refs;
	/* Only the first and last pages may be partial: PRP-like lists. */
	lim->virt_boundary_mask = FIPCBLK_PAGE_BYTES - 1;
	lim->dma_alignment = FIPCBLK_SECTOR_BYTES - 1;
#ifdef FIPC_HAVE_BLK_FEAT
	/* Rotational, as every new disk was before 6.11. */
	lim->features |= BLK_FEAT_ROTATIONAL;
	if (info->flush)
		lim->features |= BLK_FEAT_WRITE_CACHE;
	if (info->fua)
		lim->features |= BLK_FEAT_FUA;
#endif
	if (info->discard) {
		unsigned int max = round_down(U32_MAX >> SECTOR_SHIFT,
					      lbs_sectors);

		lim->max_hw_discard_sectors = max;
		lim->discard_granularity = max(info->discard_granularity,
					       info->sector_size);
		lim->discard_alignment = info->discard_alignment;
		if (info->secure)
			lim->max_secure_erase_sectors = max;
	}
}

/**
 * xff_disk_alloc() - create the tag set and gendisk
 * @info: the disk, connected, with its geometry read from the backend
 *
 * The disk is added later, by xff_disk_add_work().
 *
 * Return: 0 or a negative errno.
 */
int xff_disk_alloc(struct xff_info *info)
{
	struct blk_mq_tag_set *set = &info->tag_set;
	unsigned int slots = FIPC_RING_SLOTS(info->ring_order);
	struct queue_limits lim = {};
	struct gendisk *disk;
	int err, index;

	index = ida_alloc_range(&xff_index_ida, info->index, info->index,
				GFP_KERNEL);
	if (index < 0) {
		xenbus_dev_fatal(info->xbdev, index,
				 "disk index %u already in use", info->index);
		return index;
	}

	memset(set, 0, sizeof(*set));
	set->ops = &xff_mq_ops;
	set->nr_hw_queues = info->nr_chans;
	/* Every response fits the ring, with a slot to spare for tests. */
	set->queue_depth = clamp(xff_queue_depth, 1u, slots - 1);
	set->numa_node = NUMA_NO_NODE;
#ifdef FIPC_HAVE_MQ_SHOULD_MERGE
	/* Before 6.14 bios were merged only on request. */
	set->flags = BLK_MQ_F_SHOULD_MERGE;
#endif
	set->cmd_size = xff_rq_size(info);
	set->driver_data = info;
	err = blk_mq_alloc_tag_set(set);
	if (err)
		goto out_ida;

	xff_fill_limits(info, &lim);
	disk = blk_mq_alloc_disk(set, &lim, info);
	if (IS_ERR(disk)) {
		err = PTR_ERR(disk);
		goto out_set;
	}
	disk->major = xff_major;
	disk->first_minor = info->index * XFF_MINORS;
	disk->minors = XFF_MINORS;
	disk->fops = &xff_fops;
	disk->private_data = info;
	xff_disk_name(disk->disk_name, info->index);
#ifndef FIPC_HAVE_BLK_FEAT
	blk_queue_write_cache(disk->queue, info->flush, info->fua);
#endif
	set_capacity(disk, info->sectors);
	set_disk_ro(disk, info->ro);
	info->disk = disk;
	return 0;

out_set:
	blk_mq_free_tag_set(set);
out_ida:
	ida_free(&xff_index_ida, info->index);
	return err;
}

/**
 * xff_disk_add_work() - add the disk, from a worker
 * @work: the disk's add_work
 *
 * device_add_disk() reads the partition table through our queue and
 * waits for those reads.  In the xenwatch thread, as xff_connect() is,
 * that wait held up every xenstore event of the guest: a backend that
 * went away during the scan (unbound while its slow device had a read in
 * flight) was never seen to go, our requests were never put back, and
 * the disk hung for good.  From here, a backend that leaves and comes
 * back is followed as at any other time, and the scan's reads are sent
 * again on the new connection.
 */
void xff_disk_add_work(struct work_struct *work)
{
	struct xff_info *info = container_of(work, struct xff_info, add_work);
	int err;

	/* info->disk stays until xff_remove(), which flushes this work. */
	err = device_add_disk(&info->xbdev->dev, info->disk, NULL);
	mutex_lock(&info->mutex);
	if (err)
		xenbus_dev_error(info->xbdev, err, "adding disk %s",
				 info->disk->disk_name);
	else
		info->disk_added = true;
	mutex_unlock(&info->mutex);
}

/**
 * xff_disk_update() - apply the backend's capacity and mode again
 * @info: the disk, which exists
 */
void xff_disk_update(struct xff_info *info)
{
	if (get_capacity(info->disk) != info->sectors) {
		dev_info(&info->xbdev->dev, "%s: capacity %llu -> %llu sectors\n",
			 info->disk->disk_name, get_capacity(info->disk),
			 info->sectors);
		set_capacity_and_notify(info->disk, info->sectors);
	}
	set_disk_ro(info->disk, info->ro);
}

/**
 * xff_disk_destroy() - free the disk, its queue and tags
 * @info: the disk, deleted with del_gendisk() if it was added
 */
void xff_disk_destroy(struct xff_info *info)
{
	if (!info->disk)
		return;
	put_disk(info->disk);
	info->disk = NULL;
	blk_mq_free_tag_set(&info->tag_set);
	ida_free(&xff_index_ida, info->index);
}

/**
 * xff_index_check() - decode the disk index from a virtual-device number
 * @vdevice: the number
 * @index: the disk index
 *
 * Return: 0, or -EINVAL for partitions and non-xvd numbering.
 */
int xff_index_check(unsigned int vdevice, unsigned int *index)
{
	unsigned int minor;

	if (vdevice & BIT(28)) {
		minor = vdevice & ~BIT(28);
		if (minor & 0xff)
			return -EINVAL;
		*index = minor >> 8;
	} else {
		if ((vdevice >> 8) != 202)
			return -EINVAL;
		minor = vdevice & 0xff;
		if (minor & 0xf)
			return -EINVAL;
		*index = minor >> 4;
	}
	return *index < XFF_MAX_INDEX ? 0 : -EINVAL;
}
