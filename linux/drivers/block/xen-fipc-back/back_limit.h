/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xen-fipc-back: I/O limits of a disk, as token buckets (back_limit.c).
 *
 * Generic kernel headers only: the KUnit suite
 * (tests/back_limit_kunit.c) runs the buckets under UML as
 * they are, with its own clock.
 */
#ifndef _XEN_FIPC_BACK_LIMIT_H
#define _XEN_FIPC_BACK_LIMIT_H

#include <linux/bits.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/**
 * enum xfb_rate - the rates a disk can be limited to, per second
 * @XFB_IOPS: requests, of any kind
 * @XFB_IOPS_READ: reads
 * @XFB_IOPS_WRITE: writes, flushes and discards
 * @XFB_BPS: bytes read and written
 * @XFB_BPS_READ: bytes read
 * @XFB_BPS_WRITE: bytes written (flushes and discards move none)
 * @XFB_NR_RATES: number of rates
 */
enum xfb_rate {
	XFB_IOPS,
	XFB_IOPS_READ,
	XFB_IOPS_WRITE,
	XFB_BPS,
	XFB_BPS_READ,
	XFB_BPS_WRITE,
	XFB_NR_RATES,
};

/* The highest rate a limit may name (1 TiB/s, or 2^40 requests/s). */
#define XFB_RATE_MAX		BIT_ULL(40)
/* How long a burst at full speed may be, after a quiet while. */
#define XFB_BURST_MS_DEFAULT	100
#define XFB_BURST_MS_MAX	60000
/* Sets of limits one request may be under: its disk's, its guest's. */
#define XFB_LIMITERS_MAX	2

/**
 * struct xfb_limiter - token buckets of one disk
 * @lock: protects the fields below; the disk's channels may be served
 *	by different pollers at once
 * @rate: each rate's limit per second; 0 for none
 * @due: for each limited rate, when the work admitted so far would have
 *	been done at exactly that rate (ns, the clock of the calls): a
 *	request may start while @due is at most the burst ahead of now
 * @burst_ns: the burst, in time at full rate
 * @on: a rate is limited (read without @lock on the fast path)
 */
struct xfb_limiter {
	spinlock_t lock;	/* protects rate, due, burst_ns */
	u64 rate[XFB_NR_RATES];
	u64 due[XFB_NR_RATES];
	u64 burst_ns;
	bool on;
};

void xfb_limiter_init(struct xfb_limiter *l);
int xfb_limiter_set(struct xfb_limiter *l, enum xfb_rate r, u64 rate,
		    u64 now);
u64 xfb_limiter_get(struct xfb_limiter *l, enum xfb_rate r);
int xfb_limiter_set_burst(struct xfb_limiter *l, u32 ms);
u32 xfb_limiter_burst_ms(struct xfb_limiter *l);
u64 xfb_limiter_admit(struct xfb_limiter *l, bool write, u64 bytes, u64 now);
u64 xfb_limiters_admit(struct xfb_limiter *const *ls, unsigned int n,
		       bool write, u64 bytes, u64 now);
int xfb_rate_parse(const char *s, u64 *rate);
int xfb_burst_parse(const char *s, u32 *ms);

#endif /* _XEN_FIPC_BACK_LIMIT_H */
