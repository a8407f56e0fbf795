// SPDX-License-Identifier: GPL-2.0
/*
 * fipc pollers: reporting and module parameters (kernel only).
 *
 * The poller_cpus parameter of every driver's set reads the pollers'
 * counters (fipc_poller_set_show()) and takes a CPU list
 * (fipc_poller_set_repin(), fipc_poller_place.c); the drivers' show
 * hooks write latency histograms with fipc_poll_lat_show().
 */
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/time64.h>
#include "fipc_poller_internal.h"

/* Pollers that have channels (the others sleep). */
static unsigned int fipc_pollers_at_work(struct fipc_poller_set *set)
{
	unsigned int i, n = 0;

	for (i = 0; i < set->running; i++)
		n += !!READ_ONCE(set->pollers[i].nr_entries);
	return n;
}

/**
 * fipc_poller_set_show() - describe a set's pollers for sysfs
 * @set: the set
 * @buf: a PAGE_SIZE buffer
 *
 * One "poller N cpu C channels ..." line of counters per poller, each
 * followed by the text of the set's show hook, if any, then one
 * "autoscale ..." line: the setting, the pollers with channels and the
 * auto-scaling events.
 *
 * Return: bytes written.
 */
int fipc_poller_set_show(struct fipc_poller_set *set, char *buf)
{
	unsigned int i;
	int n = 0;

	mutex_lock(&fipc_pollers_mutex);
	for (i = 0; i < set->running; i++) {
		struct fipc_poller *pl = &set->pollers[i];

		n += scnprintf(buf + n, PAGE_SIZE - n,
			       "poller %u cpu %d channels %u loops %llu empty %llu sleeps %llu timed_sleeps %llu contended_sleeps %llu steal_sleeps %llu steal_pct %u short_sleeps %llu wait %s wakeups %llu slept_us %llu sleep_max_us %llu irqs %lld irqs_awake %lld rx_waits %llu gap_us %llu gap_dev_us %llu gap_tail_us %llu window_us %llu wake_us %llu load_pct %u moved_in %llu moved_out %llu freezes %llu\n",
			       i, pl->cpu, READ_ONCE(pl->nr_entries),
			       READ_ONCE(pl->loops), READ_ONCE(pl->empty),
			       READ_ONCE(pl->sleeps), READ_ONCE(pl->timed_sleeps),
			       READ_ONCE(pl->contended_sleeps),
			       READ_ONCE(pl->steal_sleeps),
			       READ_ONCE(pl->steal_pct),
			       READ_ONCE(pl->short_sleeps),
			       fipc_wait_method_name(pl->waiter.method),
			       READ_ONCE(pl->wakeups),
			       div_u64(READ_ONCE(pl->slept_ns), NSEC_PER_USEC),
			       div_u64(READ_ONCE(pl->sleep_max_ns),
				       NSEC_PER_USEC),
			       (s64)atomic64_read(&pl->irqs),
			       (s64)atomic64_read(&pl->irqs_awake),
			       READ_ONCE(pl->rx_waits),
			       div_u64(READ_ONCE(pl->gap_avg_ns), NSEC_PER_USEC),
			       div_u64(READ_ONCE(pl->gap_dev_ns), NSEC_PER_USEC),
			       div_u64(fipc_poller_tail_ns(pl), NSEC_PER_USEC),
			       div_u64(fipc_poller_window_ns(pl), NSEC_PER_USEC),
			       div_u64(fipc_poller_wake_ns(pl), NSEC_PER_USEC),
			       READ_ONCE(pl->load_pct), READ_ONCE(pl->moved_in),
			       READ_ONCE(pl->moved_out), READ_ONCE(pl->freezes));
		if (set->ops->show)
			n += set->ops->show(pl, buf + n, PAGE_SIZE - n);
	}
	if (set->running)
		n += scnprintf(buf + n, PAGE_SIZE - n,
			       "autoscale %s pollers_at_work %u scale_ups %d scale_downs %d rebalances %d\n",
			       READ_ONCE(set->autoscale) ? "on" : "off",
			       fipc_pollers_at_work(set),
			       atomic_read(&set->scale_ups),
			       atomic_read(&set->scale_downs),
			       atomic_read(&set->rebalances));
	mutex_unlock(&fipc_pollers_mutex);
	return n;
}
EXPORT_SYMBOL_GPL(fipc_poller_set_show);

/**
 * fipc_poll_lat_bucket() - histogram bucket of a latency
 * @ns: the latency in nanoseconds
 *
 * Return: 0 to FIPC_POLL_LAT_BUCKETS - 1 for <100 us, <1 ms, <4 ms,
 * <16 ms, <64 ms and more.
 */
unsigned int fipc_poll_lat_bucket(u64 ns)
{
	static const u64 lim[FIPC_POLL_LAT_BUCKETS - 1] = {
		100 * NSEC_PER_USEC, NSEC_PER_MSEC, 4 * NSEC_PER_MSEC,
		16 * NSEC_PER_MSEC, 64 * NSEC_PER_MSEC,
	};
	unsigned int i;

	for (i = 0; i < FIPC_POLL_LAT_BUCKETS - 1; i++)
		if (ns < lim[i])
			break;
	return i;
}
EXPORT_SYMBOL_GPL(fipc_poll_lat_bucket);

/**
 * fipc_poll_lat_show() - one latency histogram line for a show hook
 * @buf: where to write
 * @size: room at @buf
 * @name: the histogram's name, e.g. "lat_us"
 * @hist: FIPC_POLL_LAT_BUCKETS counters (fipc_poll_lat_bucket())
 *
 * Writes "  <name><100,<1k,<4k,<16k,<64k,more" and the counters.
 *
 * Return: bytes written.
 */
int fipc_poll_lat_show(char *buf, size_t size, const char *name,
		       const u64 *hist)
{
	unsigned int i;
	int n;

	n = scnprintf(buf, size, "  %s<100,<1k,<4k,<16k,<64k,more", name);
	for (i = 0; i < FIPC_POLL_LAT_BUCKETS; i++)
		n += scnprintf(buf + n, size - n, " %llu", READ_ONCE(hist[i]));
	n += scnprintf(buf + n, size - n, "\n");
	return n;
}
EXPORT_SYMBOL_GPL(fipc_poll_lat_show);

static int fipc_poller_cpus_set(const char *val, const struct kernel_param *kp)
{
	return fipc_poller_set_repin(kp->arg, val);
}

static int fipc_poller_cpus_get(char *buf, const struct kernel_param *kp)
{
	return fipc_poller_set_show(kp->arg, buf);
}

/*
 * The poller_cpus module parameter of FIPC_PARAM_POLLER_CPUS(): its
 * argument is the struct fipc_poller_set.
 */
const struct kernel_param_ops fipc_poller_cpus_param_ops = {
	.set = fipc_poller_cpus_set,
	.get = fipc_poller_cpus_get,
};
EXPORT_SYMBOL_GPL(fipc_poller_cpus_param_ops);

static int fipc_poll_pct_set(const char *val, const struct kernel_param *kp)
{
	unsigned int pct;
	int err = kstrtouint(val, 0, &pct);

	if (err)
		return err;
	if (pct < 1 || pct > 100)
		return -ERANGE;
	WRITE_ONCE(*(unsigned int *)kp->arg, pct);
	return 0;
}

/*
 * A load in percent, 1 to 100 (poll_scale_up_pct, poll_scale_down_pct);
 * its argument is the unsigned int setting.
 */
const struct kernel_param_ops fipc_poll_pct_param_ops = {
	.set = fipc_poll_pct_set,
	.get = param_get_uint,
};
EXPORT_SYMBOL_GPL(fipc_poll_pct_param_ops);
