/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fipc: rings of cache-line slots for cross-domain IPC.
 *
 * A ring is 2^order 4 KiB pages of shared memory cut into 64-byte slots.
 * Each slot carries 60 bytes of payload and, in its last 4 bytes, a flag
 * word.  There is no shared producer or consumer counter: each side
 * keeps its own cursors in private memory, so a message costs only the
 * transfer of its own cache line.  This header has the slots, the one
 * copy of a payload and the wait strategies; the ring itself, which
 * carries requests and their replies, is in <fipc/fipc_duplex.h>.
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
 * Slot flag word: a kind in bits 31..24, a count in bits 23..16 and a
 * stamp in bits 15..0 (the duplex ring's kinds and meanings are in
 * fipc_duplex.h).  FREE is all zero, so zeroed memory is an empty ring.
 * FIPC_FLAG_READY is the kind of the retired one-way ring (fipcblk
 * protocol 1), never valid in a duplex ring: kept so that its
 * value stays reserved (xen/include/public/io/fipcblk.h).
 */
#define FIPC_FLAG_FREE		0x00000000u
#define FIPC_FLAG_READY		0xa5000000u
#define FIPC_FLAG_KIND_MASK	0xff000000u
#define FIPC_FLAG_LEN_MASK	0x00ff0000u
#define FIPC_FLAG_LEN_SHIFT	16
#define FIPC_FLAG_SEQ_MASK	0x0000ffffu

/* Bytes of a payload before its last 4, which share a word with the flag. */
#define FIPC_PAYLOAD_HEAD	56u

/**
 * struct fipc_slot - one cache line of a ring, as laid out in shared memory
 * @payload: message bytes, opaque to the library
 * @flag: the flag word, see above; written last
 * @head: @payload's first FIPC_PAYLOAD_HEAD bytes
 * @last: the slot's last 8 bytes, @payload's last 4 and @flag, as one
 *	word (see FIPC_SLOT_WORD)
 */
struct fipc_slot {
	union {
		struct {
			u8 payload[FIPC_SLOT_PAYLOAD];
			u32 flag;
		};
		struct {
			u8 head[FIPC_PAYLOAD_HEAD];
			u64 last;
		};
	};
};

/*
 * Exactly one cache line.  fipc_duplex_client_init() and _server_init()
 * check that the ring memory is slot aligned (it is page aligned in
 * practice), so every slot starts on a cache-line boundary.
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

/*
 * FIPC_SLOT_WORD: 1 where the library reads and writes a slot's flag
 * only as the high half of the slot's last word (the payload's last 4
 * bytes in the low half): little-endian 64-bit, as x86-64 and arm64,
 * which Xen runs on.  Elsewhere, or built with FIPC_SLOT_WORD=0, the
 * flag is a word of its own.  The wire format is the same either way,
 * so a peer may write the last 4 bytes and then the flag with a 32-bit
 * release.  Every access of the flag goes through the calls below, so
 * that both ends of a ring in one build synchronise through accesses
 * of one size.  An aligned 8-byte access is single-copy atomic on
 * x86-64 (TSO keeps stores, and loads, in order) and as STLR/LDAR on
 * arm64: the word's release store publishes the 56 bytes before it and
 * the 4 in it with the flag; its acquire load gives the flag with the 4
 * bytes written with (or, from a 32-bit peer, before) it and orders the
 * copy of the 56 after it.  A message thus costs what a packed ring's
 * 56-byte descriptor costs: copies of 56 bytes and one word
 * (docs/design.md, "The slot's last word").
 */
#ifndef FIPC_SLOT_WORD
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
	__SIZEOF_POINTER__ == 8
#define FIPC_SLOT_WORD	1
#else
#define FIPC_SLOT_WORD	0
#endif
#endif

#if FIPC_SLOT_WORD
/* A slot's last word: the payload's last 4 bytes low, the flag high. */
typedef u64 fipc_last_t;
#define FIPC_SLOT_LAST		last
#define FIPC_LAST_FLAG_SHIFT	32
#define FIPC_LAST_TAIL_MASK	0xffffffffull

/* The last word of a payload's last 4 bytes at @tail and @hi's flag. */
static inline fipc_last_t fipc_last_fill(const u8 *tail, fipc_last_t hi)
{
	u32 low;

	memcpy(&low, tail, sizeof(low));
	return low | hi;
}

/*
 * fipc_slot_copy() of a slot whose last word, @last, has been loaded
 * already: the payload's last 4 bytes come from @last, not the slot.
 */
static inline void fipc_slot_copy_last(const struct fipc_slot *slot,
				       struct fipc_msg *buf, fipc_last_t last)
{
	u32 low = (u32)last;

	barrier();
	memcpy(buf->data, slot->head, FIPC_PAYLOAD_HEAD);
	barrier();
	memcpy(buf->data + FIPC_PAYLOAD_HEAD, &low, sizeof(low));
}

/* Write the first 56 bytes of a payload; its last word goes separately. */
static inline void fipc_slot_fill_head(struct fipc_slot *slot, const u8 *data)
{
	memcpy(slot->head, data, FIPC_PAYLOAD_HEAD);
}
#else
/* Where there is no last word, the flag alone. */
typedef u32 fipc_last_t;
#define FIPC_SLOT_LAST		flag
#define FIPC_LAST_FLAG_SHIFT	0
#define FIPC_LAST_TAIL_MASK	0u

/* The payload's last 4 bytes are written by fipc_slot_fill_head(). */
static inline fipc_last_t fipc_last_fill(const u8 *tail, fipc_last_t hi)
{
	(void)tail;
	return hi;
}

static inline void fipc_slot_copy_last(const struct fipc_slot *slot,
				       struct fipc_msg *buf, fipc_last_t last)
{
	(void)last;
	fipc_slot_copy(slot, buf);
}

static inline void fipc_slot_fill_head(struct fipc_slot *slot, const u8 *data)
{
	fipc_payload_move(slot->payload, data);
}
#endif

/* Where the last word is (struct fipc_slot's FIPC_SLOT_LAST), for a wait. */
static inline const fipc_last_t *fipc_slot_last(const struct fipc_slot *slot)
{
	return &slot->FIPC_SLOT_LAST;
}

/* Where the last word is, for its writer. */
static inline fipc_last_t *fipc_slot_last_mut(struct fipc_slot *slot)
{
	return &slot->FIPC_SLOT_LAST;
}

/* The flag in a last word. */
static inline u32 fipc_last_flag(fipc_last_t last)
{
	return last >> FIPC_LAST_FLAG_SHIFT;
}

/* A last word of @flag and no payload bytes: fipc_last_fill()'s @hi. */
static inline fipc_last_t fipc_last_of_flag(u32 flag)
{
	return (fipc_last_t)flag << FIPC_LAST_FLAG_SHIFT;
}

/* @last with its flag replaced by @flag, any payload bytes in it kept. */
static inline fipc_last_t fipc_last_reflag(fipc_last_t last, u32 flag)
{
	return (last & FIPC_LAST_TAIL_MASK) | fipc_last_of_flag(flag);
}

/* The last word of a payload's last 4 bytes at @tail and @flag. */
static inline fipc_last_t fipc_last_make(const u8 *tail, u32 flag)
{
	return fipc_last_fill(tail, fipc_last_of_flag(flag));
}

/* Read a slot's last word with acquire. */
static inline fipc_last_t fipc_slot_acquire(const struct fipc_slot *slot)
{
	/* Acquire: the copy of the slot, and writes over it, stay after. */
	return virt_load_acquire(fipc_slot_last(slot));
}

/* Read a slot's last word, for a look that copies nothing. */
static inline fipc_last_t fipc_slot_peek(const struct fipc_slot *slot)
{
	return READ_ONCE(*fipc_slot_last(slot));
}

/* Write a slot's last word; a later release orders it (continuations). */
static inline void fipc_slot_set_last(struct fipc_slot *slot, fipc_last_t last)
{
	WRITE_ONCE(*fipc_slot_last_mut(slot), last);
}

/* Write a slot's last word with release. */
static inline void fipc_slot_release_last(struct fipc_slot *slot,
					  fipc_last_t last)
{
	/* Release: all written (and read) before is done before it. */
	virt_store_release(fipc_slot_last_mut(slot), last);
}

/*
 * Write @flag with release over a slot whose payload stays as it is (an
 * acknowledgment, over a request the writer has read): its last 4 bytes
 * are read back into the word, so the slot reads as before the word.
 */
static inline void fipc_slot_release_flag(struct fipc_slot *slot, u32 flag)
{
	fipc_slot_release_last(slot,
			       fipc_last_reflag(fipc_slot_peek(slot), flag));
}

/*
 * Write a payload with @flag; a later release (the head flag's) orders
 * it: a continuation slot of a multi-slot message.
 */
static inline void fipc_slot_fill(struct fipc_slot *slot, const u8 *data,
				  u32 flag)
{
	fipc_slot_fill_head(slot, data);
	fipc_slot_set_last(slot,
			   fipc_last_make(data + FIPC_PAYLOAD_HEAD, flag));
}

/*
 * Write a payload, then its last 4 bytes and @flag in one release (one
 * word where FIPC_SLOT_WORD): the payload is visible before the flag.
 */
static inline void fipc_slot_publish(struct fipc_slot *slot, const u8 *data,
				     u32 flag)
{
	fipc_slot_fill_head(slot, data);
	fipc_slot_release_last(slot,
			       fipc_last_make(data + FIPC_PAYLOAD_HEAD, flag));
}

/*
 * fipc_slot_publish() with the flag as a last word (fipc_last_of_flag()):
 * for a loop that keeps it across messages.
 */
static inline void fipc_slot_publish_last(struct fipc_slot *slot,
					  const u8 *data, fipc_last_t hi)
{
	fipc_slot_fill_head(slot, data);
	fipc_slot_release_last(slot,
			       fipc_last_fill(data + FIPC_PAYLOAD_HEAD, hi));
}

void fipc_ring_clear(void *mem, unsigned int order);

/* Waiting for a message: fipc_wait.c, fipc_duplex_*_wait() */

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

#endif /* _FIPC_FIPC_H */
