// SPDX-License-Identifier: GPL-2.0
/*
 * fipc pollers: pinned kthreads, each serving a list of channels round
 * robin, whatever device or guest they belong to (kernel only).
 *
 * A poller that has found nothing for its idle window (learnt from the
 * gaps between its work, <fipc/fipc_poller.h>) sleeps with the
 * sleeping-word protocol described there; an
 * interrupt of one of its channels, or the driver (a bio completion, a
 * new request), kicks it awake (fipc_poller_kick(), in
 * fipc_poller_kick.c, which the auto-scaling of fipc_poller_scale.c
 * calls too).
 */
#include <linux/cpumask.h>
#include <linux/freezer.h>
#include <linux/kernel_stat.h>
#include <linux/kstrtox.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/stat.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <fipc/fipc_poller.h>
#include "fipc_poller_internal.h"

/* Serialises start, stop, repin and show of every set. */
static DEFINE_MUTEX(fipc_pollers_mutex);

/* Default placement: the highest online CPUs, leaving CPU 0 to the rest. */
static int fipc_poller_default_cpu(unsigned int index)
{
	unsigned int n = num_online_cpus();
	int cpu, i = 0, want;

	want = n - 1 - (index % n);
	for_each_online_cpu(cpu) {
		if (i++ == want)
			return cpu;
	}
	return cpumask_first(cpu_online_mask);
}

/**
 * fipc_poll_entry_irq() - a channel's interrupt: wake its poller
 * @entry: the channel's entry
 *
 * Counts the interrupt in the poller's statistics (irqs, and irqs_awake
 * when the poller was not sleeping) and kicks the poller, unless it
 * sleeps and the set's irq_take op did all there was to do.  Safe from
 * any context, including hard irq.
 *
 * Return: false if the channel has no poller (the interrupt is spurious).
 */
bool fipc_poll_entry_irq(struct fipc_poll_entry *entry)
{
	struct fipc_poller *pl = fipc_poll_entry_poller(entry);
	const struct fipc_poll_ops *ops;

	if (!pl)
		return false;
	ops = pl->set->ops;
	atomic64_inc(&pl->irqs);
	if (!READ_ONCE(pl->asleep))
		atomic64_inc(&pl->irqs_awake);
	else if (ops->irq_take && ops->irq_take(entry))
		return true;
	fipc_poller_kick(pl);
	return true;
}
EXPORT_SYMBOL_GPL(fipc_poll_entry_irq);

/**
 * fipc_poll_entry_wake() - have a channel's poller look at it again
 * @entry: the channel's entry
 *
 * For work the peer does not notify, such as a local completion, left
 * where the driver's poll op takes it before this call.  The poller does
 * a round after this call, whatever it was doing: a sleeping poller is
 * kicked awake; one that is awake, even one past its last round and
 * about to sleep (preempted there, or interrupted by this caller), finds
 * the kick when it looks for kicks before and after publishing its sleep
 * (fipc_poller_sleep()), so the work need not be one that the last look
 * (ops->has_work) sees.  A full memory barrier.  Safe from any context,
 * including hard irq.
 *
 * Return: true if the poller was sleeping (or about to) and has been
 * kicked, false if it was awake or the channel has no poller.
 */
bool fipc_poll_entry_wake(struct fipc_poll_entry *entry)
{
	struct fipc_poller *pl = fipc_poll_entry_poller(entry);

	if (!pl)
		return false;
	/*
	 * The caller's work before our look at the kicks: a kick there,
	 * not yet taken, is one whose taking comes before the poller's next
	 * round (fipc_poller_take_kicks()), which then sees the work.
	 */
	smp_mb();
	if (!atomic_read(&pl->kicked)) {
		atomic_set(&pl->kicked, 1);
		/*
		 * Our kick before our look at pl->asleep; pairs with the
		 * poller's barrier between publishing pl->asleep and its last
		 * look at the kicks (fipc_poller_sleep()): we see it asleep,
		 * or it sees the kick.
		 */
		smp_mb();
	}
	if (!READ_ONCE(pl->asleep))
		return false;
	fipc_poller_kick(pl);
	return true;
}
EXPORT_SYMBOL_GPL(fipc_poll_entry_wake);

/*
 * One visit to each channel.  Returns the work done; *@peer_work: how
 * much of it came from the peers (fipc_poll_entry_local_work()).
 */
static int fipc_poll_round(struct fipc_poller *pl, int *peer_work)
{
	const struct fipc_poll_ops *ops = pl->set->ops;
	unsigned int budget = READ_ONCE(pl->set->budget);
	struct fipc_poll_entry *entry;
	int work = 0, local = 0;

	mutex_lock(&pl->lock);
	list_for_each_entry(entry, &pl->entries, node) {
		int n;

		entry->local_work = 0;
		n = ops->poll(entry, fipc_poll_entry_budget(entry, budget));
		if (n > 0)
			entry->period_work += n;
		work += n;
		local += min_t(int, n, entry->local_work);
	}
	mutex_unlock(&pl->lock);
	*peer_work = work - local;
	return work;
}

/*
 * Wait a little before the next round: with one channel, the fipc wait
 * strategy (MWAITX/UMWAIT where the CPU has them, else PAUSE) on its
 * ring (or the channel's own wait, ops->wait, for a duplex ring), unless
 * work of it ends elsewhere (ops->busy): a kick cannot end a hardware
 * wait early.  Otherwise, and with several channels, the spin-loop hint.
 */
static void fipc_poll_pause(struct fipc_poller *pl)
{
	const struct fipc_poll_ops *ops = pl->set->ops;
	struct fipc_poll_entry *entry;

	if (pl->nr_entries == 1 && mutex_trylock(&pl->lock)) {
		entry = list_first_entry_or_null(&pl->entries,
						 struct fipc_poll_entry, node);
		if (entry && !(ops->busy && ops->busy(entry))) {
			pl->rx_waits++;
			if (ops->wait)
				ops->wait(entry, &pl->waiter);
			else
				fipc_wait_rx(entry->rx, &pl->waiter);
		} else {
			cpu_relax();
		}
		mutex_unlock(&pl->lock);
		return;
	}
	cpu_relax();
}

/* The sleep hook of pl->waiter: one hardware wait is enough, go back. */
static int fipc_poll_wait_done(void *arg)
{
	return -EAGAIN;
}

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

/*
 * Take the kicks (fipc_poller_kick(), fipc_poll_entry_wake()) for the
 * round that follows, which answers them: the clearing before the
 * round's look at the channels, so that it sees the work of every kick
 * taken.  Return: whether there was any.
 */
static bool fipc_poller_take_kicks(struct fipc_poller *pl)
{
	if (!atomic_read(&pl->kicked))
		return false;
	atomic_set(&pl->kicked, 0);
	/* Pairs with fipc_poll_entry_wake()'s first barrier. */
	smp_mb();
	return true;
}

/* Why a sleeping poller wakes up (the freezer aside). */
static bool fipc_poller_wake_cond(struct fipc_poller *pl)
{
	return atomic_read(&pl->kicked) || kthread_should_stop();
}

/*
 * Sleep until a kick, or @retry_us (if not 0).  A freezable set's
 * thread sleeps interruptible, so that the freezer's wake-up ends the
 * sleep and the thread freezes at the top of its loop (fipc_poller_fn());
 * the others sleep as idle tasks, outside the load average (an
 * interruptible sleep is too).
 */
static void fipc_poller_wait(struct fipc_poller *pl, unsigned int retry_us)
{
	unsigned long timeout = usecs_to_jiffies(retry_us);

	if (pl->set->freezable) {
		if (retry_us)
			wait_event_interruptible_timeout(pl->wq,
							 fipc_poller_wake_cond(pl) ||
							 freezing(current),
							 timeout);
		else
			wait_event_interruptible(pl->wq,
						 fipc_poller_wake_cond(pl) ||
						 freezing(current));
		return;
	}
	if (retry_us)
		wait_event_idle_timeout(pl->wq, fipc_poller_wake_cond(pl),
					timeout);
	else
		wait_event_idle(pl->wq, fipc_poller_wake_cond(pl));
}

/*
 * Sleep unless a last look finds work or a kick; return whether it
 * slept.  Kicks are not cleared here before the last look: one that came
 * after the last round (which need not have seen its work, nor need
 * ops->has_work) keeps the poller awake for another round; they are
 * taken on the way out, before that round.
 */
static bool fipc_poller_sleep(struct fipc_poller *pl,
			      enum fipc_poll_sleep_why why)
{
	const struct fipc_poll_ops *ops = pl->set->ops;
	struct fipc_poll_entry *entry;
	unsigned int retry_us = 0;
	bool busy;

	atomic64_set(&pl->kick_ns, 0);
	mutex_lock(&pl->lock);
	WRITE_ONCE(pl->asleep, true);
	list_for_each_entry(entry, &pl->entries, node)
		ops->set_sleeping(entry, true);
	/*
	 * Our sleeping words and pl->asleep before our last look at the
	 * rings and at the kicks (fipc_poll_entry_wake()'s barriers).
	 */
	virt_mb();
	busy = atomic_read(&pl->kicked);
	list_for_each_entry(entry, &pl->entries, node) {
		busy |= ops->has_work(entry);
		if (entry->retry_us &&
		    (!retry_us || entry->retry_us < retry_us))
			retry_us = entry->retry_us;
	}
	mutex_unlock(&pl->lock);

	if (!busy) {
		u64 t0 = ktime_get_ns(), dt;

		pl->sleeps++;
		if (why == FIPC_POLL_CONTENDED)
			pl->contended_sleeps++;
		else if (why == FIPC_POLL_STOLEN)
			pl->steal_sleeps++;
		if (retry_us)
			pl->timed_sleeps++;
		fipc_poller_wait(pl, retry_us);
		dt = ktime_get_ns() - t0;
		if (atomic_read(&pl->kicked)) {
			u64 kick = atomic64_read(&pl->kick_ns);

			pl->wakeups++;
			if (kick && t0 + dt > kick)
				WRITE_ONCE(pl->wake_ns,
					   fipc_poll_wake_learn(pl->wake_ns,
								t0 + dt - kick));
		}
		pl->slept_ns += dt;
		if (dt > pl->sleep_max_ns)
			pl->sleep_max_ns = dt;
	}

	mutex_lock(&pl->lock);
	list_for_each_entry(entry, &pl->entries, node)
		ops->set_sleeping(entry, false);
	WRITE_ONCE(pl->asleep, false);
	mutex_unlock(&pl->lock);
	fipc_poller_take_kicks(pl);
	return !busy;
}

static u64 fipc_poller_idle_max_ns(const struct fipc_poller *pl)
{
	return (u64)READ_ONCE(pl->set->idle_max_us) * NSEC_PER_USEC;
}

static u64 fipc_poller_idle_min_ns(const struct fipc_poller *pl)
{
	return (u64)READ_ONCE(pl->set->idle_us) * NSEC_PER_USEC;
}

/* The recent gaps' tail (0: none), never past the longest window. */
static u64 fipc_poller_tail_ns(const struct fipc_poller *pl)
{
	return min(READ_ONCE(pl->gap_tail_ns), fipc_poller_idle_max_ns(pl));
}

/*
 * The idle window with the set's current settings: the mean's, or the
 * recent gaps' tail if that is longer, never past the longest window.
 */
static u64 fipc_poller_window_ns(const struct fipc_poller *pl)
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
static enum fipc_poll_sleep_why
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
static void fipc_poller_learn(struct fipc_poller *pl, u64 gap_ns, bool slept)
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

/*
 * Poll round after round.  @last_work (the last work found, or the end of
 * a sleep) starts the idle window; @prev_work (the last work found, not
 * reset by a sleep) measures the gaps the window learns from: the peer's
 * work found after at least one empty round ends a gap, local work only
 * restarts it (the gap a request's completion leaves is not one the peer
 * has to fill, and it kicks a sleeping poller).  @slept says whether the
 * gap had a sleep in it.  A round that found work
 * counts, from the end of the round before it, toward the poller's load
 * (auto-scaling).
 */
static int fipc_poller_fn(void *arg)
{
	struct fipc_poller *pl = arg;
	u64 now = ktime_get_ns(), last_work = now, prev_work = now;
	bool in_gap = false, slept = false;
	enum fipc_poll_sleep_why why;

	pl->period_start = now;
	pl->steal_seen_ns = fipc_poller_steal_ns(pl);
	pl->steal_seen_at = now;
	if (pl->set->freezable)
		set_freezable();
	while (!kthread_should_stop()) {
		int work, peer_work;
		u64 prev;

		/* Between rounds: no channel claimed, no lock held. */
		if (pl->set->freezable && try_to_freeze()) {
			pl->freezes++;
			now = ktime_get_ns();
		}
		prev = now;
		pl->loops++;
		work = fipc_poll_round(pl, &peer_work);
		now = ktime_get_ns();
		fipc_poller_account(pl, work ? now - prev : 0, now);
		if (work) {
			if (in_gap && peer_work)
				fipc_poller_learn(pl, now - prev_work, slept);
			in_gap = false;
			slept = false;
			last_work = now;
			prev_work = now;
			cond_resched();
			continue;
		}
		pl->empty++;
		in_gap = true;
		why = fipc_poller_should_sleep(pl, now - last_work, now);
		if (why != FIPC_POLL_AWAKE) {
			/*
			 * A kick not yet taken may announce work this round
			 * missed (fipc_poll_entry_wake() while we were
			 * awake): one more round first, in the same window.
			 */
			if (fipc_poller_take_kicks(pl))
				continue;
			slept |= fipc_poller_sleep(pl, why);
			now = ktime_get_ns();
			last_work = now;
			continue;
		}
		fipc_poll_pause(pl);
		cond_resched();
	}
	return 0;
}

/**
 * fipc_poller_attach() - hand a channel to a poller of a set
 * @set: the running set
 * @entry: the channel's entry, detached, with its rings ready
 * @cpus: CPUs allowed for this channel's poller, or NULL: any poller;
 *	must stay valid until the channel is detached
 *
 * Only pollers bound to an allowed CPU are used, or all of them when none
 * is.  Without the set's autoscale, round robin over those; with it, the
 * least loaded of those at work, so that channels start on one poller
 * (fipc_poller_pick()).  The poller is kicked to look at the channel.
 */
void fipc_poller_attach(struct fipc_poller_set *set,
			struct fipc_poll_entry *entry,
			const struct cpumask *cpus)
{
	unsigned int start = atomic_inc_return(&set->next);
	struct fipc_poller *pl;

	entry->cpus = cpus;
	entry->period_work = 0;
	entry->last_work = 0;
	mutex_lock(&set->balance_lock);
	pl = fipc_poller_pick(set, entry, start);
	mutex_lock(&pl->lock);
	list_add_tail(&entry->node, &pl->entries);
	pl->nr_entries++;
	WRITE_ONCE(entry->poller, pl);
	mutex_unlock(&pl->lock);
	mutex_unlock(&set->balance_lock);
	fipc_poller_kick(pl);
}
EXPORT_SYMBOL_GPL(fipc_poller_attach);

/**
 * fipc_poller_detach() - take a channel away from its poller
 * @entry: the channel's entry; nothing happens if it is detached
 *
 * Withdraws the poller's sleeping word from the channel.  On return no
 * poller looks at the channel.
 */
void fipc_poller_detach(struct fipc_poll_entry *entry)
{
	struct fipc_poller *pl;

	/* Auto-scaling may move it meanwhile, holding both pollers' locks. */
	for (;;) {
		pl = READ_ONCE(entry->poller);
		if (!pl)
			return;
		mutex_lock(&pl->lock);
		if (READ_ONCE(entry->poller) == pl)
			break;
		mutex_unlock(&pl->lock);
	}
	list_del_init(&entry->node);
	pl->nr_entries--;
	pl->set->ops->set_sleeping(entry, false);
	mutex_unlock(&pl->lock);
	WRITE_ONCE(entry->poller, NULL);
}
EXPORT_SYMBOL_GPL(fipc_poller_detach);

/* Parse a CPU list into the CPUs for each poller; NULL/empty: defaults. */
static int fipc_pollers_cpus(const char *list, int *cpus)
{
	cpumask_var_t mask;
	unsigned int i;
	int cpu, err;

	if (!list || !*list || !strcmp(list, "\n")) {
		for (i = 0; i < FIPC_POLLERS_MAX; i++)
			cpus[i] = fipc_poller_default_cpu(i);
		return 0;
	}
	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	err = cpulist_parse(list, mask);
	if (!err && !cpumask_intersects(mask, cpu_online_mask))
		err = -EINVAL;
	if (!err) {
		cpu = -1;
		for (i = 0; i < FIPC_POLLERS_MAX; i++) {
			cpu = cpumask_next_and(cpu, mask, cpu_online_mask);
			if (cpu >= nr_cpu_ids)
				cpu = cpumask_first_and(mask, cpu_online_mask);
			cpus[i] = cpu;
		}
	}
	free_cpumask_var(mask);
	return err;
}

/**
 * fipc_poller_set_repin() - move a set's pollers to the CPUs of a list
 * @set: the set
 * @list: CPU list; poller i goes to the i-th online CPU of it (cycling);
 *	empty: the default placement
 *
 * Before the set has started (a module parameter given at load), the
 * placement is kept for fipc_poller_set_start().
 *
 * Return: 0 or a negative errno for a bad list.
 */
int fipc_poller_set_repin(struct fipc_poller_set *set, const char *list)
{
	int cpus[FIPC_POLLERS_MAX];
	unsigned int i;
	int err;

	err = fipc_pollers_cpus(list, cpus);
	if (err)
		return err;
	mutex_lock(&fipc_pollers_mutex);
	memcpy(set->start_cpus, cpus, sizeof(cpus));
	set->start_cpus_given = true;
	for (i = 0; i < set->running; i++) {
		struct fipc_poller *pl = &set->pollers[i];

		err = set_cpus_allowed_ptr(pl->task, cpumask_of(cpus[i]));
		if (err)
			break;
		pl->cpu = cpus[i];
	}
	mutex_unlock(&fipc_pollers_mutex);
	return err;
}
EXPORT_SYMBOL_GPL(fipc_poller_set_repin);

/* Pollers that have channels (the others sleep). */
static unsigned int fipc_pollers_at_work(struct fipc_poller_set *set)
{
	unsigned int i, n = 0;

	for (i = 0; i < set->running; i++)
		n += !!READ_ONCE(set->pollers[i].nr_entries);
	return n;
}

/**
 * fipc_poller_set_show() - describe a set's pollers for sysfs
 * @set: the set
 * @buf: a PAGE_SIZE buffer
 *
 * One "poller N cpu C channels ..." line of counters per poller, each
 * followed by the text of the set's show hook, if any, then one
 * "autoscale ..." line: the setting, the pollers with channels and the
 * auto-scaling events.
 *
 * Return: bytes written.
 */
int fipc_poller_set_show(struct fipc_poller_set *set, char *buf)
{
	unsigned int i;
	int n = 0;

	mutex_lock(&fipc_pollers_mutex);
	for (i = 0; i < set->running; i++) {
		struct fipc_poller *pl = &set->pollers[i];

		n += scnprintf(buf + n, PAGE_SIZE - n,
			       "poller %u cpu %d channels %u loops %llu empty %llu sleeps %llu timed_sleeps %llu contended_sleeps %llu steal_sleeps %llu steal_pct %u short_sleeps %llu wait %s wakeups %llu slept_us %llu sleep_max_us %llu irqs %lld irqs_awake %lld rx_waits %llu gap_us %llu gap_dev_us %llu gap_tail_us %llu window_us %llu wake_us %llu load_pct %u moved_in %llu moved_out %llu freezes %llu\n",
			       i, pl->cpu, READ_ONCE(pl->nr_entries),
			       READ_ONCE(pl->loops), READ_ONCE(pl->empty),
			       READ_ONCE(pl->sleeps), READ_ONCE(pl->timed_sleeps),
			       READ_ONCE(pl->contended_sleeps),
			       READ_ONCE(pl->steal_sleeps),
			       READ_ONCE(pl->steal_pct),
			       READ_ONCE(pl->short_sleeps),
			       fipc_wait_method_name(pl->waiter.method),
			       READ_ONCE(pl->wakeups),
			       div_u64(READ_ONCE(pl->slept_ns), NSEC_PER_USEC),
			       div_u64(READ_ONCE(pl->sleep_max_ns),
				       NSEC_PER_USEC),
			       (s64)atomic64_read(&pl->irqs),
			       (s64)atomic64_read(&pl->irqs_awake),
			       READ_ONCE(pl->rx_waits),
			       div_u64(READ_ONCE(pl->gap_avg_ns), NSEC_PER_USEC),
			       div_u64(READ_ONCE(pl->gap_dev_ns), NSEC_PER_USEC),
			       div_u64(fipc_poller_tail_ns(pl), NSEC_PER_USEC),
			       div_u64(fipc_poller_window_ns(pl), NSEC_PER_USEC),
			       div_u64(fipc_poller_wake_ns(pl), NSEC_PER_USEC),
			       READ_ONCE(pl->load_pct), READ_ONCE(pl->moved_in),
			       READ_ONCE(pl->moved_out), READ_ONCE(pl->freezes));
		if (set->ops->show)
			n += set->ops->show(pl, buf + n, PAGE_SIZE - n);
	}
	if (set->running)
		n += scnprintf(buf + n, PAGE_SIZE - n,
			       "autoscale %s pollers_at_work %u scale_ups %d scale_downs %d rebalances %d\n",
			       READ_ONCE(set->autoscale) ? "on" : "off",
			       fipc_pollers_at_work(set),
			       atomic_read(&set->scale_ups),
			       atomic_read(&set->scale_downs),
			       atomic_read(&set->rebalances));
	mutex_unlock(&fipc_pollers_mutex);
	return n;
}
EXPORT_SYMBOL_GPL(fipc_poller_set_show);

/**
 * fipc_poll_lat_show() - one latency histogram line for a show hook
 * @buf: where to write
 * @size: room at @buf
 * @name: the histogram's name, e.g. "lat_us"
 * @hist: FIPC_POLL_LAT_BUCKETS counters (fipc_poll_lat_bucket())
 *
 * Writes "  <name><100,<1k,<4k,<16k,<64k,more" and the counters.
 *
 * Return: bytes written.
 */
int fipc_poll_lat_show(char *buf, size_t size, const char *name,
		       const u64 *hist)
{
	unsigned int i;
	int n;

	n = scnprintf(buf, size, "  %s<100,<1k,<4k,<16k,<64k,more", name);
	for (i = 0; i < FIPC_POLL_LAT_BUCKETS; i++)
		n += scnprintf(buf + n, size - n, " %llu", READ_ONCE(hist[i]));
	n += scnprintf(buf + n, size - n, "\n");
	return n;
}
EXPORT_SYMBOL_GPL(fipc_poll_lat_show);

static int fipc_poller_init(struct fipc_poller_set *set, unsigned int i,
			    int cpu)
{
	struct fipc_poller *pl = &set->pollers[i];
	struct task_struct *t;

	memset(pl, 0, sizeof(*pl));
	pl->set = set;
	pl->index = i;
	pl->cpu = cpu;
	mutex_init(&pl->lock);
	INIT_LIST_HEAD(&pl->entries);
	init_waitqueue_head(&pl->wq);
	fipc_waiter_init(&pl->waiter, fipc_wait_best_method(), 2,
			 fipc_poll_wait_done, pl);
	if (set->priv_size) {
		pl->priv = kzalloc(set->priv_size, GFP_KERNEL);
		if (!pl->priv)
			return -ENOMEM;
	}
	t = kthread_create(fipc_poller_fn, pl, "%s/%u", set->name, i);
	if (IS_ERR(t)) {
		kfree(pl->priv);
		pl->priv = NULL;
		return PTR_ERR(t);
	}
	kthread_bind(t, pl->cpu);
	if (set->fifo)
		sched_set_fifo(t);
	pl->task = t;
	wake_up_process(t);
	return 0;
}

/**
 * fipc_poller_set_start() - create and start a set's polling threads
 * @set: the set, with its name, ops and settings filled in
 *
 * Starts @set->nr_pollers threads on the CPUs of a poller_cpus list
 * given before (fipc_poller_set_repin()), else on the default CPUs (the
 * highest online ones), at SCHED_FIFO if @set->fifo.
 *
 * Return: 0, -EINVAL for a bad @set->nr_pollers, or another negative
 * errno (nothing left running).
 */
int fipc_poller_set_start(struct fipc_poller_set *set)
{
	int cpus[FIPC_POLLERS_MAX];
	unsigned int i;
	int err;

	if (!set->nr_pollers || set->nr_pollers > FIPC_POLLERS_MAX) {
		pr_err("%s: pollers must be 1..%u\n", set->name,
		       FIPC_POLLERS_MAX);
		return -EINVAL;
	}
	err = fipc_pollers_cpus(NULL, cpus);
	if (err)
		return err;
	mutex_init(&set->balance_lock);
	atomic_set(&set->scale_ups, 0);
	atomic_set(&set->scale_downs, 0);
	atomic_set(&set->rebalances, 0);
	mutex_lock(&fipc_pollers_mutex);
	if (set->start_cpus_given)
		memcpy(cpus, set->start_cpus, sizeof(cpus));
	for (i = 0; i < set->nr_pollers; i++) {
		err = fipc_poller_init(set, i, cpus[i]);
		if (err)
			break;
		set->running++;
	}
	mutex_unlock(&fipc_pollers_mutex);
	if (err)
		fipc_poller_set_stop(set);
	return err;
}
EXPORT_SYMBOL_GPL(fipc_poller_set_start);

/**
 * fipc_poller_set_stop() - stop every polling thread of a set
 * @set: the set; its channels must all be detached
 */
void fipc_poller_set_stop(struct fipc_poller_set *set)
{
	unsigned int i;

	mutex_lock(&fipc_pollers_mutex);
	for (i = 0; i < set->running; i++) {
		struct fipc_poller *pl = &set->pollers[i];

		WARN_ON(!list_empty(&pl->entries));
		kthread_stop(pl->task);
		pl->task = NULL;
		kfree(pl->priv);
		pl->priv = NULL;
	}
	set->running = 0;
	mutex_unlock(&fipc_pollers_mutex);
}
EXPORT_SYMBOL_GPL(fipc_poller_set_stop);

static int fipc_poller_cpus_set(const char *val, const struct kernel_param *kp)
{
	return fipc_poller_set_repin(kp->arg, val);
}

static int fipc_poller_cpus_get(char *buf, const struct kernel_param *kp)
{
	return fipc_poller_set_show(kp->arg, buf);
}

/*
 * The poller_cpus module parameter of FIPC_PARAM_POLLER_CPUS(): its
 * argument is the struct fipc_poller_set.
 */
const struct kernel_param_ops fipc_poller_cpus_param_ops = {
	.set = fipc_poller_cpus_set,
	.get = fipc_poller_cpus_get,
};
EXPORT_SYMBOL_GPL(fipc_poller_cpus_param_ops);

static int fipc_poll_pct_set(const char *val, const struct kernel_param *kp)
{
	unsigned int pct;
	int err = kstrtouint(val, 0, &pct);

	if (err)
		return err;
	if (pct < 1 || pct > 100)
		return -ERANGE;
	WRITE_ONCE(*(unsigned int *)kp->arg, pct);
	return 0;
}

/*
 * A load in percent, 1 to 100 (poll_scale_up_pct, poll_scale_down_pct);
 * its argument is the unsigned int setting.
 */
const struct kernel_param_ops fipc_poll_pct_param_ops = {
	.set = fipc_poll_pct_set,
	.get = param_get_uint,
};
EXPORT_SYMBOL_GPL(fipc_poll_pct_param_ops);
