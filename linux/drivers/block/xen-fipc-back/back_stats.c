// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: a device's counters, summed over its channels.  The
 * channels count in chan->st; a device keeps the counts of channels it
 * tore down in be->retired, so that its counters survive reconnections.
 * fipc's counters (<fipc/fipc_stats.h>) sum them for sysfs (back_sysfs.c),
 * debugfs (back_debugfs.c) and the per-guest totals (back_guest.c).
 */
#include "back.h"

/*
 * Each counter's file name, and where it is: sysfs (statistics/, an
 * ABI: docs/sysfs-abi.md) for what an administrator reads, debugfs (not
 * an ABI) for what only developers do (the poller's inner workings).
 */
static const struct fipc_stat_name xfb_stats[XFB_NR_STATS] = {
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

/* Channel @i's counters, NULL past the last; be->mutex held. */
static u64 *xfb_chan_stats(struct fipc_stats *s, unsigned int i)
{
	struct xfb_be *be = container_of(s, struct xfb_be, stats);

	return i < be->nr_chans ? be->chans[i].st : NULL;
}

const struct fipc_stats_kind xfb_stats_kind = {
	.names = xfb_stats,
	.nr = XFB_NR_STATS,
	.chan = xfb_chan_stats,
};

/**
 * xfb_stats_init() - set up a new device's counters
 * @be: the device, its mutex initialised
 */
void xfb_stats_init(struct xfb_be *be)
{
	fipc_stats_init(&be->stats, &xfb_stats_kind, &be->mutex, be->retired);
}
