// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: a device's counters, summed over its channels.  The
 * channels count in chan->st; a device keeps the counts of channels it
 * tore down in be->retired, so that its counters survive reconnections.
 * Read by sysfs (back_sysfs.c), debugfs (back_debugfs.c) and the
 * per-guest totals (back_guest.c).
 */
#include "back.h"

/*
 * Each counter's file name, and where it is: sysfs (statistics/, an
 * ABI: docs/sysfs-abi.md) for what an administrator reads, debugfs (not
 * an ABI) for what only developers do (the poller's inner workings).
 */
static const struct {
	const char *name;
	bool debug;
} xfb_stats[XFB_NR_STATS] = {
	[XFB_OO_REQ] = { "oo_req" },
	[XFB_RD_REQ] = { "rd_req" },
	[XFB_WR_REQ] = { "wr_req" },
	[XFB_F_REQ] = { "f_req" },
	[XFB_DS_REQ] = { "ds_req" },
	[XFB_RD_SECT] = { "rd_sect" },
	[XFB_WR_SECT] = { "wr_sect" },
	[XFB_POLL_LOOPS] = { "poll_loops", true },
	[XFB_EMPTY_POLLS] = { "empty_polls", true },
	[XFB_NOTIFY_SENT] = { "notify_sent" },
	[XFB_GRANT_OPS] = { "grant_ops" },
	[XFB_HYPERCALLS] = { "hypercalls" },
	[XFB_INVALID_REQ] = { "invalid_req" },
	[XFB_GRANT_ERRORS] = { "grant_errors" },
	[XFB_IO_ERRORS] = { "io_errors" },
	[XFB_PROTO_ERRORS] = { "proto_errors" },
	[XFB_STAGED_REQ] = { "staged_req" },
	[XFB_STAGED_GRANT_REQ] = { "staged_grant_req" },
	[XFB_PARKED] = { "parked", true },
	[XFB_GRANT_WAITS] = { "grant_waits" },
	[XFB_SPURIOUS_IRQS] = { "spurious_irqs", true },
	[XFB_SUBMIT_AGAIN] = { "submit_again", true },
	[XFB_PAGE_WAITS] = { "page_waits", true },
	[XFB_END_ANSWERS] = { "end_answers", true },
	[XFB_RECYCLED_HELD] = { "recycled_held" },
	[XFB_HELD_UNMAPS] = { "held_unmaps" },
	[XFB_THROTTLED_REQ] = { "throttled_req" },
	[XFB_THROTTLED_US] = { "throttled_us" },
};

/**
 * xfb_stat_name() - a counter's file name
 * @idx: the counter
 *
 * Return: the name, in sysfs's statistics/ or debugfs's counters.
 */
const char *xfb_stat_name(enum xfb_stat idx)
{
	return xfb_stats[idx].name;
}

/**
 * xfb_stat_debug() - is a counter the developers' (debugfs), not sysfs's
 * @idx: the counter
 *
 * Return: true for debugfs.
 */
bool xfb_stat_debug(enum xfb_stat idx)
{
	return xfb_stats[idx].debug;
}

/**
 * xfb_stats_retire() - keep the counters of channels about to be freed
 * @be: the device, its channels detached from the pollers
 */
void xfb_stats_retire(struct xfb_be *be)
{
	unsigned int i, k;

	for (i = 0; i < be->nr_chans; i++) {
		for (k = 0; k < XFB_NR_STATS; k++)
			be->retired[k] += be->chans[i].st[k];
		memset(be->chans[i].st, 0, sizeof(be->chans[i].st));
	}
}

/**
 * xfb_be_stat() - a device's counter, its torn-down channels included
 * @be: the device, its mutex held
 * @idx: the counter
 *
 * Return: the sum.
 */
u64 xfb_be_stat(struct xfb_be *be, enum xfb_stat idx)
{
	unsigned int i;
	u64 sum = be->retired[idx];

	for (i = 0; i < be->nr_chans; i++)
		sum += READ_ONCE(be->chans[i].st[idx]);
	return sum;
}
