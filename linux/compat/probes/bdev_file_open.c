// SPDX-License-Identifier: GPL-2.0
/* 6.9: bdev_file_open_by_dev() and file_bdev(). */
#include <linux/blkdev.h>

struct block_device *fipc_probe(dev_t devt)
{
	return file_bdev(bdev_file_open_by_dev(devt, BLK_OPEN_READ, NULL,
					       NULL));
}
