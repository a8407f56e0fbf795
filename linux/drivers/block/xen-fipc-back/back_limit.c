// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: I/O limits of a disk, as token buckets.
 *
 * Each limited rate is a bucket kept as one time, @due: when the work
 * admitted so far would have been done at exactly that rate.  A request
 * may start while @due is at most the burst ahead of now (the bucket is
 * not empty); starting it moves @due on by its cost at that rate (a
 * request, or its bytes).  So a request larger than the whole bucket
 * still starts once the bucket has anything in it, and the ones after
 * it wait out its debt: nothing starves, and over any long while the
 * disk gets its rate and no more.  A quiet disk gathers at most one
 * burst's worth.  The caller holds a request that must wait and asks
 * again when told (back_throttle.c); the poller sleeps meanwhile.
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/time64.h>
#include "back_limit.h"
#include "back_validate.h"

/* The length of @s without the one trailing newline a sysfs write has. */
static size_t xfb_limit_len(const char *s)
{
	size_t len = strlen(s);

	return len && s[len - 1] == '\n' ? len - 1 : len;
}

/**
 * xfb_rate_parse() - a limit as an administrator or a toolstack writes it
 * @s: "none" (no limit), or a plain decimal number from 1 to
 *	XFB_RATE_MAX (xfb_parse_dec(): no sign, blank or base prefix); one
 *	trailing newline allowed (sysfs)
 * @rate: set to the number, 0 for "none"
 *
 * Return: 0, or -EINVAL (0 too: a disk that may do nothing is a mistake,
 * not a limit; "none" lifts one).
 */
int xfb_rate_parse(const char *s, u64 *rate)
{
	size_t len = xfb_limit_len(s);
	u64 v;

	if (len == 4 && !strncmp(s, "none", 4)) {
		*rate = 0;
		return 0;
	}
	if (xfb_parse_dec(s, len, XFB_RATE_MAX, &v) || !v)
		return -EINVAL;
	*rate = v;
	return 0;
}

/**
 * xfb_burst_parse() - a burst length as an administrator or a toolstack
 *	writes it
 * @s: a plain decimal number of milliseconds from 1 to XFB_BURST_MS_MAX
 *	(as xfb_rate_parse()); one trailing newline allowed (sysfs)
 * @ms: set to the number
 *
 * Return: 0, or -EINVAL.
 */
int xfb_burst_parse(const char *s, u32 *ms)
{
	u64 v;

	if (xfb_parse_dec(s, xfb_limit_len(s), XFB_BURST_MS_MAX, &v) || !v)
		return -EINVAL;
	*ms = v;
	return 0;
}

/**
 * xfb_limiter_init() - a disk without limits
 * @l: its buckets
 */
void xfb_limiter_init(struct xfb_limiter *l)
{
	memset(l, 0, sizeof(*l));
	spin_lock_init(&l->lock);
	l->burst_ns = (u64)XFB_BURST_MS_DEFAULT * NSEC_PER_MSEC;
}

/**
 * xfb_limiter_set() - set or lift one limit
 * @l: the disk's buckets
 * @r: which rate
 * @rate: per second, 0 to lift it, at most XFB_RATE_MAX
 * @now: the clock of xfb_limiter_admit()
 *
 * A changed limit's bucket starts full: it applies from the next request
 * on.  The same limit set again (a reconnection, another disk of the
 * guest connecting) keeps its bucket as it is: no new burst.
 *
 * Return: 0, or -EINVAL.
 */
int xfb_limiter_set(struct xfb_limiter *l, enum xfb_rate r, u64 rate,
		    u64 now)
{
	unsigned int i;
	bool on = false;

	if (r >= XFB_NR_RATES || rate > XFB_RATE_MAX)
		return -EINVAL;
	spin_lock(&l->lock);
	if (l->rate[r] != rate)
		l->due[r] = now;
	l->rate[r] = rate;
	for (i = 0; i < XFB_NR_RATES; i++)
		on |= l->rate[i] != 0;
	WRITE_ONCE(l->on, on);
	spin_unlock(&l->lock);
	return 0;
}

/**
 * xfb_limiter_get() - one limit
 * @l: the disk's buckets
 * @r: which rate
 *
 * Return: per second, 0 if none.
 */
u64 xfb_limiter_get(struct xfb_limiter *l, enum xfb_rate r)
{
	u64 rate;

	spin_lock(&l->lock);
	rate = l->rate[r];
	spin_unlock(&l->lock);
	return rate;
}

/**
 * xfb_limiter_set_burst() - how long a burst at full rate may last
 * @l: the disk's buckets
 * @ms: 1 to XFB_BURST_MS_MAX
 *
 * Return: 0, or -EINVAL.
 */
int xfb_limiter_set_burst(struct xfb_limiter *l, u32 ms)
{
	if (!ms || ms > XFB_BURST_MS_MAX)
		return -EINVAL;
	spin_lock(&l->lock);
	l->burst_ns = (u64)ms * NSEC_PER_MSEC;
	spin_unlock(&l->lock);
	return 0;
}

/**
 * xfb_limiter_burst_ms() - the burst
 * @l: the disk's buckets
 *
 * Return: milliseconds at full rate.
 */
u32 xfb_limiter_burst_ms(struct xfb_limiter *l)
{
	u64 ns;

	spin_lock(&l->lock);
	ns = l->burst_ns;
	spin_unlock(&l->lock);
	return div_u64(ns, NSEC_PER_MSEC);
}

/* Does rate @r count a request of this direction? */
static bool xfb_rate_counts(enum xfb_rate r, bool write)
{
	switch (r) {
	case XFB_IOPS_READ:
	case XFB_BPS_READ:
		return !write;
	case XFB_IOPS_WRITE:
	case XFB_BPS_WRITE:
		return write;
	default:
		return true;
	}
}

/* Time one request takes at rate @r: one request, or its bytes. */
static u64 xfb_rate_cost_ns(enum xfb_rate r, u64 rate, u64 bytes)
{
	u64 units = (r >= XFB_BPS) ? min_t(u64, bytes, U32_MAX) : 1;

	/* At most 2^32 * 10^9 < 2^62: no overflow. */
	return div64_u64(units * NSEC_PER_SEC, rate);
}

/* When @l's buckets for a request of this direction allow it (ns). */
static u64 xfb_limiter_wait(const struct xfb_limiter *l, bool write,
			    u64 now)
{
	u64 wait = 0, start;
	unsigned int r;

	for (r = 0; r < XFB_NR_RATES; r++) {
		if (!l->rate[r] || !xfb_rate_counts(r, write))
			continue;
		start = l->due[r] > l->burst_ns ? l->due[r] - l->burst_ns : 0;
		if (start > now)
			wait = max(wait, start - now);
	}
	return wait;
}

/* Count a request that starts now in each of @l's buckets it applies to. */
static void xfb_limiter_charge(struct xfb_limiter *l, bool write,
			       u64 bytes, u64 now)
{
	unsigned int r;

	for (r = 0; r < XFB_NR_RATES; r++) {
		if (!l->rate[r] || !xfb_rate_counts(r, write))
			continue;
		l->due[r] = max(l->due[r], now) +
			    xfb_rate_cost_ns(r, l->rate[r], bytes);
	}
}

/**
 * xfb_limiters_admit() - may a request start now under every one of a
 *	set of limits (a disk's, its guest's total); if so, count it
 * @ls: the buckets, always locked in this order (the disk's, then the
 *	guest's); an entry may be NULL
 * @n: entries of @ls, at most XFB_LIMITERS_MAX
 * @write: a write, flush or discard (not a read)
 * @bytes: data it moves (0 for a flush or discard)
 * @now: a monotonic clock, in ns
 *
 * A request is counted in all of them or in none: one a guest's total
 * holds back costs its disk nothing.
 *
 * Return: 0 if it may start (it is counted in every bucket that applies),
 * or how long to wait before asking again, in ns (nothing counted).
 */
u64 xfb_limiters_admit(struct xfb_limiter *const *ls, unsigned int n,
		       bool write, u64 bytes, u64 now)
{
	unsigned int i, on = 0;
	u64 wait = 0;

	n = min_t(unsigned int, n, XFB_LIMITERS_MAX);
	for (i = 0; i < n; i++)
		on |= (ls[i] && READ_ONCE(ls[i]->on)) << i;
	if (!on)
		return 0;
	for (i = 0; i < n; i++)
		if (on & BIT(i))
			spin_lock_nested(&ls[i]->lock, i);
	for (i = 0; i < n; i++)
		if (on & BIT(i))
			wait = max(wait, xfb_limiter_wait(ls[i], write, now));
	for (i = 0; !wait && i < n; i++)
		if (on & BIT(i))
			xfb_limiter_charge(ls[i], write, bytes, now);
	for (i = n; i-- > 0; )
		if (on & BIT(i))
			spin_unlock(&ls[i]->lock);
	return wait;
}

/**
 * xfb_limiter_admit() - may a request start now under one set of limits;
 *	if so, count it
 * @l: the buckets
 * @write: a write, flush or discard (not a read)
 * @bytes: data it moves (0 for a flush or discard)
 * @now: a monotonic clock, in ns
 *
 * Return: as xfb_limiters_admit().
 */
u64 xfb_limiter_admit(struct xfb_limiter *l, bool write, u64 bytes, u64 now)
{
	return xfb_limiters_admit(&l, 1, write, bytes, now);
}
