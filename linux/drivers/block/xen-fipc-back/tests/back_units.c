// SPDX-License-Identifier: GPL-2.0
/*
 * The backend's code under test, compiled once into the KUnit module
 * (whichever suites are on) without Xen and without the rest of the
 * driver: request validation and the I/O limits, which parse with
 * back_validate.c's xfb_parse_dec(), and, with its suite, the queue of
 * requests taken (it needs fipc's ring).  Included rather than linked, so
 * that the driver's own objects are never built twice with different
 * flags.
 */
#include "../back_validate.c"
#include "../back_limit.c"
#if IS_ENABLED(CONFIG_XEN_FIPC_BACK_RXQ_KUNIT_TEST)
#include "../back_rxq.c"
#endif
