// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: hear of every gfn whose frame an auto-translated guest
 * gives back to Xen or takes from it.
 *
 * In a PVH or HVM guest a pfn is the guest frame number (gfn) the
 * backend maps, and nothing at request time tells whether the frame
 * behind a gfn is still the one the backend mapped at connect:
 * XENMEM_decrease_reservation (the balloon, the grant table's DMA
 * buffers) hands the frame back to Xen, which keeps it alive only for
 * the backend's mapping, and XENMEM_populate_physmap later puts a new
 * frame behind the same gfn (or one behind a gfn that had none at
 * connect, whose reference the backend could not map).  A request naming
 * that gfn would reach the old frame, or none: a WRITE would store stale
 * data, a READ's data would be lost.  PV guests see it in their p2m
 * (front_memshare.c compares frames); auto-translated guests have no p2m
 * of their own.  Linux gives frames back and takes new ones through
 * xenmem_reservation_decrease() and xenmem_reservation_increase(); the
 * gfns they name are reported before the hypercall and
 * xff_memshare_gfns_gone() marks them in every shared set: the list of
 * sets, xff_ms_sets, lives here with it, and front_memshare.c adds and
 * removes the sets (both moved here from front_memshare.c, which calls
 * this file, never the reverse).  In a tree with the series'
 * mem-reservation patch (make linux-patches) they come from its
 * notifier; a stock kernel has none, so kprobes on the two functions
 * report them.  Without either (a kernel without kprobes, or
 * a symbol absent) an auto-translated guest does not use memshare.
 */
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/ptrace.h>
#include <linux/rculist.h>
#include <xen/interface/xen.h>
#include <xen/mem-reservation.h>
#include "front.h"

static DEFINE_MUTEX(xff_gfn_watch_mutex);
static unsigned int xff_gfn_watch_users;

/*
 * The sets of granted memory, one per backend domain (front_memshare.c
 * adds and removes them under its mutex, RCU for the handlers here).
 */
LIST_HEAD(xff_ms_sets);

/**
 * xff_memshare_gfns_gone() - the frames behind gfns are changing
 * @gfns: the gfns (xenmem_reservation_decrease()'s or _increase()'s
 *	frames: given back to Xen, or given new frames)
 * @count: how many
 *
 * Called by the gfn watch's handlers below before the hypercall, in
 * the probe's context: marks them in every set of an auto-translated
 * guest, so that they are never named by pfn again.
 */
static void xff_memshare_gfns_gone(const xen_pfn_t *gfns, int count)
{
	struct xff_memshare *ms;
	int i;

	rcu_read_lock();
	list_for_each_entry_rcu(ms, &xff_ms_sets, node) {
		if (!ms->gone)
			continue;
		for (i = 0; i < count; i++) {
			xen_pfn_t gfn = gfns[i];

			if (gfn < ms->npfns && !test_and_set_bit(gfn, ms->gone))
				atomic_long_inc(&ms->nr_gone);
		}
	}
	rcu_read_unlock();
}

#ifdef XENMEM_RESERVATION_DECREASE

static int xff_gfn_watch_event(struct notifier_block *nb,
			       unsigned long action, void *data)
{
	const struct xenmem_reservation_change *change = data;

	if (change->count > 0 && change->frames)
		xff_memshare_gfns_gone(change->frames, change->count);
	return NOTIFY_DONE;
}

static struct notifier_block xff_gfn_watch_nb = {
	.notifier_call = xff_gfn_watch_event,
};

static int xff_gfn_watch_start(void)
{
	int err = xenmem_reservation_register_notifier(&xff_gfn_watch_nb);

	if (err)
		pr_warn(XFF_NAME ": memshare: cannot watch the frames this guest gives back to Xen and takes from it (mem-reservation notifier: %d)\n",
			err);
	return err;
}

static void xff_gfn_watch_stop(void)
{
	xenmem_reservation_unregister_notifier(&xff_gfn_watch_nb);
}

#else /* a stock kernel: kprobes */

static struct kprobe xff_gfn_watch_kps[2];
static struct kprobe *xff_gfn_watch_list[] = {
	&xff_gfn_watch_kps[0], &xff_gfn_watch_kps[1],
};

static const char * const xff_gfn_watch_symbols[] = {
	"xenmem_reservation_decrease", "xenmem_reservation_increase",
};

/* xenmem_reservation_{decrease,increase}(int count, xen_pfn_t *frames). */
static int xff_gfn_watch_pre(struct kprobe *kp, struct pt_regs *regs)
{
	long count = (int)regs_get_kernel_argument(regs, 0);
	const xen_pfn_t *gfns;

	gfns = (const xen_pfn_t *)regs_get_kernel_argument(regs, 1);
	if (count > 0 && gfns)
		xff_memshare_gfns_gone(gfns, count);
	return 0;
}

static int xff_gfn_watch_start(void)
{
	unsigned int i;
	int err;

	/* Probes are registered from clean structs each time. */
	for (i = 0; i < ARRAY_SIZE(xff_gfn_watch_kps); i++)
		xff_gfn_watch_kps[i] = (struct kprobe) {
			.symbol_name = xff_gfn_watch_symbols[i],
			.pre_handler = xff_gfn_watch_pre,
		};
	/* All or none. */
	err = register_kprobes(xff_gfn_watch_list,
			       ARRAY_SIZE(xff_gfn_watch_list));
	if (err)
		pr_warn(XFF_NAME ": memshare: cannot watch the frames this guest gives back to Xen and takes from it (kprobes on xenmem_reservation_decrease and _increase: %d)\n",
			err);
	return err;
}

/* Waits for a handler running. */
static void xff_gfn_watch_stop(void)
{
	unregister_kprobes(xff_gfn_watch_list, ARRAY_SIZE(xff_gfn_watch_list));
}

#endif /* XENMEM_RESERVATION_DECREASE */

/**
 * xff_gfn_watch_get() - start hearing of the gfns whose frames change
 *
 * Every memshare set of an auto-translated guest holds a use, taken
 * before its gfns are walked.
 *
 * Return: 0, or the notifier's or probes' registration error (logged).
 */
int xff_gfn_watch_get(void)
{
	int err = 0;

	mutex_lock(&xff_gfn_watch_mutex);
	if (!xff_gfn_watch_users)
		err = xff_gfn_watch_start();
	if (!err)
		xff_gfn_watch_users++;
	mutex_unlock(&xff_gfn_watch_mutex);
	return err;
}

/**
 * xff_gfn_watch_put() - drop a use of xff_gfn_watch_get()
 *
 * The last one stops the watch (waiting for a handler running).
 */
void xff_gfn_watch_put(void)
{
	mutex_lock(&xff_gfn_watch_mutex);
	if (!WARN_ON(!xff_gfn_watch_users) && !--xff_gfn_watch_users)
		xff_gfn_watch_stop();
	mutex_unlock(&xff_gfn_watch_mutex);
}
