// SPDX-License-Identifier: GPL-2.0
/*
 * Xen's classic shared ring, driven by the macros of Xen's public
 * io/ring.h: one shared ring of request/response entries with shared
 * producer counters (req_prod, rsp_prod) in its header.  Two 4 KiB pages
 * give 64 entries of 64 bytes, as many slots as a fipc ring.  Both ends
 * poll the producer counters; no event channel.
 *
 * As blkfront does, the front pushes once per batch of requests; as
 * blkback does, the back pushes each response as it makes it.  Both copy
 * entries out once (RING_COPY_*) and read the peer's counter once per
 * batch, then walk the entries up to it.
 */
#include <stdint.h>
#include "bench.h"

#define __XEN_INTERFACE_VERSION__	0x00040e00
/* x86 is TSO: read and write barriers only constrain the compiler. */
#define xen_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define xen_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define xen_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)
#include <xen/io/ring.h>

#define XR_RING_BYTES	(2 * 4096)

/**
 * struct xr_req - a request entry
 * @id: request id, echoed in the response
 * @msg: the payload
 */
struct xr_req {
	u64 id;
	struct bench_msg msg;
};

/**
 * struct xr_rsp - a response entry
 * @id: id of the request answered
 * @msg: the payload; only its sequence number in a bare completion
 */
struct xr_rsp {
	u64 id;
	struct bench_msg msg;
};

DEFINE_RING_TYPES(xr, struct xr_req, struct xr_rsp);

/**
 * struct xr_end - one end's private state, on its own cache lines
 * @front: the front ring (client)
 * @back: the back ring (server)
 * @pushed: front: requests already pushed
 * @peer_prod: the peer's producer counter as last read
 */
struct xr_end {
	struct xr_front_ring front;
	struct xr_back_ring back;
	RING_IDX pushed;
	RING_IDX peer_prod;
};

static struct xr_sring *xr_shared;
static struct xr_end *xr_cli, *xr_srv;

static inline bool cli_post(const struct bench_buf *b)
{
	struct xr_front_ring *r = &xr_cli->front;
	struct xr_req *req;

	if (RING_FULL(r))
		return false;
	req = RING_GET_REQUEST(r, r->req_prod_pvt);
	req->id = r->req_prod_pvt;
	req->msg = b->msg;
	r->req_prod_pvt++;
	return true;
}

static inline void cli_flush(void)
{
	struct xr_front_ring *r = &xr_cli->front;

	if (xr_cli->pushed == r->req_prod_pvt)
		return;
	RING_PUSH_REQUESTS(r);
	xr_cli->pushed = r->req_prod_pvt;
}

/* Is a response waiting?  Reads the shared counter only when needed. */
static inline bool cli_rsp_ready(struct xr_front_ring *r)
{
	if (r->rsp_cons != xr_cli->peer_prod)
		return true;
	xr_cli->peer_prod = READ_ONCE(r->sring->rsp_prod);
	xen_rmb(); /* entries are read after the counter */
	return r->rsp_cons != xr_cli->peer_prod;
}

static inline bool cli_recv(struct bench_buf *b)
{
	struct xr_front_ring *r = &xr_cli->front;
	struct xr_rsp rsp;

	if (!cli_rsp_ready(r))
		return false;
	RING_COPY_RESPONSE(r, r->rsp_cons, &rsp);
	r->rsp_cons++;
	b->msg = rsp.msg;
	return true;
}

static inline void cli_reclaim(void)
{
	struct xr_front_ring *r = &xr_cli->front;

	while (cli_rsp_ready(r)) {
		/* A front end looks up the request each response ends. */
		(void)READ_ONCE(RING_GET_RESPONSE(r, r->rsp_cons)->id);
		r->rsp_cons++;
	}
}

static inline bool srv_recv(struct bench_buf *b)
{
	struct xr_back_ring *r = &xr_srv->back;
	struct xr_req req;

	if (r->req_cons == xr_srv->peer_prod) {
		xr_srv->peer_prod = READ_ONCE(r->sring->req_prod);
		xen_rmb(); /* entries are read after the counter */
		if (r->req_cons == xr_srv->peer_prod)
			return false;
	}
	RING_COPY_REQUEST(r, r->req_cons, &req);
	r->req_cons++;
	b->msg = req.msg;
	return true;
}

static inline bool srv_reply(const struct bench_buf *b)
{
	struct xr_back_ring *r = &xr_srv->back;
	struct xr_rsp *rsp = RING_GET_RESPONSE(r, r->rsp_prod_pvt);

	rsp->id = r->rsp_prod_pvt;
	rsp->msg = b->msg;
	r->rsp_prod_pvt++;
	RING_PUSH_RESPONSES(r);
	return true;
}

static inline bool srv_complete(const struct bench_buf *b)
{
	struct xr_back_ring *r = &xr_srv->back;
	struct xr_rsp *rsp = RING_GET_RESPONSE(r, r->rsp_prod_pvt);

	rsp->id = r->rsp_prod_pvt;
	rsp->msg.seq = b->msg.seq;
	r->rsp_prod_pvt++;
	RING_PUSH_RESPONSES(r);
	return true;
}

#include "loops.h"

static int xr_setup(void)
{
	xr_shared = bench_alloc(XR_RING_BYTES);
	xr_cli = bench_alloc(sizeof(*xr_cli));
	xr_srv = bench_alloc(sizeof(*xr_srv));
	if (!xr_shared || !xr_cli || !xr_srv)
		return -ENOMEM;
	XEN_FRONT_RING_INIT(&xr_cli->front, xr_shared, XR_RING_BYTES);
	BACK_RING_INIT(&xr_srv->back, xr_shared, XR_RING_BYTES);
	if (RING_SIZE(&xr_cli->front) != BENCH_RING_SLOTS)
		return -EINVAL;
	return 0;
}

static void xr_teardown(void)
{
	bench_free(xr_shared, XR_RING_BYTES);
	bench_free(xr_cli, sizeof(*xr_cli));
	bench_free(xr_srv, sizeof(*xr_srv));
}

/*
 * Lines per exchange: the entry (the response overwrites its request)
 * and the header line with req_prod and rsp_prod.
 */
DEFINE_BENCH_RING(bench_ring_xen, "xen_ring", xr_setup, xr_teardown, 2);
