// SPDX-License-Identifier: GPL-2.0
/*
 * fipc pollers: the run loop and its sleep protocol (kernel only).
 *
 * Each poller is a pinned kthread serving a list of channels round
 * robin, whatever device or guest they belong to.  One that has found
 * nothing for its idle window (fipc_poller_window.c) sleeps with the
 * sleeping-word protocol of fipc_poller_internal.h; an interrupt of one
 * of its channels, or the driver (a bio completion, a new request),
 * kicks it awake (fipc_poller_kick.c).  After each round it accounts
 * its load to the auto-scaling (fipc_poller_scale.c).
 */
#include <linux/atomic.h>
#include <linux/export.h>
#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include "fipc_poller_internal.h"

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

/* Poll one channel of @pl's round; *@local gains the work from us. */
static int fipc_poll_visit(struct fipc_poller *pl,
			   struct fipc_poll_entry *entry, unsigned int budget,
			   int *local)
{
	int n;

	entry->local_work = 0;
	n = pl->set->ops->poll(entry, fipc_poll_entry_budget(entry, budget));
	if (n > 0)
		entry->period_work += n;
	*local += min_t(int, n, entry->local_work);
	return n;
}

/*
 * One visit to each channel.  Returns the work done; *@peer_work: how
 * much of it came from the peers (fipc_poll_entry_local_work()).  Each
 * round starts one channel further on in @entries (whose order the
 * moves of fipc_poller_scale.c go by, and keep), so that no channel
 * always goes first to what channels share (a guest's I/O limits over
 * its disks).
 */
static int fipc_poll_round(struct fipc_poller *pl, int *peer_work)
{
	unsigned int budget = READ_ONCE(pl->set->budget);
	struct fipc_poll_entry *entry, *start;
	int work = 0, local = 0;
	unsigned int first;

	mutex_lock(&pl->lock);
	first = pl->nr_entries ? pl->round_start++ % pl->nr_entries : 0;
	/* The round's first channel; the list head if there is none. */
	list_for_each_entry(entry, &pl->entries, node)
		if (!first--)
			break;
	start = entry;
	/* Those from @start to the end, then those before it. */
	list_for_each_entry_from(entry, &pl->entries, node)
		work += fipc_poll_visit(pl, entry, budget, &local);
	list_for_each_entry(entry, &pl->entries, node) {
		if (entry == start)
			break;
		work += fipc_poll_visit(pl, entry, budget, &local);
	}
	mutex_unlock(&pl->lock);
	*peer_work = work - local;
	return work;
}

/*
 * Wait a little before the next round: with one channel, the channel's
 * own wait (ops->wait: the fipc wait strategy, MWAITX/UMWAIT where the
 * CPU has them, else PAUSE, on its duplex ring), unless work of it ends
 * elsewhere (ops->busy): a kick cannot end a hardware wait early.
 * Otherwise, with several channels, or without ops->wait, the spin-loop
 * hint.
 */
static void fipc_poll_pause(struct fipc_poller *pl)
{
	const struct fipc_poll_ops *ops = pl->set->ops;
	struct fipc_poll_entry *entry;

	if (pl->nr_entries == 1 && mutex_trylock(&pl->lock)) {
		entry = list_first_entry_or_null(&pl->entries,
						 struct fipc_poll_entry, node);
		if (entry && ops->wait && !(ops->busy && ops->busy(entry))) {
			pl->rx_waits++;
			ops->wait(entry, &pl->waiter);
		} else {
			cpu_relax();
		}
		mutex_unlock(&pl->lock);
		return;
	}
	cpu_relax();
}

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
int fipc_poller_fn(void *arg)
{
	struct fipc_poller *pl = arg;
	u64 now = ktime_get_ns(), last_work = now, prev_work = now;
	bool in_gap = false, slept = false;
	enum fipc_poll_sleep_why why;

	pl->period_start = now;
	fipc_poller_window_start(pl, now);
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
bool fipc_poll_entry_asleep(const struct fipc_poll_entry *entry)
{
	const struct fipc_poller *pl = fipc_poll_entry_poller(entry);

	return pl && READ_ONCE(pl->asleep);
}
EXPORT_SYMBOL_GPL(fipc_poll_entry_asleep);

/**
 * fipc_poller_priv() - the driver's data of a poller
 * @pl: the poller
 *
 * Return: @pl's struct fipc_poller_set.priv_size bytes, zeroed at start.
 */
void *fipc_poller_priv(struct fipc_poller *pl)
{
	return pl->priv;
}
EXPORT_SYMBOL_GPL(fipc_poller_priv);

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
u64 fipc_poller_wake_ns(const struct fipc_poller *pl)
{
	return READ_ONCE(pl->wake_ns);
}
EXPORT_SYMBOL_GPL(fipc_poller_wake_ns);
