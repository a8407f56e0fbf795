// SPDX-License-Identifier: GPL-2.0
/*
 * fipc pollers: auto-scaling (kernel only).
 *
 * With the set's autoscale on, a set of N pollers starts its channels on
 * one poller and spreads them only under load: every poller measures the
 * fraction of each FIPC_POLL_SCALE_PERIOD_MS it spent in rounds that found
 * work.  A poller that stays at or above the set's scale_up_pct (80 by
 * default) for FIPC_POLL_SCALE_PERIODS periods hands about half of its
 * work to a poller without any channel (one more poller at work): the
 * channels that were busy in the last period, not idle ones, and never
 * its only busy one (one channel is served by one poller at a time, so
 * it cannot be shared).  With every poller at work, it hands work to the
 * least loaded one if that is under half its load and at least
 * FIPC_POLL_REBALANCE_GAP_PCT points below it, as much as evens the two
 * out (a rebalance: the work of a set can move between its channels
 * after they spread).  A poller above the
 * first that stays below scale_down_pct (30), and whose channels fit on a
 * poller below it without pushing that one to scale_up_pct,
 * hands them all there (one poller fewer: it has nothing to poll and
 * sleeps, at no CPU cost).  An idle set is one sleeping poller's worth
 * of nothing.  A period that spans a sleep counts as the periods it
 * lasted, so a poller whose channels went quiet gathers as soon as work
 * wakes it; channels moved in restart a poller's count of periods.
 *
 * A poller only ever moves its own channels, from its own thread, between
 * rounds, holding the set's balance lock and then both pollers' locks
 * (lower index first): no poller is in the middle of a channel it loses,
 * the channel always has a poller (interrupts and completions kick the
 * one it has at that moment), and the new poller, kicked, looks at it at
 * once.  A channel is served by one poller at a time and keeps its ring
 * order; nothing is lost or reordered by a move.
 */
#include <linux/cpumask.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include "fipc_poller_internal.h"

/* Can @entry's channel be served by @pl (fipc_poller_attach()'s rule)? */
static bool fipc_poller_allowed(const struct fipc_poller_set *set,
				const struct fipc_poll_entry *entry,
				const struct fipc_poller *pl)
{
	unsigned int i;

	if (!entry->cpus || cpumask_test_cpu(pl->cpu, entry->cpus))
		return true;
	/* No poller on an allowed CPU: any will do. */
	for (i = 0; i < set->running; i++)
		if (cpumask_test_cpu(set->pollers[i].cpu, entry->cpus))
			return false;
	return true;
}

/*
 * Move @from's channels that @to may serve, from the tail (the channels
 * visited last); both locks held.  With @share_pct 100, every one of
 * them (to gather); else about that share of @from's work: channels that
 * had work in the last period, each one whose work, added to what has
 * moved, keeps the middle of it within the share, and never the last of
 * them (moving a channel that is idle, or a poller's only busy one, would
 * not share the load).  Returns the number moved.
 */
static unsigned int fipc_poller_move(struct fipc_poller *from,
				     struct fipc_poller *to,
				     unsigned int share_pct)
{
	struct fipc_poll_entry *entry, *tmp;
	u64 total = 0, target, moved = 0;
	unsigned int n = 0, busy = 0;
	bool all = share_pct >= 100;

	list_for_each_entry(entry, &from->entries, node) {
		total += entry->last_work;
		busy += !!entry->last_work;
	}
	target = div_u64(total * share_pct, 100);
	list_for_each_entry_safe_reverse(entry, tmp, &from->entries, node) {
		if (!all) {
			if (busy < 2)
				break;
			/* idle, or would take the moved work past the share */
			if (!entry->last_work ||
			    2 * moved + entry->last_work > 2 * target)
				continue;
		}
		if (!fipc_poller_allowed(from->set, entry, to))
			continue;
		/*
		 * @to is kicked below and polls before it can sleep; its
		 * sleep protocol then sets this word with the others'.
		 */
		from->set->ops->set_sleeping(entry, false);
		list_move_tail(&entry->node, &to->entries);
		WRITE_ONCE(entry->poller, to);
		moved += entry->last_work;
		busy -= !!entry->last_work;
		n++;
	}
	from->nr_entries -= n;
	to->nr_entries += n;
	return n;
}

/*
 * A poller's load as a target of moves: its last period's, or 0 while it
 * sleeps (a sleeping poller ends no period, so its last one is stale).
 */
static unsigned int fipc_poller_load_now(const struct fipc_poller *pl)
{
	return READ_ONCE(pl->asleep) ? 0 : READ_ONCE(pl->load_pct);
}

/* Lock two pollers of a set in index order. */
static void fipc_poller_lock_two(struct fipc_poller *a, struct fipc_poller *b)
{
	if (a->index > b->index)
		swap(a, b);
	mutex_lock(&a->lock);
	mutex_lock_nested(&b->lock, SINGLE_DEPTH_NESTING);
}

static unsigned int fipc_poller_hand_over(struct fipc_poller *from,
					  struct fipc_poller *to,
					  unsigned int share_pct)
{
	unsigned int n;

	fipc_poller_lock_two(from, to);
	n = fipc_poller_move(from, to, share_pct);
	mutex_unlock(&to->lock);
	mutex_unlock(&from->lock);
	if (n) {
		from->moved_out += n;
		WRITE_ONCE(to->moved_in, to->moved_in + n);
		fipc_poller_kick(to);
	}
	return n;
}

/*
 * Busy for long: half of our work to a poller that has no channel (one
 * more at work); with none, to the least loaded one at work, as much as
 * fipc_poller_rebalance_share() says (a rebalance).
 */
static void fipc_poller_scale_up(struct fipc_poller *pl)
{
	struct fipc_poller_set *set = pl->set;
	struct fipc_poller *least = NULL;
	unsigned int i, load = READ_ONCE(pl->load_pct), share;

	if (READ_ONCE(pl->nr_entries) < 2)
		return;
	for (i = 0; i < set->running; i++) {
		struct fipc_poller *to = &set->pollers[i];

		if (to == pl)
			continue;
		if (READ_ONCE(to->nr_entries)) {
			if (!least || fipc_poller_load_now(to) <
				      fipc_poller_load_now(least))
				least = to;
			continue;
		}
		if (fipc_poller_hand_over(pl, to, 50)) {
			atomic_inc(&set->scale_ups);
			return;
		}
	}
	if (!least)
		return;
	share = fipc_poller_rebalance_share(load,
					    fipc_poller_load_now(least));
	if (share && fipc_poller_hand_over(pl, least, share))
		atomic_inc(&set->rebalances);
}

/* Nearly idle: all our channels to a poller below us with room for them. */
static void fipc_poller_scale_down(struct fipc_poller *pl, unsigned int up)
{
	struct fipc_poller_set *set = pl->set;
	unsigned int i, load = READ_ONCE(pl->load_pct);

	if (!READ_ONCE(pl->nr_entries))
		return;
	for (i = 0; i < pl->index; i++) {
		struct fipc_poller *to = &set->pollers[i];

		if (!READ_ONCE(to->nr_entries) ||
		    fipc_poller_load_now(to) + load >= up)
			continue;
		fipc_poller_hand_over(pl, to, 100);
		if (!READ_ONCE(pl->nr_entries)) {
			atomic_inc(&set->scale_downs);
			return;
		}
	}
}

/* End of a period: each channel's work in it becomes its last_work. */
static void fipc_poller_roll_work(struct fipc_poller *pl)
{
	struct fipc_poll_entry *entry;

	mutex_lock(&pl->lock);
	list_for_each_entry(entry, &pl->entries, node) {
		entry->last_work = entry->period_work;
		entry->period_work = 0;
	}
	mutex_unlock(&pl->lock);
}

/**
 * fipc_poller_account() - count a round toward the poller's load
 * @pl: the poller, from its own thread, between rounds
 * @busy_ns: time the round spent on work, 0 if it found none
 * @now: the current time (ktime_get_ns())
 *
 * At the end of each period: the period's load, and with the set's
 * autoscale on, the moves it calls for.
 */
void fipc_poller_account(struct fipc_poller *pl, u64 busy_ns, u64 now)
{
	struct fipc_poller_set *set = pl->set;
	u64 period = now - pl->period_start;
	unsigned int load, up, down, periods;

	pl->busy_ns += busy_ns;
	if (period < FIPC_POLL_SCALE_PERIOD_MS * NSEC_PER_MSEC)
		return;
	load = min_t(u64, div64_u64(pl->busy_ns * 100, period), 100);
	WRITE_ONCE(pl->load_pct, load);
	fipc_poller_roll_work(pl);
	pl->busy_ns = 0;
	pl->period_start = now;
	/*
	 * A period ends only in a round: one that spans a sleep counts as
	 * the periods it lasted, so a poller back from a long sleep with
	 * little to do gathers at once (its channels went quiet).
	 */
	periods = min_t(u64, div_u64(period, FIPC_POLL_SCALE_PERIOD_MS *
					     NSEC_PER_MSEC),
			FIPC_POLL_SCALE_PERIODS);
	fipc_poller_scale_limits(set, &up, &down);
	pl->hot = load >= up ? pl->hot + periods : 0;
	pl->cold = load < down ? pl->cold + periods : 0;
	/* Channels moved in: the loads measured without them are stale. */
	if (READ_ONCE(pl->moved_in) != pl->moved_in_seen) {
		pl->moved_in_seen = READ_ONCE(pl->moved_in);
		pl->hot = 0;
		pl->cold = 0;
	}
	if (!READ_ONCE(set->autoscale) || set->running < 2)
		return;
	if (pl->hot >= FIPC_POLL_SCALE_PERIODS) {
		mutex_lock(&set->balance_lock);
		fipc_poller_scale_up(pl);
		mutex_unlock(&set->balance_lock);
		pl->hot = 0;
	} else if (pl->cold >= FIPC_POLL_SCALE_PERIODS && pl->index) {
		mutex_lock(&set->balance_lock);
		fipc_poller_scale_down(pl, up);
		mutex_unlock(&set->balance_lock);
		pl->cold = 0;
	}
}

/**
 * fipc_poller_pick() - the poller a new channel starts on
 * @set: the running set
 * @entry: the channel, with its allowed CPUs in @entry->cpus
 * @start: a round-robin cursor
 *
 * Without autoscale: round robin over the pollers it may use.  With it:
 * the least loaded of the pollers at work (with channels) that it may
 * use, else the lowest it may use, so that an idle set keeps one poller.
 *
 * Return: the poller.
 */
struct fipc_poller *fipc_poller_pick(struct fipc_poller_set *set,
				     const struct fipc_poll_entry *entry,
				     unsigned int start)
{
	struct fipc_poller *best = NULL, *first = NULL;
	unsigned int i;

	for (i = 0; i < set->running; i++) {
		struct fipc_poller *p = READ_ONCE(set->autoscale) ?
			&set->pollers[i] :
			&set->pollers[(start + i) % set->running];

		if (!fipc_poller_allowed(set, entry, p))
			continue;
		if (!READ_ONCE(set->autoscale))
			return p;
		if (!first)
			first = p;
		if (READ_ONCE(p->nr_entries) &&
		    (!best || READ_ONCE(p->load_pct) < READ_ONCE(best->load_pct)))
			best = p;
	}
	if (best)
		return best;
	return first ? first : &set->pollers[start % set->running];
}
