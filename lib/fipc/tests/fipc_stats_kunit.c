// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the drivers' counters (lib/fipc/fipc_stats.c): a test
 * device of two channels counting in plain arrays, as the drivers' devices
 * count in their channels.
 */
#include <kunit/test.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <fipc/fipc_stats.h>

enum { FST_A, FST_B_DEBUG, FST_C, FST_D_DEBUG, FST_E, FST_NR };
#define FST_CHANS	2

static const struct fipc_stat_name fst_names[FST_NR] = {
	[FST_A] = { "a" },
	[FST_B_DEBUG] = { "b_debug", true },
	[FST_C] = { "c" },
	[FST_D_DEBUG] = { "d_debug", true },
	[FST_E] = { "e" },
};

/**
 * struct fst_dev - a test device
 * @lock: its mutex
 * @stats: its counters
 * @retired: what its torn-down channels counted
 * @chan: each channel's counters
 * @nr_chans: channels it has now
 */
struct fst_dev {
	struct mutex lock;	/* guards nr_chans, as a device's */
	struct fipc_stats stats;
	u64 retired[FST_NR];
	u64 chan[FST_CHANS][FST_NR];
	unsigned int nr_chans;
};

static u64 *fst_chan(struct fipc_stats *s, unsigned int i)
{
	struct fst_dev *d = container_of(s, struct fst_dev, stats);

	return i < d->nr_chans ? d->chan[i] : NULL;
}

static const struct fipc_stats_kind fst_kind = {
	.names = fst_names,
	.nr = FST_NR,
	.chan = fst_chan,
};

/* A device whose counter k counts 100 + k retired and k + 10 * (i + 1) in channel i. */
static struct fst_dev *fst_dev_new(struct kunit *test)
{
	struct fst_dev *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	unsigned int i, k;

	KUNIT_ASSERT_NOT_NULL(test, d);
	mutex_init(&d->lock);
	fipc_stats_init(&d->stats, &fst_kind, &d->lock, d->retired);
	for (k = 0; k < FST_NR; k++) {
		d->retired[k] = 100 + k;
		for (i = 0; i < FST_CHANS; i++)
			d->chan[i][k] = k + 10 * (i + 1);
	}
	d->nr_chans = FST_CHANS;
	return d;
}

/* The sum of counter @k over the retired ones and the first @chans channels. */
static u64 fst_expect(unsigned int k, unsigned int chans)
{
	u64 sum = 100 + k;
	unsigned int i;

	for (i = 0; i < chans; i++)
		sum += k + 10 * (i + 1);
	return sum;
}

/* The sum covers what channels retired and each channel there is now. */
static void fipc_stats_test_sum(struct kunit *test)
{
	struct fst_dev *d = fst_dev_new(test);
	unsigned int k;

	mutex_lock(&d->lock);
	for (k = 0; k < FST_NR; k++)
		KUNIT_EXPECT_EQ(test, fipc_stats_sum(&d->stats, k),
				fst_expect(k, FST_CHANS));
	/* A channel past the device's last is not looked at. */
	d->nr_chans = 1;
	for (k = 0; k < FST_NR; k++)
		KUNIT_EXPECT_EQ(test, fipc_stats_sum(&d->stats, k),
				fst_expect(k, 1));
	mutex_unlock(&d->lock);
}

/* Retiring keeps every count and leaves the channels at zero. */
static void fipc_stats_test_retire(struct kunit *test)
{
	struct fst_dev *d = fst_dev_new(test);
	unsigned int i, k;

	mutex_lock(&d->lock);
	fipc_stats_retire(&d->stats);
	for (k = 0; k < FST_NR; k++) {
		KUNIT_EXPECT_EQ(test, d->retired[k], fst_expect(k, FST_CHANS));
		KUNIT_EXPECT_EQ(test, fipc_stats_sum(&d->stats, k),
				fst_expect(k, FST_CHANS));
		for (i = 0; i < FST_CHANS; i++)
			KUNIT_EXPECT_EQ(test, d->chan[i][k], 0ull);
	}
	/* A second retirement, of empty channels, adds nothing. */
	fipc_stats_retire(&d->stats);
	for (k = 0; k < FST_NR; k++)
		KUNIT_EXPECT_EQ(test, d->retired[k], fst_expect(k, FST_CHANS));
	mutex_unlock(&d->lock);
}

static ssize_t fst_show(struct device *dev, struct device_attribute *da,
			char *buf)
{
	return 0;
}

/* One read-only file per counter not marked debug, in table order. */
static void fipc_stats_test_attrs(struct kunit *test)
{
	static const unsigned int want[] = { FST_A, FST_C, FST_E };
	struct fipc_idx_attr attrs[FST_NR] = {};
	struct attribute *files[FST_NR + 1] = {};
	struct device_attribute *da;
	unsigned int n, i;

	n = fipc_stats_attrs_init(&fst_kind, attrs, files, fst_show);
	KUNIT_ASSERT_EQ(test, n, (unsigned int)ARRAY_SIZE(want));
	for (i = 0; i < n; i++) {
		da = container_of(files[i], struct device_attribute, attr);
		KUNIT_EXPECT_STREQ(test, files[i]->name, fst_names[want[i]].name);
		KUNIT_EXPECT_EQ(test, files[i]->mode, (umode_t)0444);
		KUNIT_EXPECT_EQ(test, fipc_attr_idx(da), want[i]);
		KUNIT_EXPECT_TRUE(test, da->show == fst_show);
		KUNIT_EXPECT_NULL(test, da->store);
	}
	KUNIT_EXPECT_NULL(test, files[n]);
}

/* A counter's file: its sum and a newline; -ENODEV once the device is gone. */
static void fipc_stats_test_show(struct kunit *test)
{
	struct fst_dev *d = fst_dev_new(test);
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	char want[32];
	int len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, fipc_stats_show(NULL, FST_C, buf),
			(ssize_t)-ENODEV);
	len = snprintf(want, sizeof(want), "%llu\n", fst_expect(FST_C, 2));
	KUNIT_EXPECT_EQ(test, fipc_stats_show(&d->stats, FST_C, buf),
			(ssize_t)len);
	KUNIT_EXPECT_STREQ(test, buf, want);
}

/* The debugfs file counters: "name value" of each debug counter. */
static void fipc_stats_test_debugfs(struct kunit *test)
{
	struct fst_dev *d = fst_dev_new(test);
	struct inode *inode = kunit_kzalloc(test, sizeof(*inode), GFP_KERNEL);
	struct file *file = kunit_kzalloc(test, sizeof(*file), GFP_KERNEL);
	struct seq_file *m;
	char want[64];

	KUNIT_ASSERT_NOT_NULL(test, inode);
	KUNIT_ASSERT_NOT_NULL(test, file);
	inode->i_private = &d->stats;
	KUNIT_ASSERT_EQ(test, fipc_stats_fops->open(inode, file), 0);
	m = file->private_data;
	m->size = PAGE_SIZE;
	m->buf = kvzalloc(m->size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->buf);
	KUNIT_EXPECT_EQ(test, m->op->show(m, m->private), 0);
	snprintf(want, sizeof(want), "b_debug %llu\nd_debug %llu\n",
		 fst_expect(FST_B_DEBUG, 2), fst_expect(FST_D_DEBUG, 2));
	KUNIT_EXPECT_EQ(test, m->count, strlen(want));
	KUNIT_EXPECT_EQ(test, memcmp(m->buf, want, strlen(want)), 0);
	fipc_stats_fops->release(inode, file);
}

static struct kunit_case fipc_stats_cases[] = {
	KUNIT_CASE(fipc_stats_test_sum),
	KUNIT_CASE(fipc_stats_test_retire),
	KUNIT_CASE(fipc_stats_test_attrs),
	KUNIT_CASE(fipc_stats_test_show),
	KUNIT_CASE(fipc_stats_test_debugfs),
	{}
};

static struct kunit_suite fipc_stats_suite = {
	.name = "fipc_stats",
	.test_cases = fipc_stats_cases,
};

kunit_test_suite(fipc_stats_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of the fipc drivers' counters");
