// SPDX-License-Identifier: GPL-2.0
/*
 * fipc.ko: the fipc channel library as a Linux module.
 */
#include <linux/module.h>
#include <linux/printk.h>
#include <fipc/fipc.h>
#include <fipc/fipc_version.h>

static int __init fipc_module_init(void)
{
	pr_info("fipc %s: %u-byte slots, rings of %u to %u slots, wait method %s\n",
		FIPC_VERSION, FIPC_SLOT_BYTES, FIPC_RING_SLOTS(FIPC_MIN_ORDER),
		FIPC_RING_SLOTS(FIPC_MAX_ORDER),
		fipc_wait_method_name(fipc_wait_best_method()));
	return 0;
}

static void __exit fipc_module_exit(void)
{
}

module_init(fipc_module_init);
module_exit(fipc_module_exit);

MODULE_DESCRIPTION("fipc: cache-line slot rings for cross-domain IPC");
MODULE_LICENSE("GPL");
MODULE_VERSION(FIPC_VERSION);
