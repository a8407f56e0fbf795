// SPDX-License-Identifier: GPL-2.0
/*
 * fipc duplex ring (lib/fipc, fipc_duplex.h): one order-0 ring (64
 * slots) carrying requests and replies, through the library's inline
 * one-slot paths.  The client writes a request at its submit cursor; the
 * server writes the reply over the request it has read; nobody writes a
 * free flag.  One-way messages are posted requests (no reply), each of
 * which the server hands back at once with an acknowledgment flag.
 */
#include <fipc/fipc_duplex.h>
#include "bench.h"

static void *dx_mem;
static struct fipc_duplex_client *dx_cli;
static struct fipc_duplex_server *dx_srv;

static_assert(sizeof(struct bench_buf) >= sizeof(struct fipc_msg),
	      "a bench_buf holds a fipc payload");

static inline bool cli_post(const struct bench_buf *b)
{
	return fipc_duplex_call(dx_cli, (const struct fipc_msg *)b, 1) == 0;
}

#define RING_HAS_ONEWAY
static inline bool cli_oneway(const struct bench_buf *b)
{
	return fipc_duplex_post(dx_cli, (const struct fipc_msg *)b, 1) == 0;
}

static inline void cli_flush(void)
{
}

static inline bool cli_recv(struct bench_buf *b)
{
	return fipc_duplex_take_reply(dx_cli, (struct fipc_msg *)b) == 0;
}

static inline void cli_reclaim(void)
{
}

static inline bool srv_recv(struct bench_buf *b)
{
	return fipc_duplex_take_request(dx_srv, (struct fipc_msg *)b, 1,
					NULL) == 1;
}

static inline bool srv_reply(const struct bench_buf *b)
{
	return fipc_duplex_reply(dx_srv, (const struct fipc_msg *)b) == 0;
}

static inline bool srv_complete(const struct bench_buf *b)
{
	return true;
}

#define RING_HAS_BURST
static inline unsigned int cli_recv_n(struct bench_buf *const *b,
				      unsigned int max)
{
	int n = fipc_duplex_take_replies(dx_cli, (struct fipc_msg *const *)b,
					 max);

	return n > 0 ? n : 0;
}

static inline unsigned int srv_recv_n(struct bench_buf *const *b,
				      unsigned int max)
{
	int n = fipc_duplex_take_requests(dx_srv, (struct fipc_msg *const *)b,
					  max);

	if (n > 0)
		return n;
	/* Not a one-slot call (a posted message): one at a time. */
	return !n && srv_recv(b[0]);
}

static inline bool srv_reply_n(struct bench_buf *const *b, unsigned int n)
{
	return fipc_duplex_reply_n(dx_srv, (const struct fipc_msg *const *)b,
				   n) == 0;
}

#include "loops.h"

static int dx_setup(void)
{
	dx_mem = bench_alloc(FIPC_RING_BYTES(0));
	/* Each side's private view on its own cache lines. */
	dx_cli = bench_alloc(BENCH_CACHE_LINE);
	dx_srv = bench_alloc(BENCH_CACHE_LINE);
	if (!dx_mem || !dx_cli || !dx_srv)
		return -ENOMEM;
	fipc_ring_clear(dx_mem, 0);
	if (fipc_duplex_client_init(dx_cli, dx_mem, 0) ||
	    fipc_duplex_server_init(dx_srv, dx_mem, 0))
		return -EINVAL;
	return 0;
}

static void dx_teardown(void)
{
	bench_free(dx_mem, FIPC_RING_BYTES(0));
	bench_free(dx_cli, BENCH_CACHE_LINE);
	bench_free(dx_srv, BENCH_CACHE_LINE);
}

/* Lines per exchange: one slot, the reply written over its request. */
DEFINE_BENCH_RING(bench_ring_duplex, "duplex", dx_setup, dx_teardown, 1);
