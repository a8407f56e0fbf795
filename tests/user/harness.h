/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal test harness for the userspace fipc tests.
 *
 * A test is a function; EXPECT() and EXPECT_EQ() record a failure of the
 * running test (with its line and values) and let it go on, or return
 * false so that the test can stop where going on makes no sense.  The
 * runner prints one line per test and a closing "N passed, N failed".
 */
#ifndef _FIPC_TESTS_HARNESS_H
#define _FIPC_TESTS_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <fipc/compat.h>

/**
 * struct t_case - one named test
 * @name: printed on the result line
 * @fn: the test body
 */
struct t_case {
	const char *name;
	void (*fn)(void);
};

static unsigned int t_failures;	/* failed expectations in this test */

static inline bool t_expect(bool ok, const char *what, const char *fn,
			    int line)
{
	if (!ok) {
		t_failures++;
		if (t_failures <= 8)
			printf("    %s:%d: expected %s\n", fn, line, what);
	}
	return ok;
}

static inline bool t_expect_eq(long long got, long long want,
			       const char *expr, const char *fn, int line)
{
	if (got != want) {
		t_failures++;
		if (t_failures <= 8)
			printf("    %s:%d: %s == %lld, expected %lld\n",
			       fn, line, expr, got, want);
	}
	return got == want;
}

#define EXPECT(cond)	t_expect(!!(cond), #cond, __func__, __LINE__)
#define EXPECT_EQ(got, want) \
	t_expect_eq((long long)(got), (long long)(want), #got, __func__, \
		    __LINE__)

/* Run @n cases; returns the process exit status. */
static inline int t_run(const char *suite, const struct t_case *cases,
			unsigned int n)
{
	unsigned int i, passed = 0, failed = 0;

	for (i = 0; i < n; i++) {
		t_failures = 0;
		cases[i].fn();
		if (t_failures) {
			failed++;
			printf("FAIL %s: %s (%u failed expectations)\n",
			       suite, cases[i].name, t_failures);
		} else {
			passed++;
			printf("ok   %s: %s\n", suite, cases[i].name);
		}
		fflush(stdout);
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}

#endif /* _FIPC_TESTS_HARNESS_H */
