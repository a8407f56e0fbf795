// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: the developers' counters, in debugfs (not an ABI):
 * /sys/kernel/debug/xen-fipc-back/fipcblk-<domid>-<devid>/counters, one
 * "name value" line per counter that xfb_stats[] marks debug: how the
 * poller goes about its work (polls, parking, spurious interrupts,
 * hand-offs to workers), which an administrator does not need; and
 * .../channels, each channel's state for a stall's post-mortem: what it
 * waits on, and its requests taken whose bio has not ended since.
 */
#include <linux/debugfs.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/seq_file.h>
#include "back.h"

static struct dentry *xfb_dbg_root;

/* Requests listed per channel, at most. */
#define XFB_DBG_REQS	16

/*
 * A request taken and not ended since (its bio's end stamps t_done
 * after t_seen).  Read racily: the poller and completions do not wait
 * for a debugging read, so a line may be a moment out of date.
 */
static void xfb_chan_show(struct seq_file *m, struct xfb_chan *chan, u64 now)
{
	unsigned int i, open = 0;
	u64 oldest = 0;

	seq_printf(m, "queue %u: inflight %d claimed %d broken %d done %s again %s held %s limit_held %u queued %u grant_wait %d page_wait %d eoi_pending %d taken %llu\n",
		   chan->index, atomic_read(&chan->inflight),
		   test_bit(XFB_CLAIMED, &chan->claim), READ_ONCE(chan->broken),
		   llist_empty(&chan->done) ? "empty" : "waiting",
		   llist_empty(&chan->again) ? "empty" : "waiting",
		   list_empty(&chan->held) ? "empty" : "waiting",
		   READ_ONCE(chan->limit_held), xfb_rxq_count(&chan->rxq),
		   READ_ONCE(chan->grant_wait),
		   READ_ONCE(chan->page_wait), atomic_read(&chan->eoi_pending),
		   READ_ONCE(chan->taken));
	for (i = 0; i < chan->nr_reqs; i++) {
		struct xfb_req *req = &chan->reqs[i];
		u64 seen = READ_ONCE(req->t_seen);

		if (!seen || READ_ONCE(req->t_done) >= seen)
			continue;
		oldest = max(oldest, now - seen);
		if (open++ < XFB_DBG_REQS)
			seq_printf(m, "  req %u: id %llu op %u sector %llu bytes %u refs %u for %llu ms\n",
				   i, req->id, req->op, (u64)req->sector,
				   req->nr_bytes, req->nrefs,
				   div_u64(now - seen, NSEC_PER_MSEC));
	}
	seq_printf(m, "  %u taken not ended, the oldest for %llu ms\n", open,
		   div_u64(oldest, NSEC_PER_MSEC));
}

static int xfb_channels_show(struct seq_file *m, void *unused)
{
	struct xfb_be *be = m->private;
	u64 now = ktime_get_ns();
	unsigned int i;

	mutex_lock(&be->mutex);
	for (i = 0; i < be->nr_chans; i++)
		xfb_chan_show(m, &be->chans[i], now);
	mutex_unlock(&be->mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xfb_channels);

/**
 * xfb_debugfs_init() - create our debugfs directory
 */
void xfb_debugfs_init(void)
{
	xfb_dbg_root = debugfs_create_dir("xen-fipc-back", NULL);
}

/**
 * xfb_debugfs_exit() - remove it, every device's gone already
 */
void xfb_debugfs_exit(void)
{
	debugfs_remove_recursive(xfb_dbg_root);
	xfb_dbg_root = NULL;
}

/**
 * xfb_debugfs_add() - a new device's directory and counters
 * @be: the device, its mutex initialised
 */
void xfb_debugfs_add(struct xfb_be *be)
{
	be->dbg = debugfs_create_dir(dev_name(&be->dev->dev), xfb_dbg_root);
	debugfs_create_file("counters", 0400, be->dbg, &be->stats,
			    fipc_stats_fops);
	debugfs_create_file("channels", 0400, be->dbg, be,
			    &xfb_channels_fops);
}

/**
 * xfb_debugfs_remove() - remove a device's directory
 * @be: the device, be->mutex not held (a read under way ends first)
 */
void xfb_debugfs_remove(struct xfb_be *be)
{
	debugfs_remove_recursive(be->dbg);
	be->dbg = NULL;
}
