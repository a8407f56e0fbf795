// SPDX-License-Identifier: GPL-2.0
/*
 * fipc receiver: copy each message out of shared memory exactly once,
 * validate the copy, and hand the slots back.
 *
 * The peer may write anything into the ring at any time.  Every flag is
 * read once and checked against the one value it may have; the payload
 * is copied into the caller's private buffer and never read again from
 * shared memory.  Indexes come only from our private cursor, masked to
 * the ring, never from the peer.
 */
#include "fipc_internal.h"

/*
 * Check the head slot at the cursor.  Returns the message length in
 * slots, 0 if the ring is empty, or -EPROTO.
 */
static int fipc_rx_head(struct fipc_ring *rx)
{
	u32 seq = rx->seq;
	unsigned int len;
	u32 flag;

	/*
	 * Acquire: pairs with the sender's release of this flag; the
	 * payload and continuation slots we read next are at least as new.
	 */
	flag = virt_load_acquire(&fipc_slot_at(rx, seq)->flag);
	if (flag == FIPC_FLAG_FREE)
		return 0;
	if (unlikely((flag & ~FIPC_FLAG_LEN_MASK) != fipc_ready_flag(seq, 0)))
		return fipc_ring_fail(rx);
	len = (flag & FIPC_FLAG_LEN_MASK) >> FIPC_FLAG_LEN_SHIFT;
	if (unlikely(!len || len > FIPC_MSG_MAX_SLOTS))
		return fipc_ring_fail(rx);
	/* The peer's length bounds loops over the caller's buffer. */
	return array_index_nospec(len, FIPC_MSG_MAX_SLOTS + 1);
}

static void fipc_rx_release_to(struct fipc_ring *rx, u32 end)
{
	u32 seq;

	for (seq = rx->release_seq; seq != end; seq++)
		/*
		 * Release: our copy of the payload is complete before the
		 * sender may see the slot free and overwrite it.
		 */
		virt_store_release(&fipc_slot_at(rx, seq)->flag,
				   FIPC_FLAG_FREE);
	rx->release_seq = end;
}

/* Consume the slots up to the cursor, freeing them once enough gathered. */
static void fipc_rx_consumed(struct fipc_ring *rx)
{
	if (rx->seq - rx->release_seq >= rx->release_batch)
		fipc_rx_release_to(rx, rx->seq);
}

/* The ring is empty: free what we hold so a waiting sender can go on. */
static int fipc_rx_empty(struct fipc_ring *rx)
{
	if (rx->release_seq != rx->seq)
		fipc_rx_release_to(rx, rx->seq);
	return -EAGAIN;
}

/* The one copy of a slot, see fipc_slot_copy(). */
static void fipc_rx_copy(const struct fipc_ring *rx, u32 seq,
			 struct fipc_msg *buf)
{
	fipc_slot_copy(fipc_slot_at(rx, seq), buf);
}

/**
 * fipc_recv() - receive one message of one or more slots
 * @rx: the receiving ring
 * @buf: private buffer for up to @max_slots payloads
 * @max_slots: capacity of @buf in slots
 *
 * The message is copied into @buf and its slots are consumed.  The
 * caller validates the content of @buf; the library has validated the
 * flags and the length.
 *
 * Return: the message length in slots; -EAGAIN if no message is ready;
 * -EMSGSIZE if the message is longer than @max_slots (it stays in the
 * ring); -EPROTO if the peer corrupted the ring (sticky).
 */
int fipc_recv(struct fipc_ring *rx, struct fipc_msg *buf,
	      unsigned int max_slots)
{
	u32 seq = rx->seq;
	unsigned int i;
	int len;

	if (unlikely(rx->error))
		return rx->error;
	len = fipc_rx_head(rx);
	if (len <= 0)
		return len ? len : fipc_rx_empty(rx);
	if (unlikely((unsigned int)len > max_slots))
		return -EMSGSIZE;

	for (i = 1; i < (unsigned int)len; i++) {
		/* Published before the head flag we acquired: READ_ONCE. */
		if (READ_ONCE(fipc_slot_at(rx, seq + i)->flag) !=
		    fipc_ready_flag(seq + i, 0))
			return fipc_ring_fail(rx);
	}
	for (i = 0; i < (unsigned int)len; i++)
		fipc_rx_copy(rx, seq + i, &buf[i]);

	rx->seq = seq + len;
	fipc_rx_consumed(rx);
	return len;
}
EXPORT_SYMBOL_GPL(fipc_recv);

/**
 * fipc_recv_burst() - receive up to @count one-slot messages
 * @rx: the receiving ring
 * @bufs: private buffers, one payload each
 * @count: capacity of @bufs
 *
 * Stops early when the ring runs empty or at a multi-slot message, which
 * the caller then takes with fipc_recv().
 *
 * Return: the number received, or -EPROTO if nothing was received because
 * the peer corrupted the ring.
 */
int fipc_recv_burst(struct fipc_ring *rx, struct fipc_msg *bufs,
		    unsigned int count)
{
	unsigned int got = 0;
	int len = 0;

	if (unlikely(rx->error))
		return rx->error;
	if (!count)
		return 0;

	while (got < count) {
		len = fipc_rx_head(rx);
		if (len != 1)
			break;
		fipc_rx_copy(rx, rx->seq, &bufs[got++]);
		rx->seq++;
		fipc_rx_consumed(rx);
	}
	if (!len)
		fipc_rx_empty(rx);
	if (!got && len < 0)
		return len;
	return got;
}
EXPORT_SYMBOL_GPL(fipc_recv_burst);

/**
 * fipc_recv_release() - hand every consumed slot back to the sender now
 * @rx: the receiving ring
 *
 * Only needed with a release batch above 1, e.g. before a poller stops
 * looking at this ring for a while.
 */
void fipc_recv_release(struct fipc_ring *rx)
{
	fipc_rx_release_to(rx, rx->seq);
}
EXPORT_SYMBOL_GPL(fipc_recv_release);

/**
 * fipc_rx_pending() - count ready slots ahead of the receiver
 * @rx: the receiving ring
 * @max: stop counting at this many
 *
 * Looks at flags only; the messages are validated when received.
 *
 * Return: the number of consecutive non-free slots at the cursor, at most
 * @max and the ring size; -EPROTO if the ring is already broken.
 */
int fipc_rx_pending(struct fipc_ring *rx, unsigned int max)
{
	unsigned int n, limit;

	if (unlikely(rx->error))
		return rx->error;
	/* Slots consumed but not yet freed are behind us, not ahead. */
	limit = fipc_ring_slots(rx) - (rx->seq - rx->release_seq);
	if (max < limit)
		limit = max;
	for (n = 0; n < limit; n++) {
		/* Only counts; any decision rests on fipc_recv()'s checks. */
		if (READ_ONCE(fipc_slot_at(rx, rx->seq + n)->flag) ==
		    FIPC_FLAG_FREE)
			break;
	}
	return n;
}
EXPORT_SYMBOL_GPL(fipc_rx_pending);
