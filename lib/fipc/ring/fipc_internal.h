/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the fipc sender, receiver and waiter.  Not API.
 */
#ifndef _FIPC_INTERNAL_H
#define _FIPC_INTERNAL_H

#include <fipc/fipc.h>

static inline struct fipc_slot *fipc_slot_at(const struct fipc_ring *ring,
					     u32 seq)
{
	/* The mask keeps every index inside the ring, whatever seq is. */
	return &ring->slots[seq & ring->mask];
}

/* The flag a sender writes into the slot of sequence number seq. */
static inline u32 fipc_ready_flag(u32 seq, unsigned int head_len)
{
	return FIPC_FLAG_READY | (head_len << FIPC_FLAG_LEN_SHIFT) |
	       (seq & FIPC_FLAG_SEQ_MASK);
}

/* Mark the ring broken; every later call on it fails the same way. */
static inline int fipc_ring_fail(struct fipc_ring *ring)
{
	ring->error = -EPROTO;
	return -EPROTO;
}

#endif /* _FIPC_INTERNAL_H */
