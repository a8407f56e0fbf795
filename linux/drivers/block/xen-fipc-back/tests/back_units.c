// SPDX-License-Identifier: GPL-2.0
/*
 * The backend's code under test, compiled once into the KUnit module
 * (whichever suites are on) without Xen and without the rest of the
 * driver: request validation and the I/O limits, which parse with
 * back_validate.c's xfb_parse_dec().  Included rather than linked, so
 * that the driver's own objects are never built twice with different
 * flags.
 */
#include "../back_validate.c"
#include "../back_limit.c"
