// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: statistics in sysfs, on the xenbus device
 * (/sys/bus/xen/devices/fipcblk-<id>/statistics/); the developers'
 * counters are in debugfs (front_debugfs.c).  Counters survive
 * reconnections: those of torn-down channels are kept in info->retired
 * (fipc's counters, <fipc/fipc_stats.h>, sum them).
 */
#include <linux/device.h>
#include <linux/sysfs.h>
#include "front.h"

/*
 * Each counter's file name, and where it is: sysfs (statistics/, an ABI:
 * docs/sysfs-abi.md) for what an administrator reads, debugfs (not an
 * ABI, front_debugfs.c) for what only developers do.
 */
static const struct fipc_stat_name xff_stats[XFF_NR_STATS] = {
	[XFF_REQUESTS] = { "requests" },
	[XFF_COMPLETIONS] = { "completions" },
	[XFF_ERRORS] = { "errors" },
	[XFF_NOTIFY_SENT] = { "notify_sent" },
	[XFF_LOCAL_KICKS] = { "local_kicks", true },
	[XFF_REQUEUED] = { "requeued" },
	[XFF_BAD_RESPONSES] = { "bad_responses" },
	[XFF_MS_FALLBACKS] = { "memshare_fallbacks" },
	[XFF_MS_READ_GRANTS] = { "memshare_read_grants", true },
	[XFF_MS_STAGED] = { "memshare_staged" },
	[XFF_BOUNCED] = { "bounced" },
	[XFF_IRQ_COMPLETIONS] = { "irq_completions", true },
	[XFF_GRANT_STAGED] = { "grant_staged" },
	[XFF_MS_READ_PFNS] = { "memshare_read_pfns", true },
	[XFF_MS_HELD] = { "memshare_held" },
};

/* Channel @i's counters, NULL past the last; info->mutex held. */
static u64 *xff_chan_stats(struct fipc_stats *s, unsigned int i)
{
	struct xff_info *info = container_of(s, struct xff_info, stats);

	return i < info->nr_chans ? info->chans[i].st : NULL;
}

static const struct fipc_stats_kind xff_stats_kind = {
	.names = xff_stats,
	.nr = XFF_NR_STATS,
	.chan = xff_chan_stats,
};

/**
 * xff_stats_init() - set up a new disk's counters
 * @info: the disk, its mutex initialised
 */
void xff_stats_init(struct xff_info *info)
{
	fipc_stats_init(&info->stats, &xff_stats_kind, &info->mutex,
			info->retired);
}

/**
 * xff_stats_retire() - keep the counters of channels about to be freed
 * @info: the disk, its channels detached from the pollers
 */
void xff_stats_retire(struct xff_info *info)
{
	unsigned int i;

	fipc_stats_retire(&info->stats);
	for (i = 0; i < info->nr_chans; i++) {
		struct xff_chan *c = &info->chans[i];

		info->retired_notify_recv += atomic64_read(&c->notify_recv);
		info->retired_notify_spurious +=
			atomic64_read(&c->notify_spurious);
		atomic64_set(&c->notify_recv, 0);
		atomic64_set(&c->notify_spurious, 0);
	}
}

static ssize_t xff_stat_show(struct device *d, struct device_attribute *da,
			     char *buf)
{
	struct xff_info *info = dev_get_drvdata(d);

	return fipc_stats_show(info ? &info->stats : NULL, fipc_attr_idx(da),
			       buf);
}

/* notify_recv, or with @spurious notify_spurious: all channels, retired too. */
static u64 xff_notify_sum(struct xff_info *info, bool spurious)
{
	struct xff_chan *c;
	unsigned int i;
	u64 sum;

	sum = spurious ? info->retired_notify_spurious :
			 info->retired_notify_recv;
	for (i = 0; i < info->nr_chans; i++) {
		c = &info->chans[i];
		sum += atomic64_read(spurious ? &c->notify_spurious :
					       &c->notify_recv);
	}
	return sum;
}

static u64 xff_sysfs_notify_recv(struct xff_info *info)
{
	return xff_notify_sum(info, false);
}
FIPC_DEVICE_ATTR_LOCKED_RO(notify_recv, struct xff_info *, u64, "%llu",
			   xff_sysfs_notify_recv);

static u64 xff_sysfs_notify_spurious(struct xff_info *info)
{
	return xff_notify_sum(info, true);
}
FIPC_DEVICE_ATTR_LOCKED_RO(notify_spurious, struct xff_info *, u64, "%llu",
			   xff_sysfs_notify_spurious);

static unsigned int xff_sysfs_queues(struct xff_info *info)
{
	return READ_ONCE(info->nr_chans);
}
FIPC_DEVICE_ATTR_GET_RO(queues, struct xff_info *, "%u", xff_sysfs_queues);

static unsigned int xff_sysfs_ring_order(struct xff_info *info)
{
	return READ_ONCE(info->ring_order);
}
FIPC_DEVICE_ATTR_GET_RO(ring_order, struct xff_info *, "%u",
			xff_sysfs_ring_order);

/* The connection's data path (grant, memshare), fipc_data_path(). */
static const char *xff_sysfs_data_path(struct xff_info *info)
{
	return fipc_data_path(info->chans, info->ms);
}
FIPC_DEVICE_ATTR_LOCKED_RO(data_path, struct xff_info *, const char *, "%s",
			   xff_sysfs_data_path);

/* Staging pages of all channels (memshare; 0 on grant). */
static unsigned int xff_sysfs_staging_pages(struct xff_info *info)
{
	unsigned int i, n = 0;

	for (i = 0; i < info->nr_chans; i++)
		n += info->chans[i].stg.nr;
	return n;
}
FIPC_DEVICE_ATTR_LOCKED_RO(staging_pages, struct xff_info *, unsigned int, "%u",
			   xff_sysfs_staging_pages);

/*
 * Requests completed late (or now waiting) because the backend still
 * mapped their pages: ever, and now.
 */
static ssize_t stuck_show(struct device *d, char *buf, bool now)
{
	struct xff_info *info = dev_get_drvdata(d);
	u64 n;

	if (!info)
		return -ENODEV;
	spin_lock_irq(&info->stuck_lock);
	n = now ? info->stuck_waiting : info->stuck_total;
	spin_unlock_irq(&info->stuck_lock);
	return sysfs_emit(buf, "%llu\n", n);
}

FIPC_DEVICE_ATTR_RO_ARGS(stuck_requests, stuck_show, false);
FIPC_DEVICE_ATTR_RO_ARGS(stuck_waiting, stuck_show, true);

/* 1 if the backend is trusted, 0 if data goes through bounce pages. */
static int xff_sysfs_trusted(struct xff_info *info)
{
	return !info->bounce;
}
FIPC_DEVICE_ATTR_GET_RO(trusted, struct xff_info *, "%d", xff_sysfs_trusted);

/* Times the guest was restored or migrated with this disk. */
static unsigned int xff_sysfs_resumes(struct xff_info *info)
{
	return READ_ONCE(info->resumes);
}
FIPC_DEVICE_ATTR_GET_RO(resumes, struct xff_info *, "%u", xff_sysfs_resumes);

static struct fipc_idx_attr xff_stat_attrs[XFF_NR_STATS];
static struct attribute *xff_attrs[XFF_NR_STATS + 11];

static const struct attribute_group xff_stat_group = {
	.name = "statistics",
	.attrs = xff_attrs,
};

const struct attribute_group *xff_groups[] = {
	&xff_stat_group,
	NULL
};

/**
 * xff_sysfs_init() - fill the statistics attributes, before registering
 */
void xff_sysfs_init(void)
{
	unsigned int i;

	i = fipc_stats_attrs_init(&xff_stats_kind, xff_stat_attrs, xff_attrs,
				  xff_stat_show);
	xff_attrs[i++] = &dev_attr_notify_recv.attr;
	xff_attrs[i++] = &dev_attr_notify_spurious.attr;
	xff_attrs[i++] = &dev_attr_queues.attr;
	xff_attrs[i++] = &dev_attr_ring_order.attr;
	xff_attrs[i++] = &dev_attr_data_path.attr;
	xff_attrs[i++] = &dev_attr_staging_pages.attr;
	xff_attrs[i++] = &dev_attr_stuck_requests.attr;
	xff_attrs[i++] = &dev_attr_stuck_waiting.attr;
	xff_attrs[i++] = &dev_attr_trusted.attr;
	xff_attrs[i++] = &dev_attr_resumes.attr;
	xff_attrs[i] = NULL;
}
