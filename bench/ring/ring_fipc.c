// SPDX-License-Identifier: GPL-2.0
/*
 * fipc, the library as it is: one order-0 ring (64 slots) each way,
 * fipc_send() and fipc_recv() one message at a time, with the default
 * release batch (1: every slot is freed as soon as it is copied out) or,
 * as "fipc_rb16", with fipc_ring_set_release_batch(16) on both receiving
 * rings (freed 16 at a time, or whenever a ring is found empty).
 */
#include <stdlib.h>
#include <fipc/fipc.h>
#include "bench.h"

static void *fr_req_mem, *fr_rsp_mem;
static struct fipc_chan *fr_cli, *fr_srv;

/* The library copies a whole 60-byte payload; a bench_buf has room. */
static_assert(sizeof(struct bench_buf) >= sizeof(struct fipc_msg),
	      "a bench_buf holds a fipc payload");

static inline bool cli_post(const struct bench_buf *b)
{
	return fipc_send(&fr_cli->tx, (const struct fipc_msg *)b, 1) == 0;
}

static inline void cli_flush(void)
{
}

static inline bool cli_recv(struct bench_buf *b)
{
	return fipc_recv(&fr_cli->rx, (struct fipc_msg *)b, 1) == 1;
}

static inline void cli_reclaim(void)
{
}

static inline bool srv_recv(struct bench_buf *b)
{
	return fipc_recv(&fr_srv->rx, (struct fipc_msg *)b, 1) == 1;
}

static inline bool srv_reply(const struct bench_buf *b)
{
	return fipc_send(&fr_srv->tx, (const struct fipc_msg *)b, 1) == 0;
}

static inline bool srv_complete(const struct bench_buf *b)
{
	return true;
}

#include "loops.h"

static int fr_setup_batch(unsigned int batch)
{
	fr_req_mem = bench_alloc(FIPC_RING_BYTES(0));
	fr_rsp_mem = bench_alloc(FIPC_RING_BYTES(0));
	/* Each side's private view on its own cache lines. */
	fr_cli = bench_alloc(BENCH_CACHE_LINE * 2);
	fr_srv = bench_alloc(BENCH_CACHE_LINE * 2);
	if (!fr_req_mem || !fr_rsp_mem || !fr_cli || !fr_srv)
		return -ENOMEM;
	fipc_ring_clear(fr_req_mem, 0);
	fipc_ring_clear(fr_rsp_mem, 0);
	if (fipc_chan_init(fr_cli, fr_req_mem, fr_rsp_mem, 0) ||
	    fipc_chan_init(fr_srv, fr_rsp_mem, fr_req_mem, 0))
		return -EINVAL;
	if (batch > 1 &&
	    (fipc_ring_set_release_batch(&fr_cli->rx, batch) ||
	     fipc_ring_set_release_batch(&fr_srv->rx, batch)))
		return -EINVAL;
	return 0;
}

static int fr_setup(void)
{
	return fr_setup_batch(1);
}

static int fr_setup_rb16(void)
{
	return fr_setup_batch(16);
}

static void fr_teardown(void)
{
	bench_free(fr_req_mem, FIPC_RING_BYTES(0));
	bench_free(fr_rsp_mem, FIPC_RING_BYTES(0));
	bench_free(fr_cli, BENCH_CACHE_LINE * 2);
	bench_free(fr_srv, BENCH_CACHE_LINE * 2);
}

/*
 * Lines per exchange: the request slot on the request ring and the
 * reply slot on the reply ring, each freed in place by its reader.
 */
DEFINE_BENCH_RING(bench_ring_fipc, "fipc", fr_setup, fr_teardown, 2);

DEFINE_BENCH_RING(bench_ring_fipc_rb16, "fipc_rb16", fr_setup_rb16, fr_teardown, 2);
