/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One source of ring tests for two builds: KUnit (tests/kunit/run.sh
 * copies the tests into lib/fipc/ of a kernel tree, with this header) and
 * the userspace harness (tests/user/harness.h, built by tests/user/
 * rules.mk).  A test is
 *
 *	static void name(struct kunit *test)
 *
 * and uses only the macros below:
 *
 *	RT_EXPECT(cond), RT_EXPECT_EQ(got, want)  record a failure, go on
 *	RT_ASSERT(cond), RT_ASSERT_EQ(got, want)  fail and end the test
 *		(KUnit aborts it; userspace longjmp()s out of it)
 *	rt_ring_alloc(test, order)  zeroed, page-aligned ring memory,
 *		freed when the test ends
 *	rt_bufs(test, n)  n private message buffers, freed likewise
 *	rt_note(test, fmt, ...)  a line in the test's output
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
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <fipc/fipc.h>

#define RT_EXPECT(cond)	KUNIT_EXPECT_TRUE(test, cond)
#define RT_EXPECT_EQ(got, want) \
	KUNIT_EXPECT_EQ(test, (long long)(got), (long long)(want))
#define RT_ASSERT(cond)	KUNIT_ASSERT_TRUE(test, cond)
#define RT_ASSERT_EQ(got, want) \
	KUNIT_ASSERT_EQ(test, (long long)(got), (long long)(want))
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

	p = kzalloc(sizeof(*p), GFP_KERNEL);
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

#else /* userspace */

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fipc/fipc.h>
#include "../user/harness.h"

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
#define RT_SUITE(suite, cases) \
	static const struct rt_suite rt_suite = { "user-" #suite, cases }

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

#endif /* _FIPC_RING_TEST_H */
