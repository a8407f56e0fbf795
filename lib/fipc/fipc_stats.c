// SPDX-License-Identifier: GPL-2.0
/*
 * fipc channel counters (kernel only): a device's counters summed over
 * its channels and those it tore down, shown in sysfs (a file a counter)
 * and debugfs (the developers' counters in one file).  Both drivers keep
 * theirs here: <fipc/fipc_stats.h>.
 */
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <fipc/fipc_stats.h>

/**
 * fipc_stats_init() - set up a device's counters
 * @s: the counters, embedded in the device
 * @kind: the driver's counters
 * @lock: the device's mutex, initialised
 * @retired: @kind->nr counters for the channels torn down, zeroed
 */
void fipc_stats_init(struct fipc_stats *s, const struct fipc_stats_kind *kind,
		     struct mutex *lock, u64 *retired)
{
	s->kind = kind;
	s->lock = lock;
	s->retired = retired;
}
EXPORT_SYMBOL_GPL(fipc_stats_init);

/**
 * fipc_stats_sum() - a device's counter, its torn-down channels included
 * @s: the device's counters, @s->lock held
 * @idx: the counter
 *
 * Return: the sum.
 */
u64 fipc_stats_sum(struct fipc_stats *s, unsigned int idx)
{
	u64 sum = s->retired[idx];
	unsigned int i;
	u64 *st;

	for (i = 0; (st = s->kind->chan(s, i)); i++)
		sum += READ_ONCE(st[idx]);
	return sum;
}
EXPORT_SYMBOL_GPL(fipc_stats_sum);

/**
 * fipc_stats_retire() - keep the counters of channels about to be freed
 * @s: the device's counters, its channels detached from the pollers
 */
void fipc_stats_retire(struct fipc_stats *s)
{
	unsigned int i, k, nr = s->kind->nr;
	u64 *st;

	for (i = 0; (st = s->kind->chan(s, i)); i++) {
		for (k = 0; k < nr; k++)
			s->retired[k] += st[k];
		memset(st, 0, nr * sizeof(*st));
	}
}
EXPORT_SYMBOL_GPL(fipc_stats_retire);

/**
 * fipc_stats_show() - a sysfs counter file's text
 * @s: the device's counters, NULL if the device is gone
 * @idx: the counter
 * @buf: the sysfs buffer
 *
 * Return: the bytes written, or -ENODEV without a device.
 */
ssize_t fipc_stats_show(struct fipc_stats *s, unsigned int idx, char *buf)
{
	u64 sum;

	if (!s)
		return -ENODEV;
	mutex_lock(s->lock);
	sum = fipc_stats_sum(s, idx);
	mutex_unlock(s->lock);
	return sysfs_emit(buf, "%llu\n", sum);
}
EXPORT_SYMBOL_GPL(fipc_stats_show);

static int fipc_stats_counters_show(struct seq_file *m, void *unused)
{
	struct fipc_stats *s = m->private;
	const struct fipc_stat_name *names = s->kind->names;
	unsigned int k, nr = s->kind->nr;

	mutex_lock(s->lock);
	for (k = 0; k < nr; k++)
		if (names[k].debug)
			seq_printf(m, "%s %llu\n", names[k].name,
				   fipc_stats_sum(s, k));
	mutex_unlock(s->lock);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(fipc_stats_counters);

const struct file_operations *const fipc_stats_fops =
	&fipc_stats_counters_fops;
EXPORT_SYMBOL_GPL(fipc_stats_fops);

/**
 * fipc_stats_attrs_init() - the sysfs files of a driver's counters
 * @kind: the driver's counters; those marked debug get none
 * @attrs: @kind->nr attributes to fill
 * @files: where to list the files, @kind->nr entries at most
 * @show: their show function (fipc_stats_show() of the device's counters,
 *	fipc_attr_idx() the counter)
 *
 * Called once, before the attribute group is registered; each file is
 * read-only and named as its counter.
 *
 * Return: the files listed.
 */
unsigned int fipc_stats_attrs_init(const struct fipc_stats_kind *kind,
				   struct fipc_idx_attr *attrs,
				   struct attribute **files,
				   ssize_t (*show)(struct device *,
						   struct device_attribute *,
						   char *))
{
	const struct fipc_stat_name *names = kind->names;
	unsigned int i = 0, k;

	for (k = 0; k < kind->nr; k++)
		if (!names[k].debug)
			files[i++] = fipc_idx_attr_init(&attrs[k],
							names[k].name, k,
							show, NULL);
	return i;
}
EXPORT_SYMBOL_GPL(fipc_stats_attrs_init);
