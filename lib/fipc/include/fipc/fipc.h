/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fipc: one-way rings of cache-line slots for cross-domain IPC.
 *
 * A ring is 2^order 4 KiB pages of shared memory cut into 64-byte slots.
 * Each slot carries 60 bytes of payload and, in its last 4 bytes, a flag
 * that says whether the slot is free or holds a ready message.  There is
 * no shared producer or consumer counter: each side keeps its own cursor
 * in private memory, so a message costs only the transfer of its own
 * cache line.  A channel is two such rings, one per direction.
 *
 * The wire format is described in docs/protocol.md.
 */
#ifndef _FIPC_FIPC_H
#define _FIPC_FIPC_H

#include <fipc/compat.h>

/* Xen pages are 4 KiB whatever the kernel's own page size is. */
#define FIPC_PAGE_BYTES		4096u
#define FIPC_SLOT_BYTES		64u
#define FIPC_SLOT_PAYLOAD	60u
#define FIPC_MIN_ORDER		0u
#define FIPC_MAX_ORDER		4u
#define FIPC_RING_BYTES(order)	(FIPC_PAGE_BYTES << (order))
#define FIPC_RING_SLOTS(order)	(FIPC_RING_BYTES(order) / FIPC_SLOT_BYTES)

/* Largest message, in slots (a multi-slot message is contiguous). */
#define FIPC_MSG_MAX_SLOTS	32u

/* Any message fits in any ring, so lengths need no per-ring check. */
static_assert(FIPC_RING_SLOTS(FIPC_MIN_ORDER) >= FIPC_MSG_MAX_SLOTS,
	      "a maximal message fits in the smallest ring");

/*
 * Slot flag word.  FREE is all zero, so zeroed memory is an empty ring.
 * A ready slot holds FIPC_FLAG_READY in bits 31..24, the message length
 * in slots in bits 23..16 (head slot only, 0 in continuation slots) and
 * the low 16 bits of the slot's sequence number in bits 15..0.  Any other
 * value is a protocol violation by the peer.
 */
#define FIPC_FLAG_FREE		0x00000000u
#define FIPC_FLAG_READY		0xa5000000u
#define FIPC_FLAG_KIND_MASK	0xff000000u
#define FIPC_FLAG_LEN_MASK	0x00ff0000u
#define FIPC_FLAG_LEN_SHIFT	16
#define FIPC_FLAG_SEQ_MASK	0x0000ffffu

/**
 * struct fipc_slot - one cache line of a ring, as laid out in shared memory
 * @payload: message bytes, opaque to the library
 * @flag: FIPC_FLAG_FREE or a ready flag, see above; written last
 */
struct fipc_slot {
	u8 payload[FIPC_SLOT_PAYLOAD];
	u32 flag;
};

/*
 * Exactly one cache line.  fipc_ring_init() checks that the ring memory
 * is slot aligned (it is page aligned in practice), so every slot starts
 * on a cache-line boundary.
 */
static_assert(sizeof(struct fipc_slot) == FIPC_SLOT_BYTES,
	      "a fipc slot is one 64-byte cache line");

/**
 * struct fipc_msg - private copy of one slot's payload
 * @data: the payload bytes
 *
 * A message of n slots is an array of n of these.
 */
struct fipc_msg {
	u8 data[FIPC_SLOT_PAYLOAD];
};

/**
 * struct fipc_ring - one side's private view of a one-way ring
 * @slots: the shared slots
 * @mask: number of slots minus one
 * @seq: sequence number of the next slot to fill (sender) or read (receiver)
 * @release_seq: receiver only: first consumed slot not yet handed back
 * @release_batch: receiver only: consumed slots to collect before freeing
 * @error: 0, or -EPROTO once the peer has broken the protocol (sticky)
 */
struct fipc_ring {
	struct fipc_slot *slots;
	u32 mask;
	u32 seq;
	u32 release_seq;
	u32 release_batch;
	int error;
};

/**
 * struct fipc_chan - a bidirectional channel: one ring each way
 * @tx: the ring this side sends on
 * @rx: the ring this side receives from
 */
struct fipc_chan {
	struct fipc_ring tx;
	struct fipc_ring rx;
};

/* Bytes of a payload moved first by fipc_payload_move(). */
#define FIPC_PAYLOAD_HEAD	56u

/**
 * fipc_payload_move() - copy one slot's payload, in or out of a slot
 * @dst: where to, FIPC_SLOT_PAYLOAD bytes
 * @src: where from, FIPC_SLOT_PAYLOAD bytes
 *
 * Every copy of a payload moves the first 56 bytes and then the last 4,
 * never 60 bytes at once: a 60-byte memcpy() becomes four 16-byte moves,
 * the last overlapping the third (bytes 44..59), and a later load that
 * spans two such stores (the server reading its copy of a request to
 * echo it, for example) cannot take its data from the store buffer; it
 * waits until both stores have left it, behind the stores to shared
 * lines still waiting for their cache line.  With one shape for every
 * copy, each later load finds one store that holds all it reads
 * (docs/benchmarks.md, "Copies of 56 and 4 bytes").
 */
static inline void fipc_payload_move(u8 *dst, const u8 *src)
{
	memcpy(dst, src, FIPC_PAYLOAD_HEAD);
	memcpy(dst + FIPC_PAYLOAD_HEAD, src + FIPC_PAYLOAD_HEAD,
	       FIPC_SLOT_PAYLOAD - FIPC_PAYLOAD_HEAD);
}

/**
 * fipc_slot_copy() - the one copy of a slot's payload out of shared memory
 * @slot: the shared slot
 * @buf: private buffer for its payload
 *
 * A plain copy between two compiler barriers, as the kernel's
 * READ_ONCE() of an aggregate once was: the copy's loads cannot move
 * out from between the barriers, and after the second one the compiler
 * may no longer assume the shared slot still holds what it copied, so
 * however much of this and of the caller it inlines, it can neither
 * read the slot again in place of the private copy (a double fetch,
 * XSA-155) nor drop the copy; as Xen's RING_COPY_REQUEST().  The copy
 * may be torn (the peer can write while we read); only @buf is looked
 * at afterwards, and the caller validates it.  The compiler chooses the
 * widest moves it has (16-byte vector moves in userspace), which the
 * word-by-word READ_ONCE() copy this replaces could not (docs/
 * benchmarks.md, "The cost of the explicit copy").
 */
static inline void fipc_slot_copy(const struct fipc_slot *slot,
				  struct fipc_msg *buf)
{
	barrier();
	fipc_payload_move(buf->data, slot->payload);
	barrier();
}

void fipc_ring_clear(void *mem, unsigned int order);
int fipc_ring_init(struct fipc_ring *ring, void *mem, unsigned int order);
int fipc_ring_set_release_batch(struct fipc_ring *rx, unsigned int batch);
int fipc_chan_init(struct fipc_chan *chan, void *tx_mem, void *rx_mem,
		   unsigned int order);

int fipc_send(struct fipc_ring *tx, const struct fipc_msg *msg,
	      unsigned int nslots);
int fipc_send_burst(struct fipc_ring *tx, const struct fipc_msg *msgs,
		    unsigned int count);

int fipc_recv(struct fipc_ring *rx, struct fipc_msg *buf,
	      unsigned int max_slots);
int fipc_recv_burst(struct fipc_ring *rx, struct fipc_msg *bufs,
		    unsigned int count);
void fipc_recv_release(struct fipc_ring *rx);

/*
 * For tests and diagnostics, never a hot path: each reads up to @max of
 * the peer's lines (flags) to count them.
 */
int fipc_tx_space(struct fipc_ring *tx, unsigned int max);
int fipc_rx_pending(struct fipc_ring *rx, unsigned int max);

/**
 * fipc_ring_error() - the sticky protocol error of a ring
 * @ring: the ring
 *
 * Return: 0 while the peer has followed the protocol, else -EPROTO.
 */
static inline int fipc_ring_error(const struct fipc_ring *ring)
{
	return ring->error;
}

/**
 * fipc_ring_slots() - number of slots in a ring
 * @ring: the ring
 *
 * Return: the slot count, a power of two.
 */
static inline unsigned int fipc_ring_slots(const struct fipc_ring *ring)
{
	return ring->mask + 1;
}

/**
 * fipc_rx_ready() - cheap check whether a message waits at the cursor
 * @rx: the receiving ring
 *
 * For poll loops: reads one flag, copies nothing and validates nothing,
 * so a true result only means "call fipc_recv() now".
 *
 * Return: true if the next slot is not free.
 */
static inline bool fipc_rx_ready(const struct fipc_ring *rx)
{
	const struct fipc_slot *slot = &rx->slots[rx->seq & rx->mask];

	return READ_ONCE(slot->flag) != FIPC_FLAG_FREE;
}

/**
 * fipc_tx_room() - cheap check whether the next slot can be filled
 * @tx: the sending ring
 *
 * For poll loops deciding whether waiting output can go on: reads one
 * flag and validates nothing (fipc_send() does).
 *
 * Return: true if the slot at the cursor is free.
 */
static inline bool fipc_tx_room(const struct fipc_ring *tx)
{
	const struct fipc_slot *slot = &tx->slots[tx->seq & tx->mask];

	return READ_ONCE(slot->flag) == FIPC_FLAG_FREE;
}

/* Waiting for a message: fipc_wait.c */

/**
 * enum fipc_wait_method - how a receiver waits for the next message
 * @FIPC_WAIT_PAUSE: busy poll with the CPU's spin-loop hint (PAUSE)
 * @FIPC_WAIT_MWAITX: AMD MONITORX/MWAITX, any privilege level
 * @FIPC_WAIT_UMWAIT: Intel UMONITOR/UMWAIT (WAITPKG), any privilege level
 * @FIPC_WAIT_MWAIT: MONITOR/MWAIT, ring 0 only (not in a Xen PV guest)
 * @FIPC_WAIT_NR_METHODS: number of methods
 */
enum fipc_wait_method {
	FIPC_WAIT_PAUSE,
	FIPC_WAIT_MWAITX,
	FIPC_WAIT_UMWAIT,
	FIPC_WAIT_MWAIT,
	FIPC_WAIT_NR_METHODS,
};

/**
 * struct fipc_waiter - a wait strategy
 * @method: how to wait between polls
 * @spin_limit: empty polls before @sleep is called; 0 means never sleep
 * @sleep: called after @spin_limit empty polls; returns 0 to poll again,
 *	or a negative error to stop waiting (passed to the caller)
 * @arg: argument for @sleep
 * @empty_polls: statistics: polls that found nothing
 * @sleeps: statistics: calls to @sleep
 */
struct fipc_waiter {
	enum fipc_wait_method method;
	unsigned int spin_limit;
	int (*sleep)(void *arg);
	void *arg;
	u64 empty_polls;
	u64 sleeps;
};

bool fipc_wait_method_usable(enum fipc_wait_method method);
enum fipc_wait_method fipc_wait_best_method(void);
const char *fipc_wait_method_name(enum fipc_wait_method method);
int fipc_waiter_init(struct fipc_waiter *w, enum fipc_wait_method method,
		     unsigned int spin_limit, int (*sleep)(void *arg),
		     void *arg);
int fipc_wait_rx(struct fipc_ring *rx, struct fipc_waiter *w);

#endif /* _FIPC_FIPC_H */
