// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: numbers read from xenstore for a connection: the
 * frontend's, checked against their bounds (the connect path, the
 * channels, memshare and staging read them), and the toolstack's cap on
 * the channels offered.
 */
#include <linux/slab.h>
#include <xen/xenbus.h>
#include "back.h"

/*
 * Channels offered: max_queues, or the toolstack's fipc-max-queues if
 * lower.  Not capped by our own vCPUs (blkback is): a channel costs no
 * thread here, the pollers serve any number of them, and the guest's
 * parallelism is what a channel per guest vCPU is for.
 */
unsigned int xfb_queues_offered(struct xfb_be *be)
{
	unsigned int n = xfb_max_queues;
	unsigned int cap = xenbus_read_unsigned(be->dev->nodename,
						"fipc-max-queues", 0);

	if (cap)
		n = min(n, cap);
	return clamp(n, 1u, 256u);
}

/**
 * xfb_read_fe_uint() - read a number the frontend wrote
 * @be: the device
 * @key: the key, in the frontend's directory
 * @min: smallest value allowed
 * @max: largest value allowed
 * @dflt: the value when the key is absent, or XFB_REQUIRED
 * @val: set to the value
 *
 * The value must be a plain decimal number in [@min, @max]
 * (xfb_parse_uint()): "-1", "two" or "4294967297" are refused, never
 * wrapped or defaulted.  A refusal is reported in xenstore (the error
 * node) and the kernel log with the value, escaped and cut short.
 *
 * Return: 0, -ENOENT (absent and required), -EINVAL or -ERANGE.
 */
int xfb_read_fe_uint(struct xfb_be *be, const char *key, u32 min, u32 max,
		     s64 dflt, u32 *val)
{
	struct xenbus_device *dev = be->dev;
	char *s;
	int err;

	s = xenbus_read(XBT_NIL, dev->otherend, key, NULL);
	if (IS_ERR(s)) {
		if (dflt != XFB_REQUIRED) {
			*val = dflt;
			return 0;
		}
		xenbus_dev_error(dev, -ENOENT, "reading %s/%s", dev->otherend,
				 key);
		return -ENOENT;
	}
	err = xfb_parse_uint(s, min, max, val);
	if (err)
		xenbus_dev_error(dev, err, "bad %s \"%*pE\" (want %u to %u)",
				 key, (int)min_t(size_t, strlen(s), 24), s,
				 min, max);
	kfree(s);
	return err;
}
