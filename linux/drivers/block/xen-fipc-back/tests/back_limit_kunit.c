// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the fipcblk backend's I/O limits
 * (linux/drivers/block/xen-fipc-back/back_limit.c).
 *
 * Built by this directory's Kbuild (CONFIG_XEN_FIPC_BACK_LIMIT_KUNIT_TEST)
 * with back_limit.c and back_validate.c, unchanged and without Xen
 * (back_units.c).  The buckets take the time as an argument, so each
 * case runs a client on a clock of its own: one that sends as fast as
 * it is let (a saturating job) must get the rate and no more over a
 * long while, plus one burst; a quiet disk gathers no more than a burst; a
 * request larger than a bucket still starts; each rate counts only the
 * requests it names; a new limit applies at once; and the rates and
 * burst lengths an administrator or a toolstack may write are parsed
 * strictly.
 */
#include <kunit/test.h>
#include <linux/sizes.h>
#include <linux/time64.h>
#include "../back_limit.h"
#include "back_kunit.h"

#define T0	(1000 * NSEC_PER_SEC)	/* a clock that is not at 0 */

/*
 * A client that sends one request after another for @secs seconds,
 * waiting each time exactly as long as it is told.  Returns how many
 * requests started.
 */
static u64 xfb_saturate(struct xfb_limiter *l, bool write, u64 bytes,
			u64 start, unsigned int secs)
{
	u64 now = start, end = start + secs * NSEC_PER_SEC, n = 0, wait;

	while (now < end) {
		wait = xfb_limiter_admit(l, write, bytes, now);
		if (wait)
			now += wait;
		else
			n++;
	}
	return n;
}

/* How many requests may start at @now, one after another. */
static unsigned int xfb_admitted_now(struct xfb_limiter *l, bool write,
				     u64 now)
{
	unsigned int n = 0;

	while (n < 100000 && !xfb_limiter_admit(l, write, 0, now))
		n++;
	return n;
}

static void xfb_test_no_limit(struct kunit *test)
{
	struct xfb_limiter l;
	unsigned int i;

	xfb_limiter_init(&l);
	KUNIT_EXPECT_FALSE(test, l.on);
	for (i = 0; i < 1000; i++)
		KUNIT_ASSERT_EQ(test, xfb_limiter_admit(&l, i & 1, SZ_1M, T0),
				0ULL);
	KUNIT_EXPECT_EQ(test, xfb_limiter_burst_ms(&l),
			(u32)XFB_BURST_MS_DEFAULT);
}

/* 100 requests a second, 100 ms of burst: 11 at once, then one per 10 ms. */
static void xfb_test_iops_burst_then_rate(struct kunit *test)
{
	struct xfb_limiter l;
	unsigned int n = 0;
	u64 wait;

	xfb_limiter_init(&l);
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&l, XFB_IOPS, 100, T0), 0);
	KUNIT_EXPECT_TRUE(test, l.on);
	while (!xfb_limiter_admit(&l, false, 4096, T0) && n < 1000)
		n++;
	KUNIT_EXPECT_EQ(test, n, 11u);
	/* The next may start when the 12th request's 10 ms are due. */
	wait = xfb_limiter_admit(&l, false, 4096, T0);
	KUNIT_EXPECT_EQ(test, wait, 10 * NSEC_PER_MSEC);
	KUNIT_EXPECT_NE(test, xfb_limiter_admit(&l, true, 0, T0 + wait - 1),
			0ULL);
	KUNIT_EXPECT_EQ(test, xfb_limiter_admit(&l, true, 0, T0 + wait), 0ULL);
}

/* A saturating client gets the rate, plus one burst, within 1 %. */
static void xfb_test_iops_sustained(struct kunit *test)
{
	struct xfb_limiter l;
	u64 n;

	xfb_limiter_init(&l);
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&l, XFB_IOPS, 5000, T0), 0);
	n = xfb_saturate(&l, true, 4096, T0, 10);
	/* 10 s at 5000/s, and the first 100 ms burst (500 + 1). */
	KUNIT_EXPECT_GE(test, n, 50000ULL);
	KUNIT_EXPECT_LE(test, n, 50501ULL + 1);
}

static void xfb_test_bps_sustained(struct kunit *test)
{
	struct xfb_limiter l;
	u64 n;

	xfb_limiter_init(&l);
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&l, XFB_BPS, 10 * SZ_1M, T0), 0);
	n = xfb_saturate(&l, false, SZ_64K, T0, 10);
	/* 100 MiB in 10 s is 1600 requests of 64 KiB; the burst is 16 + 1. */
	KUNIT_EXPECT_GE(test, n * SZ_64K, 100ULL * SZ_1M);
	KUNIT_EXPECT_LE(test, n, 1600ULL + 17 + 1);
}

/* Larger than the bucket: starts, and the ones after wait out its debt. */
static void xfb_test_large_request_starts(struct kunit *test)
{
	struct xfb_limiter l;
	u64 wait;

	xfb_limiter_init(&l);
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&l, XFB_BPS, SZ_1M, T0), 0);
	KUNIT_EXPECT_EQ(test, xfb_limiter_admit(&l, true, 16 * SZ_1M, T0),
			0ULL);
	wait = xfb_limiter_admit(&l, true, 512, T0);
	/* 16 s of debt, less the 100 ms the bucket may run ahead. */
	KUNIT_EXPECT_EQ(test, wait, 16 * NSEC_PER_SEC - 100 * NSEC_PER_MSEC);
	/* A length past 32 bits is counted as 4 GiB, not wrapped. */
	xfb_limiter_init(&l);
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&l, XFB_BPS, 1, T0), 0);
	KUNIT_EXPECT_EQ(test, xfb_limiter_admit(&l, true, U64_MAX, T0), 0ULL);
	KUNIT_EXPECT_EQ(test, xfb_limiter_admit(&l, true, 1, T0),
			(u64)U32_MAX * NSEC_PER_SEC - 100 * NSEC_PER_MSEC);
}

/* A quiet disk gathers one burst, not the whole quiet time. */
static void xfb_test_quiet_gathers_one_burst(struct kunit *test)
{
	struct xfb_limiter l;
	unsigned int n = 0;
	u64 later = T0 + 3600 * NSEC_PER_SEC;

	xfb_limiter_init(&l);
	KUNIT_ASSERT_EQ(test, xfb_limiter_set_burst(&l, 500), 0);
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&l, XFB_IOPS, 1000, T0), 0);
	while (!xfb_limiter_admit(&l, false, 0, later) && n < 100000)
		n++;
	KUNIT_EXPECT_EQ(test, n, 501u);
}

/* Each rate counts what it names; the total counts both directions. */
static void xfb_test_rates_count_their_direction(struct kunit *test)
{
	struct xfb_limiter l;

	xfb_limiter_init(&l);
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&l, XFB_IOPS_READ, 100, T0), 0);
	/* 11 at once, then one each 10 ms until 5 s: 499 more. */
	KUNIT_EXPECT_EQ(test, xfb_saturate(&l, false, 4096, T0, 5),
			11ULL + 499);
	/* Writes are not limited by a read limit, reads in debt or not. */
	KUNIT_EXPECT_EQ(test, xfb_limiter_admit(&l, true, SZ_1M, T0), 0ULL);

	xfb_limiter_init(&l);
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&l, XFB_BPS_WRITE, SZ_1M, T0),
			0);
	KUNIT_EXPECT_EQ(test, xfb_limiter_admit(&l, true, 4 * SZ_1M, T0), 0ULL);
	KUNIT_EXPECT_NE(test, xfb_limiter_admit(&l, true, 0, T0), 0ULL);
	KUNIT_EXPECT_EQ(test, xfb_limiter_admit(&l, false, SZ_1M, T0), 0ULL);

	xfb_limiter_init(&l);
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&l, XFB_IOPS, 100, T0), 0);
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&l, XFB_IOPS_WRITE, 10, T0), 0);
	/* 2 writes empty the write bucket (100 ms each, 100 ms of burst)... */
	KUNIT_EXPECT_EQ(test, xfb_admitted_now(&l, true, T0), 2u);
	/* ...and count in the total: 9 of its 11 are left to reads. */
	KUNIT_EXPECT_EQ(test, xfb_admitted_now(&l, false, T0), 9u);
	KUNIT_EXPECT_NE(test, xfb_limiter_admit(&l, true, 0, T0), 0ULL);
}

/* A new limit applies to the next request; lifting the last turns off. */
static void xfb_test_live_change(struct kunit *test)
{
	struct xfb_limiter l;
	u64 now = T0;

	xfb_limiter_init(&l);
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&l, XFB_IOPS, 1, now), 0);
	KUNIT_EXPECT_EQ(test, xfb_limiter_admit(&l, false, 0, now), 0ULL);
	KUNIT_EXPECT_GT(test, xfb_limiter_admit(&l, false, 0, now),
			NSEC_PER_MSEC * 800);
	now += NSEC_PER_MSEC;
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&l, XFB_IOPS, 1000, now), 0);
	KUNIT_EXPECT_EQ(test, xfb_limiter_get(&l, XFB_IOPS), 1000ULL);
	/* 101 at once, then one each ms until 2 s: 1999 more. */
	KUNIT_EXPECT_EQ(test, xfb_saturate(&l, false, 0, now, 2),
			101ULL + 1999);
	/* The same limit again keeps the bucket empty: no new burst. */
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&l, XFB_IOPS, 1000, now), 0);
	KUNIT_EXPECT_NE(test, xfb_limiter_admit(&l, false, 0, now), 0ULL);
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&l, XFB_IOPS, 0, now), 0);
	KUNIT_EXPECT_FALSE(test, l.on);
	KUNIT_EXPECT_EQ(test, xfb_limiter_admit(&l, false, 0, now), 0ULL);
	KUNIT_EXPECT_EQ(test, xfb_limiter_set(&l, XFB_NR_RATES, 1, now),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xfb_limiter_set(&l, XFB_BPS,
					      XFB_RATE_MAX + 1, now), -EINVAL);
	KUNIT_EXPECT_EQ(test, xfb_limiter_set_burst(&l, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, xfb_limiter_set_burst(&l, XFB_BURST_MS_MAX + 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xfb_limiter_set_burst(&l, XFB_BURST_MS_MAX), 0);
	KUNIT_EXPECT_EQ(test, xfb_limiter_burst_ms(&l), (u32)XFB_BURST_MS_MAX);
}

/*
 * Two disks of one guest, each under its own limits and the guest's
 * total: both saturating for 10 s, the one due first asking first (when
 * both are due at once, the one not served last, as a poller's round
 * takes each channel in turn).  @n gets what each started.
 */
static void xfb_saturate_two(struct xfb_limiter *disk, struct xfb_limiter *guest,
			     u64 *n)
{
	struct xfb_limiter *ls[2][XFB_LIMITERS_MAX] = {
		{ &disk[0], guest }, { &disk[1], guest }
	};
	u64 next[2] = { T0, T0 }, end = T0 + 10 * NSEC_PER_SEC, wait;
	unsigned int d, last = 1;

	n[0] = 0;
	n[1] = 0;
	while (next[0] < end || next[1] < end) {
		if (next[0] != next[1])
			d = next[0] < next[1] ? 0 : 1;
		else
			d = !last;
		wait = xfb_limiters_admit(ls[d], XFB_LIMITERS_MAX, false, 4096,
					  next[d]);
		if (wait) {
			next[d] += wait;
		} else {
			n[d]++;
			last = d;
		}
	}
}

/* The guest's total binds both disks together; each disk's own still holds. */
static void xfb_test_guest_total(struct kunit *test)
{
	struct xfb_limiter disk[2], guest;
	u64 n[2];

	xfb_limiter_init(&disk[0]);
	xfb_limiter_init(&disk[1]);
	xfb_limiter_init(&guest);
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&guest, XFB_IOPS_READ, 1000, T0),
			0);
	xfb_saturate_two(disk, &guest, n);
	/* 10 s at 1000/s and one 100 ms burst (100 + 1), shared. */
	KUNIT_EXPECT_GE(test, n[0] + n[1], 10000ULL);
	KUNIT_EXPECT_LE(test, n[0] + n[1], 10101ULL + 2);
	/* Neither disk starves the other. */
	KUNIT_EXPECT_GE(test, n[0], 4000ULL);
	KUNIT_EXPECT_GE(test, n[1], 4000ULL);

	/* Disk 0 capped at 200/s: disk 1 takes the rest of the total. */
	xfb_limiter_init(&guest);
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&guest, XFB_IOPS_READ, 1000, T0),
			0);
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&disk[0], XFB_IOPS, 200, T0), 0);
	xfb_saturate_two(disk, &guest, n);
	KUNIT_EXPECT_LE(test, n[0], 2021ULL + 1);
	KUNIT_EXPECT_GE(test, n[0], 2000ULL);
	KUNIT_EXPECT_GE(test, n[0] + n[1], 10000ULL);
	KUNIT_EXPECT_LE(test, n[0] + n[1], 10101ULL + 2);
}

/* A request the guest's total holds back costs its disk nothing. */
static void xfb_test_guest_refusal_costs_nothing(struct kunit *test)
{
	struct xfb_limiter disk, guest;
	struct xfb_limiter *ls[XFB_LIMITERS_MAX] = { &disk, &guest };
	u64 due;

	xfb_limiter_init(&disk);
	xfb_limiter_init(&guest);
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&disk, XFB_IOPS, 1000, T0), 0);
	KUNIT_ASSERT_EQ(test, xfb_limiter_set(&guest, XFB_IOPS, 10, T0), 0);
	/* The guest's burst: 10 a second for 100 ms, one request and one more. */
	KUNIT_EXPECT_EQ(test, xfb_limiters_admit(ls, 2, false, 0, T0), 0ULL);
	KUNIT_EXPECT_EQ(test, xfb_limiters_admit(ls, 2, false, 0, T0), 0ULL);
	due = disk.due[XFB_IOPS];
	KUNIT_EXPECT_NE(test, xfb_limiters_admit(ls, 2, false, 0, T0), 0ULL);
	KUNIT_EXPECT_EQ(test, disk.due[XFB_IOPS], due);
	/* A NULL entry is no limit; a write counts against a total too. */
	ls[1] = NULL;
	KUNIT_EXPECT_EQ(test, xfb_limiters_admit(ls, 2, true, 0, T0), 0ULL);
	KUNIT_EXPECT_GT(test, disk.due[XFB_IOPS], due);
}

/**
 * struct xfb_parse_case - a value written to sysfs or xenstore
 * @s: the value
 * @err: what the parser (xfb_rate_parse() or xfb_burst_parse()) must return
 * @val: the rate or burst length it must give (when @err is 0)
 */
struct xfb_parse_case {
	const char *s;
	int err;
	u64 val;
};

/* Rates. */
static const struct xfb_parse_case xfb_parse_cases[] = {
	{ "none", 0, 0 },
	{ "none\n", 0, 0 },
	{ "1", 0, 1 },
	{ "2500\n", 0, 2500 },
	{ "1099511627776", 0, 1ULL << 40 },
	{ "1099511627777", -EINVAL, 0 },
	{ "99999999999999999999999999", -EINVAL, 0 },
	{ "0", -EINVAL, 0 },
	{ "", -EINVAL, 0 },
	{ "\n", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "+5", -EINVAL, 0 },
	{ " 5", -EINVAL, 0 },
	{ "5 ", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
	{ "1e3", -EINVAL, 0 },
	{ "10M", -EINVAL, 0 },
	{ "None", -EINVAL, 0 },
	{ "nonesuch", -EINVAL, 0 },
	{ "5\n\n", -EINVAL, 0 },
};

/* Burst lengths in milliseconds. */
static const struct xfb_parse_case xfb_burst_cases[] = {
	{ "1", 0, 1 },
	{ "100\n", 0, 100 },
	{ "60000", 0, XFB_BURST_MS_MAX },
	{ "60001", -EINVAL, 0 },
	{ "4294967297", -EINVAL, 0 },
	{ "0", -EINVAL, 0 },
	{ "", -EINVAL, 0 },
	{ "+5", -EINVAL, 0 },
	{ " 5", -EINVAL, 0 },
	{ "5 ", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
	{ "none", -EINVAL, 0 },
	{ "5\n\n", -EINVAL, 0 },
};

static void xfb_parse_case_desc(const struct xfb_parse_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%*pE\"", (int)strlen(c->s),
		 c->s);
}

KUNIT_ARRAY_PARAM(xfb_parse, xfb_parse_cases, xfb_parse_case_desc);
KUNIT_ARRAY_PARAM(xfb_burst, xfb_burst_cases, xfb_parse_case_desc);

/* A value refused leaves the rate or length as it was (12345). */
static void xfb_test_rate_parse(struct kunit *test)
{
	const struct xfb_parse_case *c = test->param_value;
	u64 rate = 12345;

	KUNIT_EXPECT_EQ(test, xfb_rate_parse(c->s, &rate), c->err);
	KUNIT_EXPECT_EQ(test, rate, c->err ? 12345ULL : c->val);
}

static void xfb_test_burst_parse(struct kunit *test)
{
	const struct xfb_parse_case *c = test->param_value;
	u32 ms = 12345;

	KUNIT_EXPECT_EQ(test, xfb_burst_parse(c->s, &ms), c->err);
	KUNIT_EXPECT_EQ(test, (u64)ms, c->err ? 12345ULL : c->val);
}

static struct kunit_case xfb_limit_test_cases[] = {
	KUNIT_CASE(xfb_test_no_limit),
	KUNIT_CASE(xfb_test_iops_burst_then_rate),
	KUNIT_CASE(xfb_test_iops_sustained),
	KUNIT_CASE(xfb_test_bps_sustained),
	KUNIT_CASE(xfb_test_large_request_starts),
	KUNIT_CASE(xfb_test_quiet_gathers_one_burst),
	KUNIT_CASE(xfb_test_rates_count_their_direction),
	KUNIT_CASE(xfb_test_live_change),
	KUNIT_CASE(xfb_test_guest_total),
	KUNIT_CASE(xfb_test_guest_refusal_costs_nothing),
	KUNIT_CASE_PARAM(xfb_test_rate_parse, xfb_parse_gen_params),
	KUNIT_CASE_PARAM(xfb_test_burst_parse, xfb_burst_gen_params),
	{}
};

XFB_KUNIT_SUITE(fipcblk_limit, xfb_limit_test_cases,
		"KUnit tests of the fipcblk backend's I/O limits");
