// SPDX-License-Identifier: GPL-2.0
/* 6.12: <linux/unaligned.h> (before, <asm/unaligned.h>). */
#include <linux/unaligned.h>

u32 fipc_probe(const void *p)
{
	return get_unaligned_le32(p);
}
