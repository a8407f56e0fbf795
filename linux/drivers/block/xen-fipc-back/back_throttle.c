// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: a disk's I/O limits and its guest's total (the buckets
 * are back_limit.c).  The toolstack sets them in our own xenstore
 * directory (fipc-iops, ..., fipc-burst-ms for the disk; fipc-guest-iops,
 * ..., fipc-guest-burst-ms for all the guest's disks together; the guest
 * cannot write there), read at each connect; an administrator changes
 * them live in sysfs (limits/), which writes the keys too, so a
 * reconnection keeps them.  The poller asks before it handles each
 * request it takes; a request over either set is held (its private copy)
 * and its channel parked until the buckets allow it: a timed retry, so a
 * poller with nothing else to do sleeps meanwhile.
 */
#include <linux/device.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <xen/xenbus.h>
#include "back.h"

/* A held request asks again at least this often: a new limit shows. */
#define XFB_LIMIT_RETRY_MAX_US	(100 * USEC_PER_MSEC)

/*
 * A set of limits has a file (and key) per rate, then the burst's; the
 * disk's set comes first, then the guest's total.
 */
#define XFB_SET_FILES		(XFB_NR_RATES + 1)
#define XFB_GUEST_FILES		XFB_SET_FILES
#define XFB_LIMIT_FILES		(2 * XFB_SET_FILES)

/* The files of limits/, and their keys in our xenstore directory. */
static const struct {
	const char *name;
	const char *key;
} xfb_limits[XFB_LIMIT_FILES] = {
	[XFB_IOPS] = { .name = "iops", .key = "fipc-iops" },
	[XFB_IOPS_READ] = { .name = "iops_read", .key = "fipc-iops-read" },
	[XFB_IOPS_WRITE] = { .name = "iops_write", .key = "fipc-iops-write" },
	[XFB_BPS] = { .name = "bps", .key = "fipc-bps" },
	[XFB_BPS_READ] = { .name = "bps_read", .key = "fipc-bps-read" },
	[XFB_BPS_WRITE] = { .name = "bps_write", .key = "fipc-bps-write" },
	[XFB_NR_RATES] = { .name = "burst_ms", .key = "fipc-burst-ms" },
	[XFB_GUEST_FILES + XFB_IOPS] = {
		.name = "guest_iops", .key = "fipc-guest-iops" },
	[XFB_GUEST_FILES + XFB_IOPS_READ] = {
		.name = "guest_iops_read", .key = "fipc-guest-iops-read" },
	[XFB_GUEST_FILES + XFB_IOPS_WRITE] = {
		.name = "guest_iops_write", .key = "fipc-guest-iops-write" },
	[XFB_GUEST_FILES + XFB_BPS] = {
		.name = "guest_bps", .key = "fipc-guest-bps" },
	[XFB_GUEST_FILES + XFB_BPS_READ] = {
		.name = "guest_bps_read", .key = "fipc-guest-bps-read" },
	[XFB_GUEST_FILES + XFB_BPS_WRITE] = {
		.name = "guest_bps_write", .key = "fipc-guest-bps-write" },
	[XFB_GUEST_FILES + XFB_NR_RATES] = {
		.name = "guest_burst_ms", .key = "fipc-guest-burst-ms" },
};

/* The set of limits file or key @i is of; @r: its rate, or XFB_NR_RATES. */
static struct xfb_limiter *xfb_limit_set(struct xfb_be *be, unsigned int i,
					 unsigned int *r)
{
	*r = i % XFB_SET_FILES;
	return i < XFB_GUEST_FILES ? &be->limits : &be->guest->limits;
}

/* Report a toolstack value that is not a limit: never ignored. */
static int xfb_limit_refuse(struct xfb_be *be, const char *key,
			    const char *s, const char *want)
{
	xenbus_dev_error(be->dev, -EINVAL, "bad %s \"%*pE\" (want %s)", key,
			 (int)min_t(size_t, strlen(s), 24), s, want);
	return -EINVAL;
}

/*
 * Read one set of limits from the keys from @first on: absent keys are
 * no limit (the burst: XFB_BURST_MS_DEFAULT).  @found (if not NULL):
 * some key was there.
 */
static int xfb_throttle_read_set(struct xfb_be *be, unsigned int first,
				 u64 *rate, u32 *ms, bool *found)
{
	unsigned int r;
	char *s;
	int err;

	*ms = XFB_BURST_MS_DEFAULT;
	if (found)
		*found = false;
	for (r = 0; r < XFB_SET_FILES; r++) {
		if (r < XFB_NR_RATES)
			rate[r] = 0;
		s = xenbus_read(XBT_NIL, be->dev->nodename,
				xfb_limits[first + r].key, NULL);
		if (IS_ERR(s))
			continue;
		if (found)
			*found = true;
		if (r == XFB_NR_RATES)
			err = xfb_burst_parse(s, ms);
		else
			err = xfb_rate_parse(s, &rate[r]);
		if (err)
			err = xfb_limit_refuse(be, xfb_limits[first + r].key, s,
					       r == XFB_NR_RATES ? "1 to 60000 ms" :
					       "none, or 1 to 2^40 a second");
		kfree(s);
		if (err)
			return err;
	}
	return 0;
}

static void xfb_throttle_apply(struct xfb_limiter *l, const u64 *rate,
			       u32 ms)
{
	u64 now = ktime_get_ns();
	unsigned int r;

	xfb_limiter_set_burst(l, ms);
	for (r = 0; r < XFB_NR_RATES; r++)
		xfb_limiter_set(l, r, rate[r], now);
}

/**
 * xfb_throttle_read() - the toolstack's limits, at each connect
 * @be: the device, be->mutex held
 *
 * The disk's keys set its limits; an absent key is no limit (the burst:
 * XFB_BURST_MS_DEFAULT).  The guest's keys, if the disk has any, set the
 * guest's total the same way (every disk of the guest shares it); a disk
 * without them leaves the total as its other disks set it.  A value that
 * is not a limit ("0", "fast", "-1") refuses the connection with the
 * error node written and logged: a limit is never silently dropped.
 *
 * Return: 0 or -EINVAL.
 */
int xfb_throttle_read(struct xfb_be *be)
{
	u64 rate[XFB_NR_RATES], grate[XFB_NR_RATES];
	bool gfound;
	u32 ms, gms;
	int err;

	err = xfb_throttle_read_set(be, 0, rate, &ms, NULL) ?:
	      xfb_throttle_read_set(be, XFB_GUEST_FILES, grate, &gms, &gfound);
	if (err)
		return err;
	xfb_throttle_apply(&be->limits, rate, ms);
	if (gfound)
		xfb_throttle_apply(&be->guest->limits, grate, gms);
	return 0;
}

/**
 * xfb_throttle() - may the request just taken be handled now
 * @chan: the channel, ring claimed by its poller
 * @msgs: the request's private copy (the oldest of @chan->rxq)
 * @nslots: its slots (taken now, or held before)
 *
 * Only the op and length of the private copy are read, to count them:
 * the request is validated after, as any other.  A write, flush or
 * discard counts as a write; only reads and writes move bytes.
 *
 * Return: false to handle it now; true if it must wait: it is held
 * (@chan->limit_held) and the channel parked for @chan->limit_us.
 */
bool xfb_throttle(struct xfb_chan *chan, const struct fipc_msg *msgs,
		  unsigned int nslots)
{
	struct xfb_limiter *ls[XFB_LIMITERS_MAX] = {
		&chan->be->limits, &chan->be->guest->limits
	};
	struct fipcblk_request r;
	u64 now, wait, bytes;

	if (!READ_ONCE(ls[0]->on) && !READ_ONCE(ls[1]->on) &&
	    !chan->limit_held)
		return false;
	memcpy(&r, msgs[0].data, sizeof(r));
	bytes = (r.op == FIPCBLK_OP_READ || r.op == FIPCBLK_OP_WRITE) ?
		r.nr_bytes : 0;
	now = ktime_get_ns();
	wait = xfb_limiters_admit(ls, XFB_LIMITERS_MAX,
				  r.op != FIPCBLK_OP_READ, bytes, now);
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

static ssize_t xfb_limit_show(struct device *d, struct device_attribute *da,
			      char *buf)
{
	struct xfb_be *be = dev_get_drvdata(d);
	struct xfb_limiter *l;
	unsigned int r;
	u64 rate;

	if (!be)
		return -ENODEV;
	l = xfb_limit_set(be, fipc_attr_idx(da), &r);
	if (r == XFB_NR_RATES)
		return sysfs_emit(buf, "%u\n", xfb_limiter_burst_ms(l));
	rate = xfb_limiter_get(l, r);
	return rate ? sysfs_emit(buf, "%llu\n", rate) :
		      sysfs_emit(buf, "none\n");
}

/* Parse and set rate @r of @l (XFB_NR_RATES: the burst); @value: as set. */
static int xfb_limit_change(struct xfb_limiter *l, unsigned int r,
			    const char *buf, u64 *value)
{
	u32 ms;
	int err;

	if (r == XFB_NR_RATES) {
		err = xfb_burst_parse(buf, &ms) ?:
		      xfb_limiter_set_burst(l, ms);
		*value = ms;
		return err;
	}
	return xfb_rate_parse(buf, value) ?:
	       xfb_limiter_set(l, r, *value, ktime_get_ns());
}

/* Write key @i into @be's directory: @value, or "none" for 0. */
static int xfb_limit_key_write(struct xfb_be *be, unsigned int i, u64 value)
{
	if (value)
		return xenbus_printf(XBT_NIL, be->dev->nodename,
				     xfb_limits[i].key, "%llu", value);
	return xenbus_write(XBT_NIL, be->dev->nodename, xfb_limits[i].key,
			    "none");
}

/*
 * A new limit applies at once (a held request asks again within
 * XFB_LIMIT_RETRY_MAX_US) and goes into our xenstore key, for the next
 * connection: a guest's total into the key of each of its disks, so the
 * disk that connects next does not bring back an older one.
 */
static ssize_t xfb_limit_store(struct device *d, struct device_attribute *da,
			       const char *buf, size_t count)
{
	struct xfb_be *be = dev_get_drvdata(d), *each;
	unsigned int i = fipc_attr_idx(da), r;
	struct xfb_limiter *l;
	u64 value;
	int err;

	if (!be)
		return -ENODEV;
	l = xfb_limit_set(be, i, &r);
	if (i < XFB_GUEST_FILES) {
		mutex_lock(&be->mutex);
		err = xfb_limit_change(l, r, buf, &value) ?:
		      xfb_limit_key_write(be, i, value);
		mutex_unlock(&be->mutex);
		return err ? err : count;
	}
	mutex_lock(&be->guest->devs_lock);
	err = xfb_limit_change(l, r, buf, &value);
	list_for_each_entry(each, &be->guest->devs, guest_node)
		err = err ?: xfb_limit_key_write(each, i, value);
	mutex_unlock(&be->guest->devs_lock);
	return err ? err : count;
}

static struct fipc_idx_attr xfb_limit_attrs[XFB_LIMIT_FILES];
static struct attribute *xfb_limit_files[XFB_LIMIT_FILES + 1];

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

	for (i = 0; i < XFB_LIMIT_FILES; i++)
		xfb_limit_files[i] = fipc_idx_attr_init(&xfb_limit_attrs[i],
							xfb_limits[i].name, i,
							xfb_limit_show,
							xfb_limit_store);
	xfb_limit_files[i] = NULL;
}
