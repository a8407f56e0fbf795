// SPDX-License-Identifier: GPL-2.0
/*
 * fipc duplex ring, server side: the paths the inline functions of
 * fipc_duplex.h leave out (multi-slot and posted requests, an empty
 * ring, anything unexpected at the read cursor) and acknowledgments.
 *
 * The client may write anything into the ring at any time.  Each flag is
 * read once and checked against the values it may have; a request may
 * not reach a position the server has not handed back (overfill); the
 * length bounds the copy only after array_index_nospec(); payloads are
 * copied once into the caller's buffer.
 */
#include <fipc/fipc_duplex.h>

/* Broken for good: the fast paths' compares fail from now on. */
static int fipc_duplex_server_fail(struct fipc_duplex_server *s)
{
	s->error = -EPROTO;
	fipc_duplex_server_derive(s);
	return -EPROTO;
}

static struct fipc_slot *fipc_duplex_server_slot(struct fipc_duplex_server *s,
						 u32 pos)
{
	return &s->slots[pos & s->mask];
}

/* Positions read that no unanswered call needs: free to hand back. */
static u32 fipc_duplex_retirable(const struct fipc_duplex_server *s)
{
	return s->read - s->complete - s->unanswered;
}

/* Hand back @n positions with acknowledgments at the completion cursor. */
static void fipc_duplex_ack(struct fipc_duplex_server *s, u32 n)
{
	u32 span;

	while (n) {
		span = n < FIPC_DUPLEX_SPAN_MAX ? n : FIPC_DUPLEX_SPAN_MAX;
		/*
		 * Release: our copies of the requests retired here are
		 * complete before the client may write over them.
		 */
		fipc_slot_release_flag(&s->slots[s->complete_slot],
				       fipc_duplex_flag(FIPC_DUPLEX_ACK, span,
							s->complete,
							s->lap_shift));
		fipc_duplex_advance_complete(s, span);
		n -= span;
	}
}

/*
 * Acknowledge what no reply will retire soon: everything after a posted
 * request (@posted), and a batch's worth of calls' continuation slots.
 * Whatever stays is retired by the next reply, whose span (retirable
 * positions plus its own) thus never exceeds the batch.
 */
static void fipc_duplex_settle(struct fipc_duplex_server *s, bool posted)
{
	u32 n = fipc_duplex_retirable(s);

	if (n && (posted || n >= s->ack_batch))
		fipc_duplex_ack(s, n);
}

/**
 * fipc_duplex_server_flush() - hand back every position no call needs now
 * @s: the server
 *
 * For a server about to stop looking at the ring for a while; its
 * waiter does this before sleeping.  Does nothing on a broken ring.
 */
void fipc_duplex_server_flush(struct fipc_duplex_server *s)
{
	if (!s->error)
		fipc_duplex_ack(s, fipc_duplex_retirable(s));
}
EXPORT_SYMBOL_GPL(fipc_duplex_server_flush);

/**
 * fipc_duplex_take_request_slow() - fipc_duplex_take_request() off its fast path
 * @s: the server
 * @buf: private buffer for up to @max_slots payloads
 * @max_slots: capacity of @buf in slots
 * @posted: if not NULL, set to whether the request expects no reply
 *
 * Return: as fipc_duplex_take_request().
 */
int fipc_duplex_take_request_slow(struct fipc_duplex_server *s,
				  struct fipc_msg *buf,
				  unsigned int max_slots, bool *posted)
{
	u32 pos = s->read, flag, kind;
	const struct fipc_slot *slot;
	unsigned int len, i;
	fipc_last_t last;

	if (unlikely(s->error))
		return s->error;
	/*
	 * Acquire: pairs with the client's release of the head flag; the
	 * continuation flags and payloads we read next are at least as new.
	 */
	last = fipc_slot_acquire(&s->slots[s->read_slot]);
	flag = fipc_last_flag(last);
	/*
	 * A one-slot posted request moves the cursor by a constant, so a
	 * stream of them is read in parallel (see fipc_duplex_take_reply()).
	 */
	if (flag == fipc_duplex_flag(FIPC_DUPLEX_POST, 1, pos, s->lap_shift) &&
	    pos - s->complete <= s->mask && max_slots) {
		fipc_slot_copy_last(&s->slots[s->read_slot], buf, last);
		fipc_duplex_advance_read(s, 1);
		if (posted)
			*posted = true;
		fipc_duplex_settle(s, true);
		return 1;
	}
	kind = flag & FIPC_FLAG_KIND_MASK;
	if ((kind != FIPC_DUPLEX_CALL && kind != FIPC_DUPLEX_POST) ||
	    !fipc_duplex_stamped(flag, pos, s->lap_shift)) {
		if (!fipc_duplex_server_idle(s, flag))
			return fipc_duplex_server_fail(s);
		return -EAGAIN;
	}
	len = fipc_duplex_count(flag);
	/*
	 * A head that is a continuation, too long, or reaching a position
	 * we have not handed back (the client overfilled the ring).
	 */
	if (unlikely(!len || len > FIPC_MSG_MAX_SLOTS ||
		     pos + len - s->complete > s->mask + 1))
		return fipc_duplex_server_fail(s);
	/* The client's length bounds loops over the caller's buffer. */
	len = array_index_nospec(len, FIPC_MSG_MAX_SLOTS + 1);
	if (unlikely(len > max_slots))
		return -EMSGSIZE;

	for (i = 1; i < len; i++) {
		/* Published before the head flag we acquired: READ_ONCE. */
		slot = fipc_duplex_server_slot(s, pos + i);
		flag = fipc_last_flag(fipc_slot_peek(slot));
		if (flag != fipc_duplex_flag(kind, 0, pos + i, s->lap_shift))
			return fipc_duplex_server_fail(s);
	}
	fipc_slot_copy_last(&s->slots[s->read_slot], buf, last);
	for (i = 1; i < len; i++)
		fipc_slot_copy(fipc_duplex_server_slot(s, pos + i), &buf[i]);

	fipc_duplex_advance_read(s, len);
	if (kind == FIPC_DUPLEX_CALL)
		s->unanswered++;
	if (posted)
		*posted = kind == FIPC_DUPLEX_POST;
	fipc_duplex_settle(s, kind == FIPC_DUPLEX_POST);
	return len;
}
EXPORT_SYMBOL_GPL(fipc_duplex_take_request_slow);

/**
 * fipc_duplex_reply_slow() - fipc_duplex_reply() off its fast path
 * @s: the server
 * @reply: the reply, one slot of payload
 *
 * A reply that also retires positions no call needs (continuation
 * slots gathered below the acknowledgment batch), or none to send.
 *
 * Return: as fipc_duplex_reply().
 */
int fipc_duplex_reply_slow(struct fipc_duplex_server *s,
			   const struct fipc_msg *reply)
{
	u32 span;

	if (unlikely(s->error))
		return s->error;
	if (unlikely(!s->unanswered))
		return -EINVAL;
	/*
	 * Every position read and not needed by another unanswered call:
	 * fewer than the acknowledgment batch were left by the last
	 * fipc_duplex_take_request(), so this fits the flag's count.
	 */
	span = fipc_duplex_retirable(s) + 1;
	/*
	 * Release (in fipc_duplex_put()): our copies of every request
	 * retired here are complete before the client may write over them.
	 */
	fipc_duplex_put(&s->slots[s->complete_slot], reply,
			fipc_duplex_flag(FIPC_DUPLEX_REPLY, span, s->complete,
					 s->lap_shift));
	fipc_duplex_advance_complete(s, span);
	s->unanswered--;
	return 0;
}
EXPORT_SYMBOL_GPL(fipc_duplex_reply_slow);

/**
 * fipc_duplex_reply_n_slow() - fipc_duplex_reply_n() off its fast path
 * @s: the server
 * @replies: pointers to the replies, one slot of payload each
 * @n: their number
 *
 * A burst whose first reply also retires positions no call needs, or
 * none to send, too few calls waiting, or a broken ring: checks the
 * burst as a whole, then sends each reply as fipc_duplex_reply() does.
 *
 * Return: as fipc_duplex_reply_n().
 */
int fipc_duplex_reply_n_slow(struct fipc_duplex_server *s,
			     const struct fipc_msg *const *replies,
			     unsigned int n)
{
	unsigned int i;
	int err;

	if (unlikely(s->error))
		return s->error;
	if (unlikely(n > s->unanswered))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		err = fipc_duplex_reply(s, replies[i]);
		if (unlikely(err))
			return err;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(fipc_duplex_reply_n_slow);
