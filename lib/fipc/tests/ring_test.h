/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One source of ring tests for two builds: KUnit (lib/fipc/tests/Kbuild)
 * and the userspace harness (tests/user/harness.h, built by tests/user/
 * rules.mk with tests/user/ on the include path).  A test is
 *
 *	static void name(struct kunit *test)
 *
 * and uses only the macros and functions below:
 *
 *	RT_EXPECT(cond), RT_EXPECT_EQ(got, want)  record a failure, go on
 *	RT_ASSERT(cond), RT_ASSERT_EQ(got, want)  fail and end the test
 *		(KUnit aborts it; userspace longjmp()s out of it)
 *	RT_EXPECT_MSG(cond, fmt, ...), RT_EXPECT_EQ_MSG(got, want, fmt, ...),
 *	RT_ASSERT_MSG(cond, fmt, ...)  the same, with a line saying more
 *		when they fail
 *	rt_ring_alloc(test, order)  zeroed, page-aligned ring memory,
 *		freed when the test ends
 *	rt_bufs(test, n)  n private message buffers, freed likewise
 *	rt_zalloc(test, size)  zeroed memory, freed likewise
 *	rt_fill(m, len, tag), rt_match(m, len, tag), rt_slot_match(data,
 *		tag, n)  a message's test payload, written and checked
 *	rt_note(test, fmt, ...)  a line in the test's output
 *	RT_KERNEL  1 in the KUnit build, 0 in userspace, for the few
 *		checks that differ (if (RT_KERNEL) ..., not #ifdef)
 *
 * and, for the cases that run more than one thread:
 *
 *	rt_thread_start(t, fn, arg, name)  run int fn(void *arg) in a new
 *		thread (a kthread in the kernel, a pthread in userspace)
 *	rt_thread_wait(t, ms)  true once fn has returned, waiting up to ms
 *	rt_thread_join(t)  wait until fn returns (the test has told it to
 *		stop), end the thread; fn's return value
 *	rt_wq_init(wq), rt_wake(wq), rt_wait_until(wq, cond, arg, ms)  a
 *		wait queue: sleep until cond(arg) or ms pass, woken by
 *		rt_wake() (after the change that makes cond true)
 *	rt_msecs()  a monotonic clock in milliseconds; rt_msleep(ms)
 *	rt_yield()  let another runnable thread have the CPU
 *	rt_cond_resched()  a point where the kernel may reschedule (a
 *		uniprocessor UML kernel needs it in long loops; nothing in
 *		userspace, where threads are preempted)
 *
 * Only the test's own thread may use RT_EXPECT and the like, and every
 * thread it starts must be joined before the test ends, so no RT_ASSERT
 * between rt_thread_start() and rt_thread_join(): the other threads
 * report through the test's own data.
 *
 * A suite is an array of RT_CASE(name) ending with RT_END, declared with
 * RT_SUITE(suite_name, array) at the end of the file; a file is one
 * suite (in userspace, one program: this header supplies its main()).
 * Values compared with RT_EXPECT_EQ are compared as long long.
 */
#ifndef _FIPC_RING_TEST_H
#define _FIPC_RING_TEST_H

#ifdef __KERNEL__

#include <kunit/test.h>
#include <kunit/resource.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <fipc/fipc.h>

#define RT_KERNEL	1

#define RT_EXPECT(cond)	KUNIT_EXPECT_TRUE(test, cond)
#define RT_EXPECT_EQ(got, want) \
	KUNIT_EXPECT_EQ(test, (long long)(got), (long long)(want))
#define RT_ASSERT(cond)	KUNIT_ASSERT_TRUE(test, cond)
#define RT_ASSERT_EQ(got, want) \
	KUNIT_ASSERT_EQ(test, (long long)(got), (long long)(want))
#define RT_EXPECT_MSG(cond, fmt, ...) \
	KUNIT_EXPECT_TRUE_MSG(test, cond, fmt, ##__VA_ARGS__)
#define RT_EXPECT_EQ_MSG(got, want, fmt, ...) \
	KUNIT_EXPECT_EQ_MSG(test, (long long)(got), (long long)(want), fmt, \
			    ##__VA_ARGS__)
#define RT_ASSERT_MSG(cond, fmt, ...) \
	KUNIT_ASSERT_TRUE_MSG(test, cond, fmt, ##__VA_ARGS__)
#define rt_note(test, fmt, ...)	kunit_info(test, fmt, ##__VA_ARGS__)

#define rt_case		kunit_case
#define RT_CASE(fn)	KUNIT_CASE(fn)
#define RT_END		{}
#define RT_SUITE(suite, cases)						\
	static struct kunit_suite suite##_suite = {			\
		.name = #suite,						\
		.test_cases = cases,					\
	};								\
	kunit_test_suite(suite##_suite);				\
	MODULE_LICENSE("GPL")

/* Ring memory, test managed: freed when the test case ends. */
struct rt_pages {
	unsigned long addr;
	unsigned int order;
};

static int rt_pages_init(struct kunit_resource *res, void *context)
{
	struct rt_pages *p = context;

	p->addr = __get_free_pages(GFP_KERNEL | __GFP_ZERO, p->order);
	if (!p->addr)
		return -ENOMEM;
	res->data = p;
	return 0;
}

static void rt_pages_free(struct kunit_resource *res)
{
	struct rt_pages *p = res->data;

	free_pages(p->addr, p->order);
	kfree(p);
}

/* FIPC_RING_BYTES(order) zeroed bytes, page aligned, or NULL. */
static void *rt_ring_alloc(struct kunit *test, unsigned int order)
{
	struct rt_pages *p, *got;

	p = kzalloc_obj(*p, GFP_KERNEL);
	if (!p)
		return NULL;
	p->order = order;
	got = kunit_alloc_resource(test, rt_pages_init, rt_pages_free,
				   GFP_KERNEL, p);
	if (!got) {
		kfree(p);
		return NULL;
	}
	return (void *)got->addr;
}

static struct fipc_msg *rt_bufs(struct kunit *test, unsigned int n)
{
	return kunit_kcalloc(test, n, sizeof(struct fipc_msg), GFP_KERNEL);
}

static inline void *rt_zalloc(struct kunit *test, size_t size)
{
	return kunit_kzalloc(test, size, GFP_KERNEL);
}

/**
 * struct rt_thread - a thread a test starts, waits for and joins
 * @task: the kthread
 * @done: completed (for good) when @fn has returned
 * @fn: what the thread runs
 * @arg: its argument
 * @ret: its return value
 */
struct rt_thread {
	struct task_struct *task;
	struct completion done;
	int (*fn)(void *arg);
	void *arg;
	int ret;
};

/* Run the thread's function, then wait for rt_thread_join() to stop it. */
static inline int rt_thread_main(void *data)
{
	struct rt_thread *t = data;

	t->ret = t->fn(t->arg);
	complete_all(&t->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static inline int rt_thread_start(struct rt_thread *t, int (*fn)(void *arg),
				  void *arg, const char *name)
{
	t->fn = fn;
	t->arg = arg;
	t->ret = 0;
	init_completion(&t->done);
	t->task = kthread_create(rt_thread_main, t, "%s", name);
	if (IS_ERR(t->task))
		return PTR_ERR(t->task);
	get_task_struct(t->task);
	wake_up_process(t->task);
	return 0;
}

static inline bool rt_thread_wait(struct rt_thread *t, unsigned int ms)
{
	return wait_for_completion_timeout(&t->done, msecs_to_jiffies(ms));
}

static inline int rt_thread_join(struct rt_thread *t)
{
	wait_for_completion(&t->done);
	kthread_stop(t->task);
	put_task_struct(t->task);
	return t->ret;
}

/**
 * struct rt_wq - where a thread sleeps until another wakes it
 * @head: the kernel's wait queue
 */
struct rt_wq {
	wait_queue_head_t head;
};

static inline void rt_wq_init(struct rt_wq *wq)
{
	init_waitqueue_head(&wq->head);
}

static inline void rt_wake(struct rt_wq *wq)
{
	wake_up(&wq->head);
}

static inline void rt_wait_until(struct rt_wq *wq, bool (*cond)(void *arg),
				 void *arg, unsigned int ms)
{
	wait_event_timeout(wq->head, cond(arg), msecs_to_jiffies(ms));
}

static inline u64 rt_msecs(void)
{
	return ktime_to_ms(ktime_get());
}

static inline void rt_msleep(unsigned int ms)
{
	msleep(ms);
}

static inline void rt_yield(void)
{
	cond_resched();
}

static inline void rt_cond_resched(void)
{
	cond_resched();
}

#else /* userspace */

#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fipc/fipc.h>
#include "harness.h"

#define RT_KERNEL	0

/*
 * The test's context: what to free when it ends, and where a failed
 * assertion goes (out of the test, as in KUnit).
 */
#define RT_MAX_ALLOCS	16
struct kunit {
	void *allocs[RT_MAX_ALLOCS];
	unsigned int nallocs;
	jmp_buf abort;
};

#define RT_EXPECT(cond) \
	rt_expect(test, !!(cond), #cond, __func__, __LINE__)
#define RT_EXPECT_EQ(got, want) \
	rt_expect_eq(test, (long long)(got), (long long)(want), #got, \
		     __func__, __LINE__)
#define RT_ASSERT(cond)		rt_assert(test, RT_EXPECT(cond))
#define RT_ASSERT_EQ(got, want)	rt_assert(test, RT_EXPECT_EQ(got, want))
#define RT_EXPECT_MSG(cond, fmt, ...) \
	rt_explain(test, RT_EXPECT(cond), fmt, ##__VA_ARGS__)
#define RT_EXPECT_EQ_MSG(got, want, fmt, ...) \
	rt_explain(test, RT_EXPECT_EQ(got, want), fmt, ##__VA_ARGS__)
#define RT_ASSERT_MSG(cond, fmt, ...) \
	rt_assert(test, RT_EXPECT_MSG(cond, fmt, ##__VA_ARGS__))

static inline bool rt_expect(struct kunit *test, bool ok, const char *what,
			     const char *fn, int line)
{
	return test && t_expect(ok, what, fn, line);
}

static inline bool rt_expect_eq(struct kunit *test, long long got,
				long long want, const char *expr,
				const char *fn, int line)
{
	return test && t_expect_eq(got, want, expr, fn, line);
}

static inline void rt_assert(struct kunit *test, bool ok)
{
	if (!ok)
		longjmp(test->abort, 1);
}

static inline void rt_note(struct kunit *test, const char *fmt, ...)
{
	va_list ap;

	if (!test)
		return;
	va_start(ap, fmt);
	printf("    ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

/*
 * After a failed expectation, a line saying more (while t_expect() still
 * prints).  The KUnit build checks the format strings.
 */
static inline bool rt_explain(struct kunit *test, bool ok, const char *fmt,
			      ...)
{
	va_list ap;

	if (ok || !test || t_failures > 8)
		return ok;
	va_start(ap, fmt);
	printf("      ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	return ok;
}

static inline void *rt_keep(struct kunit *test, void *p)
{
	if (!p || test->nallocs == RT_MAX_ALLOCS) {
		free(p);
		return NULL;
	}
	test->allocs[test->nallocs++] = p;
	return p;
}

static inline void *rt_ring_alloc(struct kunit *test, unsigned int order)
{
	void *p = aligned_alloc(FIPC_PAGE_BYTES, FIPC_RING_BYTES(order));

	if (p)
		memset(p, 0, FIPC_RING_BYTES(order));
	return rt_keep(test, p);
}

static inline struct fipc_msg *rt_bufs(struct kunit *test, unsigned int n)
{
	return rt_keep(test, calloc(n, sizeof(struct fipc_msg)));
}

static inline void *rt_zalloc(struct kunit *test, size_t size)
{
	return rt_keep(test, calloc(1, size));
}

/* CLOCK_REALTIME @ms from now, for the pthread calls that want it. */
static inline struct timespec rt_deadline(unsigned int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return ts;
}

/**
 * struct rt_thread - a thread a test starts, waits for and joins
 * @id: the pthread
 * @fn: what the thread runs
 * @arg: its argument
 * @ret: its return value
 * @joined: the pthread has been joined
 */
struct rt_thread {
	pthread_t id;
	int (*fn)(void *arg);
	void *arg;
	int ret;
	bool joined;
};

static inline void *rt_thread_main(void *data)
{
	struct rt_thread *t = data;

	t->ret = t->fn(t->arg);
	return NULL;
}

static inline int rt_thread_start(struct rt_thread *t, int (*fn)(void *arg),
				  void *arg, const char *name)
{
	int err;

	t->fn = fn;
	t->arg = arg;
	t->ret = 0;
	t->joined = false;
	err = pthread_create(&t->id, NULL, rt_thread_main, t);
	if (err)
		return -err;
	pthread_setname_np(t->id, name);	/* a debugging aid only */
	return 0;
}

static inline bool rt_thread_wait(struct rt_thread *t, unsigned int ms)
{
	struct timespec ts = rt_deadline(ms);

	if (!t->joined && !pthread_timedjoin_np(t->id, NULL, &ts))
		t->joined = true;
	return t->joined;
}

static inline int rt_thread_join(struct rt_thread *t)
{
	if (!t->joined && !pthread_join(t->id, NULL))
		t->joined = true;
	return t->ret;
}

/**
 * struct rt_wq - where a thread sleeps until another wakes it
 * @lock: held while the sleeper checks its condition and by rt_wake()
 * @cond: signalled by rt_wake()
 *
 * The sleeper checks its condition under @lock and rt_wake() takes @lock
 * after the change, so a wake-up cannot fall between check and sleep.
 */
struct rt_wq {
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static inline void rt_wq_init(struct rt_wq *wq)
{
	pthread_mutex_init(&wq->lock, NULL);
	pthread_cond_init(&wq->cond, NULL);
}

static inline void rt_wake(struct rt_wq *wq)
{
	pthread_mutex_lock(&wq->lock);
	pthread_cond_broadcast(&wq->cond);
	pthread_mutex_unlock(&wq->lock);
}

static inline void rt_wait_until(struct rt_wq *wq, bool (*cond)(void *arg),
				 void *arg, unsigned int ms)
{
	struct timespec ts = rt_deadline(ms);

	pthread_mutex_lock(&wq->lock);
	while (!cond(arg))
		if (pthread_cond_timedwait(&wq->cond, &wq->lock, &ts))
			break;
	pthread_mutex_unlock(&wq->lock);
}

static inline u64 rt_msecs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline void rt_msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static inline void rt_yield(void)
{
	sched_yield();
}

static inline void rt_cond_resched(void)
{
}

/**
 * struct rt_case - one named test
 * @name: printed on the result line, NULL at the end of a suite
 * @fn: the test body
 */
struct rt_case {
	const char *name;
	void (*fn)(struct kunit *test);
};

/**
 * struct rt_suite - the suite of a test program
 * @name: printed on every result line
 * @cases: the tests, ending with RT_END
 */
struct rt_suite {
	const char *name;
	const struct rt_case *cases;
};

#define RT_CASE(fn)	{ #fn, fn }
#define RT_END		{ NULL, NULL }
/* A build variant's suffix to the suite's name (-word0, tests/user). */
#ifndef RT_SUITE_SUFFIX
#define RT_SUITE_SUFFIX ""
#endif
#define RT_SUITE(suite, cases) \
	static const struct rt_suite rt_suite = { \
		"user-" #suite RT_SUITE_SUFFIX, cases }

/* The one suite of the program, defined by RT_SUITE() at its end. */
static const struct rt_suite rt_suite;

static void rt_run_case(const struct rt_case *c, struct kunit *ctx)
{
	unsigned int j;

	memset(ctx, 0, sizeof(*ctx));
	if (!setjmp(ctx->abort))
		c->fn(ctx);
	for (j = 0; j < ctx->nallocs; j++)
		free(ctx->allocs[j]);
}

/* Every case of the suite; "N passed, N failed" at the end. */
int main(void)
{
	const struct rt_case *c;
	unsigned int passed = 0, failed = 0;
	struct kunit ctx;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (c = rt_suite.cases; c && c->name; c++) {
		t_failures = 0;
		rt_run_case(c, &ctx);
		if (t_failures) {
			failed++;
			printf("FAIL %s: %s (%u failed expectations)\n",
			       rt_suite.name, c->name, t_failures);
		} else {
			passed++;
			printf("ok   %s: %s\n", rt_suite.name, c->name);
		}
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed || !passed ? 1 : 0;
}

#endif /* __KERNEL__ */

/*
 * A test payload, in both builds: byte i of slot n of the message tagged
 * tag, the first four bytes of a message being its tag (a caller's id,
 * as it were).  rt_fill() writes it into a message's len slots,
 * rt_slot_match() checks slot n's bytes and rt_match() a whole message.
 */
static inline u8 rt_byte(u32 tag, unsigned int n, unsigned int i)
{
	u32 x = tag * 2654435761u + n * 40503u + i * 97u;

	if (!n && i < sizeof(tag))
		return (u8)(tag >> (8 * i));
	return (u8)(x ^ (x >> 11) ^ (x >> 23));
}

static inline void rt_fill(struct fipc_msg *m, unsigned int len, u32 tag)
{
	unsigned int n, i;

	for (n = 0; n < len; n++)
		for (i = 0; i < FIPC_SLOT_PAYLOAD; i++)
			m[n].data[i] = rt_byte(tag, n, i);
}

static inline bool rt_slot_match(const u8 *data, u32 tag, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < FIPC_SLOT_PAYLOAD; i++)
		if (data[i] != rt_byte(tag, n, i))
			return false;
	return true;
}

static inline bool rt_match(const struct fipc_msg *m, unsigned int len,
			    u32 tag)
{
	unsigned int n;

	for (n = 0; n < len; n++)
		if (!rt_slot_match(m[n].data, tag, n))
			return false;
	return true;
}

#endif /* _FIPC_RING_TEST_H */
