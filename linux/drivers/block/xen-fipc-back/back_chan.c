// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: mapping and unmapping the frontend's channels.
 *
 * For each queue-<q> the frontend wrote the grant references of its
 * duplex ring (protocol version 3) and of its control page, and an
 * event channel.
 * The references are the frontend's word: a mapping that fails is an
 * error reported in xenstore, never a crash.  Each channel also gets a
 * pool of request slots (bounded memory whatever the frontend does), and
 * on the memshare path its staging pages (back_staging.c).
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <xen/events.h>
#include "back.h"

/*
 * The EOI is late: the poller gives it after looking at the channel
 * (xfb_poll()), so until then the port stays masked and a frontend that
 * keeps notifying costs dom0 one interrupt per poll, not one per send.
 * The poller flags it spurious only if no request at all was taken since
 * the previous EOI: a notification that raced with the poller waking up
 * on its own (a bio completion, its last look before sleeping) still
 * follows a request taken, so an honest frontend is never throttled,
 * while a storm of empty notifications gets Xen's growing EOI delay on
 * that port alone (XSA-332).  A channel with no poller is spurious.
 */
static irqreturn_t xfb_chan_interrupt(int irq, void *arg)
{
	struct xfb_chan *chan = arg;

	atomic_set(&chan->eoi_pending, 1);
	if (!fipc_poll_entry_irq(&chan->poll) &&
	    atomic_xchg(&chan->eoi_pending, 0))
		xen_irq_lateeoi(irq, XEN_EOI_FLAG_SPURIOUS);
	return IRQ_HANDLED;
}

/*
 * Read grant references the frontend wrote.  Never one of the reserved
 * entries (0 is the guest's console ring, 1 its xenstore page, granted to
 * the toolstack): a ring is always a reference the guest allocated.
 */
static int xfb_read_refs(struct xfb_be *be, unsigned int q, const char *name,
			 unsigned int n, bool indexed, grant_ref_t *refs)
{
	char key[48];
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!indexed)
			snprintf(key, sizeof(key), "queue-%u/%s", q, name);
		else
			snprintf(key, sizeof(key), "queue-%u/%s%u", q, name, i);
		if (xfb_read_fe_uint(be, key, GNTTAB_NR_RESERVED_ENTRIES,
				     U32_MAX, XFB_REQUIRED, &refs[i])) {
			xenbus_switch_state(be->dev, XenbusStateClosing);
			return -EINVAL;
		}
	}
	return 0;
}

static void xfb_chan_free(struct xfb_be *be, struct xfb_chan *chan)
{
	if (chan->irq > 0)
		unbind_from_irqhandler(chan->irq, chan);
	chan->irq = 0;
	if (chan->ring)
		xenbus_unmap_ring_vfree(be->dev, chan->ring);
	if (chan->ctrl)
		xenbus_unmap_ring_vfree(be->dev, chan->ctrl);
	chan->ring = NULL;
	chan->ctrl = NULL;
	xfb_maptrack_give(chan->ring_maps);
	chan->ring_maps = 0;
	xfb_staging_unmap(be, chan);
	xfb_nowait_chan_stop(chan);
	xfb_held_chan_stop(chan);
	gnttab_page_cache_shrink(&chan->page_cache, 0);
	if (chan->reqs) {
		kvfree(chan->reqs[0].pages);
		kvfree(chan->reqs[0].handles);
		kvfree(chan->reqs[0].bvecs);
	}
	kvfree(chan->reqs);
	kvfree(chan->map_ops);
	kvfree(chan->unmap_ops);
	kvfree(chan->unmap_pages);
	kvfree(chan->held_ops);
	kvfree(chan->held_pages);
	chan->reqs = NULL;
}

static int xfb_chan_pool(struct xfb_be *be, struct xfb_chan *chan)
{
	unsigned int n = chan->nr_reqs, m = be->max_refs, i;
	struct page **pages;
	grant_handle_t *handles;
	struct bio_vec *bvecs;

	chan->reqs = kvcalloc(n, sizeof(*chan->reqs), GFP_KERNEL);
	chan->map_ops = kvcalloc(m, sizeof(*chan->map_ops), GFP_KERNEL);
	chan->unmap_ops = kvcalloc(m, sizeof(*chan->unmap_ops), GFP_KERNEL);
	chan->unmap_pages = kvcalloc(m, sizeof(*chan->unmap_pages),
				     GFP_KERNEL);
	chan->held_ops = kvcalloc(m, sizeof(*chan->held_ops), GFP_KERNEL);
	chan->held_pages = kvcalloc(m, sizeof(*chan->held_pages), GFP_KERNEL);
	if (!chan->reqs || !chan->map_ops || !chan->unmap_ops ||
	    !chan->unmap_pages || !chan->held_ops || !chan->held_pages)
		return -ENOMEM;
	pages = kvcalloc(n * m, sizeof(*pages), GFP_KERNEL);
	handles = kvcalloc(n * m, sizeof(*handles), GFP_KERNEL);
	bvecs = kvcalloc(n * m, sizeof(*bvecs), GFP_KERNEL);
	/* reqs[0] owns the arrays, see xfb_chan_free(). */
	chan->reqs[0].pages = pages;
	chan->reqs[0].handles = handles;
	chan->reqs[0].bvecs = bvecs;
	if (!pages || !handles || !bvecs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct xfb_req *req = &chan->reqs[i];

		req->chan = chan;
		req->pages = pages + i * m;
		req->handles = handles + i * m;
		req->bvecs = bvecs + i * m;
		list_add_tail(&req->node, &chan->free_reqs);
	}
	return xfb_pages_prefill(chan);
}

static int xfb_chan_map(struct xfb_be *be, struct xfb_chan *chan,
			unsigned int order)
{
	struct xenbus_device *dev = be->dev;
	unsigned int pages = 1u << order, maps;
	u32 evtchn;
	grant_ref_t refs[XFB_MAX_RING_PAGES];
	void *addr;
	char key[32];
	int err;

	err = xfb_read_refs(be, chan->index, "req-ring-ref", pages, true, refs);
	if (err)
		return err;
	/* The ring and the control page, counted before they are mapped. */
	maps = pages + 1;
	if (!xfb_maptrack_take(maps)) {
		xenbus_dev_fatal(dev, -ENOSPC,
				 "queue %u: mapping %u ring pages would pass the backend's max_grant_mappings (%lu of %lu mapped)",
				 chan->index, maps, xfb_maptrack_used(),
				 READ_ONCE(xfb_max_grant_mappings));
		return -ENOSPC;
	}
	chan->ring_maps = maps;
	err = xenbus_map_ring_valloc(dev, refs, pages, &chan->ring);
	if (err)
		return err;
	err = xfb_read_refs(be, chan->index, "ctrl-ring-ref", 1, false, refs);
	if (err)
		return err;
	err = xenbus_map_ring_valloc(dev, refs, 1, &addr);
	if (err)
		return err;
	chan->ctrl = addr;

	/* We serve the duplex ring: responses go over requests. */
	err = fipc_duplex_server_init(&chan->ds, chan->ring, order);
	if (err)
		return err;

	snprintf(key, sizeof(key), "queue-%u/event-channel", chan->index);
	if (xfb_read_fe_uint(be, key, 1, S32_MAX, XFB_REQUIRED, &evtchn)) {
		xenbus_switch_state(dev, XenbusStateClosing);
		return -EINVAL;
	}
	err = bind_interdomain_evtchn_to_irqhandler_lateeoi(dev, evtchn,
							    xfb_chan_interrupt,
							    0, XFB_NAME, chan);
	if (err <= 0) {
		xenbus_dev_fatal(dev, err, "binding event channel %u", evtchn);
		return err ? err : -EINVAL;
	}
	chan->irq = err;

	chan->nr_reqs = clamp(xfb_max_inflight, 1u, FIPC_RING_SLOTS(order));
	err = xfb_chan_pool(be, chan);
	if (err) {
		xenbus_dev_fatal(dev, err, "allocating the request pool");
		return err;
	}
	return be->lim.staging ? xfb_staging_map(be, chan) : 0;
}

/**
 * xfb_chans_map() - map every channel, then publish them in be->chans
 * @be: the device, with its block device open and no channels, connecting
 *	(be->connecting) with be->mutex not held
 * @nr: number of channels the frontend set up
 * @order: their ring order
 *
 * The channels are built aside, without be->mutex (mapping them takes
 * tens of milliseconds: xenwatch would wait that long for the mutex),
 * and only a complete set is published, under be->mutex, for the readers
 * of be->chans (sysfs).  Nobody polls them yet: xfb_chans_start().
 *
 * Return: 0 or a negative errno (reported, nothing left mapped).
 */
int xfb_chans_map(struct xfb_be *be, unsigned int nr, unsigned int order)
{
	struct xfb_chan *chans;
	unsigned int i, n = 0;
	int err = 0;

	chans = kcalloc(nr, sizeof(*chans), GFP_KERNEL);
	if (!chans)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		struct xfb_chan *chan = &chans[i];

		chan->be = be;
		chan->index = i;
		/* The ring is waited on by xfb_poll_ops.wait. */
		fipc_poll_entry_init(&chan->poll);
		fipc_poll_entry_set_weight(&chan->poll, be->weight);
		INIT_LIST_HEAD(&chan->free_reqs);
		init_llist_head(&chan->done);
		atomic_set(&chan->inflight, 0);
		atomic_set(&chan->eoi_pending, 0);
		gnttab_page_cache_init(&chan->page_cache);
		xfb_io_chan_init(chan);
		xfb_nowait_chan_init(chan);
		xfb_held_chan_init(chan);
		n = i + 1;
		err = xfb_chan_map(be, chan, order);
		if (err)
			break;
	}
	if (err) {
		for (i = 0; i < n; i++)
			xfb_chan_free(be, &chans[i]);
		kfree(chans);
		return err;
	}
	mutex_lock(&be->mutex);
	be->ring_order = order;
	be->chans = chans;
	be->nr_chans = nr;
	mutex_unlock(&be->mutex);
	return 0;
}

/**
 * xfb_chans_start() - hand every mapped channel to a poller
 * @be: the device, its channels mapped (xfb_chans_map())
 */
void xfb_chans_start(struct xfb_be *be)
{
	unsigned int i;

	for (i = 0; i < be->nr_chans; i++)
		fipc_poller_attach(&xfb_pollers, &be->chans[i].poll,
				   be->poller_cpus);
}

/**
 * xfb_chans_stop() - take every channel away from its poller
 * @be: the device, with channels
 *
 * On return no request is taken any more; bios in flight go on.
 */
void xfb_chans_stop(struct xfb_be *be)
{
	unsigned int i;

	for (i = 0; i < be->nr_chans; i++)
		fipc_poller_detach(&be->chans[i].poll);
}

/**
 * xfb_chans_drain() - wait for the bios of stopped channels, unmap them
 * @be: the device, its channels stopped (xfb_chans_stop())
 *
 * May wait as long as the device takes; needs no lock, as long as nobody
 * frees the channels meanwhile.
 */
void xfb_chans_drain(struct xfb_be *be)
{
	unsigned int i;

	for (i = 0; i < be->nr_chans; i++)
		xfb_chan_drain(&be->chans[i]);
}

/**
 * xfb_chans_free() - unmap and free drained channels
 * @be: the device, its channels drained (xfb_chans_drain()) or never
 *	started, be->mutex not held
 *
 * The channels leave be->chans under be->mutex, their counters kept, and
 * are unmapped without it: their staging pages take long to unmap, and
 * xenwatch would wait that long for the mutex.  On return nothing of the
 * frontend's rings is mapped.
 */
void xfb_chans_free(struct xfb_be *be)
{
	struct xfb_chan *chans;
	unsigned int i, nr;

	mutex_lock(&be->mutex);
	fipc_stats_retire(&be->stats);
	chans = be->chans;
	nr = be->nr_chans;
	be->chans = NULL;
	be->nr_chans = 0;
	mutex_unlock(&be->mutex);
	for (i = 0; i < nr; i++)
		xfb_chan_free(be, &chans[i]);
	kfree(chans);
}
