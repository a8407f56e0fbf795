// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: the developers' counters, in debugfs (not an ABI):
 * /sys/kernel/debug/xen-fipc-front/fipcblk-<devid>/counters, one "name
 * value" line per counter that xff_stat_debug() marks (how responses
 * reach us, what memshare READs named), which an administrator does not
 * need.  Test builds add the hostile-request file, inject, beside it
 * (front_inject.c).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "front.h"

static struct dentry *xff_dbg_root;

static int xff_counters_show(struct seq_file *m, void *unused)
{
	struct xff_info *info = m->private;
	unsigned int k;

	mutex_lock(&info->mutex);
	for (k = 0; k < XFF_NR_STATS; k++)
		if (xff_stat_debug(k))
			seq_printf(m, "%s %llu\n", xff_stat_name(k),
				   xff_info_stat(info, k));
	mutex_unlock(&info->mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xff_counters);

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
	debugfs_create_file("counters", 0400, info->dbg, info,
			    &xff_counters_fops);
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
