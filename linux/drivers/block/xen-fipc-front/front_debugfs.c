// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: the developers' counters, in debugfs (not an ABI):
 * /sys/kernel/debug/xen-fipc-front/fipcblk-<devid>/counters, one "name
 * value" line per counter that xff_stats[] marks debug (how responses
 * reach us, what memshare READs named), which an administrator does not
 * need.  Test builds add the hostile-request file, inject, beside it
 * (front_inject.c).
 */
#include <linux/debugfs.h>
#include "front.h"

static struct dentry *xff_dbg_root;

/**
 * xff_debugfs_init() - create our debugfs directory
 */
void xff_debugfs_init(void)
{
	xff_dbg_root = debugfs_create_dir(XFF_NAME, NULL);
}

/**
 * xff_debugfs_exit() - remove our debugfs directory
 */
void xff_debugfs_exit(void)
{
	debugfs_remove_recursive(xff_dbg_root);
	xff_dbg_root = NULL;
}

/**
 * xff_debugfs_add() - a new disk's directory, counters (and inject)
 * @info: the disk, its mutex initialised
 */
void xff_debugfs_add(struct xff_info *info)
{
	info->dbg = debugfs_create_dir(dev_name(&info->xbdev->dev),
				       xff_dbg_root);
	debugfs_create_file("counters", 0400, info->dbg, &info->stats,
			    fipc_stats_fops);
	xff_inject_add(info);
}

/**
 * xff_debugfs_remove() - remove it, waiting for a read or an injection
 *	under way
 * @info: the disk, info->mutex not held
 */
void xff_debugfs_remove(struct xff_info *info)
{
	debugfs_remove_recursive(info->dbg);
	info->dbg = NULL;
}
