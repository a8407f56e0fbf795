// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: the developers' counters, in debugfs (not an ABI):
 * /sys/kernel/debug/xen-fipc-back/fipcblk-<domid>-<devid>/counters, one
 * "name value" line per counter that xfb_stat_debug() marks: how the
 * poller goes about its work (polls, parking, spurious interrupts,
 * hand-offs to workers), which an administrator does not need.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "back.h"

static struct dentry *xfb_dbg_root;

static int xfb_counters_show(struct seq_file *m, void *unused)
{
	struct xfb_be *be = m->private;
	unsigned int k;

	mutex_lock(&be->mutex);
	for (k = 0; k < XFB_NR_STATS; k++)
		if (xfb_stat_debug(k))
			seq_printf(m, "%s %llu\n", xfb_stat_name(k),
				   xfb_be_stat(be, k));
	mutex_unlock(&be->mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xfb_counters);

/**
 * xfb_debugfs_init() - create our debugfs directory
 */
void xfb_debugfs_init(void)
{
	xfb_dbg_root = debugfs_create_dir("xen-fipc-back", NULL);
}

/**
 * xfb_debugfs_exit() - remove it, every device's gone already
 */
void xfb_debugfs_exit(void)
{
	debugfs_remove_recursive(xfb_dbg_root);
	xfb_dbg_root = NULL;
}

/**
 * xfb_debugfs_add() - a new device's directory and counters
 * @be: the device, its mutex initialised
 */
void xfb_debugfs_add(struct xfb_be *be)
{
	be->dbg = debugfs_create_dir(dev_name(&be->dev->dev), xfb_dbg_root);
	debugfs_create_file("counters", 0400, be->dbg, be,
			    &xfb_counters_fops);
}

/**
 * xfb_debugfs_remove() - remove a device's directory
 * @be: the device, be->mutex not held (a read under way ends first)
 */
void xfb_debugfs_remove(struct xfb_be *be)
{
	debugfs_remove_recursive(be->dbg);
	be->dbg = NULL;
}
