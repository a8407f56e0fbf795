// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: what one guest may hold of the backend domain's shared
 * resources, whatever number of disks and channels it has.
 *
 * Each grant a request maps takes one of the backend domain's grant
 * mappings (Xen's maptrack: gnttab_max_maptrack_frames x 256 entries for
 * the whole domain, 262144 by default), which every other guest's
 * blkback, netback and fipc channels need too.  Left alone, one guest
 * with 8 channels of 128 requests of 257 pages per disk could hold them
 * all.  So the grants a guest has mapped at once are counted here, for
 * all of its devices together, and a channel whose next request could
 * pass max_guest_grants waits (back_io.c) until the guest's own requests
 * end; other guests are not held up.
 *
 * The staging pages a guest's memshare channels keep mapped for their
 * connection (back_staging.c) take grant mappings too, for as long as
 * they are connected: they are counted here against
 * max_guest_staging_pages.
 *
 * Connecting and disconnecting cost the backend domain work (mapping and
 * unmapping rings, staging pages and, on the memshare path, all of the
 * guest's memory: seconds for a large guest), and a guest decides how
 * often it reconnects.  So the time each took is kept here, and the
 * guest's next connect, on any of its devices, waits as long as the
 * last connect or disconnect took (XFB_CONNECT_DELAY_MAX at most): a
 * guest that cycles its connections keeps the backend busy half of the
 * time at most.
 *
 * The service a guest gets, all its devices together (requests and
 * sectors, statistics/guest_*), is summed here when read: each device
 * keeps its own counters, and a device that goes leaves them to its
 * guest's totals.
 */
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include "back.h"

static DEFINE_MUTEX(xfb_guests_mutex);
static LIST_HEAD(xfb_guests);

/**
 * xfb_guest_get() - the accounting of a guest, shared by its devices
 * @domid: the guest
 *
 * Return: the guest's accounting (referenced; xfb_guest_put()), or NULL
 * if out of memory.
 */
struct xfb_guest *xfb_guest_get(domid_t domid)
{
	struct xfb_guest *g;

	mutex_lock(&xfb_guests_mutex);
	list_for_each_entry(g, &xfb_guests, node) {
		if (g->domid == domid) {
			refcount_inc(&g->users);
			goto out;
		}
	}
	g = kzalloc_obj(*g, GFP_KERNEL);
	if (g) {
		g->domid = domid;
		refcount_set(&g->users, 1);
		g->connect_after = jiffies;
		atomic_set(&g->grants, 0);
		atomic_set(&g->grants_peak, 0);
		mutex_init(&g->devs_lock);
		INIT_LIST_HEAD(&g->devs);
		xfb_limiter_init(&g->limits);
		list_add(&g->node, &xfb_guests);
	}
out:
	mutex_unlock(&xfb_guests_mutex);
	return g;
}

/**
 * xfb_guest_put() - drop a device's reference to its guest's accounting
 * @g: the accounting, or NULL
 */
void xfb_guest_put(struct xfb_guest *g)
{
	if (!g || !refcount_dec_and_mutex_lock(&g->users, &xfb_guests_mutex))
		return;
	list_del(&g->node);
	mutex_unlock(&xfb_guests_mutex);
	/* Grants whose unmap failed stay charged: they are still mapped. */
	if (atomic_read(&g->grants))
		pr_warn(XFB_NAME ": domain %u leaves %d grant mappings behind\n",
			g->domid, atomic_read(&g->grants));
	kfree(g);
}

/**
 * xfb_guest_grants_room() - may a channel take a request of @nrefs grants
 * @g: the guest's accounting
 * @nrefs: grants the next request may map at most
 *
 * Checked before a request is taken, with the channel's largest request:
 * channels of the guest on other pollers may pass it at the same time,
 * so the count can exceed max_guest_grants by at most one largest
 * request per poller.
 *
 * Return: true if the guest's mapped grants plus @nrefs stay within
 * max_guest_grants.
 */
bool xfb_guest_grants_room(const struct xfb_guest *g, unsigned int nrefs)
{
	int held = atomic_read(&g->grants);

	/* One request always fits, so a low setting cannot stall a guest. */
	return !held || held + nrefs <= READ_ONCE(xfb_max_guest_grants);
}

/**
 * xfb_guest_grants_charge() - count @nrefs grants about to be mapped
 * @g: the guest's accounting
 * @nrefs: grants of the request
 *
 * Also keeps the peak (statistics/guest_grants_peak, reset by writing 0).
 */
void xfb_guest_grants_charge(struct xfb_guest *g, unsigned int nrefs)
{
	int now = atomic_add_return(nrefs, &g->grants);
	int peak = atomic_read(&g->grants_peak);

	while (now > peak && !atomic_try_cmpxchg(&g->grants_peak, &peak, now))
		;
}

/**
 * xfb_guest_staging_charge() - count @n staging pages to keep mapped
 * @g: the guest's accounting
 * @n: the staging pages of one channel
 *
 * Return: true if counted (the guest's kept staging pages stay within
 * max_guest_staging_pages), false if they would pass it: nothing counted.
 */
bool xfb_guest_staging_charge(struct xfb_guest *g, unsigned int n)
{
	bool ok;

	mutex_lock(&xfb_guests_mutex);
	ok = g->staging + n <= READ_ONCE(xfb_max_guest_staging_pages);
	if (ok)
		g->staging += n;
	mutex_unlock(&xfb_guests_mutex);
	return ok;
}

/**
 * xfb_guest_staging_uncharge() - staging pages no longer kept mapped
 * @g: the guest's accounting
 * @n: what xfb_guest_staging_charge() counted
 */
void xfb_guest_staging_uncharge(struct xfb_guest *g, unsigned int n)
{
	mutex_lock(&xfb_guests_mutex);
	g->staging -= min(n, g->staging);
	mutex_unlock(&xfb_guests_mutex);
}

/**
 * xfb_guest_connect_delay() - how long a guest's next connect must wait
 * @g: the guest's accounting
 *
 * Return: jiffies until the time xfb_guest_connect_cost() set, or 0.
 */
unsigned long xfb_guest_connect_delay(struct xfb_guest *g)
{
	unsigned long now = jiffies, after;

	mutex_lock(&xfb_guests_mutex);
	after = g->connect_after;
	mutex_unlock(&xfb_guests_mutex);
	return time_after(after, now) ? after - now : 0;
}

/**
 * xfb_guest_connect_cost() - a connect or disconnect of the guest's ended
 * @g: the guest's accounting
 * @cost: jiffies it took
 *
 * The guest's next connect waits at least @cost from now; connects of
 * several devices at once wait for the most costly.
 */
void xfb_guest_connect_cost(struct xfb_guest *g, unsigned long cost)
{
	unsigned long after = jiffies + min(cost, XFB_CONNECT_DELAY_MAX);

	mutex_lock(&xfb_guests_mutex);
	if (time_after(after, g->connect_after))
		g->connect_after = after;
	mutex_unlock(&xfb_guests_mutex);
}

/**
 * xfb_guest_add_dev() - count a new device in its guest's service totals
 * @be: the device, @be->guest set; no lock held
 */
void xfb_guest_add_dev(struct xfb_be *be)
{
	mutex_lock(&be->guest->devs_lock);
	list_add_tail(&be->guest_node, &be->guest->devs);
	mutex_unlock(&be->guest->devs_lock);
}

/**
 * xfb_guest_del_dev() - leave a device's counters to its guest's totals
 * @be: the device, its channels freed (their counters in @be->retired),
 *	no lock held; one that was never added is ignored
 */
void xfb_guest_del_dev(struct xfb_be *be)
{
	struct xfb_guest *g = be->guest;
	unsigned int k;

	if (!g || list_empty(&be->guest_node))
		return;
	mutex_lock(&g->devs_lock);
	for (k = 0; k < XFB_NR_STATS; k++)
		g->retired[k] += be->retired[k];
	list_del_init(&be->guest_node);
	mutex_unlock(&g->devs_lock);
}

/**
 * xfb_guest_stat() - counters summed over all of a guest's devices
 * @g: the guest's accounting
 * @idx: the counters to add up
 * @n: how many
 * @devs: set to the number of devices the guest has now
 *
 * Takes each device's mutex in turn, under the guest's @devs_lock.
 *
 * Return: the sum, devices already gone included.
 */
u64 xfb_guest_stat(struct xfb_guest *g, const enum xfb_stat *idx,
		   unsigned int n, unsigned int *devs)
{
	struct xfb_be *be;
	unsigned int k;
	u64 sum = 0;

	*devs = 0;
	mutex_lock(&g->devs_lock);
	for (k = 0; k < n; k++)
		sum += g->retired[idx[k]];
	list_for_each_entry(be, &g->devs, guest_node) {
		mutex_lock(&be->mutex);
		for (k = 0; k < n; k++)
			sum += fipc_stats_sum(&be->stats, idx[k]);
		mutex_unlock(&be->mutex);
		(*devs)++;
	}
	mutex_unlock(&g->devs_lock);
	return sum;
}
