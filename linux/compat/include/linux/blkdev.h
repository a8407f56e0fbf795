/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The out-of-tree build's compatibility layer: the kernel's <linux/blkdev.h>
 * first, then what mainline has and this kernel lacks, from the compile
 * probes' results (see linux/compat/README).
 */
#include_next <linux/blkdev.h>

#ifndef _FIPC_KCOMPAT_BLKDEV_H
#define _FIPC_KCOMPAT_BLKDEV_H

#include "fipc_kcompat_probes.h"

#ifndef FIPC_HAVE_BLK_MODE_T
/* 6.5: blk_mode_t and BLK_OPEN_* replace fmode_t for block devices. */
#define blk_mode_t	fmode_t
#define BLK_OPEN_READ	FMODE_READ
#define BLK_OPEN_WRITE	FMODE_WRITE
#endif

#ifndef FIPC_HAVE_BDEV_FILE_OPEN
/*
 * 6.9: an open block device is a struct file.  Before, it is its struct
 * block_device: the pointer stands for the file and is never used as one.
 */
struct blk_holder_ops;

static inline struct file *
fipc_compat_bdev_file_open_by_dev(dev_t devt, blk_mode_t mode, void *holder,
				  const struct blk_holder_ops *hops)
{
	struct block_device *bdev;

#ifdef FIPC_HAVE_BLKDEV_GET_HOPS
	bdev = blkdev_get_by_dev(devt, mode, holder, hops);
#else
	/* Exclusive only with FMODE_EXCL, which mode never has here. */
	bdev = blkdev_get_by_dev(devt, mode, holder);
#endif
	return IS_ERR(bdev) ? ERR_CAST(bdev) : (struct file *)bdev;
}

#define bdev_file_open_by_dev fipc_compat_bdev_file_open_by_dev

static inline struct block_device *file_bdev(struct file *bdev_file)
{
	return (struct block_device *)bdev_file;
}

static inline void bdev_fput(struct file *bdev_file)
{
#ifdef FIPC_HAVE_BLKDEV_GET_HOPS
	blkdev_put(file_bdev(bdev_file), NULL);
#else
	/* 6.1 reads only FMODE_EXCL from the mode. */
	blkdev_put(file_bdev(bdev_file), FMODE_READ);
#endif
}
#elif !defined(FIPC_HAVE_BDEV_FPUT)
/* 6.9 closes it with fput(), 6.10 with bdev_fput(). */
#define bdev_fput fput
#endif

#endif /* _FIPC_KCOMPAT_BLKDEV_H */
