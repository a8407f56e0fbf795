// SPDX-License-Identifier: GPL-2.0
/* 6.10: bdev_fput(). */
#include <linux/blkdev.h>

void fipc_probe(struct file *bdev_file)
{
	bdev_fput(bdev_file);
}
