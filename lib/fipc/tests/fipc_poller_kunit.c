// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the fipc pollers (lib/fipc/poller/).
 *
 * Built by lib/fipc/tests/Kbuild (CONFIG_FIPC_KUNIT_TEST) with the
 * pollers' own header (poller/fipc_poller_internal.h) and the ring
 * tests' (ring_test.h: its test-managed ring memory and message
 * buffers, and RT_SUITE()).  The poller cases run a fipc poller set over channels of a
 * test driver whose sleeping word is a plain variable.  The tests of
 * the rings themselves are in duplex_test.c (one source for KUnit and
 * userspace).
 */
#include <kunit/test.h>
#include <kunit/resource.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <fipc/fipc.h>
#include <fipc/fipc_duplex.h>
#include "../poller/fipc_poller_internal.h"
#include "ring_test.h"

/* 2^order zeroed pages (an empty ring of that order), or fail the test. */
static void *fipc_test_alloc(struct kunit *test, unsigned int order)
{
	void *mem = rt_ring_alloc(test, order);

	KUNIT_ASSERT_NOT_NULL(test, mem);
	return mem;
}

/* Message buffers, FIPC_MSG_MAX_SLOTS payloads each: too big for a stack. */
static struct fipc_msg *fipc_test_bufs(struct kunit *test, unsigned int n)
{
	struct fipc_msg *m = rt_bufs(test, n);

	KUNIT_ASSERT_NOT_NULL(test, m);
	return m;
}

/*
 * Pollers.  A test channel is one duplex ring whose client plays the
 * peer, posting requests that expect no reply; the poller is the server.
 * Its sleeping word is a plain variable, and its last-look hook records
 * whether the word was already set when it looked.
 */
#define FIPC_POLL_TEST_WAIT_MS	5000

struct fipc_poll_test_chan {
	struct fipc_poll_entry poll;
	struct fipc_duplex_client tx;	/* the peer */
	struct fipc_duplex_server rx;
	int sleeping;
	bool looked_sleeping;
	atomic_t looks;
	atomic_t waits;		/* calls of the wait op */
	atomic_t received;
	u64 wakeups_seen;
	unsigned int retry_us;
	bool busy;
	unsigned int budget_seen;
	bool check_seq;
	u32 next_seq;
	atomic_t misordered;
	unsigned int work_us;
	bool irq_done;
	atomic_t irq_takes;
	atomic_t local_pending;	/* local work (a completion) to do */
	atomic_t local_taken;
	u8 id;			/* in fipc_poll_test_order[] */
};

/* The order of the polls of a case that traces them (ids), or NULL. */
#define FIPC_POLL_TEST_ORDER	64
static u8 *fipc_poll_test_order;
static atomic_t fipc_poll_test_visits;

static struct fipc_poll_test_chan *
fipc_poll_test_chan(struct fipc_poll_entry *entry)
{
	return container_of(entry, struct fipc_poll_test_chan, poll);
}

/* Take up to budget messages; count them in bucket 0 of the histogram. */
static int fipc_poll_test_poll(struct fipc_poll_entry *entry,
			       unsigned int budget)
{
	struct fipc_poll_test_chan *c = fipc_poll_test_chan(entry);
	u64 *hist = fipc_poller_priv(fipc_poll_entry_poller(entry));
	struct fipc_msg msg;
	int n = 0, local;

	WRITE_ONCE(c->budget_seen, budget);
	if (READ_ONCE(fipc_poll_test_order)) {
		int i = atomic_inc_return(&fipc_poll_test_visits) - 1;

		if (i < FIPC_POLL_TEST_ORDER)
			fipc_poll_test_order[i] = c->id;
	}
	while (budget-- &&
	       fipc_duplex_take_request(&c->rx, &msg, 1, NULL) == 1) {
		u32 seq;

		/* Messages numbered by the sender must come in order. */
		memcpy(&seq, msg.data, sizeof(seq));
		if (c->check_seq && seq != c->next_seq++)
			atomic_inc(&c->misordered);
		/* What a real channel's work costs its poller, if asked. */
		udelay(READ_ONCE(c->work_us));
		n++;
	}
	fipc_poll_entry_retry(entry, READ_ONCE(c->retry_us));
	hist[fipc_poll_lat_bucket(0)] += n;
	atomic_add(n, &c->received);
	/* Work of the driver's own, not the peer's. */
	local = atomic_xchg(&c->local_pending, 0);
	if (local) {
		fipc_poll_entry_local_work(entry, local);
		atomic_add(local, &c->local_taken);
	}
	return n + local;
}

static void fipc_poll_test_set_sleeping(struct fipc_poll_entry *entry,
					bool sleeping)
{
	WRITE_ONCE(fipc_poll_test_chan(entry)->sleeping, sleeping);
}

static bool fipc_poll_test_has_work(struct fipc_poll_entry *entry)
{
	struct fipc_poll_test_chan *c = fipc_poll_test_chan(entry);

	if (READ_ONCE(c->sleeping))
		c->looked_sleeping = true;
	atomic_inc(&c->looks);
	return fipc_duplex_request_ready(&c->rx);
}

/* Between rounds, alone on its poller: the duplex server's wait. */
static int fipc_poll_test_wait(struct fipc_poll_entry *entry,
			       struct fipc_waiter *w)
{
	struct fipc_poll_test_chan *c = fipc_poll_test_chan(entry);

	atomic_inc(&c->waits);
	return fipc_duplex_server_wait(&c->rx, w);
}

static bool fipc_poll_test_busy(struct fipc_poll_entry *entry)
{
	return READ_ONCE(fipc_poll_test_chan(entry)->busy);
}

static int fipc_poll_test_show(struct fipc_poller *pl, char *buf,
			       size_t size)
{
	return fipc_poll_lat_show(buf, size, "test_us", fipc_poller_priv(pl));
}

/* The irq_take op: counts its calls, answers what the test set. */
static bool fipc_poll_test_irq_take(struct fipc_poll_entry *entry)
{
	struct fipc_poll_test_chan *c = fipc_poll_test_chan(entry);

	atomic_inc(&c->irq_takes);
	return READ_ONCE(c->irq_done);
}

/*
 * Every op, the optional ones included: until a case sets busy or
 * irq_done, busy and irq_take answer false, which is what their absence
 * means (wait in hardware; kick the poller).  The duplex case's ops
 * leave them out.
 */
static const struct fipc_poll_ops fipc_poll_test_ops = {
	.poll = fipc_poll_test_poll,
	.set_sleeping = fipc_poll_test_set_sleeping,
	.has_work = fipc_poll_test_has_work,
	.busy = fipc_poll_test_busy,
	.wait = fipc_poll_test_wait,
	.show = fipc_poll_test_show,
	.irq_take = fipc_poll_test_irq_take,
};

static struct fipc_poller_set *fipc_poll_test_set(struct kunit *test,
						  unsigned int nr)
{
	struct fipc_poller_set *set = kunit_kzalloc(test, sizeof(*set),
						    GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, set);
	set->name = "fipc-test-poll";
	set->ops = &fipc_poll_test_ops;
	set->priv_size = FIPC_POLL_LAT_BUCKETS * sizeof(u64);
	set->nr_pollers = nr;
	set->idle_us = 1000;
	set->budget = 4;
	return set;
}

/*
 * Test channels, each on its own duplex ring memory of order 0 (tx: the
 * peer's client, rx: the poller's server), so that all of them can carry
 * messages at once.
 */
static struct fipc_poll_test_chan *
fipc_poll_test_chans(struct kunit *test, unsigned int n)
{
	struct fipc_poll_test_chan *c = kunit_kcalloc(test, n, sizeof(*c),
						      GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	for (i = 0; i < n; i++) {
		void *mem = fipc_test_alloc(test, 0);

		KUNIT_ASSERT_EQ(test,
				fipc_duplex_client_init(&c[i].tx, mem, 0), 0);
		KUNIT_ASSERT_EQ(test,
				fipc_duplex_server_init(&c[i].rx, mem, 0), 0);
		fipc_poll_entry_init(&c[i].poll);
	}
	return c;
}

/* Check a condition every 20 ms; false after FIPC_POLL_TEST_WAIT_MS. */
static bool fipc_poll_test_until(bool (*cond)(void *arg), void *arg)
{
	unsigned int ms;

	for (ms = 0; ms < FIPC_POLL_TEST_WAIT_MS; ms += 20) {
		if (cond(arg))
			return true;
		msleep(20);
	}
	return cond(arg);
}

/* The poller has gone to sleep (or is about to, with nothing to do). */
static bool fipc_poll_test_idle(void *arg)
{
	struct fipc_poller *pl = arg;

	return READ_ONCE(pl->asleep) && READ_ONCE(pl->sleeps) > 0;
}

/* ... and the channel's sleeping word says so. */
static bool fipc_poll_test_asleep(void *arg)
{
	struct fipc_poll_test_chan *c = arg;

	return READ_ONCE(c->sleeping) &&
	       fipc_poll_test_idle(fipc_poll_entry_poller(&c->poll));
}

/*
 * Start @set, attach @c and wait until the poller sleeps on it: the
 * beginning of the cases of one poller and one channel.  Return: the
 * poller.
 */
static struct fipc_poller *
fipc_poll_test_start_one(struct kunit *test, struct fipc_poller_set *set,
			 struct fipc_poll_test_chan *c)
{
	KUNIT_ASSERT_EQ(test, fipc_poller_set_start(set), 0);
	fipc_poller_attach(set, &c->poll, NULL);
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));
	return &set->pollers[0];
}

/* Detach the @n channels of @c and stop @set: how the cases end. */
static void fipc_poll_test_stop(struct fipc_poller_set *set,
				struct fipc_poll_test_chan *c, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		fipc_poller_detach(&c[i].poll);
	fipc_poller_set_stop(set);
}

static bool fipc_poll_test_woken(void *arg)
{
	struct fipc_poll_test_chan *c = arg;

	return READ_ONCE(fipc_poll_entry_poller(&c->poll)->wakeups) >
	       c->wakeups_seen;
}

/* Woken since wakeups_seen, and back at work. */
static bool fipc_poll_test_awake(void *arg)
{
	struct fipc_poll_test_chan *c = arg;

	return fipc_poll_test_woken(c) &&
	       !READ_ONCE(fipc_poll_entry_poller(&c->poll)->asleep);
}

static bool fipc_poll_test_got3(void *arg)
{
	struct fipc_poll_test_chan *c = arg;

	return atomic_read(&c->received) == 3;
}

/*
 * One poller, one channel: it sleeps once idle, with the sleeping word
 * set before its last look; an interrupt wakes it and it takes what the
 * peer sent; detached, the word is withdrawn and interrupts are
 * spurious.  Failures after the start are EXPECTs, so that the set is
 * always stopped.  A freezable set (the frontend's) sleeps interruptible:
 * the same, never frozen here.
 */
static void fipc_poll_test_sleep(struct kunit *test, bool freezable)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 1);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 1);
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct fipc_poller *pl;
	struct fipc_msg msg = { };
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	set->freezable = freezable;
	KUNIT_ASSERT_EQ(test, fipc_poller_set_start(set), 0);
	pl = &set->pollers[0];
	/* Attached to a sleeping poller, so its kick is over once we look. */
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_idle, pl));
	fipc_poller_attach(set, &c->poll, NULL);
	KUNIT_EXPECT_PTR_EQ(test, fipc_poll_entry_poller(&c->poll), pl);
	KUNIT_EXPECT_EQ(test, pl->nr_entries, 1u);

	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));
	KUNIT_EXPECT_TRUE(test, c->looked_sleeping);
	KUNIT_EXPECT_GT(test, atomic_read(&c->looks), 0);

	/* The peer sends and, seeing the word set, notifies. */
	c->wakeups_seen = READ_ONCE(pl->wakeups);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, fipc_duplex_post(&c->tx, &msg, 1), 0);
	KUNIT_EXPECT_TRUE(test, fipc_poll_entry_irq(&c->poll));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_got3, c));
	KUNIT_EXPECT_EQ(test, atomic64_read(&pl->irqs), 1ll);
	KUNIT_EXPECT_EQ(test, atomic64_read(&pl->irqs_awake), 0ll);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->wakeups), c->wakeups_seen + 1);
	KUNIT_EXPECT_GE(test, READ_ONCE(pl->loops), READ_ONCE(pl->empty));
	/* The kick of a sleeping poller measured its wake-up. */
	KUNIT_EXPECT_GT(test, fipc_poller_wake_ns(pl), 0ull);

	/* Idle again: a local kick, with no interrupt, wakes it too. */
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));
	c->wakeups_seen = READ_ONCE(pl->wakeups);
	KUNIT_EXPECT_TRUE(test, fipc_poll_entry_wake(&c->poll));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_woken, c));
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->wakeups), c->wakeups_seen + 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&pl->irqs), 1ll);

	KUNIT_EXPECT_GT(test, fipc_poller_set_show(set, buf), 0);
	KUNIT_EXPECT_EQ(test, strncmp(buf, "poller 0 cpu ", 13), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " channels 1 loops "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " wake_us "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " freezes 0\n"));
	KUNIT_EXPECT_NOT_NULL(test,
			      strstr(buf, "\n  test_us<100,<1k,<4k,<16k,<64k,more 3 0 0 0 0 0\n"));

	fipc_poller_detach(&c->poll);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(c->sleeping));
	KUNIT_EXPECT_NULL(test, fipc_poll_entry_poller(&c->poll));
	KUNIT_EXPECT_EQ(test, pl->nr_entries, 0u);
	KUNIT_EXPECT_FALSE(test, fipc_poll_entry_irq(&c->poll));
	KUNIT_EXPECT_FALSE(test, fipc_poll_entry_wake(&c->poll));
	fipc_poll_test_stop(set, c, 1);
	KUNIT_EXPECT_EQ(test, set->running, 0u);
	KUNIT_EXPECT_EQ(test, fipc_poller_set_show(set, buf), 0);
}

static void fipc_test_poller_sleep(struct kunit *test)
{
	fipc_poll_test_sleep(test, false);
}

static void fipc_test_poller_sleep_freezable(struct kunit *test)
{
	fipc_poll_test_sleep(test, true);
}

static bool fipc_poll_test_timed3(void *arg)
{
	struct fipc_poll_test_chan *c = arg;
	struct fipc_poller *pl = fipc_poll_entry_poller(&c->poll);

	return READ_ONCE(pl->timed_sleeps) >= 3;
}

/*
 * A channel that asks for a timed retry (fipc_poll_entry_retry()) gets
 * looked at again by a sleeping poller with nobody kicking it; without
 * one, a sleeping poller stays asleep.  The poller sleeps between the
 * retries: it does not spin.  The same for a freezable set.
 */
static void fipc_poll_test_retry(struct kunit *test, bool freezable)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 1);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 1);
	struct fipc_poller *pl;
	u64 sleeps, wakeups, timed;

	set->freezable = freezable;
	pl = fipc_poll_test_start_one(test, set, c);

	/* No retry asked: asleep it stays, whatever the time. */
	sleeps = READ_ONCE(pl->sleeps);
	msleep(200);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->sleeps), sleeps);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->timed_sleeps), 0ull);

	/* A retry every 20 ms: one kick, then it comes back on its own. */
	WRITE_ONCE(c->retry_us, 20000);
	wakeups = READ_ONCE(pl->wakeups);
	KUNIT_EXPECT_TRUE(test, fipc_poll_entry_wake(&c->poll));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_timed3, c));
	KUNIT_EXPECT_GE(test, READ_ONCE(pl->sleeps), sleeps + 3);
	/* Only the one kick woke it; the rest were timeouts. */
	KUNIT_EXPECT_LE(test, READ_ONCE(pl->wakeups), wakeups + 1);

	/* Cancelled: the next sleep is untimed again. */
	WRITE_ONCE(c->retry_us, 0);
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));
	msleep(100);
	timed = READ_ONCE(pl->timed_sleeps);
	sleeps = READ_ONCE(pl->sleeps);
	msleep(200);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->timed_sleeps), timed);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->sleeps), sleeps);

	fipc_poll_test_stop(set, c, 1);
}

static void fipc_test_poller_retry(struct kunit *test)
{
	fipc_poll_test_retry(test, false);
}

static void fipc_test_poller_retry_freezable(struct kunit *test)
{
	fipc_poll_test_retry(test, true);
}

/*
 * The idle window's arithmetic: fixed at the shortest window without
 * room to learn; steady gaps within the longest window are learnt until
 * the window covers them (never past the longest); a few gaps longer than
 * that bring it back to the shortest.
 */
static void fipc_test_poller_window_learn(struct kunit *test)
{
	const u64 min = 200 * NSEC_PER_USEC, max = 2 * NSEC_PER_MSEC;
	const u64 gap = NSEC_PER_MSEC;
	u64 avg = 0, win;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, fipc_poll_idle_window(0, 0, min, max), min);
	KUNIT_EXPECT_EQ(test, fipc_poll_idle_window(5 * max, 0, min, max), max);
	KUNIT_EXPECT_EQ(test, fipc_poll_idle_window(0, 5 * max, min, max), max);
	KUNIT_EXPECT_EQ(test, fipc_poll_idle_window(U64_MAX, U64_MAX, min, max),
			max);
	/* No learning: the shortest window, whatever was learnt. */
	KUNIT_EXPECT_EQ(test, fipc_poll_idle_window(gap, gap, min, min), min);
	KUNIT_EXPECT_EQ(test, fipc_poll_idle_window(gap, 0, min, min / 2), min);

	/* 1 ms gaps: an eighth of the way each time, never past max. */
	for (i = 0; i < 32; i++) {
		avg = fipc_poll_gap_learn(avg, gap, max);
		win = fipc_poll_idle_window(avg, 0, min, max);
		KUNIT_EXPECT_LE(test, avg, gap);
		KUNIT_EXPECT_LE(test, win, max);
		KUNIT_EXPECT_GE(test, win, min);
		if (i == 0)
			KUNIT_EXPECT_EQ(test, avg, gap / 8);
	}
	/* After 32 gaps the window polls through the next one. */
	KUNIT_EXPECT_GT(test, win, gap);
	KUNIT_EXPECT_GT(test, avg, gap * 9 / 10);

	/* Gaps longer than max: halved each time, down to the shortest. */
	for (i = 0; i < 4; i++)
		avg = fipc_poll_gap_learn(avg, 10 * max, max);
	KUNIT_EXPECT_LT(test, avg, gap / 8 + 1);
	KUNIT_EXPECT_EQ(test, fipc_poll_idle_window(avg, 0, min, max), min);
	/* A gap of exactly max still counts as one to poll through. */
	KUNIT_EXPECT_GT(test, fipc_poll_gap_learn(0, max, max), 0ull);
}

/*
 * The wake-up time's running mean: the first sets it, each later one
 * moves it an eighth of the way.
 */
static void fipc_test_poller_wake_learn(struct kunit *test)
{
	u64 avg = 0;
	unsigned int i;

	/* The first wake-up sets the mean, even one of 0 ns. */
	KUNIT_EXPECT_EQ(test, fipc_poll_wake_learn(0, 0), 1ull);
	avg = fipc_poll_wake_learn(avg, 400 * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, avg, 400 * NSEC_PER_USEC);
	/* Then an eighth of the way: 400 -> 350 us toward 0. */
	avg = fipc_poll_wake_learn(avg, 0);
	KUNIT_EXPECT_EQ(test, avg, 350 * NSEC_PER_USEC);
	/* Fast wake-ups bring it down below a 100 us round trip. */
	for (i = 0; i < 32; i++)
		avg = fipc_poll_wake_learn(avg, 5 * NSEC_PER_USEC);
	KUNIT_EXPECT_LT(test, avg, 20 * NSEC_PER_USEC);
	KUNIT_EXPECT_GE(test, avg, 5 * NSEC_PER_USEC);
}

/*
 * Gaps that vary (three of 200 us, then one of 1.2 ms, as a QD 1 stream
 * whose guest is sometimes slow to send): once learnt, the window covers
 * every one of them, the long ones included (twice the 500 us mean
 * would sleep through each long gap, a quarter of them); steady gaps
 * keep a deviation near 0; a few gaps longer than the longest window
 * bring it back to the shortest.
 */
static void fipc_test_poller_window_deviation(struct kunit *test)
{
	const u64 min = 200 * NSEC_PER_USEC, max = 2 * NSEC_PER_MSEC;
	const u64 gaps[] = { 200 * NSEC_PER_USEC, 200 * NSEC_PER_USEC,
			     200 * NSEC_PER_USEC, 1200 * NSEC_PER_USEC };
	u64 avg = 0, dev = 0, gap;
	unsigned int i, covered = 0;

	for (i = 0; i < 128; i++) {
		gap = gaps[i % ARRAY_SIZE(gaps)];
		if (i >= 64 && gap <= fipc_poll_idle_window(avg, dev, min, max))
			covered++;
		dev = fipc_poll_gap_dev_learn(avg, dev, gap, max);
		avg = fipc_poll_gap_learn(avg, gap, max);
	}
	KUNIT_EXPECT_EQ(test, covered, 64u);
	KUNIT_EXPECT_GT(test, avg, 400 * NSEC_PER_USEC);
	KUNIT_EXPECT_LT(test, avg, 600 * NSEC_PER_USEC);
	KUNIT_EXPECT_GT(test, dev, 250 * NSEC_PER_USEC);
	KUNIT_EXPECT_LE(test, fipc_poll_idle_window(avg, dev, min, max), max);

	for (i = 0; i < 4; i++) {
		dev = fipc_poll_gap_dev_learn(avg, dev, 10 * max, max);
		avg = fipc_poll_gap_learn(avg, 10 * max, max);
	}
	KUNIT_EXPECT_EQ(test, fipc_poll_idle_window(avg, dev, min, max), min);

	/* Steady 1 ms gaps: the deviation fades, twice the mean remains. */
	avg = 0;
	dev = 0;
	for (i = 0; i < 64; i++) {
		dev = fipc_poll_gap_dev_learn(avg, dev, NSEC_PER_MSEC, max);
		avg = fipc_poll_gap_learn(avg, NSEC_PER_MSEC, max);
	}
	KUNIT_EXPECT_LT(test, dev, 10 * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, fipc_poll_idle_window(avg, dev, min, 4 * max),
			2 * avg);
}

/* Feed @n gaps of @gap_ns to @g, @avg and @dev; the learnt window after. */
static u64 fipc_poll_test_gaps(struct fipc_poll_gaps *g, u64 *avg, u64 *dev,
			       u64 gap_ns, unsigned int n)
{
	const u64 min = 200 * NSEC_PER_USEC, max = 2 * NSEC_PER_MSEC;

	while (n--) {
		*dev = fipc_poll_gap_dev_learn(*avg, *dev, gap_ns, max);
		*avg = fipc_poll_gap_learn(*avg, gap_ns, max);
		fipc_poll_gaps_add(g, gap_ns, max);
	}
	return fipc_poll_idle_window(*avg, *dev, min, max);
}

/*
 * The gaps' tail: a QD 1 stream whose guest is late one gap in twenty
 * (19 gaps of 600 us, then one of 1.6 ms) sleeps in each late gap with
 * the mean's window (twice the mean, about 1.2 ms, by the time the late
 * gap comes), while the tail (99 % of the recent gaps) covers them, also
 * with one gap in twenty longer than the longest window.  One late gap in
 * 200 is left out of the tail.  Gaps longer than the longest window, once
 * more than one in 16, turn the tail off; and the histogram forgets:
 * after 8192 gaps of 200 us the tail is theirs alone.
 */
static void fipc_test_poller_window_tail(struct kunit *test)
{
	const u64 us = NSEC_PER_USEC, max = 2 * NSEC_PER_MSEC;
	struct fipc_poll_gaps g = { };
	u64 avg = 0, dev = 0, win = 0;
	unsigned int i, b, sum;

	KUNIT_EXPECT_EQ(test, fipc_poll_gap_bucket(0), 0u);
	KUNIT_EXPECT_EQ(test, fipc_poll_gap_bucket(65535), 0u);
	KUNIT_EXPECT_EQ(test, fipc_poll_gap_bucket(65536), 1u);
	KUNIT_EXPECT_EQ(test, fipc_poll_gap_bucket(600 * us), 4u);
	KUNIT_EXPECT_EQ(test, fipc_poll_gap_bucket(1600 * us), 5u);
	KUNIT_EXPECT_EQ(test, fipc_poll_gap_bucket(U64_MAX),
			FIPC_POLL_GAP_BUCKETS - 1);
	KUNIT_EXPECT_EQ(test, fipc_poll_gap_bucket_end_ns(4), 1048576ull);
	KUNIT_EXPECT_EQ(test,
			fipc_poll_gap_bucket_end_ns(FIPC_POLL_GAP_BUCKETS - 1),
			U64_MAX);

	/* Too few gaps yet: no tail. */
	fipc_poll_test_gaps(&g, &avg, &dev, 600 * us,
			    FIPC_POLL_GAP_MIN_SAMPLES - 1);
	KUNIT_EXPECT_EQ(test, fipc_poll_gaps_tail_ns(&g), 0ull);

	for (i = 0; i < 200; i++) {
		win = fipc_poll_test_gaps(&g, &avg, &dev, 600 * us, 19);
		fipc_poll_test_gaps(&g, &avg, &dev, 1600 * us, 1);
	}
	KUNIT_EXPECT_LT(test, win, 1600 * us);
	KUNIT_EXPECT_GE(test, min(fipc_poll_gaps_tail_ns(&g), max),
			1600 * us);
	KUNIT_EXPECT_LT(test, g.total, (u32)FIPC_POLL_GAP_HISTORY);
	for (sum = g.beyond, b = 0; b < FIPC_POLL_GAP_BUCKETS; b++)
		sum += g.recent[b];
	KUNIT_EXPECT_EQ(test, sum, g.total);

	/* One in twenty beyond the longest window: the tail holds. */
	for (i = 0; i < 200; i++) {
		fipc_poll_test_gaps(&g, &avg, &dev, 600 * us, 18);
		fipc_poll_test_gaps(&g, &avg, &dev, 1600 * us, 1);
		fipc_poll_test_gaps(&g, &avg, &dev, 10 * max, 1);
	}
	KUNIT_EXPECT_GE(test, min(fipc_poll_gaps_tail_ns(&g), max),
			1600 * us);

	/* Then only gaps beyond it: the tail is off. */
	fipc_poll_test_gaps(&g, &avg, &dev, 10 * max, 256);
	KUNIT_EXPECT_EQ(test, fipc_poll_gaps_tail_ns(&g), 0ull);

	/* A late gap in 200: the tail covers the 600 us gaps only. */
	memset(&g, 0, sizeof(g));
	for (i = 0; i < 20; i++) {
		fipc_poll_test_gaps(&g, &avg, &dev, 600 * us, 199);
		fipc_poll_test_gaps(&g, &avg, &dev, 1600 * us, 1);
	}
	KUNIT_EXPECT_EQ(test, fipc_poll_gaps_tail_ns(&g), 1048576ull);

	/* The old gaps fade: then gaps of 200 us leave their bucket only. */
	fipc_poll_test_gaps(&g, &avg, &dev, 200 * us, 8192);
	KUNIT_EXPECT_EQ(test, fipc_poll_gaps_tail_ns(&g), 262144ull);
}

/*
 * Wait until @count reaches @n, at most FIPC_POLL_TEST_WAIT_MS by the
 * clock: a short sleep may take a tick or more (UML), and a wait counted
 * in sleeps would then run a failing case into kunit.py's timeout.
 */
static bool fipc_poll_test_reached(atomic_t *count, int n)
{
	unsigned long end = jiffies + msecs_to_jiffies(FIPC_POLL_TEST_WAIT_MS);

	while (atomic_read(count) < n) {
		if (time_after(jiffies, end))
			return atomic_read(count) >= n;
		usleep_range(500, 1000);
	}
	return true;
}

static bool fipc_poll_test_got(struct fipc_poll_test_chan *c, int n)
{
	return fipc_poll_test_reached(&c->received, n);
}

/* The peer sends a message and notifies, as one that saw the sleep word. */
static void fipc_poll_test_send_notify(struct kunit *test,
				       struct fipc_poll_test_chan *c)
{
	struct fipc_msg msg = { };

	KUNIT_EXPECT_EQ(test, fipc_duplex_post(&c->tx, &msg, 1), 0);
	fipc_poll_entry_irq(&c->poll);
}

/* After @ms, the peer sends a message and notifies: the @n-th to arrive. */
static void fipc_poll_test_send_after(struct kunit *test,
				      struct fipc_poll_test_chan *c,
				      unsigned int ms, int n)
{
	msleep(ms);
	fipc_poll_test_send_notify(test, c);
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_got(c, n));
}

/*
 * A live poller learns its window: messages 5 ms apart (each announced
 * by an interrupt, as a peer that sees the sleeping word does) raise its
 * mean gap toward 5 ms, and poller_cpus shows it; the first of them come
 * while it sleeps, and those sleeps count as short (a window of 100 ms
 * would have polled through).  Messages 300 ms apart, more than its
 * longest window of 100 ms, bring the window back to the shortest (1 ms
 * here), and the sleeps before them are not short.  Loose bounds: the host
 * may be loaded.
 */
static void fipc_test_poller_window(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 1);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 1);
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct fipc_poller *pl;
	u64 avg, sleeps, short_sleeps;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	set->idle_max_us = 100000;
	pl = fipc_poll_test_start_one(test, set, c);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->gap_avg_ns), 0ull);

	for (i = 1; i <= 24; i++) {
		usleep_range(5000, 6000);
		fipc_poll_test_send_notify(test, c);
		KUNIT_EXPECT_TRUE(test, fipc_poll_test_got(c, i));
	}
	avg = READ_ONCE(pl->gap_avg_ns);
	KUNIT_EXPECT_GE(test, avg, 2 * NSEC_PER_MSEC);
	KUNIT_EXPECT_LE(test, avg, 100 * NSEC_PER_MSEC);
	KUNIT_EXPECT_GT(test, fipc_poller_set_show(set, buf), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " gap_us "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " window_us "));
	KUNIT_EXPECT_NULL(test, strstr(buf, " window_us 1000 "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " short_sleeps "));
	short_sleeps = READ_ONCE(pl->short_sleeps);
	sleeps = READ_ONCE(pl->sleeps);
	KUNIT_EXPECT_GE(test, short_sleeps, 1ull);
	KUNIT_EXPECT_LE(test, short_sleeps, sleeps);

	for (i = 25; i <= 30; i++)
		fipc_poll_test_send_after(test, c, 300, i);
	KUNIT_EXPECT_GE(test, READ_ONCE(pl->sleeps), sleeps + 6);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->short_sleeps), short_sleeps);
	KUNIT_EXPECT_LT(test, READ_ONCE(pl->gap_avg_ns), avg / 16 + 1);
	KUNIT_EXPECT_GT(test, fipc_poller_set_show(set, buf), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " window_us 1000 "));

	fipc_poll_test_stop(set, c, 1);
}

/*
 * Local work does not end a gap: each peer message is followed at once
 * (within a tick or two) by work of the driver's own, a completion
 * announced with fipc_poll_entry_wake(), and the peer's next message
 * comes 150 ms after that.  The window learns the gaps before the peer's
 * messages (over 16 of them, well past 120 ms); were the short gaps
 * after them learnt too, the mean would stay under 100 ms.  Ticks of
 * 10 ms (UML) are the unit of time here.
 */
static void fipc_test_poller_window_local(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 1);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 1);
	struct fipc_poller *pl;
	unsigned int i;
	u64 avg_ms;

	set->idle_max_us = USEC_PER_SEC;
	pl = fipc_poll_test_start_one(test, set, c);

	for (i = 1; i <= 16; i++) {
		fipc_poll_test_send_after(test, c, 150, i);
		atomic_inc(&c->local_pending);
		fipc_poll_entry_wake(&c->poll);
		KUNIT_EXPECT_TRUE(test, fipc_poll_test_reached(&c->local_taken, i));
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&c->local_taken), 16);
	avg_ms = div_u64(READ_ONCE(pl->gap_avg_ns), NSEC_PER_MSEC);
	KUNIT_EXPECT_GE(test, avg_ms, 120ull);

	fipc_poll_test_stop(set, c, 1);
}

/*
 * fipc_test_poller_wake_race's stolen-time clock, which the poller reads
 * between a round that found nothing and its sleep
 * (fipc_poller_should_sleep()).  Armed with a channel, once the poller
 * has taken a message of it, it plays there a completion (on another
 * CPU, or in an interrupt of the poller's) that leaves local work and
 * calls fipc_poll_entry_wake() at that very moment, the poller awake but
 * past the round that would have taken the work; then it reports all
 * the time since boot as stolen, so that the poller goes to sleep at
 * once (a steal sleep).
 */
static struct fipc_poll_test_chan *fipc_poll_test_race_chan;
static u64 fipc_poll_test_race_steal;
static bool fipc_poll_test_race_woke;

static u64 fipc_poll_test_race_clock(int cpu)
{
	struct fipc_poll_test_chan *c = READ_ONCE(fipc_poll_test_race_chan);

	if (c && atomic_read(&c->received)) {
		WRITE_ONCE(fipc_poll_test_race_chan, NULL);
		atomic_inc(&c->local_pending);
		WRITE_ONCE(fipc_poll_test_race_woke,
			   fipc_poll_entry_wake(&c->poll));
		fipc_poll_test_race_steal = ktime_get_ns();
	}
	return fipc_poll_test_race_steal;
}

/*
 * A wake-up between the poller's last round and its sleep is not lost:
 * local work announced with fipc_poll_entry_wake() while the poller is
 * awake but done with its last round (the test channel's last look,
 * has_work, sees only its ring) is taken at once, not at the peer's next
 * message.  The stolen-time clock above opens that window on any kernel,
 * preemptible or not.  Where the poller can be preempted there (UML of
 * Linux 7.3, voluntary preemption at the least), so does
 * fipc_test_poller_window_local's thread, now and then.
 */
static void fipc_test_poller_wake_race(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 1);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 1);

	fipc_poll_test_race_chan = NULL;
	fipc_poll_test_race_steal = 0;
	fipc_poll_test_race_woke = true;
	set->steal_sleep = true;
	set->steal_clock = fipc_poll_test_race_clock;
	fipc_poll_test_start_one(test, set, c);

	/* It fires after the round that takes the message. */
	WRITE_ONCE(fipc_poll_test_race_chan, c);
	fipc_poll_test_send_notify(test, c);
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_got(c, 1));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_reached(&c->local_taken, 1));
	/* It fired, and found the poller awake: nothing to wake. */
	KUNIT_EXPECT_NULL(test, READ_ONCE(fipc_poll_test_race_chan));
	KUNIT_EXPECT_FALSE(test, READ_ONCE(fipc_poll_test_race_woke));
	KUNIT_EXPECT_EQ(test, atomic_read(&c->received), 1);
	/* Then the poller sleeps, its kicks taken. */
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));
	KUNIT_EXPECT_EQ(test, atomic_read(&c->local_taken), 1);

	fipc_poll_test_stop(set, c, 1);
}

/*
 * Start @set (one poller, longest window 1 s) with channel @c attached
 * and teach it gaps of 150 ms: its window, returned, is 200 ms or more.
 */
static u64 fipc_poll_test_long_window(struct kunit *test,
				      struct fipc_poller_set *set,
				      struct fipc_poll_test_chan *c)
{
	struct fipc_poller *pl;
	unsigned int i;
	u64 window_ns;

	set->idle_max_us = USEC_PER_SEC;
	pl = fipc_poll_test_start_one(test, set, c);
	for (i = 1; i <= 16; i++)
		fipc_poll_test_send_after(test, c, 150, i);
	window_ns = fipc_poll_idle_window(READ_ONCE(pl->gap_avg_ns),
					  READ_ONCE(pl->gap_dev_ns),
					  set->idle_us * NSEC_PER_USEC,
					  set->idle_max_us * NSEC_PER_USEC);
	KUNIT_EXPECT_GE(test, window_ns, 200 * NSEC_PER_MSEC);
	return window_ns;
}

/*
 * Past the shortest window a poller polls on only while nobody else wants
 * its CPU: with 150 ms gaps learnt (a window of 200 ms or more), a
 * message followed by this test spinning on the CPU (UML has one) puts
 * the poller to sleep long before its window ends, and that sleep is
 * the one counted as contended.
 */
static void fipc_test_poller_contended(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 1);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 1);
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct fipc_poller *pl;
	u64 window_ns, sleeps, contended, t0, slept_after = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	window_ns = fipc_poll_test_long_window(test, set, c);
	pl = &set->pollers[0];
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));

	sleeps = READ_ONCE(pl->sleeps);
	contended = READ_ONCE(pl->contended_sleeps);
	fipc_poll_test_send_notify(test, c);
	/* Spin here until the poller has taken it and gone back to sleep. */
	t0 = ktime_get_ns();
	while (ktime_get_ns() - t0 < window_ns) {
		if (atomic_read(&c->received) == 17 &&
		    READ_ONCE(pl->sleeps) > sleeps) {
			slept_after = ktime_get_ns() - t0;
			break;
		}
		cond_resched();
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&c->received), 17);
	KUNIT_EXPECT_GT(test, slept_after, 0ull);
	KUNIT_EXPECT_LT(test, slept_after, window_ns / 2);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->sleeps), sleeps + 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->contended_sleeps), contended + 1);
	KUNIT_EXPECT_GT(test, fipc_poller_set_show(set, buf), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " contended_sleeps "));

	fipc_poll_test_stop(set, c, 1);
}

/*
 * A stolen-time clock for the set's steal_clock (called by the one
 * poller only), as the kernel keeps it: at each tick it grows by
 * fipc_poll_test_steal_share per cent of the ticks since it last grew.
 */
static unsigned int fipc_poll_test_steal_share;
static u64 fipc_poll_test_steal_ns, fipc_poll_test_steal_tick;

static u64 fipc_poll_test_steal_clock(int cpu)
{
	u64 tick = div_u64(ktime_get_ns(), TICK_NSEC);

	if (fipc_poll_test_steal_tick && tick > fipc_poll_test_steal_tick)
		fipc_poll_test_steal_ns +=
			div_u64((tick - fipc_poll_test_steal_tick) * TICK_NSEC *
				READ_ONCE(fipc_poll_test_steal_share), 100);
	fipc_poll_test_steal_tick = tick;
	return fipc_poll_test_steal_ns;
}

/*
 * One more message (the @n-th) to a sleeping poller whose learnt window
 * is 200 ms or more, then @ms in one sleep of this test, so that the
 * poller is alone on the CPU until then: any sleep of the poller's in
 * that time is an early one.  The poller may be polling still on return.
 */
static void fipc_poll_test_one_more(struct kunit *test,
				    struct fipc_poll_test_chan *c, int n,
				    unsigned int ms)
{
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));
	fipc_poll_test_send_notify(test, c);
	msleep(ms);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->received), n);
}

/* The stolen share of a span: per cent, rounded down, at most 100. */
static void fipc_test_poller_steal_pct(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, fipc_poll_steal_pct(0, 4000000), 0);
	KUNIT_EXPECT_EQ(test, fipc_poll_steal_pct(1000000, 4000000), 25);
	KUNIT_EXPECT_EQ(test, fipc_poll_steal_pct(999999, 4000000), 24);
	KUNIT_EXPECT_EQ(test, fipc_poll_steal_pct(1, 3), 33);
	KUNIT_EXPECT_EQ(test, fipc_poll_steal_pct(5, 0), 100);
	KUNIT_EXPECT_EQ(test, fipc_poll_steal_pct(0, 0), 100);
	KUNIT_EXPECT_EQ(test, fipc_poll_steal_pct(8000000, 4000000), 100);
	KUNIT_EXPECT_EQ(test, fipc_poll_steal_pct(U64_MAX / 200,
						  U64_MAX / 100), 50);
}

/*
 * With steal_sleep, a poller without work sleeps as soon as its CPU's
 * stolen time grows by a large share of the time (the hypervisor kept
 * it waiting while another virtual CPU ran), even before its shortest
 * window ends, and counts that sleep as steal_sleeps; without stolen
 * time, with a little of it (5 %, as a hypervisor's wake-up latency
 * leaves), or with the setting off, it polls on through its learnt
 * window of 200 ms or more.  The stolen time comes from the set's
 * steal_clock.  This test's waking up may end a poll with a contended
 * sleep, so the polls on are told by their idle and steal sleeps.
 */
static void fipc_test_poller_steal(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 1);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 1);
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct fipc_poller *pl;
	u64 early, steals;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	fipc_poll_test_steal_share = 0;
	fipc_poll_test_steal_ns = 0;
	fipc_poll_test_steal_tick = 0;
	set->steal_sleep = true;
	set->steal_clock = fipc_poll_test_steal_clock;
	fipc_poll_test_long_window(test, set, c);
	pl = &set->pollers[0];

	/* No stolen time: no early sleep but a contended one. */
	early = READ_ONCE(pl->sleeps) - READ_ONCE(pl->contended_sleeps);
	fipc_poll_test_one_more(test, c, 17, 100);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->sleeps) -
			READ_ONCE(pl->contended_sleeps), early);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->steal_sleeps), 0);

	/* A little stolen time: the same (from a poller asleep again). */
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));
	WRITE_ONCE(fipc_poll_test_steal_share, 5);
	early = READ_ONCE(pl->sleeps) - READ_ONCE(pl->contended_sleeps);
	fipc_poll_test_one_more(test, c, 18, 100);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->sleeps) -
			READ_ONCE(pl->contended_sleeps), early);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->steal_sleeps), 0);
	KUNIT_EXPECT_LT(test, READ_ONCE(pl->steal_pct), FIPC_POLL_STEAL_PCT);

	/*
	 * Half the time stolen: asleep within 60 ms, although its shortest
	 * window is 150 ms now.
	 */
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));
	WRITE_ONCE(fipc_poll_test_steal_share, 50);
	WRITE_ONCE(set->idle_us, 150000);
	early = READ_ONCE(pl->sleeps);
	fipc_poll_test_one_more(test, c, 19, 60);
	fipc_poller_set_show(set, buf);
	WRITE_ONCE(set->idle_us, 1000);
	steals = READ_ONCE(pl->steal_sleeps);
	KUNIT_EXPECT_GT(test, READ_ONCE(pl->sleeps), early);
	KUNIT_EXPECT_EQ_MSG(test, steals, 1, "%s", buf);
	KUNIT_EXPECT_GE(test, READ_ONCE(pl->steal_pct), FIPC_POLL_STEAL_PCT);

	/* The setting is live: off, it polls on through stolen time. */
	WRITE_ONCE(set->steal_sleep, false);
	fipc_poll_test_one_more(test, c, 20, 100);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->steal_sleeps), 1);
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));
	KUNIT_EXPECT_GT(test, fipc_poller_set_show(set, buf), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " steal_sleeps 1 steal_pct "));

	WRITE_ONCE(fipc_poll_test_steal_share, 0);
	fipc_poll_test_stop(set, c, 1);
}

#define FIPC_POLL_TEST_SCALE_CHANS	4

/* A peer that keeps every channel's ring full, numbering its messages. */
struct fipc_poll_test_feeder {
	struct fipc_poll_test_chan *c;
	unsigned int gap_ms;	/* 0: as fast as the rings allow */
	unsigned long active;	/* channels fed, a bit each; 0: all */
	u32 sent[FIPC_POLL_TEST_SCALE_CHANS];
};

static bool fipc_poll_test_fed(const struct fipc_poll_test_feeder *f,
			       unsigned int i)
{
	unsigned long active = READ_ONCE(f->active);

	return !active || (active & BIT(i));
}

/* A feeder of FIPC_POLL_TEST_SCALE_CHANS test channels, none fed yet. */
static struct fipc_poll_test_feeder *
fipc_poll_test_feeder_new(struct kunit *test)
{
	struct fipc_poll_test_feeder *f = kunit_kzalloc(test, sizeof(*f),
							GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->c = fipc_poll_test_chans(test, FIPC_POLL_TEST_SCALE_CHANS);
	return f;
}

/* The next numbered message on channel @i, if its ring has room. */
static bool fipc_poll_test_feed_one(struct fipc_poll_test_feeder *f,
				    unsigned int i)
{
	struct fipc_poll_test_chan *c = &f->c[i];
	struct fipc_msg msg = { };
	bool sent;

	memcpy(msg.data, &f->sent[i], sizeof(f->sent[i]));
	sent = fipc_duplex_post(&c->tx, &msg, 1) == 0;
	if (sent)
		f->sent[i]++;
	if (READ_ONCE(c->sleeping))
		fipc_poll_entry_irq(&c->poll);
	return sent;
}

static int fipc_poll_test_feed(void *arg)
{
	struct fipc_poll_test_feeder *f = arg;
	unsigned int i;

	while (!kthread_should_stop()) {
		for (i = 0; i < FIPC_POLL_TEST_SCALE_CHANS; i++)
			if (fipc_poll_test_fed(f, i))
				fipc_poll_test_feed_one(f, i);
		if (f->gap_ms)
			msleep(f->gap_ms);
		else
			cond_resched();
	}
	return 0;
}

static bool fipc_poll_test_spread(void *arg)
{
	struct fipc_poller_set *set = arg;

	return READ_ONCE(set->pollers[1].nr_entries) > 0;
}

static bool fipc_poll_test_rebalanced(void *arg)
{
	struct fipc_poller_set *set = arg;

	return atomic_read(&set->rebalances) > 0;
}

static bool fipc_poll_test_gathered(void *arg)
{
	struct fipc_poller_set *set = arg;

	return READ_ONCE(set->pollers[1].nr_entries) == 0;
}

/* All sent, all received in order, on every channel fed. */
static void fipc_poll_test_all_in_order(struct kunit *test,
					struct fipc_poll_test_feeder *f)
{
	unsigned int i;

	for (i = 0; i < FIPC_POLL_TEST_SCALE_CHANS; i++) {
		struct fipc_poll_test_chan *c = &f->c[i];
		unsigned int ms;

		if (!fipc_poll_test_fed(f, i))
			continue;
		for (ms = 0; ms < FIPC_POLL_TEST_WAIT_MS &&
		     atomic_read(&c->received) != f->sent[i]; ms += 20)
			msleep(20);
		KUNIT_EXPECT_GT(test, f->sent[i], 0u);
		KUNIT_EXPECT_EQ(test, (u32)atomic_read(&c->received), f->sent[i]);
		KUNIT_EXPECT_EQ(test, atomic_read(&c->misordered), 0);
		KUNIT_EXPECT_EQ(test, fipc_duplex_server_error(&c->rx), 0);
	}
}

/*
 * Auto-scaling: four channels start on one poller of two; kept busy
 * (full rings, 100 us of work a message), that poller hands half of them
 * to the other (scale up); once the load is light (a message every 20 ms,
 * no work), the second poller gives its channels back (scale down) and
 * sleeps.  Every message arrives, in order, across both moves; poller_cpus
 * shows the moves.
 */
static void fipc_test_poller_autoscale(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 2);
	struct fipc_poll_test_feeder *f = fipc_poll_test_feeder_new(test);
	struct fipc_poll_test_chan *c = f->c;
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct task_struct *feeder;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	set->autoscale = true;
	KUNIT_ASSERT_EQ(test, fipc_poller_set_start(set), 0);
	for (i = 0; i < FIPC_POLL_TEST_SCALE_CHANS; i++) {
		c[i].check_seq = true;
		c[i].work_us = 100;
		fipc_poller_attach(set, &c[i].poll, NULL);
		KUNIT_EXPECT_PTR_EQ(test, fipc_poll_entry_poller(&c[i].poll),
				    &set->pollers[0]);
	}
	KUNIT_EXPECT_EQ(test, set->pollers[1].nr_entries, 0u);

	feeder = kthread_run(fipc_poll_test_feed, f, "fipc-test-feed");
	KUNIT_ASSERT_FALSE(test, IS_ERR(feeder));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_spread, set));
	KUNIT_EXPECT_EQ(test, READ_ONCE(set->pollers[1].nr_entries),
			FIPC_POLL_TEST_SCALE_CHANS / 2);
	KUNIT_EXPECT_GE(test, atomic_read(&set->scale_ups), 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(set->pollers[1].moved_in),
			(u64)FIPC_POLL_TEST_SCALE_CHANS / 2);

	/* Light load: a message per channel every 20 ms. */
	for (i = 0; i < FIPC_POLL_TEST_SCALE_CHANS; i++)
		WRITE_ONCE(c[i].work_us, 0);
	WRITE_ONCE(f->gap_ms, 20);
	KUNIT_EXPECT_TRUE(test,
			  fipc_poll_test_until(fipc_poll_test_gathered, set));
	KUNIT_EXPECT_EQ(test, READ_ONCE(set->pollers[0].nr_entries),
			FIPC_POLL_TEST_SCALE_CHANS);
	KUNIT_EXPECT_GE(test, atomic_read(&set->scale_downs), 1);
	KUNIT_EXPECT_GT(test, fipc_poller_set_show(set, buf), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, " load_pct "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "autoscale on pollers_at_work 1 scale_ups "));
	kthread_stop(feeder);
	fipc_poll_test_all_in_order(test, f);

	/* Off: new channels are dealt round robin again. */
	set->autoscale = false;
	for (i = 0; i < FIPC_POLL_TEST_SCALE_CHANS; i++)
		fipc_poller_detach(&c[i].poll);
	for (i = 0; i < 2; i++)
		fipc_poller_attach(set, &c[i].poll, NULL);
	KUNIT_EXPECT_EQ(test, set->pollers[0].nr_entries, 1u);
	KUNIT_EXPECT_EQ(test, set->pollers[1].nr_entries, 1u);
	fipc_poll_test_stop(set, c, 2);
}

/*
 * Start @set with every channel of @f attached (checked for order, @work_us
 * of work a message) and @f's feeder running; the feeder is returned.
 */
static struct task_struct *
fipc_poll_test_scale_start(struct kunit *test, struct fipc_poller_set *set,
			   struct fipc_poll_test_feeder *f,
			   unsigned int work_us)
{
	struct task_struct *feeder;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, fipc_poller_set_start(set), 0);
	for (i = 0; i < FIPC_POLL_TEST_SCALE_CHANS; i++) {
		f->c[i].check_seq = true;
		f->c[i].work_us = work_us;
		fipc_poller_attach(set, &f->c[i].poll, NULL);
	}
	feeder = kthread_run(fipc_poll_test_feed, f, "fipc-test-feed");
	KUNIT_ASSERT_FALSE(test, IS_ERR(feeder));
	return feeder;
}

/* Stop the feeder, check every message, detach all and stop @set. */
static void fipc_poll_test_scale_stop(struct kunit *test,
				      struct fipc_poller_set *set,
				      struct fipc_poll_test_feeder *f,
				      struct task_struct *feeder)
{
	unsigned int i;

	kthread_stop(feeder);
	fipc_poll_test_all_in_order(test, f);
	for (i = 0; i < FIPC_POLL_TEST_SCALE_CHANS; i++)
		fipc_poller_detach(&f->c[i].poll);
	fipc_poller_set_stop(set);
}

/*
 * Auto-scaling shares work, not channels: four channels on one poller of
 * two, kept busy (full rings, 100 us of work a message) on the first
 * only: nothing moves, since one channel cannot be shared and moving
 * idle ones would not help.  Then the second is fed too: the poller
 * hands over one channel, the second (busy), and not the idle two at
 * the tail of its list.  Then the other three are fed, not the second:
 * the first poller, busy with three, is more than twice as loaded as the
 * second (asleep: no load) and hands it work (a rebalance: both pollers
 * had channels), keeping the first channel.  Every message arrives in
 * order.
 */
static void fipc_test_poller_scale_busy(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 2);
	struct fipc_poll_test_feeder *f = fipc_poll_test_feeder_new(test);
	struct fipc_poll_test_chan *c = f->c;
	struct task_struct *feeder;
	unsigned int i, load0, load1;
	bool rebalanced;

	f->active = BIT(0);
	set->autoscale = true;
	set->scale_up_pct = 20;
	feeder = fipc_poll_test_scale_start(test, set, f, 100);
	msleep(1500);
	load0 = READ_ONCE(set->pollers[0].load_pct);
	KUNIT_EXPECT_GE(test, load0, set->scale_up_pct);
	KUNIT_EXPECT_EQ(test, READ_ONCE(set->pollers[1].nr_entries), 0u);
	KUNIT_EXPECT_EQ(test, atomic_read(&set->scale_ups), 0);

	WRITE_ONCE(f->active, BIT(0) | BIT(1));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_spread, set));
	KUNIT_EXPECT_EQ(test, READ_ONCE(set->pollers[1].nr_entries), 1u);
	KUNIT_EXPECT_PTR_EQ(test, fipc_poll_entry_poller(&c[1].poll),
			    &set->pollers[1]);
	for (i = 0; i < FIPC_POLL_TEST_SCALE_CHANS; i++)
		if (i != 1)
			KUNIT_EXPECT_PTR_EQ(test,
					    fipc_poll_entry_poller(&c[i].poll),
					    &set->pollers[0]);

	WRITE_ONCE(f->active, BIT(0) | BIT(2) | BIT(3));
	rebalanced = fipc_poll_test_until(fipc_poll_test_rebalanced, set);
	load0 = READ_ONCE(set->pollers[0].load_pct);
	load1 = READ_ONCE(set->pollers[1].load_pct);
	kunit_info(test, "loads %u%% and %u%%", load0, load1);
	KUNIT_EXPECT_TRUE(test, rebalanced);
	KUNIT_EXPECT_GE(test, READ_ONCE(set->pollers[1].nr_entries), 2u);
	KUNIT_EXPECT_PTR_EQ(test, fipc_poll_entry_poller(&c[0].poll),
			    &set->pollers[0]);
	KUNIT_EXPECT_EQ(test, atomic_read(&set->scale_ups), 1);
	fipc_poll_test_scale_stop(test, set, f, feeder);
}

static bool fipc_poll_test_second_asleep(void *arg)
{
	struct fipc_poller_set *set = arg;

	return READ_ONCE(set->pollers[1].asleep);
}

/*
 * A poller whose channels went quiet hands them back as soon as it wakes
 * with little to do: four channels on one poller of two, the first two
 * busy (full rings, 100 us of work a message) until the second moves to
 * the other poller (a scale-up) and it has served it for a while; then
 * nothing for ten periods, the second poller asleep all along.  One
 * message on the second channel wakes it, and it gives the channel back
 * at once (a scale-down): the period that spanned its sleep counts as
 * the periods it lasted.  (Counted as one period, it would have needed
 * five more periods of light work, and without them kept the channel.)
 */
static void fipc_test_poller_scale_quiet(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 2);
	struct fipc_poll_test_feeder *f = fipc_poll_test_feeder_new(test);
	struct fipc_poll_test_chan *c = f->c;
	struct task_struct *feeder;
	int downs;

	f->active = BIT(0) | BIT(1);
	set->autoscale = true;
	set->scale_up_pct = 20;
	feeder = fipc_poll_test_scale_start(test, set, f, 100);
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_spread, set));
	KUNIT_EXPECT_PTR_EQ(test, fipc_poll_entry_poller(&c[1].poll),
			    &set->pollers[1]);
	/* Past the move's own hysteresis: periods with the channel. */
	msleep(3 * FIPC_POLL_SCALE_PERIOD_MS);

	/* Quiet: no channel fed (the feeder's mask names none of them). */
	WRITE_ONCE(f->active, BIT(FIPC_POLL_TEST_SCALE_CHANS));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_second_asleep,
						     set));
	downs = atomic_read(&set->scale_downs);
	msleep(2 * FIPC_POLL_SCALE_PERIODS * FIPC_POLL_SCALE_PERIOD_MS);
	KUNIT_EXPECT_EQ(test, READ_ONCE(set->pollers[1].nr_entries), 1u);

	KUNIT_EXPECT_TRUE(test, fipc_poll_test_feed_one(f, 1));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_gathered,
						     set));
	KUNIT_EXPECT_EQ(test, atomic_read(&set->scale_downs), downs + 1);
	KUNIT_EXPECT_PTR_EQ(test, fipc_poll_entry_poller(&c[1].poll),
			    &set->pollers[0]);
	WRITE_ONCE(f->active, BIT(0) | BIT(1));
	fipc_poll_test_scale_stop(test, set, f, feeder);
}

/*
 * The auto-scaling loads in effect: 0 is the default, the spreading load
 * is 1 to 100, and the gathering load always below it.
 */
static void fipc_test_poller_scale_limits(struct kunit *test)
{
	static const struct {
		unsigned int up, down, want_up, want_down;
	} cases[] = {
		{ 0, 0, FIPC_POLL_SCALE_UP_PCT, FIPC_POLL_SCALE_DOWN_PCT },
		{ 10, 5, 10, 5 },
		{ 10, 50, 10, 9 },
		{ 1, 50, 1, 0 },
		{ 500, 0, 100, FIPC_POLL_SCALE_DOWN_PCT },
	};
	struct fipc_poller_set *set = kunit_kzalloc(test, sizeof(*set),
						    GFP_KERNEL);
	unsigned int i, up, down;

	KUNIT_ASSERT_NOT_NULL(test, set);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		set->scale_up_pct = cases[i].up;
		set->scale_down_pct = cases[i].down;
		fipc_poller_scale_limits(set, &up, &down);
		KUNIT_EXPECT_EQ_MSG(test, up, cases[i].want_up, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, down, cases[i].want_down,
				    "case %u", i);
	}
}

/*
 * A rebalance evens two pollers at work out, and only for a gap worth a
 * move: the other under half the busy one's load and at least
 * FIPC_POLL_REBALANCE_GAP_PCT points below it.
 */
static void fipc_test_poller_rebalance_share(struct kunit *test)
{
	static const struct {
		unsigned int load, least, want;
	} cases[] = {
		{ 100, 0, 50 },		/* the other asleep: half of ours */
		{ 80, 20, 37 },		/* 30 points of 80 */
		{ 80, 39, 25 },		/* just under half */
		{ 80, 40, 0 },		/* half: even enough */
		{ 90, 60, 0 },		/* over half */
		{ 25, 5, 40 },		/* a gap of 20 points: moves */
		{ 24, 5, 0 },		/* 19 points: not worth a move */
		{ 10, 4, 0 },		/* low thresholds: noise */
		{ 0, 0, 0 },		/* nothing to hand over */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    fipc_poller_rebalance_share(cases[i].load,
								cases[i].least),
				    cases[i].want, "load %u, least %u",
				    cases[i].load, cases[i].least);
}

/* poll_scale_up_pct and poll_scale_down_pct take 1 to 100 only. */
static void fipc_test_poller_pct_param(struct kunit *test)
{
	unsigned int pct = 80;
	const struct kernel_param kp = {
		.name = "poll_scale_up_pct",
		.ops = &fipc_poll_pct_param_ops,
		.arg = &pct,
	};
	char buf[16];

	KUNIT_EXPECT_EQ(test, kp.ops->set("0", &kp), -ERANGE);
	KUNIT_EXPECT_EQ(test, kp.ops->set("101", &kp), -ERANGE);
	KUNIT_EXPECT_EQ(test, kp.ops->set("-5", &kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kp.ops->set("ten", &kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, pct, 80u);
	KUNIT_EXPECT_EQ(test, kp.ops->set("25", &kp), 0);
	KUNIT_EXPECT_EQ(test, pct, 25u);
	KUNIT_EXPECT_GT(test, kp.ops->get(buf, &kp), 0);
	KUNIT_EXPECT_STREQ(test, buf, "25\n");
}

/*
 * The spreading load is a live setting: four channels on one poller of
 * two, a message each every 20 ms or so with 1 ms of work (a load far
 * below 100%), do not spread at scale_up_pct 100; lowered to 2 while the
 * messages flow, the same load spreads them 2 + 2, and every message
 * arrives in order across the move.
 */
static void fipc_test_poller_scale_setting(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 2);
	struct fipc_poll_test_feeder *f = fipc_poll_test_feeder_new(test);
	struct task_struct *feeder;

	f->gap_ms = 20;
	set->autoscale = true;
	set->scale_up_pct = 100;
	set->scale_down_pct = 1;
	feeder = fipc_poll_test_scale_start(test, set, f, 1000);
	msleep(1500);
	KUNIT_EXPECT_EQ(test, READ_ONCE(set->pollers[1].nr_entries), 0u);
	KUNIT_EXPECT_EQ(test, atomic_read(&set->scale_ups), 0);

	WRITE_ONCE(set->scale_up_pct, 2);
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_spread, set));
	KUNIT_EXPECT_EQ(test, READ_ONCE(set->pollers[1].nr_entries),
			FIPC_POLL_TEST_SCALE_CHANS / 2);
	KUNIT_EXPECT_GE(test, atomic_read(&set->scale_ups), 1);
	fipc_poll_test_scale_stop(test, set, f, feeder);
}

/* Woken, through its idle window, and asleep again. */
static void fipc_poll_test_idle_window(struct kunit *test,
				       struct fipc_poll_test_chan *c)
{
	struct fipc_poller *pl = fipc_poll_entry_poller(&c->poll);

	c->wakeups_seen = READ_ONCE(pl->wakeups);
	KUNIT_EXPECT_TRUE(test, fipc_poll_entry_wake(&c->poll));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_woken, c));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));
}

/*
 * A poller serving one channel waits on its ring between rounds
 * (ops->wait, fipc_duplex_server_wait(): MWAITX or UMWAIT where the CPU
 * has them), which a kick from another CPU cannot end early.  While the
 * channel says work of it ends elsewhere (ops->busy), the poller spins
 * instead: through a whole idle window, not one wait on the ring.
 */
static void fipc_test_poller_busy(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 1);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 1);
	struct fipc_poller *pl;
	u64 waits, loops;

	set->idle_us = 50000;
	pl = fipc_poll_test_start_one(test, set, c);

	WRITE_ONCE(c->busy, true);
	waits = READ_ONCE(pl->rx_waits);
	loops = READ_ONCE(pl->loops);
	fipc_poll_test_idle_window(test, c);
	KUNIT_EXPECT_GT(test, READ_ONCE(pl->loops), loops + 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->rx_waits), waits);

	WRITE_ONCE(c->busy, false);
	fipc_poll_test_idle_window(test, c);
	KUNIT_EXPECT_GT(test, READ_ONCE(pl->rx_waits), waits);

	fipc_poll_test_stop(set, c, 1);
}

/*
 * The irq_take op: an interrupt that finds the poller asleep goes to it
 * first; when it did all there was to do the poller stays asleep, else
 * it is kicked; an interrupt that finds the poller awake never calls it.
 * Every interrupt counts in irqs either way.  fipc_poll_entry_asleep()
 * tells the states apart (false once detached) for drivers that do
 * their poller's work while it sleeps (xfb_end_answer()).
 */
static void fipc_test_poller_irq_take(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 1);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 1);
	struct fipc_poller *pl;
	u64 wakeups;

	KUNIT_ASSERT_EQ(test, fipc_poller_set_start(set), 0);
	pl = &set->pollers[0];
	KUNIT_EXPECT_FALSE(test, fipc_poll_entry_asleep(&c->poll));
	fipc_poller_attach(set, &c->poll, NULL);
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));
	/* What a driver reads before doing its poller's work itself. */
	KUNIT_EXPECT_TRUE(test, fipc_poll_entry_asleep(&c->poll));

	/* Done in the handler: no kick, the poller sleeps on. */
	WRITE_ONCE(c->irq_done, true);
	wakeups = READ_ONCE(pl->wakeups);
	KUNIT_EXPECT_TRUE(test, fipc_poll_entry_irq(&c->poll));
	KUNIT_EXPECT_EQ(test, atomic_read(&c->irq_takes), 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&pl->irqs), 1ll);
	msleep(100);
	KUNIT_EXPECT_EQ(test, READ_ONCE(pl->wakeups), wakeups);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(pl->asleep));

	/* More left: the poller is kicked. */
	WRITE_ONCE(c->irq_done, false);
	c->wakeups_seen = wakeups;
	KUNIT_EXPECT_TRUE(test, fipc_poll_entry_irq(&c->poll));
	KUNIT_EXPECT_EQ(test, atomic_read(&c->irq_takes), 2);
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_woken, c));
	KUNIT_EXPECT_EQ(test, atomic64_read(&pl->irqs), 2ll);

	/* Awake (polling a 1 s idle window): the op is not called. */
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));
	set->idle_us = 1000000;
	c->wakeups_seen = READ_ONCE(pl->wakeups);
	KUNIT_EXPECT_TRUE(test, fipc_poll_entry_wake(&c->poll));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_awake, c));
	KUNIT_EXPECT_FALSE(test, fipc_poll_entry_asleep(&c->poll));
	KUNIT_EXPECT_TRUE(test, fipc_poll_entry_irq(&c->poll));
	KUNIT_EXPECT_EQ(test, atomic_read(&c->irq_takes), 2);
	KUNIT_EXPECT_EQ(test, atomic64_read(&pl->irqs_awake), 1ll);
	set->idle_us = 1000;

	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_asleep, c));
	fipc_poller_detach(&c->poll);
	KUNIT_EXPECT_FALSE(test, fipc_poll_entry_asleep(&c->poll));
	KUNIT_EXPECT_FALSE(test, fipc_poll_entry_irq(&c->poll));
	KUNIT_EXPECT_EQ(test, atomic_read(&c->irq_takes), 2);
	fipc_poller_set_stop(set);
}

struct fipc_poll_test_drained {
	struct fipc_poll_test_chan *c;
	unsigned int n;
	int want;
};

static bool fipc_poll_test_all_received(void *arg)
{
	const struct fipc_poll_test_drained *d = arg;
	unsigned int i;

	for (i = 0; i < d->n; i++)
		if (atomic_read(&d->c[i].received) < d->want)
			return false;
	return true;
}

/*
 * Weights: each visit of a channel may take the set's budget scaled by
 * the channel's weight against FIPC_POLL_WEIGHT_DEFAULT, at least one
 * message, with no overflow; out-of-range weights are clamped; a weight
 * set on an attached channel holds from its next visit.
 */
static void fipc_test_poller_weight(struct kunit *test)
{
	static const unsigned int weights[] = { FIPC_POLL_WEIGHT_DEFAULT, 512,
						1, 64 };
	static const unsigned int budgets[] = { 4, 8, 1, 1 };
	struct fipc_poller_set *set = fipc_poll_test_set(test, 1);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 4);
	struct fipc_poll_test_drained d = { .c = c, .n = 4 };
	struct fipc_msg msg = { };
	unsigned int i, j;

	KUNIT_EXPECT_EQ(test, c[0].poll.weight, FIPC_POLL_WEIGHT_DEFAULT);
	fipc_poll_entry_set_weight(&c[0].poll, 0);
	KUNIT_EXPECT_EQ(test, c[0].poll.weight, 1u);
	fipc_poll_entry_set_weight(&c[0].poll, 1000000);
	KUNIT_EXPECT_EQ(test, c[0].poll.weight, FIPC_POLL_WEIGHT_MAX);
	KUNIT_EXPECT_EQ(test, fipc_poll_entry_budget(&c[0].poll, UINT_MAX),
			UINT_MAX);
	KUNIT_EXPECT_EQ(test, fipc_poll_entry_budget(&c[0].poll, 32),
			32u * FIPC_POLL_WEIGHT_MAX / FIPC_POLL_WEIGHT_DEFAULT);

	set->budget = 4;
	KUNIT_ASSERT_EQ(test, fipc_poller_set_start(set), 0);
	for (i = 0; i < 4; i++) {
		fipc_poll_entry_set_weight(&c[i].poll, weights[i]);
		fipc_poller_attach(set, &c[i].poll, NULL);
	}
	for (i = 0; i < 4; i++)
		for (j = 0; j < 16; j++)
			KUNIT_EXPECT_EQ(test,
					fipc_duplex_post(&c[i].tx, &msg, 1), 0);
	d.want = 16;
	KUNIT_EXPECT_TRUE(test, fipc_poll_entry_irq(&c[0].poll));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_all_received,
						     &d));
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, READ_ONCE(c[i].budget_seen), budgets[i]);

	/* Live: the next visit of channel 2 takes 4 x 1024 / 256. */
	fipc_poll_entry_set_weight(&c[2].poll, 1024);
	KUNIT_EXPECT_EQ(test, fipc_duplex_post(&c[2].tx, &msg, 1), 0);
	fipc_poll_entry_irq(&c[2].poll);
	d.c = &c[2];
	d.n = 1;
	d.want = 17;
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_all_received,
						     &d));
	KUNIT_EXPECT_EQ(test, READ_ONCE(c[2].budget_seen), 16u);

	fipc_poll_test_stop(set, c, 4);
}

/*
 * Rounds start one channel further on each time: with two channels kept
 * busy, the polls are not A B A B ..., where A would always have first
 * go at what both share, but each channel goes first in turn.
 */
static void fipc_test_poller_rotate(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 1);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 2);
	u8 *order = kunit_kzalloc(test, FIPC_POLL_TEST_ORDER, GFP_KERNEL);
	struct fipc_poll_test_drained d = { .c = c, .n = 2, .want = 40 };
	unsigned int i, j, firsts[2] = { 0, 0 };
	struct fipc_msg msg = { };

	KUNIT_ASSERT_NOT_NULL(test, order);
	set->budget = 1;
	KUNIT_ASSERT_EQ(test, fipc_poller_set_start(set), 0);
	for (i = 0; i < 2; i++) {
		c[i].id = i;
		fipc_poller_attach(set, &c[i].poll, NULL);
	}
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_idle,
						     &set->pollers[0]));
	for (i = 0; i < 2; i++)
		for (j = 0; j < 40; j++)
			KUNIT_EXPECT_EQ(test,
					fipc_duplex_post(&c[i].tx, &msg, 1), 0);
	atomic_set(&fipc_poll_test_visits, 0);
	WRITE_ONCE(fipc_poll_test_order, order);
	KUNIT_EXPECT_TRUE(test, fipc_poll_entry_irq(&c[0].poll));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_all_received,
						     &d));
	WRITE_ONCE(fipc_poll_test_order, NULL);
	/* Rounds of two polls: who went first in each of the first 30. */
	KUNIT_ASSERT_GE(test, atomic_read(&fipc_poll_test_visits), 60);
	for (i = 0; i < 60; i += 2) {
		KUNIT_EXPECT_NE(test, order[i], order[i + 1]);
		firsts[order[i]]++;
	}
	KUNIT_EXPECT_EQ(test, firsts[0], 15u);
	KUNIT_EXPECT_EQ(test, firsts[1], 15u);
	fipc_poll_test_stop(set, c, 2);
}

/*
 * Settings, round robin and CPU restriction, repinning, and the
 * latency buckets.
 */
static void fipc_test_poller_set(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 0);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 5);
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	int cpu0;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, fipc_poll_lat_bucket(0), 0u);
	KUNIT_EXPECT_EQ(test, fipc_poll_lat_bucket(99999), 0u);
	KUNIT_EXPECT_EQ(test, fipc_poll_lat_bucket(100000), 1u);
	KUNIT_EXPECT_EQ(test, fipc_poll_lat_bucket(NSEC_PER_MSEC), 2u);
	KUNIT_EXPECT_EQ(test, fipc_poll_lat_bucket(4 * NSEC_PER_MSEC), 3u);
	KUNIT_EXPECT_EQ(test, fipc_poll_lat_bucket(16 * NSEC_PER_MSEC), 4u);
	KUNIT_EXPECT_EQ(test, fipc_poll_lat_bucket(64 * NSEC_PER_MSEC - 1),
			4u);
	KUNIT_EXPECT_EQ(test, fipc_poll_lat_bucket(U64_MAX), 5u);

	KUNIT_EXPECT_EQ(test, fipc_poller_set_start(set), -EINVAL);
	set->nr_pollers = FIPC_POLLERS_MAX + 1;
	KUNIT_EXPECT_EQ(test, fipc_poller_set_start(set), -EINVAL);
	KUNIT_EXPECT_EQ(test, set->running, 0u);
	set->nr_pollers = 2;
	KUNIT_ASSERT_EQ(test, fipc_poller_set_start(set), 0);
	KUNIT_EXPECT_EQ(test, set->running, 2u);

	/* Round robin over both pollers. */
	for (i = 0; i < 4; i++)
		fipc_poller_attach(set, &c[i].poll, NULL);
	KUNIT_EXPECT_EQ(test, set->pollers[0].nr_entries, 2u);
	KUNIT_EXPECT_EQ(test, set->pollers[1].nr_entries, 2u);
	KUNIT_EXPECT_PTR_NE(test, fipc_poll_entry_poller(&c[0].poll),
			    fipc_poll_entry_poller(&c[1].poll));

	/* Restricted to the CPU of poller 0 (both, on one CPU). */
	cpu0 = set->pollers[0].cpu;
	fipc_poller_attach(set, &c[4].poll, cpumask_of(cpu0));
	KUNIT_EXPECT_EQ(test, fipc_poll_entry_poller(&c[4].poll)->cpu, cpu0);

	KUNIT_EXPECT_EQ(test, fipc_poller_set_repin(set, "0"), 0);
	KUNIT_EXPECT_EQ(test, set->pollers[0].cpu, 0);
	KUNIT_EXPECT_EQ(test, set->pollers[1].cpu, 0);
	KUNIT_EXPECT_EQ(test, fipc_poller_set_repin(set, "\n"), 0);
	KUNIT_EXPECT_LT(test, fipc_poller_set_repin(set, "x"), 0);

	fipc_poller_set_show(set, buf);
	KUNIT_EXPECT_EQ(test, strncmp(buf, "poller 0 cpu ", 13), 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "\npoller 1 cpu "));

	for (i = 0; i < 5; i++)
		fipc_poller_detach(&c[i].poll);
	KUNIT_EXPECT_EQ(test, set->pollers[0].nr_entries, 0u);
	KUNIT_EXPECT_EQ(test, set->pollers[1].nr_entries, 0u);
	fipc_poller_set_stop(set);
}

/*
 * A duplex channel in a poller: the poller is the server, answering each
 * call, and waits on the ring with the channel's own wait op
 * (fipc_duplex_server_wait()).  A test channel whose poll op replies;
 * its ops have neither busy nor irq_take.
 */
static int fipc_poll_test_dx_poll(struct fipc_poll_entry *entry,
				  unsigned int budget)
{
	struct fipc_poll_test_chan *c = fipc_poll_test_chan(entry);
	struct fipc_msg msg;
	int n = 0;

	while (budget-- &&
	       fipc_duplex_take_request(&c->rx, &msg, 1, NULL) == 1) {
		if (fipc_duplex_reply(&c->rx, &msg))
			break;
		n++;
	}
	atomic_add(n, &c->received);
	return n;
}

static const struct fipc_poll_ops fipc_poll_test_dx_ops = {
	.poll = fipc_poll_test_dx_poll,
	.set_sleeping = fipc_poll_test_set_sleeping,
	.has_work = fipc_poll_test_has_work,
	.wait = fipc_poll_test_wait,
};

static void fipc_test_poller_duplex(struct kunit *test)
{
	struct fipc_poller_set *set = fipc_poll_test_set(test, 1);
	struct fipc_poll_test_chan *c = fipc_poll_test_chans(test, 1);
	struct fipc_poller *pl;
	struct fipc_msg *msg = fipc_test_bufs(test, 1);
	unsigned int i;
	u64 waits;

	set->ops = &fipc_poll_test_dx_ops;
	set->idle_us = 20000;
	pl = fipc_poll_test_start_one(test, set, c);
	/* It waited on the duplex ring between rounds before sleeping. */
	KUNIT_EXPECT_GT(test, atomic_read(&c->waits), 0);
	waits = READ_ONCE(pl->rx_waits);
	KUNIT_EXPECT_EQ(test, waits, (u64)atomic_read(&c->waits));

	/* The client calls three times and notifies the sleeping poller. */
	for (i = 0; i < 3; i++) {
		rt_fill(msg, 1, 40 + i);
		KUNIT_EXPECT_EQ(test, fipc_duplex_call(&c->tx, msg, 1), 0);
	}
	KUNIT_EXPECT_TRUE(test, fipc_poll_entry_irq(&c->poll));
	KUNIT_EXPECT_TRUE(test, fipc_poll_test_until(fipc_poll_test_got3, c));
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, fipc_duplex_take_reply(&c->tx, msg), 0);
		KUNIT_EXPECT_TRUE(test, rt_match(msg, 1, 40 + i));
	}
	KUNIT_EXPECT_EQ(test, fipc_duplex_room(&c->tx), 64u);
	KUNIT_EXPECT_EQ(test, fipc_duplex_server_error(&c->rx), 0);

	fipc_poll_test_stop(set, c, 1);
}

static struct kunit_case fipc_test_cases[] = {
	KUNIT_CASE(fipc_test_poller_sleep),
	KUNIT_CASE(fipc_test_poller_sleep_freezable),
	KUNIT_CASE(fipc_test_poller_retry),
	KUNIT_CASE(fipc_test_poller_retry_freezable),
	KUNIT_CASE(fipc_test_poller_window_learn),
	KUNIT_CASE(fipc_test_poller_window_deviation),
	KUNIT_CASE(fipc_test_poller_window_tail),
	KUNIT_CASE(fipc_test_poller_wake_learn),
	KUNIT_CASE(fipc_test_poller_window),
	KUNIT_CASE(fipc_test_poller_contended),
	KUNIT_CASE(fipc_test_poller_steal_pct),
	KUNIT_CASE(fipc_test_poller_steal),
	KUNIT_CASE(fipc_test_poller_window_local),
	KUNIT_CASE(fipc_test_poller_wake_race),
	KUNIT_CASE(fipc_test_poller_autoscale),
	KUNIT_CASE(fipc_test_poller_scale_busy),
	KUNIT_CASE(fipc_test_poller_scale_quiet),
	KUNIT_CASE(fipc_test_poller_scale_limits),
	KUNIT_CASE(fipc_test_poller_rebalance_share),
	KUNIT_CASE(fipc_test_poller_pct_param),
	KUNIT_CASE(fipc_test_poller_scale_setting),
	KUNIT_CASE(fipc_test_poller_busy),
	KUNIT_CASE(fipc_test_poller_irq_take),
	KUNIT_CASE(fipc_test_poller_weight),
	KUNIT_CASE(fipc_test_poller_rotate),
	KUNIT_CASE(fipc_test_poller_set),
	KUNIT_CASE(fipc_test_poller_duplex),
	{}
};

RT_SUITE(fipc, fipc_test_cases);
MODULE_DESCRIPTION("KUnit tests of the fipc pollers");
