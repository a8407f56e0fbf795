// SPDX-License-Identifier: GPL-2.0
/*
 * fipc pollers: the idle window and stolen time (kernel only).
 *
 * How long a poller without work polls on before it sleeps: the window
 * it learns from the gaps between its work (their mean, mean deviation
 * and recent tail, fipc_poll_gaps.h), cut short when another task wants
 * its CPU or when the hypervisor lately ran another virtual CPU on it
 * (the set's steal_sleep).  The run loop (fipc_poller.c) asks
 * fipc_poller_should_sleep() after each empty round and tells
 * fipc_poller_learn() of each gap the peer's work ended.
 */
#include <linux/kernel_stat.h>
#include <linux/minmax.h>
#include <linux/sched/stat.h>
#include <linux/smp.h>
#include "fipc_poller_internal.h"

static u64 fipc_poller_idle_max_ns(const struct fipc_poller *pl)
{
	return (u64)READ_ONCE(pl->set->idle_max_us) * NSEC_PER_USEC;
}

static u64 fipc_poller_idle_min_ns(const struct fipc_poller *pl)
{
	return (u64)READ_ONCE(pl->set->idle_us) * NSEC_PER_USEC;
}

/* The recent gaps' tail (0: none), never past the longest window. */
u64 fipc_poller_tail_ns(const struct fipc_poller *pl)
{
	return min(READ_ONCE(pl->gap_tail_ns), fipc_poller_idle_max_ns(pl));
}

/*
 * The idle window with the set's current settings: the mean's, or the
 * recent gaps' tail if that is longer, never past the longest window.
 */
u64 fipc_poller_window_ns(const struct fipc_poller *pl)
{
	u64 win = fipc_poll_idle_window(READ_ONCE(pl->gap_avg_ns),
					READ_ONCE(pl->gap_dev_ns),
					fipc_poller_idle_min_ns(pl),
					fipc_poller_idle_max_ns(pl));

	return max(win, fipc_poller_tail_ns(pl));
}

/* The stolen time of the poller's CPU, ns (the set's steal_clock). */
static u64 fipc_poller_steal_ns(const struct fipc_poller *pl)
{
	u64 (*clock)(int cpu) = READ_ONCE(pl->set->steal_clock);
	int cpu = raw_smp_processor_id();

	return clock ? clock(cpu) : kcpustat_cpu(cpu).cpustat[CPUTIME_STEAL];
}

/*
 * Did the hypervisor, at @now, lately keep this virtual CPU waiting
 * while it ran another one on its CPU?  Its stolen time grew within
 * FIPC_POLL_STEAL_RECENT_NS, by FIPC_POLL_STEAL_PCT or more of the time
 * since it grew before, taken as one tick at least: the account grows
 * at ticks, so each growth covers a tick or more, however soon after
 * the last one the poller saw it.  A drop (the poller moved to another
 * CPU) starts the count again.
 */
static bool fipc_poller_stolen(struct fipc_poller *pl, u64 now)
{
	u64 steal = fipc_poller_steal_ns(pl);

	if (steal != pl->steal_seen_ns) {
		u64 span = max_t(u64, now - pl->steal_seen_at, TICK_NSEC);

		WRITE_ONCE(pl->steal_pct, steal < pl->steal_seen_ns ? 0 :
			   fipc_poll_steal_pct(steal - pl->steal_seen_ns,
					       span));
		pl->steal_seen_ns = steal;
		pl->steal_seen_at = now;
	}
	return now - pl->steal_seen_at < FIPC_POLL_STEAL_RECENT_NS &&
	       pl->steal_pct >= FIPC_POLL_STEAL_PCT;
}

/*
 * Time to sleep, at @now, @idle_ns after the last work?  At the end of the
 * idle window (FIPC_POLL_IDLE); and past its shortest part (idle_us) as
 * soon as another task wants this CPU (FIPC_POLL_CONTENDED): polling on
 * would take the CPU from it (in a guest with one vCPU, from the
 * application waiting for the I/O), so the longer window is polled only
 * on a CPU nobody else needs, as KVM's halt polling does
 * (single_task_running()).  With the set's steal_sleep, as soon as there
 * is no work, where the hypervisor lately kept this virtual CPU waiting
 * while another ran on its CPU (FIPC_POLL_STOLEN): even the shortest
 * window would take the CPU from another guest, or from the peer, for
 * a wake-up the hypervisor may delay as long.  Sleeps of the last two
 * kinds are counted apart (contended_sleeps and steal_sleeps in
 * poller_cpus), since on a CPU of its own the poller would have polled
 * on.
 */
enum fipc_poll_sleep_why
fipc_poller_should_sleep(struct fipc_poller *pl, u64 idle_ns, u64 now)
{
	if (idle_ns >= fipc_poller_window_ns(pl))
		return FIPC_POLL_IDLE;
	if (READ_ONCE(pl->set->steal_sleep) && fipc_poller_stolen(pl, now))
		return FIPC_POLL_STOLEN;
	if (idle_ns < fipc_poller_idle_min_ns(pl))
		return FIPC_POLL_AWAKE;
	if (!single_task_running())
		return FIPC_POLL_CONTENDED;
	return FIPC_POLL_AWAKE;
}

/*
 * The peer's work found after a gap of @gap_ns, @slept in it or not: the
 * idle window learns from it.
 */
void fipc_poller_learn(struct fipc_poller *pl, u64 gap_ns, bool slept)
{
	u64 avg = pl->gap_avg_ns, max = fipc_poller_idle_max_ns(pl);

	if (slept && gap_ns <= max)
		pl->short_sleeps++;

	WRITE_ONCE(pl->gap_dev_ns,
		   fipc_poll_gap_dev_learn(avg, pl->gap_dev_ns, gap_ns, max));
	WRITE_ONCE(pl->gap_avg_ns, fipc_poll_gap_learn(avg, gap_ns, max));
	fipc_poll_gaps_add(&pl->gaps, gap_ns, max);
	WRITE_ONCE(pl->gap_tail_ns, fipc_poll_gaps_tail_ns(&pl->gaps));
}

/**
 * fipc_poller_window_start() - start a poller's stolen-time account
 * @pl: the poller, from its own thread
 * @now: the time
 */
void fipc_poller_window_start(struct fipc_poller *pl, u64 now)
{
	pl->steal_seen_ns = fipc_poller_steal_ns(pl);
	pl->steal_seen_at = now;
}
