// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: statistics in sysfs, on the xenbus device
 * (/sys/bus/xen/devices/fipcblk-<id>/statistics/); the developers'
 * counters are in debugfs (front_debugfs.c).  Counters survive
 * reconnections: those of torn-down channels are kept in info->retired.
 */
#include <linux/device.h>
#include <linux/sysfs.h>
#include "front.h"

/*
 * Each counter's file name, and where it is: sysfs (statistics/, an ABI:
 * docs/sysfs-abi.md) for what an administrator reads, debugfs (not an
 * ABI, front_debugfs.c) for what only developers do.
 */
static const struct {
	const char *name;
	bool debug;
} xff_stats[XFF_NR_STATS] = {
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

/**
 * xff_stat_name() - a counter's file name
 * @idx: the counter
 *
 * Return: the name, in sysfs's statistics/ or debugfs's counters.
 */
const char *xff_stat_name(enum xff_stat idx)
{
	return xff_stats[idx].name;
}

/**
 * xff_stat_debug() - is a counter the developers' (debugfs), not sysfs's
 * @idx: the counter
 *
 * Return: true for debugfs.
 */
bool xff_stat_debug(enum xff_stat idx)
{
	return xff_stats[idx].debug;
}

/**
 * xff_stats_retire() - keep the counters of channels about to be freed
 * @info: the disk, its channels detached from the pollers
 */
void xff_stats_retire(struct xff_info *info)
{
	unsigned int i, k;

	for (i = 0; i < info->nr_chans; i++) {
		struct xff_chan *c = &info->chans[i];

		for (k = 0; k < XFF_NR_STATS; k++)
			info->retired[k] += c->st[k];
		info->retired_notify_recv += atomic64_read(&c->notify_recv);
		info->retired_notify_spurious +=
			atomic64_read(&c->notify_spurious);
		memset(c->st, 0, sizeof(c->st));
		atomic64_set(&c->notify_recv, 0);
		atomic64_set(&c->notify_spurious, 0);
	}
}

struct xff_stat_attr {
	struct device_attribute da;
	unsigned int idx;
};

/**
 * xff_info_stat() - a disk's counter, its torn-down channels included
 * @info: the disk, its mutex held
 * @idx: the counter
 *
 * Return: the sum.
 */
u64 xff_info_stat(struct xff_info *info, enum xff_stat idx)
{
	unsigned int i;
	u64 sum = info->retired[idx];

	for (i = 0; i < info->nr_chans; i++)
		sum += READ_ONCE(info->chans[i].st[idx]);
	return sum;
}

static ssize_t xff_stat_show(struct device *d, struct device_attribute *da,
			     char *buf)
{
	struct xff_stat_attr *a = container_of(da, struct xff_stat_attr, da);
	struct xff_info *info = dev_get_drvdata(d);
	u64 sum;

	if (!info)
		return -ENODEV;
	mutex_lock(&info->mutex);
	sum = xff_info_stat(info, a->idx);
	mutex_unlock(&info->mutex);
	return sysfs_emit(buf, "%llu\n", sum);
}

/* notify_recv, or with @spurious notify_spurious: all channels, retired too. */
static ssize_t xff_notify_show(struct device *d, char *buf, bool spurious)
{
	struct xff_info *info = dev_get_drvdata(d);
	struct xff_chan *c;
	unsigned int i;
	u64 sum;

	if (!info)
		return -ENODEV;
	mutex_lock(&info->mutex);
	sum = spurious ? info->retired_notify_spurious :
			 info->retired_notify_recv;
	for (i = 0; i < info->nr_chans; i++) {
		c = &info->chans[i];
		sum += atomic64_read(spurious ? &c->notify_spurious :
					       &c->notify_recv);
	}
	mutex_unlock(&info->mutex);
	return sysfs_emit(buf, "%llu\n", sum);
}

static ssize_t notify_recv_show(struct device *d,
				struct device_attribute *attr, char *buf)
{
	return xff_notify_show(d, buf, false);
}
static DEVICE_ATTR_RO(notify_recv);

static ssize_t notify_spurious_show(struct device *d,
				    struct device_attribute *attr, char *buf)
{
	return xff_notify_show(d, buf, true);
}
static DEVICE_ATTR_RO(notify_spurious);

static ssize_t queues_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	struct xff_info *info = dev_get_drvdata(d);

	return info ? sysfs_emit(buf, "%u\n", READ_ONCE(info->nr_chans)) :
		      -ENODEV;
}
static DEVICE_ATTR_RO(queues);

static ssize_t ring_order_show(struct device *d,
			       struct device_attribute *attr, char *buf)
{
	struct xff_info *info = dev_get_drvdata(d);

	return info ? sysfs_emit(buf, "%u\n", READ_ONCE(info->ring_order)) :
		      -ENODEV;
}
static DEVICE_ATTR_RO(ring_order);

/*
 * The connection's data path (grant, memshare), read under the mutex;
 * "none" while it has no channels.
 */
static ssize_t data_path_show(struct device *d, struct device_attribute *attr,
			      char *buf)
{
	struct xff_info *info = dev_get_drvdata(d);
	const char *word;

	if (!info)
		return -ENODEV;
	mutex_lock(&info->mutex);
	if (!info->chans)
		word = "none";
	else
		word = info->ms ? "memshare" : "grant";
	mutex_unlock(&info->mutex);
	return sysfs_emit(buf, "%s\n", word);
}

static DEVICE_ATTR_RO(data_path);

/* Staging pages of all channels (memshare; 0 on grant). */
static ssize_t staging_pages_show(struct device *d,
				  struct device_attribute *attr, char *buf)
{
	struct xff_info *info = dev_get_drvdata(d);
	unsigned int i, n = 0;

	if (!info)
		return -ENODEV;
	mutex_lock(&info->mutex);
	for (i = 0; i < info->nr_chans; i++)
		n += info->chans[i].stg.nr;
	mutex_unlock(&info->mutex);
	return sysfs_emit(buf, "%u\n", n);
}
static DEVICE_ATTR_RO(staging_pages);

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

static ssize_t stuck_requests_show(struct device *d,
				   struct device_attribute *attr, char *buf)
{
	return stuck_show(d, buf, false);
}
static DEVICE_ATTR_RO(stuck_requests);

static ssize_t stuck_waiting_show(struct device *d,
				  struct device_attribute *attr, char *buf)
{
	return stuck_show(d, buf, true);
}
static DEVICE_ATTR_RO(stuck_waiting);

/* 1 if the backend is trusted, 0 if data goes through bounce pages. */
static ssize_t trusted_show(struct device *d, struct device_attribute *attr,
			    char *buf)
{
	struct xff_info *info = dev_get_drvdata(d);

	return info ? sysfs_emit(buf, "%d\n", !info->bounce) : -ENODEV;
}
static DEVICE_ATTR_RO(trusted);

/* Times the guest was restored or migrated with this disk. */
static ssize_t resumes_show(struct device *d, struct device_attribute *attr,
			    char *buf)
{
	struct xff_info *info = dev_get_drvdata(d);

	return info ? sysfs_emit(buf, "%u\n", READ_ONCE(info->resumes)) :
		      -ENODEV;
}
static DEVICE_ATTR_RO(resumes);

static struct xff_stat_attr xff_stat_attrs[XFF_NR_STATS];
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
	unsigned int i, k;

	for (i = 0, k = 0; k < XFF_NR_STATS; k++) {
		struct xff_stat_attr *a = &xff_stat_attrs[k];

		if (xff_stat_debug(k))
			continue;
		sysfs_attr_init(&a->da.attr);
		a->da.attr.name = xff_stat_name(k);
		a->da.attr.mode = 0444;
		a->da.show = xff_stat_show;
		a->idx = k;
		xff_attrs[i++] = &a->da.attr;
	}
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
