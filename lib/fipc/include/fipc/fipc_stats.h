/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fipc channel counters, for the drivers (kernel only,
 * lib/fipc/fipc_stats.c).
 *
 * A driver names its counters in a table, one struct fipc_stat_name
 * each; every channel counts in an array of u64 indexed the same way.
 * A device's counter is the sum over its channels plus what the channels
 * it tore down counted (@retired), so that counters survive
 * reconnections.  Counters marked debug are the developers': they go to
 * the debugfs file "counters" (fipc_stats_fops), the others to sysfs
 * (fipc_stats_attrs_init()).
 */
#ifndef _FIPC_FIPC_STATS_H
#define _FIPC_FIPC_STATS_H

#include <linux/device.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/sysfs.h>
#include <linux/types.h>

/**
 * struct fipc_stat_name - one counter of a driver's table
 * @name: its file name in sysfs, or its line's in debugfs's counters
 * @debug: the developers' (debugfs, not an ABI), not an administrator's
 */
struct fipc_stat_name {
	const char *name;
	bool debug;
};

struct fipc_stats;

/**
 * struct fipc_stats_kind - a driver's counters, the same for its devices
 * @names: each counter's name, @nr of them
 * @nr: how many counters
 * @chan: the counters of channel @i of the device @s is embedded in, or
 *	NULL past its last channel; called with the device's lock held
 */
struct fipc_stats_kind {
	const struct fipc_stat_name *names;
	unsigned int nr;
	u64 *(*chan)(struct fipc_stats *s, unsigned int i);
};

/**
 * struct fipc_stats - a device's counters, embedded in the device
 * @kind: the driver's counters
 * @lock: the device's mutex: its channels do not change while it is held
 * @retired: what channels already torn down counted, @kind->nr counters
 */
struct fipc_stats {
	const struct fipc_stats_kind *kind;
	struct mutex *lock;		/* the device's: guards its channels */
	u64 *retired;
};

void fipc_stats_init(struct fipc_stats *s, const struct fipc_stats_kind *kind,
		     struct mutex *lock, u64 *retired);
u64 fipc_stats_sum(struct fipc_stats *s, unsigned int idx);
void fipc_stats_retire(struct fipc_stats *s);
ssize_t fipc_stats_show(struct fipc_stats *s, unsigned int idx, char *buf);

/* The debugfs file "counters": "name value" lines; private: the stats. */
extern const struct file_operations *const fipc_stats_fops;

/**
 * struct fipc_idx_attr - one sysfs file of a family told apart by an index
 * @da: the attribute
 * @idx: which one (a counter, a rate of a set of limits)
 */
struct fipc_idx_attr {
	struct device_attribute da;
	unsigned int idx;
};

/* The index of the file @da, one of a family's struct fipc_idx_attr. */
static inline unsigned int fipc_attr_idx(struct device_attribute *da)
{
	return container_of(da, struct fipc_idx_attr, da)->idx;
}

/* Fill @a before its group is registered; @store NULL: read-only. */
static inline struct attribute *
fipc_idx_attr_init(struct fipc_idx_attr *a, const char *name,
		   unsigned int idx,
		   ssize_t (*show)(struct device *, struct device_attribute *,
				   char *),
		   ssize_t (*store)(struct device *, struct device_attribute *,
				    const char *, size_t))
{
	sysfs_attr_init(&a->da.attr);
	a->da.attr.name = name;
	a->da.attr.mode = store ? 0644 : 0444;
	a->da.show = show;
	a->da.store = store;
	a->idx = idx;
	return &a->da.attr;
}

unsigned int fipc_stats_attrs_init(const struct fipc_stats_kind *kind,
				   struct fipc_idx_attr *attrs,
				   struct attribute **files,
				   ssize_t (*show)(struct device *,
						   struct device_attribute *,
						   char *));

/*
 * Families of read-only device attributes, each file of a driver's device
 * written as one line: the show function of @_name and its
 * DEVICE_ATTR_RO().  The driver data (@_ptype, a pointer type) is the
 * device's; NULL once it is gone (-ENODEV).
 *
 * FIPC_DEVICE_ATTR_RO_ARGS(): @_fn(dev, buf, ...) shows it.
 */
#define FIPC_DEVICE_ATTR_RO_ARGS(_name, _fn, ...)			\
static ssize_t _name##_show(struct device *d,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	return _fn(d, buf, __VA_ARGS__);				\
}									\
static DEVICE_ATTR_RO(_name)

/* FIPC_DEVICE_ATTR_GET_RO(): @_get(data), as @_fmt, read without a lock. */
#define FIPC_DEVICE_ATTR_GET_RO(_name, _ptype, _fmt, _get)		\
static ssize_t _name##_show(struct device *d,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	_ptype p = dev_get_drvdata(d);					\
									\
	return p ? sysfs_emit(buf, _fmt "\n", _get(p)) : -ENODEV;	\
}									\
static DEVICE_ATTR_RO(_name)

/*
 * FIPC_DEVICE_ATTR_LOCKED_RO(): @_get(data), a @_vtype shown as @_fmt,
 * read under the driver data's mutex (its member mutex).
 */
#define FIPC_DEVICE_ATTR_LOCKED_RO(_name, _ptype, _vtype, _fmt, _get)	\
static ssize_t _name##_show(struct device *d,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	_ptype p = dev_get_drvdata(d);					\
	_vtype v;							\
									\
	if (!p)								\
		return -ENODEV;						\
	mutex_lock(&p->mutex);						\
	v = _get(p);							\
	mutex_unlock(&p->mutex);					\
	return sysfs_emit(buf, _fmt "\n", v);				\
}									\
static DEVICE_ATTR_RO(_name)

/*
 * A connection's data path, as the drivers' sysfs files data_path show
 * it: "none" while it has no channels, else "memshare" or "grant".
 */
static inline const char *fipc_data_path(bool chans, bool memshare)
{
	if (!chans)
		return "none";
	return memshare ? "memshare" : "grant";
}

#endif /* _FIPC_FIPC_STATS_H */
