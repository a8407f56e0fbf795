/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fipc pollers: a set of pinned kthreads serving many channels in turn.
 *
 * Kernel only (fipc_poller.c, in fipc.ko).  A driver embeds a struct
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
#ifndef _FIPC_FIPC_POLLER_H
#define _FIPC_FIPC_POLLER_H

#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/stringify.h>
#include <linux/time64.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <fipc/fipc.h>
#include <fipc/fipc_poll_gaps.h>

#define FIPC_POLLERS_MAX		8
#define FIPC_POLLERS_DEFAULT		1
#define FIPC_POLL_IDLE_US_DEFAULT	200
#define FIPC_POLL_IDLE_MAX_US_DEFAULT	2000
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
 * Auto-scaling (fipc_poller_scale.c): each poller's load is the share of
 * a period it spent in rounds that found work; FIPC_POLL_SCALE_PERIODS
 * periods in a row at or above the set's scale_up_pct (default
 * FIPC_POLL_SCALE_UP_PCT) spread its channels, below scale_down_pct
 * (default FIPC_POLL_SCALE_DOWN_PCT) gather them.
 */
#define FIPC_POLL_SCALE_PERIOD_MS	100
#define FIPC_POLL_SCALE_PERIODS		5
#define FIPC_POLL_SCALE_UP_PCT		80
#define FIPC_POLL_SCALE_DOWN_PCT	30
/*
 * A busy poller hands work to another poller at work (a rebalance) only
 * if that one is under half its load and at least this many points
 * below it: see fipc_poller_rebalance_share().
 */
#define FIPC_POLL_REBALANCE_GAP_PCT	20
/* Channel weights, as Xen's credit scheduler's domain weights. */
#define FIPC_POLL_WEIGHT_DEFAULT	256
#define FIPC_POLL_WEIGHT_MAX		65535

struct cpumask;
struct task_struct;
struct fipc_poller;
struct fipc_poll_entry;

/**
 * struct fipc_poll_ops - what a poller does with a driver's channels
 * @poll: do what waits on the channel, taking at most @budget messages
 *	from its ring; return the work done, 0 if none
 * @set_sleeping: publish (or withdraw) the poller's sleeping state in
 *	the channel's control page
 * @has_work: the last look before sleeping: true if the channel has
 *	work, so the poller must not sleep
 * @busy: optional: true while work of the channel is under way that
 *	ends elsewhere (a bio completing on another CPU) and is announced
 *	with fipc_poll_entry_wake(), which wakes only a sleeping poller.
 *	A poller serving this channel alone then spins between rounds
 *	instead of waiting on @rx in hardware (MWAITX, UMWAIT), which such
 *	a kick cannot end early.
 * @wait: optional: wait for the channel's next message with the given
 *	waiter, in place of fipc_wait_rx() on the entry's ring, when the
 *	poller serves this channel alone and it is not @busy; for channels
 *	that are not a one-way ring, e.g. fipc_duplex_server_wait() on a
 *	duplex ring (whose entry then has no ring)
 * @show: optional: more text after the poller's line in
 *	fipc_poller_set_show(), at most @size bytes at @buf; return the
 *	bytes written
 * @irq_take: optional: called by fipc_poll_entry_irq() (any context,
 *	hard irq included) when the channel's poller sleeps, to do a
 *	little of the channel's work there rather than wake the poller,
 *	under a claim of the driver's own that @poll also takes; return
 *	true if nothing is left for the poller (it is then not kicked)
 *
 * @poll, @set_sleeping, @has_work, @busy and @wait run in the poller
 * thread, with the poller's channel list locked.
 */
struct fipc_poll_ops {
	int (*poll)(struct fipc_poll_entry *entry, unsigned int budget);
	void (*set_sleeping)(struct fipc_poll_entry *entry, bool sleeping);
	bool (*has_work)(struct fipc_poll_entry *entry);
	bool (*busy)(struct fipc_poll_entry *entry);
	int (*wait)(struct fipc_poll_entry *entry, struct fipc_waiter *w);
	int (*show)(struct fipc_poller *pl, char *buf, size_t size);
	bool (*irq_take)(struct fipc_poll_entry *entry);
};

/**
 * struct fipc_poll_entry - a channel's place in a poller, embedded in it
 * @node: entry in the poller's list
 * @poller: the poller serving the channel, NULL while detached
 * @rx: the channel's receiving ring, watched with the fipc wait strategy
 *	while the poller serves this channel alone; NULL if the set's ops
 *	wait on the channel themselves (fipc_poll_ops.wait)
 * @retry_us: set by the driver's @poll (fipc_poll_entry_retry()): the
 *	channel waits on something its peer will not notify (e.g. room in
 *	a ring the peer does not empty), so a sleeping poller looks again
 *	after this many microseconds; 0: nothing to retry
 * @weight: the channel's share of its poller against the other channels
 *	there: each visit may take the set's budget x @weight /
 *	FIPC_POLL_WEIGHT_DEFAULT messages (at least one); set with
 *	fipc_poll_entry_set_weight(), live
 * @cpus: the CPUs its pollers may run on, from fipc_poller_attach(), or
 *	NULL: any (kept while attached, for auto-scaling's moves)
 * @local_work: of the work the last @poll returned, how much did not come
 *	from the peer (fipc_poll_entry_local_work()); reset before each
 * @period_work: auto-scaling: work @poll returned in the poller's current
 *	load period (its poller's thread, under the poller's lock)
 * @last_work: auto-scaling: the same for the last period that ended: which
 *	channels a busy poller hands over (fipc_poller_scale.c)
 */
struct fipc_poll_entry {
	struct list_head node;
	struct fipc_poller *poller;
	struct fipc_ring *rx;
	unsigned int retry_us;
	unsigned int weight;
	const struct cpumask *cpus;
	unsigned int local_work;
	unsigned int period_work;
	unsigned int last_work;
};

/**
 * struct fipc_poller - a pinned thread serving many channels in turn
 * @set: the set it belongs to
 * @task: the thread
 * @index: number of this poller in @set
 * @cpu: CPU it is bound to
 * @lock: protects @entries against attach/detach while polling
 * @entries: channels served, in round-robin order
 * @nr_entries: length of @entries
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

/**
 * struct fipc_poller_set - a named set of pinned polling threads
 * @name: thread name prefix: the threads are "<name>/<index>"
 * @ops: what the pollers do with the channels
 * @priv_size: bytes of per-poller driver data (fipc_poller_priv())
 * @nr_pollers: setting: number of threads started, 1 to FIPC_POLLERS_MAX
 * @idle_us: setting: the shortest idle window: time without work after
 *	which a poller sleeps (live)
 * @idle_max_us: setting: the longest idle window a poller learns (live);
 *	at or below @idle_us the window is fixed at @idle_us
 * @budget: setting: messages taken from one channel at a time (live)
 * @fifo: setting: threads run at SCHED_FIFO
 * @freezable: setting: the threads stop at the system's freezing of
 *	kernel threads, before a suspend, and go on at the thaw (a guest's
 *	frontend: nothing takes responses from rings that a save or a
 *	migration left behind before the driver's resume puts their
 *	requests back)
 * @steal_sleep: setting: a poller without work sleeps, even within
 *	@idle_us, when its CPU's stolen time (time a hypervisor ran another
 *	virtual CPU while this one wanted to run) grew lately by
 *	FIPC_POLL_STEAL_PCT or more of the time (live)
 * @steal_clock: the stolen time of a CPU, in ns; NULL: the kernel's
 *	account of it (kcpustat's CPUTIME_STEAL, brought up to date at
 *	each tick).  For tests.
 * @autoscale: setting: channels start on one poller and spread over the
 *	others under load (fipc_poller_scale.c; live)
 * @scale_up_pct: setting: load, percent, at or above which a poller
 *	spreads its channels (live; 0: FIPC_POLL_SCALE_UP_PCT)
 * @scale_down_pct: setting: load, percent, below which a poller gathers
 *	its channels onto a lower one (live; 0: FIPC_POLL_SCALE_DOWN_PCT;
 *	at or above @scale_up_pct: one less than it)
 * @start_cpus: setting: CPU of each poller, from a poller_cpus list
 *	given before the set started (at module load); used if
 *	@start_cpus_given, else the default placement
 * @start_cpus_given: @start_cpus holds a list's placement
 * @pollers: the pollers
 * @running: number of pollers started
 * @next: round-robin cursor of fipc_poller_attach()
 * @balance_lock: serialises auto-scaling's moves and attaches
 * @scale_ups: statistics: times a busy poller spread its channels
 * @scale_downs: statistics: times a poller gave all of its channels away
 * @rebalances: statistics: times a busy poller handed work to a less
 *	loaded one at work (all pollers had channels)
 *
 * The driver fills in @name, @ops, @priv_size and the settings (usually
 * a static initializer and module parameters, see FIPC_PARAM_POLLERS()
 * and its siblings); the rest belongs to fipc_poller.c.
 */
struct fipc_poller_set {
	const char *name;
	const struct fipc_poll_ops *ops;
	size_t priv_size;
	unsigned int nr_pollers;
	unsigned int idle_us;
	unsigned int idle_max_us;
	unsigned int budget;
	bool fifo;
	bool freezable;
	bool steal_sleep;
	u64 (*steal_clock)(int cpu);
	bool autoscale;
	unsigned int scale_up_pct;
	unsigned int scale_down_pct;
	int start_cpus[FIPC_POLLERS_MAX];
	bool start_cpus_given;
	struct fipc_poller pollers[FIPC_POLLERS_MAX];
	unsigned int running;
	atomic_t next;
	struct mutex balance_lock;	/* protects moves between pollers */
	atomic_t scale_ups;
	atomic_t scale_downs;
	atomic_t rebalances;
};

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

int fipc_poller_set_start(struct fipc_poller_set *set);
void fipc_poller_set_stop(struct fipc_poller_set *set);
int fipc_poller_set_repin(struct fipc_poller_set *set, const char *list);
int fipc_poller_set_show(struct fipc_poller_set *set, char *buf);

void fipc_poller_attach(struct fipc_poller_set *set,
			struct fipc_poll_entry *entry,
			const struct cpumask *cpus);
void fipc_poller_detach(struct fipc_poll_entry *entry);
void fipc_poller_kick(struct fipc_poller *pl);
bool fipc_poll_entry_irq(struct fipc_poll_entry *entry);
bool fipc_poll_entry_wake(struct fipc_poll_entry *entry);

/**
 * fipc_poll_entry_init() - prepare a channel's entry, detached
 * @entry: the entry
 * @rx: the channel's receiving ring (its memory may come later), or NULL
 *	if the set's ops wait on the channel themselves (fipc_poll_ops.wait)
 */
static inline void fipc_poll_entry_init(struct fipc_poll_entry *entry,
					struct fipc_ring *rx)
{
	INIT_LIST_HEAD(&entry->node);
	entry->poller = NULL;
	entry->rx = rx;
	entry->retry_us = 0;
	entry->weight = FIPC_POLL_WEIGHT_DEFAULT;
	entry->cpus = NULL;
	entry->local_work = 0;
	entry->period_work = 0;
	entry->last_work = 0;
}

/**
 * fipc_poll_entry_set_weight() - set a channel's share of its poller
 * @entry: the channel's entry, attached or not
 * @weight: 1 to FIPC_POLL_WEIGHT_MAX (FIPC_POLL_WEIGHT_DEFAULT: the
 *	set's budget per visit); other values are clamped into that range
 *
 * Takes effect at the channel's next visit.
 */
static inline void fipc_poll_entry_set_weight(struct fipc_poll_entry *entry,
					      unsigned int weight)
{
	WRITE_ONCE(entry->weight, clamp_t(unsigned int, weight, 1,
					  FIPC_POLL_WEIGHT_MAX));
}

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
 * fipc_poll_entry_retry() - have a sleeping poller look again later
 * @entry: the channel's entry, from the driver's poll op
 * @us: microseconds after which the channel is polled again even if
 *	nothing kicks the poller; 0 cancels
 *
 * For a channel that cannot make progress until its peer does something
 * the peer does not notify, so that neither a busy loop nor a lost
 * wake-up follows.
 */
static inline void fipc_poll_entry_retry(struct fipc_poll_entry *entry,
					 unsigned int us)
{
	entry->retry_us = us;
}

/**
 * fipc_poll_entry_local_work() - count work the peer did not send
 * @entry: the channel's entry, from the driver's poll op
 * @n: units of the work this call of the op returns that are local: a
 *	completion of the driver's own, not a message of the peer
 *
 * The poller's idle window learns the gaps before the peer's messages
 * only, since local work that finishes while the poller sleeps kicks it
 * (fipc_poll_entry_wake()); a round with local work only restarts the
 * gap without ending it.  Without this call, all work counts as the
 * peer's.
 */
static inline void fipc_poll_entry_local_work(struct fipc_poll_entry *entry,
					      unsigned int n)
{
	entry->local_work += n;
}

/**
 * fipc_poll_entry_poller() - the poller serving a channel
 * @entry: the channel's entry
 *
 * Return: the poller, or NULL while the channel is detached.
 */
static inline struct fipc_poller *
fipc_poll_entry_poller(const struct fipc_poll_entry *entry)
{
	return READ_ONCE(entry->poller);
}

/**
 * fipc_poll_entry_asleep() - does a channel's poller sleep
 * @entry: the channel's entry
 *
 * For work the driver can do without its poller while the poller sleeps
 * (an answer from a request's completion), under its own exclusion
 * against the poller's ops->poll.  The poller sets its sleeping state
 * before its last look at its channels (ops->has_work) and at its kicks:
 * a caller that leaves work after seeing it awake calls
 * fipc_poll_entry_wake(), whose kick that look or the poller's next
 * round answers.  Safe from any context.
 *
 * Return: true if the channel has a poller and it is (about to be)
 * sleeping.
 */
static inline bool fipc_poll_entry_asleep(const struct fipc_poll_entry *entry)
{
	const struct fipc_poller *pl = fipc_poll_entry_poller(entry);

	return pl && READ_ONCE(pl->asleep);
}

/**
 * fipc_poller_priv() - the driver's data of a poller
 * @pl: the poller
 *
 * Return: @pl's struct fipc_poller_set.priv_size bytes, zeroed at start.
 */
static inline void *fipc_poller_priv(struct fipc_poller *pl)
{
	return pl->priv;
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
 * fipc_poller_wake_ns() - how long a sleeping poller takes to run again
 * @pl: the poller
 *
 * A driver that could wake the poller to take an answer it expects can
 * compare this with how soon the answer comes: if it comes sooner, the
 * poller would find it already taken (by the event handler) and poll on
 * in vain.
 *
 * Return: the running mean from a kick to the thread running again, in
 * nanoseconds; 0 before the first kick of a sleeping poller.
 */
static inline u64 fipc_poller_wake_ns(const struct fipc_poller *pl)
{
	return READ_ONCE(pl->wake_ns);
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

/* Latency histograms for the drivers' show hooks. */
#define FIPC_POLL_LAT_BUCKETS		6

/**
 * fipc_poll_lat_bucket() - histogram bucket of a latency
 * @ns: the latency in nanoseconds
 *
 * Return: 0 to FIPC_POLL_LAT_BUCKETS - 1 for <100 us, <1 ms, <4 ms,
 * <16 ms, <64 ms and more.
 */
static inline unsigned int fipc_poll_lat_bucket(u64 ns)
{
	static const u64 lim[FIPC_POLL_LAT_BUCKETS - 1] = {
		100 * NSEC_PER_USEC, NSEC_PER_MSEC, 4 * NSEC_PER_MSEC,
		16 * NSEC_PER_MSEC, 64 * NSEC_PER_MSEC,
	};
	unsigned int i;

	for (i = 0; i < FIPC_POLL_LAT_BUCKETS - 1; i++)
		if (ns < lim[i])
			break;
	return i;
}

int fipc_poll_lat_show(char *buf, size_t size, const char *name,
		       const u64 *hist);

/*
 * A poller set's module parameters, one macro each, with the same names
 * and meaning in every driver: pollers (nr_pollers, at load),
 * poll_idle_us (idle_us), poll_idle_max_us (idle_max_us), poll_fifo
 * (fifo, at load), poll_autoscale (autoscale), poll_scale_up_pct and
 * poll_scale_down_pct (scale_up_pct, scale_down_pct) and poller_cpus
 * (read: fipc_poller_set_show(); write a CPU list:
 * fipc_poller_set_repin()).  @set is the struct fipc_poller_set itself,
 * not a pointer.  The budget's meaning and default are the driver's: it
 * declares that parameter itself.
 *
 * SCHED_NORMAL by default: a FIFO poller that never sleeps under load
 * starves the I/O submitters and softirqs of its CPU and is stopped by
 * RT throttling (50 ms every second).  FIFO is for CPUs given to the
 * pollers.
 */
extern const struct kernel_param_ops fipc_poller_cpus_param_ops;
extern const struct kernel_param_ops fipc_poll_pct_param_ops;

#define FIPC_POLLER_CPUS_HELP \
	"Read: one line per poller with its CPU and counters. Write a CPU list (e.g. 1,3) to re-pin poller i to the i-th CPU"
#define FIPC_POLLERS_HELP						\
	"Number of polling threads, 1 to " __stringify(FIPC_POLLERS_MAX) \
	" (default " __stringify(FIPC_POLLERS_DEFAULT) ")"
#define FIPC_POLL_IDLE_US_HELP						\
	"Shortest idle time in microseconds after which a poller sleeps " \
	"on the event channels (default "				\
	__stringify(FIPC_POLL_IDLE_US_DEFAULT) ")"
#define FIPC_POLL_IDLE_MAX_US_HELP					\
	"Longest idle time in microseconds a poller learns to poll "	\
	"through: the mean gap between its work plus the larger of "	\
	"that mean and four mean deviations, if shorter "		\
	"(default " __stringify(FIPC_POLL_IDLE_MAX_US_DEFAULT)		\
	"; at most poll_idle_us: fixed)"
#define FIPC_POLL_AUTOSCALE_HELP					\
	"Start channels on one poller and spread them over more only "	\
	"while the busy ones stay busy (default true; live)"
#define FIPC_POLL_SCALE_UP_PCT_HELP					\
	"Auto-scaling: a poller busy this share of the time, percent, "	\
	"for " __stringify(FIPC_POLL_SCALE_PERIODS) " periods of "	\
	__stringify(FIPC_POLL_SCALE_PERIOD_MS) " ms hands half of its "	\
	"channels to an idle poller (1-100, default "			\
	__stringify(FIPC_POLL_SCALE_UP_PCT) "; live)"
#define FIPC_POLL_SCALE_DOWN_PCT_HELP					\
	"Auto-scaling: a poller busy less than this share of the time, "	\
	"percent, hands all of its channels to a lower poller with room "	\
	"for them (1-100, below poll_scale_up_pct, default "		\
	__stringify(FIPC_POLL_SCALE_DOWN_PCT) "; live)"
#define FIPC_POLL_FIFO_HELP \
	"Run pollers at SCHED_FIFO, for CPUs dedicated to them (default false)"
#define FIPC_POLL_STEAL_SLEEP_HELP					\
	"A poller without work sleeps, even within poll_idle_us, when "	\
	"the hypervisor lately kept its virtual CPU waiting a quarter "	\
	"of the time or more while another ran on its CPU (stolen "	\
	"time), rather than polling on and taking that CPU from it "	\
	"(default true; live)"

#define FIPC_PARAM_POLLER_CPUS(set)					\
	module_param_cb(poller_cpus, &fipc_poller_cpus_param_ops, &(set), \
			0644);						\
	MODULE_PARM_DESC(poller_cpus, FIPC_POLLER_CPUS_HELP)
#define FIPC_PARAM_POLLERS(set)						\
	module_param_named(pollers, (set).nr_pollers, uint, 0444);	\
	MODULE_PARM_DESC(pollers, FIPC_POLLERS_HELP)
#define FIPC_PARAM_POLL_IDLE_US(set)					\
	module_param_named(poll_idle_us, (set).idle_us, uint, 0644);	\
	MODULE_PARM_DESC(poll_idle_us, FIPC_POLL_IDLE_US_HELP)
#define FIPC_PARAM_POLL_IDLE_MAX_US(set)				\
	module_param_named(poll_idle_max_us, (set).idle_max_us, uint, 0644); \
	MODULE_PARM_DESC(poll_idle_max_us, FIPC_POLL_IDLE_MAX_US_HELP)
#define FIPC_PARAM_POLL_AUTOSCALE(set)					\
	module_param_named(poll_autoscale, (set).autoscale, bool, 0644); \
	MODULE_PARM_DESC(poll_autoscale, FIPC_POLL_AUTOSCALE_HELP)
#define FIPC_PARAM_POLL_SCALE_UP_PCT(set)				\
	module_param_cb(poll_scale_up_pct, &fipc_poll_pct_param_ops,	\
			&(set).scale_up_pct, 0644);			\
	MODULE_PARM_DESC(poll_scale_up_pct, FIPC_POLL_SCALE_UP_PCT_HELP)
#define FIPC_PARAM_POLL_SCALE_DOWN_PCT(set)				\
	module_param_cb(poll_scale_down_pct, &fipc_poll_pct_param_ops,	\
			&(set).scale_down_pct, 0644);			\
	MODULE_PARM_DESC(poll_scale_down_pct, FIPC_POLL_SCALE_DOWN_PCT_HELP)
#define FIPC_PARAM_POLL_FIFO(set)					\
	module_param_named(poll_fifo, (set).fifo, bool, 0444);		\
	MODULE_PARM_DESC(poll_fifo, FIPC_POLL_FIFO_HELP)
#define FIPC_PARAM_POLL_STEAL_SLEEP(set)				\
	module_param_named(poll_steal_sleep, (set).steal_sleep, bool, 0644); \
	MODULE_PARM_DESC(poll_steal_sleep, FIPC_POLL_STEAL_SLEEP_HELP)

#endif /* _FIPC_FIPC_POLLER_H */
