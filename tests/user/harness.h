/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The expectations of the userspace build of the ring tests
 * (lib/fipc/tests/ring_test.h, which supplies the runner): t_expect()
 * and t_expect_eq() record a failure of the running test, with its line
 * and values, print the first few, and return whether the expectation
 * held.
 */
#ifndef _FIPC_TESTS_HARNESS_H
#define _FIPC_TESTS_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <fipc/compat.h>

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

#endif /* _FIPC_TESTS_HARNESS_H */
