// SPDX-License-Identifier: GPL-2.0
/* 6.5: blk_mode_t, BLK_OPEN_*. */
#include <linux/blkdev.h>

blk_mode_t fipc_probe(void)
{
	return BLK_OPEN_READ | BLK_OPEN_WRITE;
}
