/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fipc pollers: a set of pinned kthreads serving many channels in turn
 * (kernel only, lib/fipc/poller/).
 *
 * A driver embeds a struct fipc_poll_entry in each of its channels and
 * gives its set a struct fipc_poll_ops to do the channel's work and to
 * publish the poller's sleeping state to the peer: a poller without
 * work for its idle window sets the sleeping word of each channel,
 * takes a last look, and sleeps until the driver's interrupt handler
 * (fipc_poll_entry_irq()) or its own completions (fipc_poll_entry_wake())
 * wake it.  Module parameters: <fipc/fipc_poller_params.h>.
 */
#ifndef _FIPC_FIPC_POLLER_H
#define _FIPC_FIPC_POLLER_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <fipc/fipc.h>

#define FIPC_POLLERS_MAX		8
#define FIPC_POLLERS_DEFAULT		1
#define FIPC_POLL_IDLE_US_DEFAULT	200
#define FIPC_POLL_IDLE_MAX_US_DEFAULT	2000
#define FIPC_POLL_SCALE_UP_PCT		80
#define FIPC_POLL_SCALE_DOWN_PCT	30
/* Channel weights, as Xen's credit scheduler's domain weights. */
#define FIPC_POLL_WEIGHT_DEFAULT	256
#define FIPC_POLL_WEIGHT_MAX		65535

struct cpumask;
struct fipc_poller;
struct fipc_poll_entry;

/**
 * struct fipc_poll_ops - what a poller does with a driver's channels
 * @poll: take at most @budget messages of the channel; return the work
 *	done, 0 if none
 * @set_sleeping: publish (or withdraw) the poller's sleeping state in
 *	the channel's control page
 * @has_work: the last look before sleeping: true if the channel has work
 * @busy: optional: true while work of the channel ends elsewhere and is
 *	announced with fipc_poll_entry_wake(): the poller then spins rather
 *	than wait in hardware (MWAITX, UMWAIT), which a kick cannot end
 * @wait: optional: wait for the channel's next message, with the
 *	poller's fipc_waiter, when the poller serves it alone (without it,
 *	the poller spins between rounds)
 * @show: optional: more text after the poller's line of
 *	fipc_poller_set_show(), at most @size bytes; return the bytes written
 * @irq_take: optional: from fipc_poll_entry_irq() (any context) while
 *	the poller sleeps: do a little of the channel's work there, under a
 *	claim of the driver's own that @poll takes too; true if nothing is
 *	left for the poller (it is then not kicked)
 *
 * All but @show and @irq_take run in the poller thread, with the
 * poller's channel list locked.
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
 *
 * Set up with fipc_poll_entry_init(); its fields belong to the pollers
 * (lib/fipc/poller/fipc_poller_internal.h).
 */
struct fipc_poll_entry {
	/* private: */
	struct list_head node;
	struct fipc_poller *poller;
	unsigned int retry_us;
	unsigned int weight;
	const struct cpumask *cpus;
	unsigned int local_work;
	unsigned int period_work;
	unsigned int last_work;
};

/**
 * struct fipc_poller_set - a named set of pinned polling threads
 * @name: thread name prefix: the threads are "<name>/<index>"
 * @ops: what the pollers do with the channels
 * @priv_size: bytes of per-poller driver data (fipc_poller_priv())
 * @nr_pollers: number of threads started, 1 to FIPC_POLLERS_MAX
 * @idle_us: the shortest idle window, after which a poller may sleep
 * @idle_max_us: the longest idle window a poller learns (at or below
 *	@idle_us: fixed at @idle_us)
 * @budget: messages taken from one channel at a time
 * @fifo: threads run at SCHED_FIFO
 * @freezable: the threads freeze for a suspend (a guest's frontend)
 * @steal_sleep: a poller without work sleeps, even within @idle_us,
 *	while the hypervisor lately ran another virtual CPU on its CPU
 * @steal_clock: a CPU's stolen time in ns; NULL: the kernel's (for tests)
 * @autoscale: channels start on one poller and spread under load
 * @scale_up_pct: load at or above which a poller spreads its channels
 *	(0: FIPC_POLL_SCALE_UP_PCT)
 * @scale_down_pct: load below which it gathers them (0:
 *	FIPC_POLL_SCALE_DOWN_PCT)
 *
 * The driver fills in these (a static initializer and module
 * parameters); the settings but @nr_pollers and @fifo are live.  The
 * rest belongs to lib/fipc/poller/.
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
	/* private: */
	int start_cpus[FIPC_POLLERS_MAX];
	bool start_cpus_given;
	struct fipc_poller *pollers;
	unsigned int running;
	atomic_t next;
	struct mutex balance_lock;	/* protects moves between pollers */
	atomic_t scale_ups;
	atomic_t scale_downs;
	atomic_t rebalances;
};

int fipc_poller_set_start(struct fipc_poller_set *set);
void fipc_poller_set_stop(struct fipc_poller_set *set);
int fipc_poller_set_repin(struct fipc_poller_set *set, const char *list);
int fipc_poller_set_show(struct fipc_poller_set *set, char *buf);

void fipc_poll_entry_init(struct fipc_poll_entry *entry);
void fipc_poller_attach(struct fipc_poller_set *set,
			struct fipc_poll_entry *entry,
			const struct cpumask *cpus);
void fipc_poller_detach(struct fipc_poll_entry *entry);
bool fipc_poll_entry_irq(struct fipc_poll_entry *entry);
bool fipc_poll_entry_wake(struct fipc_poll_entry *entry);
bool fipc_poll_entry_asleep(const struct fipc_poll_entry *entry);
void fipc_poll_entry_set_weight(struct fipc_poll_entry *entry,
				unsigned int weight);
void *fipc_poller_priv(struct fipc_poller *pl);
u64 fipc_poller_wake_ns(const struct fipc_poller *pl);

/**
 * fipc_poll_entry_retry() - have a sleeping poller look again later
 * @entry: the channel's entry, from the driver's poll op
 * @us: microseconds after which the channel is polled again even if
 *	nothing kicks the poller (it waits on something its peer does not
 *	notify); 0 cancels
 */
static inline void fipc_poll_entry_retry(struct fipc_poll_entry *entry,
					 unsigned int us)
{
	entry->retry_us = us;
}

/**
 * fipc_poll_entry_local_work() - count work the peer did not send
 * @entry: the channel's entry, from the driver's poll op
 * @n: units of the work this call of the op returns that are local (a
 *	completion of the driver's own): the idle window does not learn
 *	from them
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

/* Latency histograms for the drivers' show hooks. */
#define FIPC_POLL_LAT_BUCKETS		6

unsigned int fipc_poll_lat_bucket(u64 ns);
int fipc_poll_lat_show(char *buf, size_t size, const char *name,
		       const u64 *hist);

#endif /* _FIPC_FIPC_POLLER_H */
