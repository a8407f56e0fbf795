// SPDX-License-Identifier: GPL-2.0
/*
 * fipc duplex ring, client side: the paths the inline functions of
 * fipc_duplex.h leave out (multi-slot requests, a ring short of room,
 * acknowledgments, anything unexpected at the done cursor).
 *
 * The server may write anything into the ring at any time.  Each flag
 * at the done cursor is read once and classified against the values it
 * may have (fipc_duplex_client_look()); a span is bounded by what was
 * submitted before it moves the cursor; payloads are copied once.
 */
#include <fipc/fipc_duplex.h>

/* Broken for good: the fast paths' compares fail from now on. */
static int fipc_duplex_client_fail(struct fipc_duplex_client *c)
{
	c->error = -EPROTO;
	fipc_duplex_client_derive(c);
	return -EPROTO;
}

/* The slot @n positions after the submit cursor. */
static struct fipc_slot *fipc_duplex_submit_slot(struct fipc_duplex_client *c,
						 u32 n)
{
	return &c->slots[(c->submit_slot + n) & c->mask];
}

/*
 * Take acknowledgments at the done cursor until @need positions are
 * free.  Returns 0, -EAGAIN (a reply or nothing is in the way), -EPROTO.
 */
static int fipc_duplex_reclaim(struct fipc_duplex_client *c, u32 need)
{
	u32 pos, flag, span = 0;

	while (fipc_duplex_room(c) < need) {
		pos = c->done;
		/* Acquire: our later writes stay after the server's release. */
		flag = fipc_last_flag(fipc_slot_acquire(&c->slots[c->done_slot]));
		/*
		 * One position, allowed while more positions are held than
		 * calls wait: the cursor moves by a constant, so the next
		 * flag can be loaded before this one has arrived.
		 */
		if (flag == fipc_duplex_rekind(c->reply_flag,
					       FIPC_DUPLEX_REPLY,
					       FIPC_DUPLEX_ACK) &&
		    c->submit - pos > c->calls) {
			fipc_duplex_advance_done(c, 1);
			continue;
		}
		switch (fipc_duplex_client_look(c, flag, &span)) {
		case FIPC_DUPLEX_FOUND_ACK:
			fipc_duplex_advance_done(c, span);
			continue;
		case FIPC_DUPLEX_FOUND_NOTHING:
		case FIPC_DUPLEX_FOUND_REPLY:
			break;
		default:
			return fipc_duplex_client_fail(c);
		}
		return -EAGAIN;
	}
	return 0;
}

/**
 * fipc_duplex_submit() - send a request of one or more slots
 * @c: the client
 * @msg: the request, @nslots payloads of FIPC_SLOT_PAYLOAD bytes
 * @nslots: its length in slots, 1..FIPC_MSG_MAX_SLOTS
 * @posted: true if it expects no reply
 *
 * What fipc_duplex_call() (@posted false) and fipc_duplex_post() (true)
 * do when their one-slot fast path does not apply.  Room is the client's
 * own knowledge (its done cursor); only when that is short does it look
 * at the done cursor, for acknowledgments.
 *
 * Return: 0; -EAGAIN if there is no room for the whole request now;
 * -EINVAL for a bad length; -EPROTO if the server broke the protocol.
 */
int fipc_duplex_submit(struct fipc_duplex_client *c,
		       const struct fipc_msg *msg, unsigned int nslots,
		       bool posted)
{
	u32 kind = posted ? FIPC_DUPLEX_POST : FIPC_DUPLEX_CALL;
	u32 pos = c->submit;
	struct fipc_slot *slot;
	unsigned int i;
	int err;

	if (unlikely(c->error))
		return c->error;
	if (unlikely(!nslots || nslots > FIPC_MSG_MAX_SLOTS))
		return -EINVAL;
	if (fipc_duplex_room(c) < nslots) {
		err = fipc_duplex_reclaim(c, nslots);
		if (err)
			return err;
	}

	for (i = 1; i < nslots; i++) {
		slot = fipc_duplex_submit_slot(c, i);
		/* Ordered by the release of the head flag below. */
		fipc_slot_fill(slot, msg[i].data,
			       fipc_duplex_flag(kind, 0, pos + i, c->lap_shift));
	}
	/*
	 * Release: every payload byte and continuation flag above becomes
	 * visible before the head flag that announces them.
	 */
	fipc_duplex_put(fipc_duplex_submit_slot(c, 0), msg,
			fipc_duplex_flag(kind, nslots, pos, c->lap_shift));
	if (fipc_duplex_step(&c->submit, &c->submit_slot, nslots, c->mask))
		c->call_flag = fipc_duplex_flag(FIPC_DUPLEX_CALL, 1, c->submit,
						c->lap_shift);
	if (!posted)
		c->calls++;
	return 0;
}
EXPORT_SYMBOL_GPL(fipc_duplex_submit);

/**
 * fipc_duplex_take_reply_slow() - fipc_duplex_take_reply() off its fast path
 * @c: the client
 * @reply: private buffer for one slot of payload
 *
 * Takes acknowledgments until a reply, nothing, or a bad flag.
 *
 * Return: as fipc_duplex_take_reply().
 */
int fipc_duplex_take_reply_slow(struct fipc_duplex_client *c,
				struct fipc_msg *reply)
{
	const struct fipc_slot *slot;
	u32 span = 0;
	fipc_last_t last;

	for (;;) {
		if (unlikely(c->error))
			return c->error;
		slot = &c->slots[c->done_slot];
		/* Acquire: pairs with the server's release of the flag. */
		last = fipc_slot_acquire(slot);
		switch (fipc_duplex_client_look(c, fipc_last_flag(last), &span)) {
		case FIPC_DUPLEX_FOUND_REPLY:
			fipc_slot_copy_last(slot, reply, last);
			fipc_duplex_advance_done(c, span);
			c->calls--;
			return 0;
		case FIPC_DUPLEX_FOUND_ACK:
			/* Each one moves the cursor: the loop ends. */
			fipc_duplex_advance_done(c, span);
			break;
		case FIPC_DUPLEX_FOUND_NOTHING:
			return -EAGAIN;
		default:
			return fipc_duplex_client_fail(c);
		}
	}
}
EXPORT_SYMBOL_GPL(fipc_duplex_take_reply_slow);

/**
 * fipc_duplex_take_replies_slow() - fipc_duplex_take_replies() off its
 *	fast path
 * @c: the client
 * @bufs: pointers to private buffers, one slot of payload each
 * @n: how many of them the fast path has filled already
 * @max: how many replies to take at most, counting those @n
 *
 * What is at the done cursor is not a one-position reply (an
 * acknowledgment, a longer span, a bad flag) or no call waits: takes
 * replies with fipc_duplex_take_reply() until it fails or @max.
 *
 * Return: as fipc_duplex_take_replies().
 */
int fipc_duplex_take_replies_slow(struct fipc_duplex_client *c,
				  struct fipc_msg *const *bufs,
				  unsigned int n, unsigned int max)
{
	int err;

	for (; n < max; n++) {
		err = fipc_duplex_take_reply(c, bufs[n]);
		if (err)
			return n ? (int)n : err;
	}
	return n;
}
EXPORT_SYMBOL_GPL(fipc_duplex_take_replies_slow);
