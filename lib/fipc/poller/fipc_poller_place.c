// SPDX-License-Identifier: GPL-2.0
/*
 * fipc pollers: placement (kernel only).
 *
 * Which CPU each poller of a set runs on (the default placement, a CPU
 * list given before or after the start) and which poller serves each
 * channel (fipc_poller_attach(): with autoscale, fipc_poller_pick() of
 * fipc_poller_scale.c).
 */
#include <linux/cpumask.h>
#include <linux/export.h>
#include <linux/gfp.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/string.h>
#include "fipc_poller_internal.h"

/**
 * fipc_poll_entry_init() - prepare a channel's entry, detached
 * @entry: the entry
 *
 * A poller serving the channel alone waits on it with the set's
 * fipc_poll_ops.wait, if the set has one.
 */
void fipc_poll_entry_init(struct fipc_poll_entry *entry)
{
	INIT_LIST_HEAD(&entry->node);
	entry->poller = NULL;
	entry->retry_us = 0;
	entry->weight = FIPC_POLL_WEIGHT_DEFAULT;
	entry->cpus = NULL;
	entry->local_work = 0;
	entry->period_work = 0;
	entry->last_work = 0;
}
EXPORT_SYMBOL_GPL(fipc_poll_entry_init);

/**
 * fipc_poll_entry_set_weight() - set a channel's share of its poller
 * @entry: the channel's entry, attached or not
 * @weight: 1 to FIPC_POLL_WEIGHT_MAX (FIPC_POLL_WEIGHT_DEFAULT: the
 *	set's budget per visit); other values are clamped into that range
 *
 * Takes effect at the channel's next visit.
 */
void fipc_poll_entry_set_weight(struct fipc_poll_entry *entry,
				unsigned int weight)
{
	WRITE_ONCE(entry->weight, clamp_t(unsigned int, weight, 1,
					  FIPC_POLL_WEIGHT_MAX));
}
EXPORT_SYMBOL_GPL(fipc_poll_entry_set_weight);

/* Default placement: the highest online CPUs, leaving CPU 0 to the rest. */
static int fipc_poller_default_cpu(unsigned int index)
{
	unsigned int n = num_online_cpus();
	int cpu, i = 0, want;

	want = n - 1 - (index % n);
	for_each_online_cpu(cpu) {
		if (i++ == want)
			return cpu;
	}
	return cpumask_first(cpu_online_mask);
}

/**
 * fipc_poller_attach() - hand a channel to a poller of a set
 * @set: the running set
 * @entry: the channel's entry, detached, with its rings ready
 * @cpus: CPUs allowed for this channel's poller, or NULL: any poller;
 *	must stay valid until the channel is detached
 *
 * Only pollers bound to an allowed CPU are used, or all of them when none
 * is.  Without the set's autoscale, round robin over those; with it, the
 * least loaded of those at work, so that channels start on one poller
 * (fipc_poller_pick()).  The poller is kicked to look at the channel.
 */
void fipc_poller_attach(struct fipc_poller_set *set,
			struct fipc_poll_entry *entry,
			const struct cpumask *cpus)
{
	unsigned int start = atomic_inc_return(&set->next);
	struct fipc_poller *pl;

	entry->cpus = cpus;
	entry->period_work = 0;
	entry->last_work = 0;
	mutex_lock(&set->balance_lock);
	pl = fipc_poller_pick(set, entry, start);
	mutex_lock(&pl->lock);
	list_add_tail(&entry->node, &pl->entries);
	pl->nr_entries++;
	WRITE_ONCE(entry->poller, pl);
	mutex_unlock(&pl->lock);
	mutex_unlock(&set->balance_lock);
	fipc_poller_kick(pl);
}
EXPORT_SYMBOL_GPL(fipc_poller_attach);

/**
 * fipc_poller_detach() - take a channel away from its poller
 * @entry: the channel's entry; nothing happens if it is detached
 *
 * Withdraws the poller's sleeping word from the channel.  On return no
 * poller looks at the channel.
 */
void fipc_poller_detach(struct fipc_poll_entry *entry)
{
	struct fipc_poller *pl;

	/* Auto-scaling may move it meanwhile, holding both pollers' locks. */
	for (;;) {
		pl = READ_ONCE(entry->poller);
		if (!pl)
			return;
		mutex_lock(&pl->lock);
		if (READ_ONCE(entry->poller) == pl)
			break;
		mutex_unlock(&pl->lock);
	}
	list_del_init(&entry->node);
	pl->nr_entries--;
	pl->set->ops->set_sleeping(entry, false);
	mutex_unlock(&pl->lock);
	WRITE_ONCE(entry->poller, NULL);
}
EXPORT_SYMBOL_GPL(fipc_poller_detach);

/* Parse a CPU list into the CPUs for each poller; NULL/empty: defaults. */
int fipc_pollers_cpus(const char *list, int *cpus)
{
	cpumask_var_t mask;
	unsigned int i;
	int cpu, err;

	if (!list || !*list || !strcmp(list, "\n")) {
		for (i = 0; i < FIPC_POLLERS_MAX; i++)
			cpus[i] = fipc_poller_default_cpu(i);
		return 0;
	}
	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	err = cpulist_parse(list, mask);
	if (!err && !cpumask_intersects(mask, cpu_online_mask))
		err = -EINVAL;
	if (!err) {
		cpu = -1;
		for (i = 0; i < FIPC_POLLERS_MAX; i++) {
			cpu = cpumask_next_and(cpu, mask, cpu_online_mask);
			if (cpu >= nr_cpu_ids)
				cpu = cpumask_first_and(mask, cpu_online_mask);
			cpus[i] = cpu;
		}
	}
	free_cpumask_var(mask);
	return err;
}

/**
 * fipc_poller_set_repin() - move a set's pollers to the CPUs of a list
 * @set: the set
 * @list: CPU list; poller i goes to the i-th online CPU of it (cycling);
 *	empty: the default placement
 *
 * Before the set has started (a module parameter given at load), the
 * placement is kept for fipc_poller_set_start().
 *
 * Return: 0 or a negative errno for a bad list.
 */
int fipc_poller_set_repin(struct fipc_poller_set *set, const char *list)
{
	int cpus[FIPC_POLLERS_MAX];
	unsigned int i;
	int err;

	err = fipc_pollers_cpus(list, cpus);
	if (err)
		return err;
	mutex_lock(&fipc_pollers_mutex);
	memcpy(set->start_cpus, cpus, sizeof(cpus));
	set->start_cpus_given = true;
	for (i = 0; i < set->running; i++) {
		struct fipc_poller *pl = &set->pollers[i];

		err = set_cpus_allowed_ptr(pl->task, cpumask_of(cpus[i]));
		if (err)
			break;
		pl->cpu = cpus[i];
	}
	mutex_unlock(&fipc_pollers_mutex);
	return err;
}
EXPORT_SYMBOL_GPL(fipc_poller_set_repin);
