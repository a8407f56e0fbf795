/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tail of a poller's gaps between work (kernel only, included by
 * fipc_poller_internal.h).
 *
 * The idle window from the gaps' mean and mean deviation
 * (fipc_poll_idle_window()) covers gaps that cluster around their mean.
 * A stream whose gaps are mostly short but now and then longer (a QD 1
 * guest that is sometimes late with its next request) still sleeps in
 * those longer gaps, and each such sleep costs the peer a notification
 * and the poller a wake-up: a sleep in one gap of twenty is a slow
 * request in twenty, in the tail that p99 latency measures.
 *
 * So each poller also keeps a decayed histogram of its recent gaps,
 * in buckets whose ends are powers of two nanoseconds from 2^16 (65.5 us)
 * on, and finds the bucket under which FIPC_POLL_GAP_PERMILLE of the gaps
 * that a window could cover (those within the longest window) end.  The
 * window then covers up to that bucket's end, within the longest window.
 * Each gap longer than that costs a window of polling in vain, and gaps
 * longer than the longest window always do: while they are more than one
 * in FIPC_POLL_GAP_BEYOND_DIV, the work is not steady enough to poll
 * through and the tail gives nothing; the window is then the mean's
 * alone, which such gaps bring back to its shortest.
 */
#ifndef _FIPC_FIPC_POLL_GAPS_H
#define _FIPC_FIPC_POLL_GAPS_H

#include <linux/bitops.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/types.h>

/* Buckets: [0, 2^16 ns), [2^16, 2^17), ... [2^25, 2^26), then the rest. */
#define FIPC_POLL_GAP_BUCKETS		12
#define FIPC_POLL_GAP_BUCKET0_SHIFT	16
/* Share of the coverable recent gaps the tail window covers, per 1000. */
#define FIPC_POLL_GAP_PERMILLE		990
/* No tail while more than one gap in this many is beyond any window. */
#define FIPC_POLL_GAP_BEYOND_DIV	16
/* Gaps counted before the tail gives a window. */
#define FIPC_POLL_GAP_MIN_SAMPLES	64
/* At this many gaps every count is halved: the older ones fade. */
#define FIPC_POLL_GAP_HISTORY		1024

/**
 * struct fipc_poll_gaps - a poller's recent gaps, decayed
 * @recent: gaps within the longest window, per bucket
 *	(fipc_poll_gap_bucket())
 * @beyond: gaps longer than the longest window
 * @total: the sum of @recent and @beyond
 *
 * Written by the poller's thread only.
 */
struct fipc_poll_gaps {
	u32 recent[FIPC_POLL_GAP_BUCKETS];
	u32 beyond;
	u32 total;
};

/**
 * fipc_poll_gap_bucket() - the histogram bucket of a gap
 * @gap_ns: the gap
 *
 * Return: 0 below 2^16 ns, b for [2^(15 + b), 2^(16 + b)) ns, and
 * FIPC_POLL_GAP_BUCKETS - 1 for everything from 2^26 ns (67 ms) on.
 */
static inline unsigned int fipc_poll_gap_bucket(u64 gap_ns)
{
	unsigned int b = fls64(gap_ns >> FIPC_POLL_GAP_BUCKET0_SHIFT);

	return min_t(unsigned int, b, FIPC_POLL_GAP_BUCKETS - 1);
}

/**
 * fipc_poll_gap_bucket_end_ns() - where a histogram bucket ends
 * @b: the bucket, 0 to FIPC_POLL_GAP_BUCKETS - 1
 *
 * Return: 2^(16 + @b) ns, U64_MAX for the last bucket.
 */
static inline u64 fipc_poll_gap_bucket_end_ns(unsigned int b)
{
	if (b >= FIPC_POLL_GAP_BUCKETS - 1)
		return U64_MAX;
	return 1ULL << (FIPC_POLL_GAP_BUCKET0_SHIFT + b);
}

/**
 * fipc_poll_gaps_add() - count one more gap
 * @g: the histogram
 * @gap_ns: the gap, from the previous work to the peer's work just found
 * @max_ns: the longest idle window now
 *
 * Every FIPC_POLL_GAP_HISTORY gaps, all counts are halved.
 */
static inline void fipc_poll_gaps_add(struct fipc_poll_gaps *g, u64 gap_ns,
				      u64 max_ns)
{
	unsigned int b;

	if (gap_ns > max_ns)
		g->beyond++;
	else
		g->recent[fipc_poll_gap_bucket(gap_ns)]++;
	if (++g->total < FIPC_POLL_GAP_HISTORY)
		return;
	g->beyond /= 2;
	g->total = g->beyond;
	for (b = 0; b < FIPC_POLL_GAP_BUCKETS; b++) {
		g->recent[b] /= 2;
		g->total += g->recent[b];
	}
}

/**
 * fipc_poll_gaps_tail_ns() - the gap that nearly all recent gaps end under
 * @g: the histogram
 *
 * Return: the end of the lowest bucket under which at least
 * FIPC_POLL_GAP_PERMILLE per thousand of the recent gaps within the
 * longest window ended; 0 if fewer than FIPC_POLL_GAP_MIN_SAMPLES gaps
 * were counted, or if more than one in FIPC_POLL_GAP_BEYOND_DIV was
 * longer than the longest window.
 */
static inline u64 fipc_poll_gaps_tail_ns(const struct fipc_poll_gaps *g)
{
	u32 within, allowed, above = 0;
	int b;

	if (g->total < FIPC_POLL_GAP_MIN_SAMPLES ||
	    g->beyond > g->total / FIPC_POLL_GAP_BEYOND_DIV)
		return 0;
	within = g->total - g->beyond;
	allowed = within - within * FIPC_POLL_GAP_PERMILLE / 1000;
	for (b = FIPC_POLL_GAP_BUCKETS - 1; b >= 0; b--) {
		above += g->recent[b];
		if (above > allowed)
			return fipc_poll_gap_bucket_end_ns(b);
	}
	return 0;
}

#endif /* _FIPC_FIPC_POLL_GAPS_H */
