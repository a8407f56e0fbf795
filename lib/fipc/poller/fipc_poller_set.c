// SPDX-License-Identifier: GPL-2.0
/*
 * fipc pollers: start and stop of a set (kernel only).
 *
 * fipc_poller_set_start() gives a set its pollers, each a kthread bound
 * to its CPU (fipc_poller_place.c) running fipc_poller_fn()
 * (fipc_poller.c); fipc_poller_set_stop() takes them away.
 */
#include <linux/export.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "fipc_poller_internal.h"

/* Serialises start, stop, repin and show of every set. */
DEFINE_MUTEX(fipc_pollers_mutex);

/* The sleep hook of pl->waiter: one hardware wait is enough, go back. */
static int fipc_poll_wait_done(void *arg)
{
	return -EAGAIN;
}

static int fipc_poller_init(struct fipc_poller_set *set, unsigned int i,
			    int cpu)
{
	struct fipc_poller *pl = &set->pollers[i];
	struct task_struct *t;

	memset(pl, 0, sizeof(*pl));
	pl->set = set;
	pl->index = i;
	pl->cpu = cpu;
	mutex_init(&pl->lock);
	INIT_LIST_HEAD(&pl->entries);
	init_waitqueue_head(&pl->wq);
	fipc_waiter_init(&pl->waiter, fipc_wait_best_method(), 2,
			 fipc_poll_wait_done, pl);
	if (set->priv_size) {
		pl->priv = kzalloc(set->priv_size, GFP_KERNEL);
		if (!pl->priv)
			return -ENOMEM;
	}
	t = kthread_create(fipc_poller_fn, pl, "%s/%u", set->name, i);
	if (IS_ERR(t)) {
		kfree(pl->priv);
		pl->priv = NULL;
		return PTR_ERR(t);
	}
	kthread_bind(t, pl->cpu);
	if (set->fifo)
		sched_set_fifo(t);
	pl->task = t;
	wake_up_process(t);
	return 0;
}

/**
 * fipc_poller_set_start() - create and start a set's polling threads
 * @set: the set, with its name, ops and settings filled in
 *
 * Starts @set->nr_pollers threads on the CPUs of a poller_cpus list
 * given before (fipc_poller_set_repin()), else on the default CPUs (the
 * highest online ones), at SCHED_FIFO if @set->fifo.
 *
 * Return: 0, -EINVAL for a bad @set->nr_pollers, or another negative
 * errno (nothing left running).
 */
int fipc_poller_set_start(struct fipc_poller_set *set)
{
	int cpus[FIPC_POLLERS_MAX];
	unsigned int i;
	int err;

	if (!set->nr_pollers || set->nr_pollers > FIPC_POLLERS_MAX) {
		pr_err("%s: pollers must be 1..%u\n", set->name,
		       FIPC_POLLERS_MAX);
		return -EINVAL;
	}
	err = fipc_pollers_cpus(NULL, cpus);
	if (err)
		return err;
	set->pollers = kcalloc(set->nr_pollers, sizeof(*set->pollers),
			       GFP_KERNEL);
	if (!set->pollers)
		return -ENOMEM;
	mutex_init(&set->balance_lock);
	atomic_set(&set->scale_ups, 0);
	atomic_set(&set->scale_downs, 0);
	atomic_set(&set->rebalances, 0);
	mutex_lock(&fipc_pollers_mutex);
	if (set->start_cpus_given)
		memcpy(cpus, set->start_cpus, sizeof(cpus));
	for (i = 0; i < set->nr_pollers; i++) {
		err = fipc_poller_init(set, i, cpus[i]);
		if (err)
			break;
		set->running++;
	}
	mutex_unlock(&fipc_pollers_mutex);
	if (err)
		fipc_poller_set_stop(set);
	return err;
}
EXPORT_SYMBOL_GPL(fipc_poller_set_start);

/**
 * fipc_poller_set_stop() - stop every polling thread of a set
 * @set: the set; its channels must all be detached
 */
void fipc_poller_set_stop(struct fipc_poller_set *set)
{
	unsigned int i;

	mutex_lock(&fipc_pollers_mutex);
	for (i = 0; i < set->running; i++) {
		struct fipc_poller *pl = &set->pollers[i];

		WARN_ON(!list_empty(&pl->entries));
		kthread_stop(pl->task);
		pl->task = NULL;
		kfree(pl->priv);
		pl->priv = NULL;
	}
	set->running = 0;
	kfree(set->pollers);
	set->pollers = NULL;
	mutex_unlock(&fipc_pollers_mutex);
}
EXPORT_SYMBOL_GPL(fipc_poller_set_stop);
