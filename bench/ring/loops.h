/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The measured loops, included once by each ring file after it has
 * defined these inline operations on its own static state:
 *
 *   bool cli_post(const struct bench_buf *b)  write a request, or false
 *                                             if the ring is full
 *   void cli_flush(void)                      publish posted requests
 *   bool cli_recv(struct bench_buf *b)        take a response (or, in
 *                                             sink mode, a completion)
 *   void cli_reclaim(void)                    drop completions (sink mode)
 *   bool srv_recv(struct bench_buf *b)        take a request
 *   bool srv_reply(const struct bench_buf *b) publish a response
 *   bool srv_complete(const struct bench_buf *b)  complete a request
 *                                             without a response payload
 *
 * Rings that need no completions (ptr_ring) make cli_reclaim() and
 * srv_complete() no-ops.  All waiting spins with PAUSE.
 *
 * A ring with a kind of message that expects no reply defines
 * RING_HAS_ONEWAY and
 *
 *   bool cli_oneway(const struct bench_buf *b)  write such a message, or
 *                                               false if the ring is full
 *
 * which the one-way stream uses instead of cli_post().  A ring that has
 * no one-way stream defines RING_NO_STREAM (and leaves .stream NULL).
 *
 * A ring with burst operations defines RING_HAS_BURST and
 *
 *   unsigned int cli_recv_n(struct bench_buf *const *b, unsigned int max)
 *                            take up to max responses, or none (0)
 *   unsigned int srv_recv_n(struct bench_buf *const *b, unsigned int max)
 *                            take up to max requests, or none (0)
 *   bool srv_reply_n(struct bench_buf *const *b, unsigned int n)
 *                            publish n responses
 *
 * which the burst loop's responses and the echo server then use.
 */
#ifndef _BENCH_RING_LOOPS_H
#define _BENCH_RING_LOOPS_H

#include "bench.h"

#if !defined(RING_HAS_ONEWAY) && !defined(RING_NO_STREAM)
static inline bool cli_oneway(const struct bench_buf *b)
{
	return cli_post(b);
}
#endif

static inline void cli_post_wait(const struct bench_buf *b)
{
	while (!cli_post(b)) {
		cli_flush();
		bench_relax();
	}
}

static inline void cli_recv_wait(struct bench_buf *b)
{
	while (!cli_recv(b))
		bench_relax();
}

static u64 ring_rtt(u64 first, unsigned int n, unsigned int run,
		    u64 *cycles)
{
	BENCH_PAGE_ALIGNED struct bench_buf req[BENCH_MAX_BURST];
	BENCH_PAGE_ALIGNED struct bench_buf rsp[BENCH_MAX_BURST];
	unsigned int i, j;
	u64 bad = 0, t0, t1, seq = first;

	if (!run || run > BENCH_MAX_BURST)
		return n;
	for (i = 0; i < n; i++, seq += run) {
		for (j = 0; j < run; j++)
			bench_msg_fill(&req[j].msg, seq + j);
		t0 = bench_tsc_start();
		for (j = 0; j < run; j++) {
			cli_post_wait(&req[j]);
			cli_flush();
			cli_recv_wait(&rsp[j]);
		}
		t1 = bench_tsc_stop();
		if (cycles)
			cycles[i] = bench_cycles_each(t0, t1, run);
		for (j = 0; j < run; j++)
			if (!bench_msg_ok(&rsp[j].msg, seq + j))
				bad++;
	}
	return bad;
}

/* Take @n responses into the buffers @b points to, waiting for each. */
static inline void cli_recv_wait_n(struct bench_buf *const *b, unsigned int n)
{
#ifdef RING_HAS_BURST
	unsigned int got;

	while (n) {
		got = cli_recv_n(b, n);
		if (!got)
			bench_relax();
		b += got;
		n -= got;
	}
#else
	while (n--)
		cli_recv_wait(*b++);
#endif
}

static u64 ring_burst(u64 first, unsigned int size, unsigned int n,
		      unsigned int run, u64 *cycles)
{
	BENCH_PAGE_ALIGNED struct bench_buf req[BENCH_MAX_BURST];
	BENCH_PAGE_ALIGNED struct bench_buf rsp[BENCH_MAX_BURST];
	struct bench_buf *rspp[BENCH_MAX_BURST];
	unsigned int i, j, b, msgs = size * run;
	u64 bad = 0, t0, t1, seq = first;

	if (!size || !run || size > BENCH_MAX_BURST ||
	    run > BENCH_MAX_BURST / size)
		return n;
	for (j = 0; j < msgs; j++)
		rspp[j] = &rsp[j];
	for (i = 0; i < n; i++, seq += msgs) {
		for (j = 0; j < msgs; j++)
			bench_msg_fill(&req[j].msg, seq + j);
		t0 = bench_tsc_start();
		for (b = 0; b < msgs; b += size) {
			for (j = b; j < b + size; j++)
				cli_post_wait(&req[j]);
			cli_flush();
			cli_recv_wait_n(rspp + b, size);
		}
		t1 = bench_tsc_stop();
		if (cycles)
			cycles[i] = bench_cycles_each(t0, t1, run);
		for (j = 0; j < msgs; j++)
			if (!bench_msg_ok(&rsp[j].msg, seq + j))
				bad++;
	}
	return bad;
}

/* Send STOP and wait for its reply, dropping completions before it. */
static void ring_stop(void)
{
	BENCH_PAGE_ALIGNED struct bench_buf b;

	bench_msg_fill(&b.msg, BENCH_STOP_SEQ);
	while (!cli_post(&b)) {
		cli_flush();
		cli_reclaim();
		bench_relax();
	}
	cli_flush();
	do {
		cli_recv_wait(&b);
	} while (b.msg.seq != BENCH_STOP_SEQ);
}

#ifndef RING_NO_STREAM
static u64 ring_stream(u64 first, u64 n, bool check, u64 *chunks)
{
	BENCH_PAGE_ALIGNED struct bench_buf b;
	u64 i, t0, t1, tc;

	bench_msg_fill(&b.msg, first);
	t0 = bench_tsc_start();
	tc = t0;
	for (i = 0; i < n; i++) {
		if (check)
			bench_msg_fill(&b.msg, first + i);
		else
			b.msg.seq = first + i;
		while (!cli_oneway(&b)) {
			cli_flush();
			cli_reclaim();
			bench_relax();
		}
		cli_flush();
		if (chunks && (i + 1) % BENCH_CHUNK == 0) {
			t1 = bench_tsc_stop();
			chunks[i / BENCH_CHUNK] = t1 - tc;
			tc = t1;
		}
	}
	ring_stop();
	t1 = bench_tsc_stop();
	return t1 - t0;
}
#endif

/*
 * The server's look at a request: its order always (the first one seen
 * sets where it starts), its content only if asked.  1 if it is bad.
 */
static inline u64 srv_bad(const struct bench_msg *m, bool check, u64 *expect)
{
	u64 bad = *expect != ~0ull && m->seq != *expect;

	if (!bad && check && !bench_msg_ok(m, m->seq))
		bad = 1;
	*expect = m->seq + 1;
	return bad;
}

/* Complete request @b, or (echo) answer it. */
static inline void srv_answer(const struct bench_buf *b,
			      enum bench_srv_mode mode)
{
	if (mode == BENCH_SRV_ECHO)
		while (!srv_reply(b))
			bench_relax();
	else
		while (!srv_complete(b))
			bench_relax();
}

/* The server loop, one request at a time. */
static u64 ring_serve_one(enum bench_srv_mode mode, bool check)
{
	BENCH_PAGE_ALIGNED struct bench_buf b;
	u64 bad = 0, expect = ~0ull;

	for (;;) {
		while (!srv_recv(&b))
			bench_relax();
		if (b.msg.seq == BENCH_STOP_SEQ)
			break;
		bad += srv_bad(&b.msg, check, &expect);
		srv_answer(&b, mode);
	}
	srv_answer(&b, BENCH_SRV_ECHO);
	return bad;
}

#ifndef RING_HAS_BURST
static u64 ring_server(enum bench_srv_mode mode, bool check)
{
	return ring_serve_one(mode, check);
}
#else
/*
 * Echo: the same, taking what requests are there and answering them
 * together.  The one-way stream's sink stays one at a time.
 */
static u64 ring_server(enum bench_srv_mode mode, bool check)
{
	BENCH_PAGE_ALIGNED struct bench_buf b[BENCH_MAX_BURST];
	struct bench_buf *bp[BENCH_MAX_BURST];
	u64 bad = 0, expect = ~0ull;
	unsigned int i, n;

	if (mode != BENCH_SRV_ECHO)
		return ring_serve_one(mode, check);
	for (i = 0; i < BENCH_MAX_BURST; i++)
		bp[i] = &b[i];
	for (;;) {
		while (!(n = srv_recv_n(bp, BENCH_MAX_BURST)))
			bench_relax();
		/* STOP is the last request: its client waits for its reply. */
		for (i = 0; i < n && b[i].msg.seq != BENCH_STOP_SEQ; i++)
			bad += srv_bad(&b[i].msg, check, &expect);
		while (!srv_reply_n(bp, i))
			bench_relax();
		if (i < n)
			break;
	}
	srv_answer(&b[i], BENCH_SRV_ECHO);
	return bad;
}
#endif

#ifdef RING_NO_STREAM
#define BENCH_RING_STREAM_OP	.no_stream = true
#else
#define BENCH_RING_STREAM_OP	.stream = ring_stream
#endif

/*
 * The one table every ring built on these loops exports: its name, its
 * setup and teardown, and how many distinct cache lines one request and
 * its response move between the two cores, by design (see each file).
 */
#define DEFINE_BENCH_RING(sym, ring_name, setup_fn, teardown_fn, lines) \
const struct bench_ring sym = {					\
	.name = ring_name,						\
	.setup = setup_fn,						\
	.teardown = teardown_fn,					\
	.rtt = ring_rtt,						\
	.burst = ring_burst,						\
	.stop = ring_stop,						\
	.server = ring_server,						\
	.has_burst = true,						\
	.lines_per_exchange = lines,					\
	BENCH_RING_STREAM_OP,						\
}

#endif /* _BENCH_RING_LOOPS_H */
