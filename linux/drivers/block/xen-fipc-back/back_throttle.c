// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: a disk's I/O limits (the buckets are back_limit.c).
 * The toolstack sets them in our own xenstore directory (fipc-iops,
 * fipc-bps-read, ..., fipc-burst-ms; the guest cannot write there), read
 * at each connect; an administrator changes them live in sysfs
 * (limits/), which writes the keys too, so a reconnection keeps them.
 * The poller asks before it handles each request it takes; a request
 * over the limits is held (its private copy) and its channel parked
 * until the buckets allow it: a timed retry, so a poller with nothing
 * else to do sleeps meanwhile.
 */
#include <linux/device.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <xen/xenbus.h>
#include "back.h"

/* A held request asks again at least this often: a new limit shows. */
#define XFB_LIMIT_RETRY_MAX_US	(100 * USEC_PER_MSEC)

/* The files of limits/: each rate's, then the burst's. */
static const char *const xfb_limit_names[XFB_NR_RATES + 1] = {
	[XFB_IOPS] = "iops",
	[XFB_IOPS_READ] = "iops_read",
	[XFB_IOPS_WRITE] = "iops_write",
	[XFB_BPS] = "bps",
	[XFB_BPS_READ] = "bps_read",
	[XFB_BPS_WRITE] = "bps_write",
	[XFB_NR_RATES] = "burst_ms",
};

/* Their keys in our xenstore directory, in the same order. */
static const char *const xfb_limit_keys[XFB_NR_RATES + 1] = {
	[XFB_IOPS] = "fipc-iops",
	[XFB_IOPS_READ] = "fipc-iops-read",
	[XFB_IOPS_WRITE] = "fipc-iops-write",
	[XFB_BPS] = "fipc-bps",
	[XFB_BPS_READ] = "fipc-bps-read",
	[XFB_BPS_WRITE] = "fipc-bps-write",
	[XFB_NR_RATES] = "fipc-burst-ms",
};

/* Report a toolstack value that is not a limit: never ignored. */
static int xfb_limit_refuse(struct xfb_be *be, const char *key,
			    const char *s, const char *want)
{
	xenbus_dev_error(be->dev, -EINVAL, "bad %s \"%*pE\" (want %s)", key,
			 (int)min_t(size_t, strlen(s), 24), s, want);
	return -EINVAL;
}

/**
 * xfb_throttle_read() - the toolstack's limits, at each connect
 * @be: the device, be->mutex held
 *
 * An absent key is no limit (the burst: XFB_BURST_MS_DEFAULT).  A value
 * that is not a limit ("0", "fast", "-1") refuses the connection with
 * the error node written and logged: a limit is never silently dropped.
 *
 * Return: 0 or -EINVAL.
 */
int xfb_throttle_read(struct xfb_be *be)
{
	u64 rate[XFB_NR_RATES] = { 0 }, now;
	u32 ms = XFB_BURST_MS_DEFAULT;
	unsigned int r;
	char *s;
	int err;

	for (r = 0; r <= XFB_NR_RATES; r++) {
		s = xenbus_read(XBT_NIL, be->dev->nodename, xfb_limit_keys[r],
				NULL);
		if (IS_ERR(s))
			continue;
		if (r == XFB_NR_RATES)
			err = xfb_parse_uint(s, 1, XFB_BURST_MS_MAX, &ms);
		else
			err = xfb_rate_parse(s, &rate[r]);
		if (err)
			err = xfb_limit_refuse(be, xfb_limit_keys[r], s,
					       r == XFB_NR_RATES ? "1 to 60000 ms" :
					       "none, or 1 to 2^40 a second");
		kfree(s);
		if (err)
			return err;
	}
	now = ktime_get_ns();
	xfb_limiter_set_burst(&be->limits, ms);
	for (r = 0; r < XFB_NR_RATES; r++)
		xfb_limiter_set(&be->limits, r, rate[r], now);
	return 0;
}

/**
 * xfb_throttle() - may the request just taken be handled now
 * @chan: the channel, ring claimed by its poller
 * @nslots: its slots in @chan->msgbuf (taken now, or held before)
 *
 * Only the op and length of the private copy are read, to count them:
 * the request is validated after, as any other.  A write, flush or
 * discard counts as a write; only reads and writes move bytes.
 *
 * Return: false to handle it now; true if it must wait: it is held
 * (@chan->limit_held) and the channel parked for @chan->limit_us.
 */
bool xfb_throttle(struct xfb_chan *chan, unsigned int nslots)
{
	struct fipcblk_request r;
	u64 now, wait, bytes;

	if (!READ_ONCE(chan->be->limits.on) && !chan->limit_held)
		return false;
	memcpy(&r, chan->msgbuf[0].data, sizeof(r));
	bytes = (r.op == FIPCBLK_OP_READ || r.op == FIPCBLK_OP_WRITE) ?
		r.nr_bytes : 0;
	now = ktime_get_ns();
	wait = xfb_limiter_admit(&chan->be->limits, r.op != FIPCBLK_OP_READ,
				 bytes, now);
	if (!wait) {
		if (chan->limit_held)
			chan->st[XFB_THROTTLED_US] +=
				div_u64(now - chan->limit_since,
					NSEC_PER_USEC);
		chan->limit_held = 0;
		return false;
	}
	if (!chan->limit_held) {
		chan->limit_held = nslots;
		chan->limit_since = now;
		chan->st[XFB_THROTTLED_REQ]++;
	}
	chan->limit_us = clamp_t(u64, DIV_ROUND_UP_ULL(wait, NSEC_PER_USEC),
				 1, XFB_LIMIT_RETRY_MAX_US);
	return true;
}

/**
 * struct xfb_limit_attr - a file of limits/
 * @da: the attribute
 * @rate: its rate, or XFB_NR_RATES for burst_ms
 */
struct xfb_limit_attr {
	struct device_attribute da;
	unsigned int rate;
};

static ssize_t xfb_limit_show(struct device *d, struct device_attribute *da,
			      char *buf)
{
	struct xfb_limit_attr *a = container_of(da, struct xfb_limit_attr, da);
	struct xfb_be *be = dev_get_drvdata(d);
	u64 rate;

	if (!be)
		return -ENODEV;
	if (a->rate == XFB_NR_RATES)
		return sysfs_emit(buf, "%u\n",
				  xfb_limiter_burst_ms(&be->limits));
	rate = xfb_limiter_get(&be->limits, a->rate);
	return rate ? sysfs_emit(buf, "%llu\n", rate) :
		      sysfs_emit(buf, "none\n");
}

/*
 * A new limit applies at once (a held request asks again within
 * XFB_LIMIT_RETRY_MAX_US) and goes into our xenstore key, for the next
 * connection.
 */
static ssize_t xfb_limit_store(struct device *d, struct device_attribute *da,
			       const char *buf, size_t count)
{
	struct xfb_limit_attr *a = container_of(da, struct xfb_limit_attr, da);
	struct xfb_be *be = dev_get_drvdata(d);
	u64 rate = 0;
	u32 ms;
	int err;

	if (!be)
		return -ENODEV;
	mutex_lock(&be->mutex);
	if (a->rate == XFB_NR_RATES) {
		err = kstrtou32(buf, 10, &ms) ?:
		      xfb_limiter_set_burst(&be->limits, ms);
		rate = ms;
	} else {
		err = xfb_rate_parse(buf, &rate) ?:
		      xfb_limiter_set(&be->limits, a->rate, rate,
				      ktime_get_ns());
	}
	if (!err && rate)
		err = xenbus_printf(XBT_NIL, be->dev->nodename,
				    xfb_limit_keys[a->rate], "%llu", rate);
	else if (!err)
		err = xenbus_write(XBT_NIL, be->dev->nodename,
				   xfb_limit_keys[a->rate], "none");
	mutex_unlock(&be->mutex);
	return err ? err : count;
}

static struct xfb_limit_attr xfb_limit_attrs[XFB_NR_RATES + 1];
static struct attribute *xfb_limit_files[XFB_NR_RATES + 2];

const struct attribute_group xfb_limit_group = {
	.name = "limits",
	.attrs = xfb_limit_files,
};

/**
 * xfb_throttle_sysfs_init() - fill limits/, before registering
 */
void xfb_throttle_sysfs_init(void)
{
	unsigned int i;

	for (i = 0; i <= XFB_NR_RATES; i++) {
		struct xfb_limit_attr *a = &xfb_limit_attrs[i];

		sysfs_attr_init(&a->da.attr);
		a->da.attr.name = xfb_limit_names[i];
		a->da.attr.mode = 0644;
		a->da.show = xfb_limit_show;
		a->da.store = xfb_limit_store;
		a->rate = i;
		xfb_limit_files[i] = &a->da.attr;
	}
	xfb_limit_files[i] = NULL;
}
