// SPDX-License-Identifier: GPL-2.0
/* 6.11: cache and rotation are queue limits' features. */
#include <linux/blkdev.h>

void fipc_probe(struct queue_limits *lim)
{
	lim->features |= BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA |
			 BLK_FEAT_ROTATIONAL;
}
