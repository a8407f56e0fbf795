// SPDX-License-Identifier: GPL-2.0
/* Mainline (7.3, not 6.12): kzalloc_obj() and kmalloc_obj(). */
#include <linux/slab.h>

struct fipc_probe_obj {
	int x;
};

void *fipc_probe(void)
{
	struct fipc_probe_obj *p = kzalloc_obj(*p, GFP_KERNEL);

	kfree(p);
	return kmalloc_obj(*p, GFP_KERNEL);
}
