/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fipc pollers: what the files of lib/fipc/poller/ (and their KUnit
 * tests) share.  Not API: the drivers see <fipc/fipc_poller.h>.
 *
 * A set of pinned kthreads serving many channels in turn (kernel only,
 * in fipc.ko).  A driver embeds a struct
 * fipc_poll_entry in each of its channels and supplies a struct
 * fipc_poll_ops to do the channel's work and to publish the poller's
 * sleeping state to the peer.  One set serves the channels of any
 * number of devices and guests.
 *
 * A poller that has found no work for its idle window sleeps with
 * the protocol of a "sleeping word" in each channel's control page: it
 * sets the word of every channel it serves, issues a full barrier, takes
 * a last look at every channel, and only then sleeps.  The peer notifies
 * (and the driver's interrupt handler kicks the poller) only when it
 * sees the word set, so a busy poller costs no notification at all.
 *
 * The idle window adapts to the work: each poller learns the gaps
 * between its work and the peer's next message (sleeps included), their
 * mean and their mean deviation, and keeps polling for the mean plus the
 * larger of the mean and four deviations (as TCP's retransmission timer,
 * RFC 6298), or as long as 99 % of its recent gaps within idle_max_us
 * were if that is longer (<fipc/fipc_poll_gaps.h>), between the set's
 * idle_us and idle_max_us, so that a steady workload whose gaps a sleep
 * and a wake-up would lengthen is polled through, also where its gaps
 * vary, while gaps longer than idle_max_us (no steady work, an idle
 * guest) shrink the window back to idle_us (fipc_poll_gap_learn()).
 * Work that does not come from the peer (a local completion, announced
 * with fipc_poll_entry_wake(), which leaves the poller a kick it looks
 * for before sleeping and wakes it if it sleeps) is marked with
 * fipc_poll_entry_local_work():
 * it restarts the gap but does not end one, so that a request's own
 * completion does not teach the poller to stop polling long before the
 * peer's next request.
 *
 * With the set's autoscale on, its channels start on one poller and are
 * spread over more only while the pollers at work stay busy, and gathered
 * again when the load falls (fipc_poller_scale.c).
 *
 * Past the shortest window (idle_us) a poller polls on only while no
 * other task of this kernel wants its CPU; and with the set's
 * steal_sleep, it polls at all only while no other virtual CPU of the
 * hypervisor waits for that CPU, as far as the CPU's stolen time tells.
 */
#ifndef _FIPC_POLLER_INTERNAL_H
#define _FIPC_POLLER_INTERNAL_H

#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/time64.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <fipc/fipc.h>
#include <fipc/fipc_poller.h>
#include <fipc/fipc_poller_params.h>
#include "fipc_poll_gaps.h"

/*
 * A poller's CPU counts as wanted by another virtual CPU while its
 * stolen time last grew within FIPC_POLL_STEAL_RECENT_NS (two ticks,
 * since the kernel brings its account of stolen time up to date at each
 * tick) by at least FIPC_POLL_STEAL_PCT per cent of the time since it
 * grew before (fipc_poll_steal_pct()).  A vCPU on a physical CPU of its
 * own has stolen time too, a little at each wake-up (the hypervisor's
 * wake-up latency: without the share, in the emulated testbed's dom0
 * alone on its physical CPU, it ended 95 % of the backend poller's
 * sleeps early); a vCPU that shares its physical CPU with another busy
 * one waits for it a large share of the time.
 */
#define FIPC_POLL_STEAL_RECENT_NS	(2 * TICK_NSEC)
#define FIPC_POLL_STEAL_PCT		25
/*
 * A busy poller hands work to another poller at work (a rebalance) only
 * if that one is under half its load and at least this many points
 * below it: see fipc_poller_rebalance_share().
 */
#define FIPC_POLL_REBALANCE_GAP_PCT	20

/*
 * Of struct fipc_poll_entry, whose fields are all the pollers':
 * @node: entry in the poller's list
 * @poller: the poller serving the channel, NULL while detached
 * @retry_us: set by the driver's @poll (fipc_poll_entry_retry()): a
 *	sleeping poller looks again after this many microseconds; 0: never
 * @weight: the channel's share of its poller against the other channels
 *	there: each visit may take the set's budget x @weight /
 *	FIPC_POLL_WEIGHT_DEFAULT messages (at least one)
 *	(fipc_poll_entry_set_weight(), live)
 * @cpus: the CPUs its pollers may run on, from fipc_poller_attach(), or
 *	NULL: any (kept while attached, for auto-scaling's moves)
 * @local_work: of the work the last @poll returned, how much did not come
 *	from the peer (fipc_poll_entry_local_work()); reset before each
 * @period_work: auto-scaling: work @poll returned in the poller's current
 *	load period (its poller's thread, under the poller's lock)
 * @last_work: auto-scaling: the same for the last period that ended: which
 *	channels a busy poller hands over (fipc_poller_scale.c)
 *
 * Of struct fipc_poller_set, past the driver's settings:
 * @start_cpus: CPU of each poller, from a poller_cpus list given before
 *	the set started (at module load); used if @start_cpus_given, else
 *	the default placement
 * @start_cpus_given: @start_cpus holds a list's placement
 * @pollers: the pollers, @nr_pollers of them while the set runs
 *	(fipc_poller_set_start())
 * @running: number of pollers started
 * @next: round-robin cursor of fipc_poller_attach()
 * @balance_lock: serialises auto-scaling's moves and attaches
 * @scale_ups: statistics: times a busy poller spread its channels
 * @scale_downs: statistics: times a poller gave all of its channels away
 * @rebalances: statistics: times a busy poller handed work to a less
 *	loaded one at work (all pollers had channels)
 */

/**
 * struct fipc_poller - a pinned thread serving many channels in turn
 * @set: the set it belongs to
 * @task: the thread
 * @index: number of this poller in @set
 * @cpu: CPU it is bound to
 * @lock: protects @entries against attach/detach while polling
 * @entries: channels served, in round-robin order
 * @nr_entries: length of @entries
 * @round_start: rounds started; each starts at the next channel of
 *	@entries (fipc_poll_round())
 * @wq: where the thread sleeps when idle
 * @kicked: set by whoever kicks the thread (fipc_poller_kick(),
 *	fipc_poll_entry_wake()), asleep or not; cleared by the thread just
 *	before the round that answers the kicks, never before its last look
 *	before sleeping, which a kick not yet taken stops
 * @asleep: the thread is (about to be) sleeping on @wq
 * @waiter: fipc wait strategy, used when one channel is served
 * @loops: statistics: polling rounds
 * @empty: statistics: rounds that found nothing
 * @sleeps: statistics: times the thread slept
 * @timed_sleeps: statistics: sleeps bounded by a channel's retry_us
 * @contended_sleeps: statistics: sleeps begun before the end of the idle
 *	window because another task wanted the CPU (fipc_poller_fn())
 * @steal_sleeps: statistics: sleeps begun before the end of the idle
 *	window (even before idle_us) because the hypervisor lately kept
 *	this virtual CPU waiting while another ran on its CPU (the set's
 *	steal_sleep)
 * @short_sleeps: statistics: gaps with a sleep in them that the peer's
 *	work ended within the set's idle_max_us: polling that long would have
 *	covered them (fipc_poller_fn())
 * @wakeups: statistics: sleeps ended by a kick
 * @slept_ns: statistics: time spent sleeping
 * @sleep_max_ns: statistics: longest sleep
 * @irqs: statistics: interrupts of the channels served
 * @irqs_awake: statistics: those that found the poller awake
 * @rx_waits: statistics: pauses between rounds spent waiting on the one
 *	channel's ring with @waiter (not counted: pauses that spun)
 * @gap_avg_ns: the running mean of the gaps between work that the idle
 *	window learns from (fipc_poll_gap_learn())
 * @gap_dev_ns: their running mean deviation (fipc_poll_gap_dev_learn())
 * @gaps: the recent gaps, decayed (<fipc/fipc_poll_gaps.h>)
 * @gap_tail_ns: fipc_poll_gaps_tail_ns() of @gaps, after the last gap
 * @kick_ns: when the first kick of the current sleep came, 0 if none yet
 * @wake_ns: the running mean time from a kick to the thread running
 *	again (fipc_poll_wake_learn(), fipc_poller_wake_ns())
 * @steal_seen_ns: the CPU's stolen time when the thread last saw it change
 * @steal_seen_at: when that was (or when the thread started)
 * @steal_pct: statistics: how much it grew then, per cent of the time
 *	since the change before (fipc_poll_steal_pct())
 * @period_start: auto-scaling: start of the current load period
 * @busy_ns: auto-scaling: time spent on work in the current period
 * @load_pct: auto-scaling: the last period's load, percent
 * @hot: auto-scaling: periods in a row at or above the set's scale_up_pct
 *	(a period that spans a sleep counts as the periods it lasted)
 * @cold: auto-scaling: periods in a row below the set's scale_down_pct
 * @moved_in: statistics: channels auto-scaling moved to this poller
 * @moved_in_seen: auto-scaling: @moved_in at the last period's end (channels
 *	moved in since then restart @hot and @cold)
 * @moved_out: statistics: channels it moved away from this poller
 * @freezes: statistics: times the thread was frozen (a freezable set's,
 *	for a suspend: fipc_poller_set.freezable)
 * @priv: the driver's per-poller data, @set->priv_size zeroed bytes
 */
struct fipc_poller {
	struct fipc_poller_set *set;
	struct task_struct *task;
	unsigned int index;
	int cpu;
	struct mutex lock;		/* protects entries */
	struct list_head entries;
	unsigned int nr_entries;
	unsigned int round_start;
	wait_queue_head_t wq;
	atomic_t kicked;
	bool asleep;
	struct fipc_waiter waiter;
	u64 loops;
	u64 empty;
	u64 sleeps;
	u64 timed_sleeps;
	u64 contended_sleeps;
	u64 steal_sleeps;
	u64 short_sleeps;
	u64 wakeups;
	u64 slept_ns;
	u64 sleep_max_ns;
	atomic64_t irqs;
	atomic64_t irqs_awake;
	u64 rx_waits;
	u64 gap_avg_ns;
	u64 gap_dev_ns;
	struct fipc_poll_gaps gaps;
	u64 gap_tail_ns;
	atomic64_t kick_ns;
	u64 wake_ns;
	u64 steal_seen_ns;
	u64 steal_seen_at;
	unsigned int steal_pct;
	u64 period_start;
	u64 busy_ns;
	unsigned int load_pct;
	unsigned int hot;
	unsigned int cold;
	u64 moved_in;
	u64 moved_in_seen;
	u64 moved_out;
	u64 freezes;
	void *priv;
};

/*
 * Why a poller sleeps: its idle window ran out, or, past the shortest
 * window, another task wants its CPU, or, at any point of the window, the
 * hypervisor lately ran another virtual CPU on it
 * (fipc_poller_should_sleep()).
 */
enum fipc_poll_sleep_why {
	FIPC_POLL_AWAKE,
	FIPC_POLL_IDLE,
	FIPC_POLL_CONTENDED,
	FIPC_POLL_STOLEN,
};

/* Serialises start, stop, repin and show of every set (fipc_poller_set.c). */
extern struct mutex fipc_pollers_mutex;

/* The run loop and its sleep protocol (fipc_poller.c). */
int fipc_poller_fn(void *arg);
/* The kick that wakes a sleeping poller (fipc_poller_kick.c). */
void fipc_poller_kick(struct fipc_poller *pl);
/* The idle window and stolen time (fipc_poller_window.c). */
void fipc_poller_window_start(struct fipc_poller *pl, u64 now);
enum fipc_poll_sleep_why
fipc_poller_should_sleep(struct fipc_poller *pl, u64 idle_ns, u64 now);
void fipc_poller_learn(struct fipc_poller *pl, u64 gap_ns, bool slept);
u64 fipc_poller_tail_ns(const struct fipc_poller *pl);
u64 fipc_poller_window_ns(const struct fipc_poller *pl);
/* Auto-scaling (fipc_poller_scale.c). */
void fipc_poller_account(struct fipc_poller *pl, u64 busy_ns, u64 now);
struct fipc_poller *fipc_poller_pick(struct fipc_poller_set *set,
				     const struct fipc_poll_entry *entry,
				     unsigned int start);
/* Placement (fipc_poller_place.c). */
int fipc_pollers_cpus(const char *list, int *cpus);

/**
 * fipc_poll_entry_budget() - messages a channel may take at one visit
 * @entry: the channel's entry
 * @budget: the set's budget per visit
 *
 * Return: @budget scaled by the channel's weight, at least 1.
 */
static inline unsigned int
fipc_poll_entry_budget(const struct fipc_poll_entry *entry,
		       unsigned int budget)
{
	u64 b = (u64)budget * READ_ONCE(entry->weight) /
		FIPC_POLL_WEIGHT_DEFAULT;

	return clamp_t(u64, b, 1, UINT_MAX);
}

/**
 * fipc_poll_steal_pct() - stolen time as a share of the time it grew in
 * @stolen_ns: how much a CPU's stolen time grew
 * @span_ns: over how long
 *
 * Return: @stolen_ns per cent of @span_ns, at most 100 (100 for an empty
 * span).
 */
static inline unsigned int fipc_poll_steal_pct(u64 stolen_ns, u64 span_ns)
{
	if (stolen_ns >= span_ns)
		return 100;
	return div64_u64(stolen_ns * 100, span_ns);
}

/**
 * fipc_poller_scale_limits() - the auto-scaling loads in effect
 * @set: the set, its settings as they are now
 * @up: the load, percent, at or above which a poller spreads (1 to 100)
 * @down: the load below which a poller gathers, below @up
 *
 * A setting of 0 means the default; a @down at or above @up is taken as
 * one less than @up, so that no load both spreads and gathers.
 */
static inline void fipc_poller_scale_limits(const struct fipc_poller_set *set,
					    unsigned int *up,
					    unsigned int *down)
{
	unsigned int u = READ_ONCE(set->scale_up_pct);
	unsigned int d = READ_ONCE(set->scale_down_pct);

	u = clamp_t(unsigned int, u ? u : FIPC_POLL_SCALE_UP_PCT, 1, 100);
	d = d ? d : FIPC_POLL_SCALE_DOWN_PCT;
	*up = u;
	*down = min(d, u - 1);
}

/**
 * fipc_poller_rebalance_share() - how much work a busy poller hands to
 * the least loaded poller at work
 * @load: the busy poller's load in its last period, percent
 * @least: the other poller's load now, percent
 *
 * Half the gap between the two, so that they even out: none if the
 * other is at half our load or more, or less than
 * FIPC_POLL_REBALANCE_GAP_PCT points below it.  With thresholds set
 * low, loads of a few per cent swing by more than their gap from one
 * period to the next (the testbed's scaling scenario, mode moves, at
 * 5 % and loads of 8-14 %, rebalanced 17 times in one phase); moving
 * channels for them sends work back and forth for nothing but cold
 * caches.  At the default thresholds a busy poller is at 80 % or more
 * and the other under half of it, so the gap never stops a rebalance.
 *
 * Return: the share of our work to move, percent; 0 for none.
 */
static inline unsigned int fipc_poller_rebalance_share(unsigned int load,
						       unsigned int least)
{
	if (!load || 2 * least >= load ||
	    load - least < FIPC_POLL_REBALANCE_GAP_PCT)
		return 0;
	/* we keep (load - x), it gets (least + x): x = (load - least) / 2 */
	return (load - least) * 50 / load;
}

/**
 * fipc_poll_gap_learn() - the idle window's mean gap after one more gap
 * @avg_ns: the mean so far
 * @gap_ns: time from the previous work to the work just found, including
 *	any sleep in between
 * @max_ns: the longest idle window
 *
 * A gap the window could have covered (at most @max_ns) moves the mean
 * an eighth of the way toward it; a longer one halves it, so that a few
 * long gaps (nothing steady to poll through) bring the window back to its
 * shortest.
 *
 * Return: the new mean.
 */
static inline u64 fipc_poll_gap_learn(u64 avg_ns, u64 gap_ns, u64 max_ns)
{
	if (gap_ns > max_ns)
		return avg_ns / 2;
	return avg_ns - avg_ns / 8 + gap_ns / 8;
}

/**
 * fipc_poll_gap_dev_learn() - the gaps' mean deviation after one more gap
 * @avg_ns: the mean gap before this one (fipc_poll_gap_learn())
 * @dev_ns: the mean deviation so far
 * @gap_ns: the gap just ended, as for fipc_poll_gap_learn()
 * @max_ns: the longest idle window
 *
 * A gap the window could have covered moves the deviation a quarter of
 * the way toward its distance from the mean (RFC 6298's RTTVAR); a
 * longer one halves it, as it halves the mean.
 *
 * Return: the new mean deviation.
 */
static inline u64 fipc_poll_gap_dev_learn(u64 avg_ns, u64 dev_ns, u64 gap_ns,
					  u64 max_ns)
{
	u64 dist = gap_ns > avg_ns ? gap_ns - avg_ns : avg_ns - gap_ns;

	if (gap_ns > max_ns)
		return dev_ns / 2;
	return dev_ns - dev_ns / 4 + dist / 4;
}

/**
 * fipc_poll_wake_learn() - the mean wake-up time after one more wake-up
 * @avg_ns: the mean so far, 0 before the first
 * @ns: time from the kick to the thread running again
 *
 * The first wake-up sets the mean; each later one moves it an eighth of
 * the way toward itself.
 *
 * Return: the new mean.
 */
static inline u64 fipc_poll_wake_learn(u64 avg_ns, u64 ns)
{
	if (!avg_ns)
		return ns ?: 1;
	return avg_ns - avg_ns / 8 + ns / 8;
}

/**
 * fipc_poll_idle_window() - how long a poller polls without work
 * @avg_ns: the mean gap (fipc_poll_gap_learn())
 * @dev_ns: the gaps' mean deviation (fipc_poll_gap_dev_learn())
 * @min_ns: the shortest window (the set's idle_us)
 * @max_ns: the longest (idle_max_us)
 *
 * Steady gaps (small deviation) get twice their mean; gaps that vary get
 * their mean plus four deviations, which covers nearly all of them.
 *
 * Return: @avg_ns plus the larger of @avg_ns and 4 * @dev_ns, within
 * [@min_ns, @max_ns]; @min_ns if @max_ns is not above it (no learning).
 */
static inline u64 fipc_poll_idle_window(u64 avg_ns, u64 dev_ns, u64 min_ns,
					u64 max_ns)
{
	if (max_ns <= min_ns)
		return min_ns;
	/* Bounded before the sum: no learnt value can wrap it. */
	avg_ns = min(avg_ns, max_ns);
	dev_ns = min(dev_ns, max_ns);
	return clamp_t(u64, avg_ns + max(avg_ns, 4 * dev_ns), min_ns, max_ns);
}

#endif /* _FIPC_POLLER_INTERNAL_H */
