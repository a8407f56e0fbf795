/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ring micro-benchmark: what every ring implementation shares.
 *
 * Two threads pinned on two CPUs: the client (front end) sends requests
 * and takes responses, the server (back end) echoes every request.  Each
 * ring file implements six small inline operations (see loops.h) and
 * includes loops.h, which builds the measured loops around them, so that
 * every ring runs the same loop code with its operations inlined.
 */
#ifndef _BENCH_RING_BENCH_H
#define _BENCH_RING_BENCH_H

#include <stdalign.h>
#include <fipc/compat.h>

/* The message every ring carries: 56 bytes, one per cache line. */
#define BENCH_DATA_BYTES	48u
#define BENCH_CACHE_LINE	64u
#define BENCH_RING_SLOTS	64u	/* slots per ring, one fipc page */
#define BENCH_MAX_BURST		64u
#define BENCH_STOP_SEQ		(~0ull)
#define BENCH_CHUNK		4096u	/* streamed messages per timed chunk */

/**
 * struct bench_msg - the payload carried by every ring
 * @seq: message sequence number, BENCH_STOP_SEQ ends a server loop
 * @data: a pattern derived from @seq, checked by the self-test
 */
struct bench_msg {
	u64 seq;
	u8 data[BENCH_DATA_BYTES];
};

/**
 * struct bench_buf - a private message buffer, one cache line
 * @msg: the message
 * @spare: room for rings whose fixed payload is longer than a message
 *	(fipc copies its whole 60-byte payload)
 *
 * Aligned to a line, so that no ring's copy into or out of it is split
 * across two lines (on the stack, where the loops keep these buffers, a
 * 16-byte alignment alone would let that depend on each function's
 * frame, and so differ from ring to ring).
 */
struct bench_buf {
	alignas(BENCH_CACHE_LINE) struct bench_msg msg;
	u8 spare[BENCH_CACHE_LINE - sizeof(struct bench_msg)];
};

/*
 * For the loops' private buffers (loops.h): page-aligned, as every ring
 * is (bench_alloc()).  A load that follows a store to an address a
 * multiple of 4 KiB away can be held as if it depended on that store
 * (4K aliasing); on the stack, where these buffers live, their page
 * offset would depend on each ring's own stack frame, and with it which
 * copies meet such a pair.  Page-aligned, every ring meets the same.
 */
#define BENCH_PAGE_ALIGNED	alignas(4096)

static_assert(sizeof(struct bench_msg) == 56, "56-byte messages");
static_assert(sizeof(struct bench_buf) == BENCH_CACHE_LINE, "one line");
static_assert(alignof(struct bench_buf) == BENCH_CACHE_LINE, "line-aligned");

/* The spin-loop hint, and a compiler barrier so that polls re-read. */
static inline void bench_relax(void)
{
	cpu_relax();
	__asm__ __volatile__("" ::: "memory");
}

/* Timestamps: RDTSC after LFENCE to start, RDTSCP then LFENCE to stop. */
static inline u64 bench_tsc_start(void)
{
	u32 lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc" : "=a" (lo), "=d" (hi)
			     :: "memory");
	return ((u64)hi << 32) | lo;
}

static inline u64 bench_tsc_stop(void)
{
	u32 lo, hi, aux;

	__asm__ __volatile__("rdtscp\n\tlfence" : "=a" (lo), "=d" (hi),
			     "=c" (aux) :: "memory");
	return ((u64)hi << 32) | lo;
}

/* Cycles for each of the @run trips or messages timed, rounded. */
static inline u64 bench_cycles_each(u64 t0, u64 t1, unsigned int run)
{
	return (t1 - t0 + run / 2) / run;
}

/* The pattern a message of sequence number seq carries (the reply too). */
static inline void bench_msg_fill(struct bench_msg *m, u64 seq)
{
	unsigned int i;

	m->seq = seq;
	for (i = 0; i < BENCH_DATA_BYTES; i++)
		m->data[i] = (u8)(seq * 31 + i);
}

static inline bool bench_msg_ok(const struct bench_msg *m, u64 seq)
{
	unsigned int i;

	if (m->seq != seq)
		return false;
	for (i = 0; i < BENCH_DATA_BYTES; i++)
		if (m->data[i] != (u8)(seq * 31 + i))
			return false;
	return true;
}

/* Which loop the server runs. */
enum bench_srv_mode {
	BENCH_SRV_ECHO,		/* reply to every request */
	BENCH_SRV_SINK,		/* complete requests, reply only to STOP */
};

/**
 * struct bench_ring - one implementation, as the driver sees it
 * @name: the name in tables and JSON
 * @setup: allocate and initialise both ends; 0 or a negative errno
 * @teardown: free what @setup allocated
 * @rtt: client: @n samples of @run round trips each, one message
 *	outstanding, back to back; each sample's TSC cycles over @run
 *	(rounded) into @cycles (NULL to skip timing); returns the number of
 *	bad replies.  @run is 1..BENCH_MAX_BURST: a run of more than one
 *	times a closed loop (each side's turnaround included) at a finer
 *	grain than the TSC's tick (26 cycles on some AMD hosts)
 * @burst: client: @n samples of @run batches of @size messages each,
 *	back to back; each sample's cycles over @run (a batch's round trip)
 *	into @cycles (NULL: no timing); returns the number of bad replies.
 *	@size * @run is at most BENCH_MAX_BURST
 * @stream: client: send @n messages one way (filling each whole if
 *	@check, else only its sequence number), then STOP and wait for its
 *	reply; returns the TSC cycles taken, and those of each chunk of
 *	BENCH_CHUNK messages into @chunks unless it is NULL
 * @stop: client: send STOP and wait for its reply (ends an echo server)
 * @server: the server loop in @mode until STOP; returns bad requests
 * @has_burst: false for the floor, which only has a round trip
 * @no_stream: a ring with bursts but no one-way stream (@stream NULL)
 * @lines_per_exchange: distinct cache lines one request and its response
 *	move between the cores, counted by design (stated in each file)
 */
struct bench_ring {
	const char *name;
	int (*setup)(void);
	void (*teardown)(void);
	u64 (*rtt)(u64 first, unsigned int n, unsigned int run, u64 *cycles);
	u64 (*burst)(u64 first, unsigned int size, unsigned int n,
		     unsigned int run, u64 *cycles);
	u64 (*stream)(u64 first, u64 n, bool check, u64 *chunks);
	void (*stop)(void);
	u64 (*server)(enum bench_srv_mode mode, bool check);
	bool has_burst;
	bool no_stream;
	unsigned int lines_per_exchange;
};

extern const struct bench_ring bench_ring_floor;
extern const struct bench_ring bench_ring_floor64;
extern const struct bench_ring bench_ring_duplex;
extern const struct bench_ring bench_ring_cursors;
extern const struct bench_ring bench_ring_xen;
extern const struct bench_ring bench_ring_packed;
extern const struct bench_ring bench_ring_ptr;
extern const struct bench_ring bench_ring_virtio_packed;
extern const struct bench_ring bench_ring_nvme;

void *bench_alloc(size_t bytes);
void bench_free(void *mem, size_t bytes);

#endif /* _BENCH_RING_BENCH_H */
