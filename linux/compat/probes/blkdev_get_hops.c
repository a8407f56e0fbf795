// SPDX-License-Identifier: GPL-2.0
/* 6.5 to 6.8: blkdev_get_by_dev() with holder operations. */
#include <linux/blkdev.h>

struct block_device *fipc_probe(dev_t devt)
{
	return blkdev_get_by_dev(devt, BLK_OPEN_READ, NULL, NULL);
}
