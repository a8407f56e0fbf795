/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The out-of-tree build's compatibility layer: the kernel's <linux/blk-mq.h>
 * first, then what mainline has and this kernel lacks, from the compile
 * probes' results (see linux/compat/README).
 */
#include_next <linux/blk-mq.h>

#ifndef _FIPC_KCOMPAT_BLK_MQ_H
#define _FIPC_KCOMPAT_BLK_MQ_H

#include "fipc_kcompat_probes.h"

#ifndef FIPC_HAVE_ALLOC_DISK_LIMITS
/*
 * 6.9: a disk is allocated with its queue limits.  Before, they are set
 * one by one on the new queue: the fields fipc's frontend fills.
 */
static inline struct gendisk *
fipc_compat_alloc_disk(struct blk_mq_tag_set *set,
		       const struct queue_limits *lim, void *queuedata,
		       struct lock_class_key *lkclass)
{
	struct gendisk *disk = __blk_mq_alloc_disk(set, queuedata, lkclass);
	struct request_queue *q;

	if (IS_ERR(disk) || !lim)
		return disk;
	q = disk->queue;
	blk_queue_logical_block_size(q, lim->logical_block_size);
	blk_queue_physical_block_size(q, lim->physical_block_size);
	blk_queue_max_hw_sectors(q, lim->max_hw_sectors);
	blk_queue_max_segments(q, lim->max_segments);
	blk_queue_virt_boundary(q, lim->virt_boundary_mask);
	blk_queue_dma_alignment(q, lim->dma_alignment);
	if (lim->max_hw_discard_sectors) {
		blk_queue_max_discard_sectors(q, lim->max_hw_discard_sectors);
		q->limits.discard_granularity = lim->discard_granularity;
		q->limits.discard_alignment = lim->discard_alignment;
	}
	if (lim->max_secure_erase_sectors)
		blk_queue_max_secure_erase_sectors(q,
						   lim->max_secure_erase_sectors);
	return disk;
}

#undef blk_mq_alloc_disk
#define blk_mq_alloc_disk(set, lim, queuedata)				\
({									\
	static struct lock_class_key __fipc_key;			\
									\
	fipc_compat_alloc_disk(set, lim, queuedata, &__fipc_key);	\
})
#endif

#endif /* _FIPC_KCOMPAT_BLK_MQ_H */
