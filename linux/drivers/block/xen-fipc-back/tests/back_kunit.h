/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the backend's KUnit suites (this directory's *_kunit.c) share:
 * the declaration of a file's suite, ending the file.
 */
#ifndef _XFB_BACK_KUNIT_H
#define _XFB_BACK_KUNIT_H

#include <kunit/test.h>
#include <linux/module.h>

/*
 * The suite named @suite (tests/kunit/run.sh reads the name here) of the
 * case array @cases, with the module's licence and description @desc.
 */
#define XFB_KUNIT_SUITE(suite, cases, desc)				\
	static struct kunit_suite suite##_suite = {			\
		.name = #suite,						\
		.test_cases = cases,					\
	};								\
	kunit_test_suite(suite##_suite);				\
	MODULE_LICENSE("GPL");					\
	MODULE_DESCRIPTION(desc)

#endif /* _XFB_BACK_KUNIT_H */
