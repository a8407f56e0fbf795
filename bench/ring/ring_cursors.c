// SPDX-License-Identifier: GPL-2.0
/*
 * "cursors": the other layout issue 15 allows, measured against the
 * duplex ring and not shipped in the library.  Two rings of 64 slots,
 * one each way, but nobody writes a free flag: every reply carries
 * the server's read cursor on the request ring (as an NVMe completion
 * carries the submission queue head), and every request the client's
 * done cursor on the reply ring.  A side learns how far it may fill its
 * sending ring only from the cursors the peer sends back, and checks
 * each (never backwards, never past what it sent).  Flags carry a kind
 * and the 16-bit position stamp; payloads are copied once with
 * fipc_slot_copy().
 *
 * Only the request/reply phases run on it (no one-way stream): a side
 * that has consumed the peer's slots reports that only in its next
 * message, so with nothing to send a client whose request ring is full
 * and a server whose reply ring looks full wait for each other.  Being
 * deadlock-free would take cursor-only messages in both directions and
 * a slot reserved for them in each ring (docs/design.md).  In echo use
 * every request carries the client's done cursor and a batch never
 * exceeds the ring, so it cannot happen there.
 */
#include <fipc/fipc.h>
#include "bench.h"

#define CUR_REQ		0xd1000000u
#define CUR_RSP		0xd4000000u

/**
 * struct cur_slot - a slot of either ring
 * @payload: the message
 * @cursor: the sender's cursor on the other ring
 * @flag: kind and position stamp, written last
 */
struct cur_slot {
	u8 payload[sizeof(struct bench_msg)];
	u32 cursor;
	u32 flag;
};

static_assert(sizeof(struct cur_slot) == BENCH_CACHE_LINE, "one line");

/**
 * struct cur_end - one side's private state
 * @tx: next position to write on the ring this side sends on
 * @rx: next position to read on the ring this side receives from
 * @peer_rx: the peer's read cursor on @tx's ring, as last reported
 * @error: set once the peer broke the protocol
 */
struct cur_end {
	u32 tx;
	u32 rx;
	u32 peer_rx;
	bool error;
};

static struct cur_slot *cur_req, *cur_rsp;
static struct cur_end *cur_cli, *cur_srv;

static inline u32 cur_flag(u32 kind, u32 pos)
{
	return kind | (pos & 0xffff);
}

/* Write one slot: payload, the cursor, then the flag with release. */
static inline void cur_put(struct cur_slot *slot, const struct bench_buf *b,
			   u32 cursor, u32 flag)
{
	memcpy(slot->payload, &b->msg, sizeof(b->msg));
	slot->cursor = cursor;
	__atomic_store_n(&slot->flag, flag, __ATOMIC_RELEASE);
}

/*
 * Take the slot at @e's read cursor if it holds @kind, copying it once
 * into @b (the cursor lands in b->spare) and checking the cursor: the
 * peer's read position on our sending ring may only move forward, up to
 * what we wrote.
 */
static inline bool cur_take(struct cur_end *e, struct cur_slot *ring,
			    u32 kind, struct bench_buf *b)
{
	struct cur_slot *slot = &ring[e->rx & (BENCH_RING_SLOTS - 1)];
	u32 flag = __atomic_load_n(&slot->flag, __ATOMIC_ACQUIRE), cursor;

	if (flag != cur_flag(kind, e->rx) || e->error)
		return false;
	fipc_slot_copy((const struct fipc_slot *)slot, (struct fipc_msg *)b);
	memcpy(&cursor, b->spare, sizeof(cursor));
	if (cursor - e->peer_rx > e->tx - e->peer_rx) {
		e->error = true;
		return false;
	}
	e->peer_rx = cursor;
	e->rx++;
	return true;
}

static inline bool cli_post(const struct bench_buf *b)
{
	u32 pos = cur_cli->tx;

	if (pos - cur_cli->peer_rx >= BENCH_RING_SLOTS || cur_cli->error)
		return false;
	cur_put(&cur_req[pos & (BENCH_RING_SLOTS - 1)], b, cur_cli->rx,
		cur_flag(CUR_REQ, pos));
	cur_cli->tx = pos + 1;
	return true;
}

static inline void cli_flush(void)
{
}

static inline bool cli_recv(struct bench_buf *b)
{
	return cur_take(cur_cli, cur_rsp, CUR_RSP, b);
}

static inline void cli_reclaim(void)
{
}

static inline bool srv_recv(struct bench_buf *b)
{
	return cur_take(cur_srv, cur_req, CUR_REQ, b);
}

/* The reply carries our read cursor. */
static inline bool srv_reply(const struct bench_buf *b)
{
	u32 pos = cur_srv->tx;

	if (pos - cur_srv->peer_rx >= BENCH_RING_SLOTS)
		return false;
	cur_put(&cur_rsp[pos & (BENCH_RING_SLOTS - 1)], b, cur_srv->rx,
		cur_flag(CUR_RSP, pos));
	cur_srv->tx = pos + 1;
	return true;
}

static inline bool srv_complete(const struct bench_buf *b)
{
	return srv_reply(b);
}

#define RING_NO_STREAM
#include "loops.h"

static int cur_setup(void)
{
	cur_req = bench_alloc(BENCH_RING_SLOTS * sizeof(*cur_req));
	cur_rsp = bench_alloc(BENCH_RING_SLOTS * sizeof(*cur_rsp));
	cur_cli = bench_alloc(sizeof(*cur_cli));
	cur_srv = bench_alloc(sizeof(*cur_srv));
	if (!cur_req || !cur_rsp || !cur_cli || !cur_srv)
		return -ENOMEM;
	return 0;
}

static void cur_teardown(void)
{
	bench_free(cur_req, BENCH_RING_SLOTS * sizeof(*cur_req));
	bench_free(cur_rsp, BENCH_RING_SLOTS * sizeof(*cur_rsp));
	bench_free(cur_cli, sizeof(*cur_cli));
	bench_free(cur_srv, sizeof(*cur_srv));
}

/* Lines per exchange: a request slot and a reply slot, no free flag. */
DEFINE_BENCH_RING(bench_ring_cursors, "cursors", cur_setup, cur_teardown, 2);
