// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: polling threads.
 *
 * A small, fixed set of kthreads, each bound to one CPU and (by default)
 * at SCHED_FIFO, takes the responses of the channels attached to it, in
 * turn, whatever disk they belong to.  A poller that has found nothing
 * for poll_idle_us goes to sleep with the control page protocol of
 * fipcblk.h: it sets front_sleeping on each of its channels, issues a
 * full barrier, looks at every ring once more, and only then sleeps.
 * The backend notifies the event channel only when it sees the word set,
 * so a busy poller costs no notification at all.
 */
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include "front.h"

static struct xff_poller xff_pollers[XFF_MAX_POLLERS];
static unsigned int xff_pollers_running;
static atomic_t xff_next_poller = ATOMIC_INIT(0);
static DEFINE_MUTEX(xff_pollers_mutex);

/* Default placement: the highest online CPUs, leaving CPU 0 to the rest. */
static int xff_default_cpu(unsigned int index)
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
 * xff_poller_kick() - wake a poller that may be sleeping
 * @pl: the poller
 *
 * Safe from any context, including hard irq.
 */
void xff_poller_kick(struct xff_poller *pl)
{
	atomic_set(&pl->kicked, 1);
	wake_up(&pl->wq);
}

static int xff_poll_round(struct xff_poller *pl)
{
	struct xff_chan *chan;
	int work = 0;

	mutex_lock(&pl->lock);
	list_for_each_entry(chan, &pl->chans, poll_node)
		work += xff_chan_poll(chan);
	mutex_unlock(&pl->lock);
	return work;
}

/*
 * Wait a little before the next round: with one channel, the fipc wait
 * strategy (MWAITX/UMWAIT where the CPU has them, else PAUSE); with
 * several, the spin-loop hint.
 */
static void xff_poll_pause(struct xff_poller *pl)
{
	struct xff_chan *chan;

	if (pl->nr_chans == 1 && mutex_trylock(&pl->lock)) {
		chan = list_first_entry_or_null(&pl->chans, struct xff_chan,
						poll_node);
		if (chan)
			fipc_wait_rx(&chan->fc.rx, &pl->waiter);
		mutex_unlock(&pl->lock);
		return;
	}
	cpu_relax();
}

/* The sleep hook of pl->waiter: one hardware wait is enough, go back. */
static int xff_poll_wait_done(void *arg)
{
	return -EAGAIN;
}

static void xff_poller_sleep(struct xff_poller *pl)
{
	struct xff_chan *chan;
	bool busy = false;

	atomic_set(&pl->kicked, 0);
	mutex_lock(&pl->lock);
	WRITE_ONCE(pl->asleep, true);
	list_for_each_entry(chan, &pl->chans, poll_node)
		xff_chan_set_sleeping(chan, true);
	/* Our sleeping words before our last look at the rings. */
	virt_mb();
	list_for_each_entry(chan, &pl->chans, poll_node)
		busy |= xff_chan_has_work(chan);
	mutex_unlock(&pl->lock);

	if (!busy) {
		u64 t0 = ktime_get_ns(), dt;

		pl->sleeps++;
		wait_event_idle(pl->wq,
				atomic_read(&pl->kicked) || kthread_should_stop());
		dt = ktime_get_ns() - t0;
		if (atomic_read(&pl->kicked))
			pl->wakeups++;
		pl->slept_ns += dt;
		if (dt > pl->sleep_max_ns)
			pl->sleep_max_ns = dt;
	}

	mutex_lock(&pl->lock);
	list_for_each_entry(chan, &pl->chans, poll_node)
		xff_chan_set_sleeping(chan, false);
	WRITE_ONCE(pl->asleep, false);
	mutex_unlock(&pl->lock);
}

static int xff_poller_fn(void *arg)
{
	struct xff_poller *pl = arg;
	u64 last_work = ktime_get_ns();

	while (!kthread_should_stop()) {
		u64 now;

		pl->loops++;
		if (xff_poll_round(pl)) {
			last_work = ktime_get_ns();
			cond_resched();
			continue;
		}
		pl->empty++;
		now = ktime_get_ns();
		if (now - last_work >=
		    (u64)READ_ONCE(xff_poll_idle_us) * NSEC_PER_USEC) {
			xff_poller_sleep(pl);
			last_work = ktime_get_ns();
			continue;
		}
		xff_poll_pause(pl);
		cond_resched();
	}
	return 0;
}

/**
 * xff_poller_attach() - hand a channel to the next poller, round robin
 * @chan: the channel, with its rings ready
 */
void xff_poller_attach(struct xff_chan *chan)
{
	unsigned int i = atomic_inc_return(&xff_next_poller);
	struct xff_poller *pl = &xff_pollers[i % xff_pollers_running];

	mutex_lock(&pl->lock);
	list_add_tail(&chan->poll_node, &pl->chans);
	pl->nr_chans++;
	WRITE_ONCE(chan->poller, pl);
	mutex_unlock(&pl->lock);
	xff_poller_kick(pl);
}

/**
 * xff_poller_detach() - take a channel away from its poller
 * @chan: the channel
 *
 * On return the poller no longer looks at the channel.
 */
void xff_poller_detach(struct xff_chan *chan)
{
	struct xff_poller *pl = chan->poller;

	if (!pl)
		return;
	mutex_lock(&pl->lock);
	list_del_init(&chan->poll_node);
	pl->nr_chans--;
	xff_chan_set_sleeping(chan, false);
	mutex_unlock(&pl->lock);
	WRITE_ONCE(chan->poller, NULL);
}

/* Parse a CPU list into the CPUs for each poller; NULL/empty: defaults. */
static int xff_pollers_cpus(const char *list, int *cpus)
{
	cpumask_var_t mask;
	unsigned int i;
	int cpu, err;

	if (!list || !*list || !strcmp(list, "\n")) {
		for (i = 0; i < XFF_MAX_POLLERS; i++)
			cpus[i] = xff_default_cpu(i);
		return 0;
	}
	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	err = cpulist_parse(list, mask);
	if (!err && !cpumask_intersects(mask, cpu_online_mask))
		err = -EINVAL;
	if (!err) {
		cpu = -1;
		for (i = 0; i < XFF_MAX_POLLERS; i++) {
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
 * xff_pollers_repin() - move the pollers to the CPUs of a list
 * @list: CPU list; poller i goes to the i-th online CPU of it (cycling)
 *
 * Return: 0 or a negative errno for a bad list.
 */
int xff_pollers_repin(const char *list)
{
	int cpus[XFF_MAX_POLLERS];
	unsigned int i;
	int err;

	err = xff_pollers_cpus(list, cpus);
	if (err)
		return err;
	mutex_lock(&xff_pollers_mutex);
	for (i = 0; i < xff_pollers_running; i++) {
		struct xff_poller *pl = &xff_pollers[i];

		err = set_cpus_allowed_ptr(pl->task, cpumask_of(cpus[i]));
		if (err)
			break;
		pl->cpu = cpus[i];
	}
	mutex_unlock(&xff_pollers_mutex);
	return err;
}

/**
 * xff_pollers_show() - describe the pollers for sysfs
 * @buf: a PAGE_SIZE buffer
 *
 * Return: bytes written.
 */
int xff_pollers_show(char *buf)
{
	unsigned int i, j;
	int n = 0;

	mutex_lock(&xff_pollers_mutex);
	for (i = 0; i < xff_pollers_running; i++) {
		struct xff_poller *pl = &xff_pollers[i];

		n += scnprintf(buf + n, PAGE_SIZE - n,
			       "poller %u cpu %d channels %u loops %llu empty %llu sleeps %llu wait %s wakeups %llu slept_us %llu sleep_max_us %llu irqs %lld irqs_awake %lld\n",
			       i, pl->cpu, READ_ONCE(pl->nr_chans),
			       READ_ONCE(pl->loops), READ_ONCE(pl->empty),
			       READ_ONCE(pl->sleeps),
			       fipc_wait_method_name(pl->waiter.method),
			       READ_ONCE(pl->wakeups),
			       div_u64(READ_ONCE(pl->slept_ns), NSEC_PER_USEC),
			       div_u64(READ_ONCE(pl->sleep_max_ns),
				       NSEC_PER_USEC),
			       (s64)atomic64_read(&pl->irqs),
			       (s64)atomic64_read(&pl->irqs_awake));
		n += scnprintf(buf + n, PAGE_SIZE - n, "  lat_us<100,<1k,<4k,<16k,<64k,more");
		for (j = 0; j < XFF_NR_LAT; j++)
			n += scnprintf(buf + n, PAGE_SIZE - n, " %llu",
				       READ_ONCE(pl->hlat[j]));
		n += scnprintf(buf + n, PAGE_SIZE - n, "\n");
	}
	mutex_unlock(&xff_pollers_mutex);
	return n;
}

/**
 * xff_pollers_start() - create and start the polling threads
 *
 * Return: 0 or a negative errno.
 */
int xff_pollers_start(void)
{
	int cpus[XFF_MAX_POLLERS];
	unsigned int i;
	int err;

	err = xff_pollers_cpus(NULL, cpus);
	if (err)
		return err;
	mutex_lock(&xff_pollers_mutex);
	for (i = 0; i < xff_nr_pollers; i++) {
		struct xff_poller *pl = &xff_pollers[i];
		struct task_struct *t;

		memset(pl, 0, sizeof(*pl));
		pl->index = i;
		pl->cpu = cpus[i];
		mutex_init(&pl->lock);
		INIT_LIST_HEAD(&pl->chans);
		init_waitqueue_head(&pl->wq);
		fipc_waiter_init(&pl->waiter, fipc_wait_best_method(), 2,
				 xff_poll_wait_done, pl);
		t = kthread_create(xff_poller_fn, pl, "xff-poll/%u", i);
		if (IS_ERR(t)) {
			err = PTR_ERR(t);
			break;
		}
		kthread_bind(t, pl->cpu);
		if (xff_poll_fifo)
			sched_set_fifo(t);
		pl->task = t;
		wake_up_process(t);
		xff_pollers_running++;
	}
	mutex_unlock(&xff_pollers_mutex);
	if (err)
		xff_pollers_stop();
	return err;
}

/**
 * xff_pollers_stop() - stop every polling thread
 *
 * Channels must all be detached.
 */
void xff_pollers_stop(void)
{
	unsigned int i;

	mutex_lock(&xff_pollers_mutex);
	for (i = 0; i < xff_pollers_running; i++) {
		WARN_ON(!list_empty(&xff_pollers[i].chans));
		kthread_stop(xff_pollers[i].task);
		xff_pollers[i].task = NULL;
	}
	xff_pollers_running = 0;
	mutex_unlock(&xff_pollers_mutex);
}
