// SPDX-License-Identifier: GPL-2.0
/* Before 6.14: BLK_MQ_F_SHOULD_MERGE. */
#include <linux/blk-mq.h>

unsigned int fipc_probe(void)
{
	return BLK_MQ_F_SHOULD_MERGE;
}
