// SPDX-License-Identifier: GPL-2.0
/*
 * fipc sender: fill free slots and publish them with their flags.
 */
#include "fipc_internal.h"

/*
 * Is the slot of sequence number seq free to fill?  A slot that still
 * holds the message we put there one lap earlier means the ring is full;
 * anything else was written by a peer that broke the protocol.
 */
static int fipc_tx_slot_check(struct fipc_ring *tx, u32 seq)
{
	u32 lap_ago = seq - fipc_ring_slots(tx);
	u32 flag;

	/*
	 * Acquire: pairs with the receiver's release when it freed the
	 * slot, so our payload stores below cannot overtake its reads of
	 * the old message.
	 */
	flag = virt_load_acquire(&fipc_slot_at(tx, seq)->flag);
	if (likely(flag == FIPC_FLAG_FREE))
		return 0;
	if ((flag & ~FIPC_FLAG_LEN_MASK) ==
	    (FIPC_FLAG_READY | (lap_ago & FIPC_FLAG_SEQ_MASK)) &&
	    (flag & FIPC_FLAG_LEN_MASK) >> FIPC_FLAG_LEN_SHIFT <=
	    FIPC_MSG_MAX_SLOTS)
		return -EAGAIN;
	return fipc_ring_fail(tx);
}

static void fipc_tx_fill(struct fipc_ring *tx, u32 seq,
			 const struct fipc_msg *msg)
{
	fipc_payload_move(fipc_slot_at(tx, seq)->payload, msg->data);
}

/**
 * fipc_send() - send one message of one or more slots
 * @tx: the sending ring
 * @msg: the message, @nslots payloads of FIPC_SLOT_PAYLOAD bytes
 * @nslots: message length in slots, 1..FIPC_MSG_MAX_SLOTS
 *
 * The slots of a message are consecutive (wrapping at the ring's end).
 * Continuation slots are written first and the head slot's flag last,
 * so the receiver sees the whole message or none of it.
 *
 * Return: 0; -EAGAIN if the ring has no room for the whole message now;
 * -EINVAL for a bad length; -EPROTO if the peer corrupted the ring.
 */
int fipc_send(struct fipc_ring *tx, const struct fipc_msg *msg,
	      unsigned int nslots)
{
	u32 seq = tx->seq;
	unsigned int i;
	int err;

	if (unlikely(tx->error))
		return tx->error;
	if (unlikely(!nslots || nslots > FIPC_MSG_MAX_SLOTS))
		return -EINVAL;

	for (i = 0; i < nslots; i++) {
		err = fipc_tx_slot_check(tx, seq + i);
		if (unlikely(err))
			return err;
	}

	for (i = 1; i < nslots; i++) {
		fipc_tx_fill(tx, seq + i, &msg[i]);
		/* Ordered by the release of the head flag below. */
		WRITE_ONCE(fipc_slot_at(tx, seq + i)->flag,
			   fipc_ready_flag(seq + i, 0));
	}
	fipc_tx_fill(tx, seq, msg);
	/*
	 * Release: every payload byte and continuation flag above becomes
	 * visible before the head flag that announces them.
	 */
	virt_store_release(&fipc_slot_at(tx, seq)->flag,
			   fipc_ready_flag(seq, nslots));
	tx->seq = seq + nslots;
	return 0;
}
EXPORT_SYMBOL_GPL(fipc_send);

/**
 * fipc_send_burst() - send up to @count one-slot messages
 * @tx: the sending ring
 * @msgs: the messages, one payload each
 * @count: number of messages
 *
 * Each message is published as soon as it is written, so the receiver
 * can start on the first while the rest are still being copied.
 *
 * Return: the number sent (fewer than @count if the ring filled up, 0 if
 * it was full), or -EPROTO if nothing was sent because the peer corrupted
 * the ring.
 */
int fipc_send_burst(struct fipc_ring *tx, const struct fipc_msg *msgs,
		    unsigned int count)
{
	u32 seq = tx->seq;
	unsigned int sent;
	int err = 0;

	if (unlikely(tx->error))
		return tx->error;

	for (sent = 0; sent < count; sent++, seq++) {
		err = fipc_tx_slot_check(tx, seq);
		if (unlikely(err))
			break;
		fipc_tx_fill(tx, seq, &msgs[sent]);
		/* Release: the payload is visible before the flag. */
		virt_store_release(&fipc_slot_at(tx, seq)->flag,
				   fipc_ready_flag(seq, 1));
	}
	tx->seq = seq;
	if (!sent && err == -EPROTO)
		return err;
	return sent;
}
EXPORT_SYMBOL_GPL(fipc_send_burst);

/**
 * fipc_tx_space() - count free slots ahead of the sender
 * @tx: the sending ring
 * @max: stop counting at this many
 *
 * Return: the number of consecutive free slots at the cursor (at most
 * @max and the ring size), or -EPROTO if the peer corrupted the ring.
 */
int fipc_tx_space(struct fipc_ring *tx, unsigned int max)
{
	unsigned int n, limit = fipc_ring_slots(tx);
	int err = 0;

	if (unlikely(tx->error))
		return tx->error;
	if (max < limit)
		limit = max;
	for (n = 0; n < limit; n++) {
		err = fipc_tx_slot_check(tx, tx->seq + n);
		if (err)
			break;
	}
	if (err == -EPROTO)
		return err;
	return n;
}
EXPORT_SYMBOL_GPL(fipc_tx_space);
