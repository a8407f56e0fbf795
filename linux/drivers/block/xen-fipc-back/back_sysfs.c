// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: statistics in sysfs, on the backend xenbus device
 * (/sys/bus/xen-backend/devices/fipcblk-<domid>-<devid>/statistics/),
 * named like blkback's where they mean the same; the developers'
 * counters are in debugfs (back_debugfs.c).  Counters survive
 * reconnections: those of torn-down channels are kept in be->retired
 * (fipc_stats_sum() adds them).
 */
#include <linux/device.h>
#include <linux/sysfs.h>
#include "back.h"

static ssize_t xfb_stat_show(struct device *d, struct device_attribute *da,
			     char *buf)
{
	struct xfb_be *be = dev_get_drvdata(d);

	return fipc_stats_show(be ? &be->stats : NULL, fipc_attr_idx(da), buf);
}

static unsigned int xfb_sysfs_queues(struct xfb_be *be)
{
	return READ_ONCE(be->nr_chans);
}
FIPC_DEVICE_ATTR_GET_RO(queues, struct xfb_be *, "%u", xfb_sysfs_queues);

static int xfb_sysfs_inflight(struct xfb_be *be)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < be->nr_chans; i++)
		n += atomic_read(&be->chans[i].inflight);
	return n;
}
FIPC_DEVICE_ATTR_LOCKED_RO(inflight, struct xfb_be *, int, "%d",
			   xfb_sysfs_inflight);

/* Pages of the guest mapped on the memshare path (0 on grant). */
static unsigned long xfb_sysfs_memshare_pages(struct xfb_be *be)
{
	return be->ms ? be->ms->mapped : 0;
}
FIPC_DEVICE_ATTR_LOCKED_RO(memshare_pages, struct xfb_be *, unsigned long,
			   "%lu", xfb_sysfs_memshare_pages);

/* Bytes of the memshare pfn arrays (0 on grant). */
static unsigned long xfb_sysfs_memshare_array_bytes(struct xfb_be *be)
{
	return be->ms ? xfb_memshare_array_bytes(be->ms) : 0;
}
FIPC_DEVICE_ATTR_LOCKED_RO(memshare_array_bytes, struct xfb_be *, unsigned long,
			   "%lu", xfb_sysfs_memshare_array_bytes);

/* The connection's data path (grant, memshare), fipc_data_path(). */
static const char *xfb_sysfs_data_path(struct xfb_be *be)
{
	return fipc_data_path(be->chans, be->ms);
}
FIPC_DEVICE_ATTR_LOCKED_RO(data_path, struct xfb_be *, const char *, "%s",
			   xfb_sysfs_data_path);

/*
 * Staging pages kept mapped, all channels (memshare; 0 on grant, and for
 * channels whose requests map them, a budget being used up).
 */
static unsigned int xfb_sysfs_staging_pages(struct xfb_be *be)
{
	unsigned int i, n = 0;

	for (i = 0; i < be->nr_chans; i++)
		if (be->chans[i].stg_pages)
			n += be->chans[i].stg_nr;
	return n;
}
FIPC_DEVICE_ATTR_LOCKED_RO(staging_pages, struct xfb_be *, unsigned int, "%u",
			   xfb_sysfs_staging_pages);

/*
 * Grants the guest has mapped now, all its devices (back_guest.c), or
 * with @peak the most it had mapped at once (writing 0 resets that).
 */
static ssize_t xfb_guest_grants_show(struct device *d, char *buf, bool peak)
{
	struct xfb_be *be = dev_get_drvdata(d);

	if (!be)
		return -ENODEV;
	return sysfs_emit(buf, "%d\n", atomic_read(peak ?
						   &be->guest->grants_peak :
						   &be->guest->grants));
}
FIPC_DEVICE_ATTR_RO_ARGS(guest_grants, xfb_guest_grants_show, false);

static ssize_t guest_grants_peak_show(struct device *d,
				      struct device_attribute *attr, char *buf)
{
	return xfb_guest_grants_show(d, buf, true);
}

static ssize_t guest_grants_peak_store(struct device *d,
				       struct device_attribute *attr,
				       const char *buf, size_t count)
{
	struct xfb_be *be = dev_get_drvdata(d);
	unsigned int v;

	if (!be)
		return -ENODEV;
	if (kstrtouint(buf, 10, &v) || v)
		return -EINVAL;
	atomic_set(&be->guest->grants_peak, atomic_read(&be->guest->grants));
	return count;
}
static DEVICE_ATTR_RW(guest_grants_peak);

/*
 * The service the guest got, all its devices together (those already
 * gone included): requests of every kind, and sectors read and written.
 */
static const enum xfb_stat xfb_guest_req_stats[] = {
	XFB_RD_REQ, XFB_WR_REQ, XFB_F_REQ, XFB_DS_REQ,
};

static const enum xfb_stat xfb_guest_sect_stats[] = {
	XFB_RD_SECT, XFB_WR_SECT,
};

/* The sum of the guest's counters @ids, all its devices together. */
static ssize_t xfb_show_guest_sum(struct device *d, char *buf,
				  const enum xfb_stat *ids, unsigned int n)
{
	struct xfb_be *be = dev_get_drvdata(d);
	unsigned int devs;

	if (!be)
		return -ENODEV;
	return sysfs_emit(buf, "%llu\n",
			  xfb_guest_stat(be->guest, ids, n, &devs));
}

FIPC_DEVICE_ATTR_RO_ARGS(guest_requests, xfb_show_guest_sum,
			 xfb_guest_req_stats, ARRAY_SIZE(xfb_guest_req_stats));
FIPC_DEVICE_ATTR_RO_ARGS(guest_sectors, xfb_show_guest_sum,
			 xfb_guest_sect_stats,
			 ARRAY_SIZE(xfb_guest_sect_stats));

/* The guest's devices on this backend now. */
static ssize_t guest_devices_show(struct device *d,
				  struct device_attribute *attr, char *buf)
{
	struct xfb_be *be = dev_get_drvdata(d);
	unsigned int devs;

	if (!be)
		return -ENODEV;
	xfb_guest_stat(be->guest, NULL, 0, &devs);
	return sysfs_emit(buf, "%u\n", devs);
}
static DEVICE_ATTR_RO(guest_devices);

/*
 * The channels' share of their pollers (fipc-weight, 1 to 65535, 256 by
 * default).  Writing sets it on the channels at once and in fipc-weight,
 * so that the next connection keeps it.
 */
static ssize_t weight_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	struct xfb_be *be = dev_get_drvdata(d);

	if (!be)
		return -ENODEV;
	return sysfs_emit(buf, "%u\n", READ_ONCE(be->weight));
}

static ssize_t weight_store(struct device *d, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	struct xfb_be *be = dev_get_drvdata(d);
	unsigned int w, i;
	int err;

	if (!be)
		return -ENODEV;
	if (kstrtouint(buf, 10, &w) || !w || w > FIPC_POLL_WEIGHT_MAX)
		return -EINVAL;
	mutex_lock(&be->mutex);
	WRITE_ONCE(be->weight, w);
	for (i = 0; i < be->nr_chans; i++)
		fipc_poll_entry_set_weight(&be->chans[i].poll, w);
	err = xenbus_printf(XBT_NIL, be->dev->nodename, "fipc-weight", "%u",
			    w);
	mutex_unlock(&be->mutex);
	return err ? err : count;
}
static DEVICE_ATTR_RW(weight);

static struct fipc_idx_attr xfb_stat_attrs[XFB_NR_STATS];
static struct attribute *xfb_attrs[XFB_NR_STATS + 13];

static const struct attribute_group xfb_stat_group = {
	.name = "statistics",
	.attrs = xfb_attrs,
};

const struct attribute_group *xfb_groups[] = {
	&xfb_stat_group,
	&xfb_limit_group,
	NULL
};

/**
 * xfb_sysfs_init() - fill the statistics attributes, before registering
 */
void xfb_sysfs_init(void)
{
	unsigned int i;

	i = fipc_stats_attrs_init(&xfb_stats_kind, xfb_stat_attrs, xfb_attrs,
				  xfb_stat_show);
	xfb_attrs[i++] = &dev_attr_queues.attr;
	xfb_attrs[i++] = &dev_attr_inflight.attr;
	xfb_attrs[i++] = &dev_attr_memshare_pages.attr;
	xfb_attrs[i++] = &dev_attr_memshare_array_bytes.attr;
	xfb_attrs[i++] = &dev_attr_data_path.attr;
	xfb_attrs[i++] = &dev_attr_guest_grants.attr;
	xfb_attrs[i++] = &dev_attr_guest_grants_peak.attr;
	xfb_attrs[i++] = &dev_attr_guest_requests.attr;
	xfb_attrs[i++] = &dev_attr_guest_sectors.attr;
	xfb_attrs[i++] = &dev_attr_guest_devices.attr;
	xfb_attrs[i++] = &dev_attr_staging_pages.attr;
	xfb_attrs[i++] = &dev_attr_weight.attr;
	xfb_attrs[i] = NULL;
	xfb_throttle_sysfs_init();
}
