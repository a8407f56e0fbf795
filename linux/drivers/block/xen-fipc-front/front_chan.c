// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: channel set-up and tear-down.
 *
 * Each channel owns one duplex ring of 2^order pages (protocol version 3)
 * and one control page, all allocated here and granted to the backend,
 * an event channel used only to wake a sleeping poller, and on the
 * memshare path its staging pages (front_staging.c).  A channel the
 * backend broke is marked here too (xff_protocol_error(), moved from
 * front_complete.c: the submit, completion and test-injection paths all
 * call it, and this file calls none of them).
 */
#include <linux/slab.h>
#include <xen/events.h>
#include <xen/page.h>
#include "front.h"

/*
 * The backend answered while our poller slept: the library has the
 * answers taken here if that is all there is (xff_irq_take()), else
 * wakes the poller.
 *
 * An honest backend notifies only after publishing a response, so since
 * the last notification a response was taken (by the poller or here) or
 * one is waiting.  A notification with neither, or on a broken channel,
 * is flagged spurious: the kernel's late EOI then holds the next event
 * back (from the second such one in a row on, a jiffy or more), so a
 * backend storming events gets about one a jiffy handled instead of as
 * many as it sends (blkfront flags an event with no response the same
 * way).  A notification that raced with the poller taking its response
 * is still one that had a response.
 */
static irqreturn_t xff_chan_interrupt(int irq, void *arg)
{
	struct xff_chan *chan = arg;
	unsigned int eoi = 0;
	u64 done;

	atomic64_inc(&chan->notify_recv);
	if (!fipc_poll_entry_irq(&chan->poll)) {
		eoi = XEN_EOI_FLAG_SPURIOUS;
	} else {
		done = READ_ONCE(chan->st[XFF_COMPLETIONS]);
		if (READ_ONCE(chan->broken) ||
		    (done == chan->irq_seen_done && !xff_ring_pending(chan)))
			eoi = XEN_EOI_FLAG_SPURIOUS;
		chan->irq_seen_done = done;
	}
	if (eoi)
		atomic64_inc(&chan->notify_spurious);
	xen_irq_lateeoi(irq, eoi);
	return IRQ_HANDLED;
}

/**
 * xff_chan_notify() - wake the backend's poller if it sleeps
 * @chan: the channel, with @chan->tx_lock held
 *
 * Called after publishing requests.  The full barrier orders our ring
 * stores before the read of back_sleeping; the backend orders its store
 * of back_sleeping before its last look at the ring, so either it sees
 * our request or we see it sleeping.
 */
void xff_chan_notify(struct xff_chan *chan)
{
	virt_mb();	/* ring stores before the back_sleeping load */
	if (READ_ONCE(chan->ctrl->back_sleeping)) {
		notify_remote_via_irq(chan->irq);
		chan->st[XFF_NOTIFY_SENT]++;
	}
}

/**
 * xff_protocol_error() - the backend broke the protocol on a channel
 * @chan: the channel
 * @why: for the log
 *
 * Marks the channel broken and has the disk disconnect (from a work item:
 * callers may be in the poller or under locks).
 */
void xff_protocol_error(struct xff_chan *chan, const char *why)
{
	struct xff_info *info = chan->info;

	if (!chan->broken) {
		chan->broken = true;
		dev_err_ratelimited(&info->xbdev->dev,
				    "queue %u: backend protocol error: %s; disconnecting\n",
				    chan->index, why);
	}
	schedule_work(&info->error_work);
}

static void xff_chan_free(struct xff_chan *chan)
{
	unsigned int pages = 1u << chan->info->ring_order;
	void *ctrl = chan->ctrl;

	xff_staging_teardown(chan);
	if (chan->irq > 0)
		unbind_from_irqhandler(chan->irq, chan);
	else if (chan->evtchn)
		xenbus_free_evtchn(chan->info->xbdev, chan->evtchn);
	chan->irq = 0;
	chan->evtchn = 0;
	xenbus_teardown_ring(&chan->ring, pages, chan->ring_refs);
	xenbus_teardown_ring(&ctrl, 1, &chan->ctrl_ref);
	chan->ctrl = NULL;
}

static int xff_chan_alloc(struct xff_info *info, struct xff_chan *chan)
{
	struct xenbus_device *dev = info->xbdev;
	unsigned int pages = 1u << info->ring_order;
	void *ctrl = NULL;
	int err;

	/* Nothing granted yet. */
	chan->ctrl_ref = INVALID_GRANT_REF;
	err = xenbus_setup_ring(dev, GFP_KERNEL, &chan->ring, pages,
				chan->ring_refs);
	if (err)
		return err;
	err = xenbus_setup_ring(dev, GFP_KERNEL, &ctrl, 1, &chan->ctrl_ref);
	if (err)
		goto fail;
	chan->ctrl = ctrl;

	/* Zeroed pages are an empty ring; both sides start at position 0. */
	err = fipc_duplex_client_init(&chan->dc, chan->ring, info->ring_order);
	if (err)
		goto fail;

	err = xenbus_alloc_evtchn(dev, &chan->evtchn);
	if (err)
		goto fail;
	err = bind_evtchn_to_irqhandler_lateeoi(chan->evtchn,
						xff_chan_interrupt, 0,
						XFF_NAME, chan);
	if (err <= 0) {
		xenbus_dev_fatal(dev, err, "binding event channel");
		err = err ? err : -EINVAL;
		goto fail;
	}
	chan->irq = err;
	if (info->ms || info->grant_staging)
		xff_staging_setup(info, chan);
	return 0;

fail:
	xff_chan_free(chan);
	return err;
}

/**
 * xff_chans_setup() - allocate, grant and start polling the channels
 * @info: the disk, with no channels
 * @nr_chans: number of channels
 * @order: ring order
 *
 * Return: 0 or a negative errno (nothing left allocated).
 */
int xff_chans_setup(struct xff_info *info, unsigned int nr_chans,
		    unsigned int order)
{
	unsigned int i;
	int err = 0;

	info->chans = kcalloc(nr_chans, sizeof(*info->chans), GFP_KERNEL);
	if (!info->chans)
		return -ENOMEM;
	info->ring_order = order;
	for (i = 0; i < nr_chans; i++) {
		struct xff_chan *chan = &info->chans[i];

		chan->info = info;
		chan->index = i;
		spin_lock_init(&chan->tx_lock);
		atomic_set(&chan->inflight, 0);
		/* The ring is waited on by xff_poll_ops.wait. */
		fipc_poll_entry_init(&chan->poll);
		atomic64_set(&chan->notify_recv, 0);
		atomic64_set(&chan->notify_spurious, 0);
		err = xff_chan_alloc(info, chan);
		if (err)
			break;
		info->nr_chans = i + 1;
	}
	if (err) {
		xff_chans_teardown(info);
		return err;
	}
	for (i = 0; i < nr_chans; i++)
		fipc_poller_attach(&xff_pollers, &info->chans[i].poll, NULL);
	return 0;
}

/**
 * xff_chans_quiesce() - nobody takes responses of the disk's channels
 * @info: the disk
 *
 * Detaches every channel from its poller and waits for event handlers
 * already taking responses (fipc_poll_entry_irq() leaves a detached channel
 * alone).  On return, requests in flight are ours to put back.
 */
void xff_chans_quiesce(struct xff_info *info)
{
	unsigned int i;

	for (i = 0; i < info->nr_chans; i++) {
		fipc_poller_detach(&info->chans[i].poll);
		if (info->chans[i].irq > 0)
			synchronize_irq(info->chans[i].irq);
	}
}

/**
 * xff_chans_teardown() - stop polling and free every channel
 * @info: the disk
 *
 * Requests still in flight must have been requeued or failed, and the
 * backend should have unmapped the rings (a ring page still mapped is
 * freed only when the backend lets it go, see gnttab_end_foreign_access).
 */
void xff_chans_teardown(struct xff_info *info)
{
	unsigned int i;

	if (!info->chans)
		return;
	xff_chans_quiesce(info);
	xff_stats_retire(info);
	for (i = 0; i < info->nr_chans; i++)
		xff_chan_free(&info->chans[i]);
	kfree(info->chans);
	info->chans = NULL;
	info->nr_chans = 0;
}

static int xff_chan_write_keys(struct xenbus_transaction xbt,
			       struct xff_info *info, struct xff_chan *chan)
{
	const char *node = info->xbdev->nodename;
	unsigned int pages = 1u << info->ring_order;
	char key[48];
	unsigned int i;
	int err;

	for (i = 0; i < pages; i++) {
		snprintf(key, sizeof(key), "queue-%u/req-ring-ref%u",
			 chan->index, i);
		err = xenbus_printf(xbt, node, key, "%u", chan->ring_refs[i]);
		if (err)
			return err;
	}
	snprintf(key, sizeof(key), "queue-%u/ctrl-ring-ref", chan->index);
	err = xenbus_printf(xbt, node, key, "%u", chan->ctrl_ref);
	if (err)
		return err;
	snprintf(key, sizeof(key), "queue-%u/event-channel", chan->index);
	err = xenbus_printf(xbt, node, key, "%u", chan->evtchn);
	if (err)
		return err;
	return xff_staging_write_keys(xbt, info, chan);
}

/**
 * xff_chans_publish() - write the negotiated values and channel keys
 * @info: the disk, with its channels set up
 * @protocol: the protocol version chosen
 *
 * Return: 0 or a negative errno (reported with xenbus_dev_fatal()).
 */
int xff_chans_publish(struct xff_info *info, unsigned int protocol)
{
	struct xenbus_device *dev = info->xbdev;
	struct xenbus_transaction xbt;
	const char *what = "starting transaction";
	unsigned int i;
	int err;

again:
	err = xenbus_transaction_start(&xbt);
	if (err)
		goto fatal;
	what = "writing fipc-protocol";
	err = xenbus_printf(xbt, dev->nodename, "fipc-protocol", "%u",
			    protocol);
	if (err)
		goto abort;
	what = "writing multi-queue-num-queues";
	err = xenbus_printf(xbt, dev->nodename, "multi-queue-num-queues",
			    "%u", info->nr_chans);
	if (err)
		goto abort;
	what = "writing fipc-ring-order";
	err = xenbus_printf(xbt, dev->nodename, "fipc-ring-order", "%u",
			    info->ring_order);
	if (err)
		goto abort;
	what = "writing fipc-data-path";
	err = xenbus_printf(xbt, dev->nodename, "fipc-data-path", "%s",
			    info->ms ? "memshare" : "grant");
	if (err)
		goto abort;
	if (info->ms) {
		what = "writing the memshare table";
		err = xenbus_printf(xbt, dev->nodename,
				    "fipc-memshare-dir-ref", "%u",
				    info->ms->dir_ref) ?:
		      xenbus_printf(xbt, dev->nodename, "fipc-memshare-pfns",
				    "%lu", info->ms->npfns) ?:
		      xenbus_printf(xbt, dev->nodename,
				    "fipc-memshare-writable", "%u",
				    info->ms->writable);
		if (err)
			goto abort;
	}
	what = "writing queue keys";
	for (i = 0; i < info->nr_chans; i++) {
		err = xff_chan_write_keys(xbt, info, &info->chans[i]);
		if (err)
			goto abort;
	}
	err = xenbus_transaction_end(xbt, 0);
	if (err == -EAGAIN)
		goto again;
	what = "completing transaction";
	if (err)
		goto fatal;
	return 0;

abort:
	xenbus_transaction_end(xbt, 1);
fatal:
	xenbus_dev_fatal(dev, err, "%s", what);
	return err;
}
