/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fipc duplex ring: the helpers of the inline paths in fipc_duplex.h
 * (stamps and flags, what a flag found at a cursor means, cursor moves,
 * the one write of a slot).  Not API: included by fipc_duplex.h only,
 * after the client and server structures.
 */
#ifndef _FIPC_FIPC_DUPLEX_INTERNAL_H
#define _FIPC_FIPC_DUPLEX_INTERNAL_H

#ifndef _FIPC_FIPC_DUPLEX_H
#error "include <fipc/fipc_duplex.h>, not this header"
#endif

/* The stamp of position @pos: the low bits of its lap, pos >> @shift. */
static inline u32 fipc_duplex_stamp(u32 pos, u32 shift)
{
	return (pos >> shift) & FIPC_FLAG_SEQ_MASK;
}

/* The flag of @kind and @count at position @pos, its lap stamped. */
static inline u32 fipc_duplex_flag(u32 kind, u32 count, u32 pos, u32 shift)
{
	return kind | (count << FIPC_FLAG_LEN_SHIFT) |
	       fipc_duplex_stamp(pos, shift);
}

/* Does @flag carry the stamp of position @pos's lap? */
static inline bool fipc_duplex_stamped(u32 flag, u32 pos, u32 shift)
{
	return (flag & FIPC_FLAG_SEQ_MASK) == fipc_duplex_stamp(pos, shift);
}

static inline u32 fipc_duplex_count(u32 flag)
{
	return (flag & FIPC_FLAG_LEN_MASK) >> FIPC_FLAG_LEN_SHIFT;
}

/*
 * May @flag be what position @pos - 2^@shift (one lap before @pos) left
 * in the slot?  That is a request slot of the client, or, if @replies,
 * a reply or acknowledgment of the server, stamped with that lap; or
 * zero if the ring has not gone round yet.
 */
static inline bool fipc_duplex_stale(u32 flag, u32 pos, u32 shift,
				     bool replies)
{
	u32 count = fipc_duplex_count(flag);

	if (!flag)
		return pos >> shift == 0;
	if (!fipc_duplex_stamped(flag, pos - (1u << shift), shift))
		return false;
	switch (flag & FIPC_FLAG_KIND_MASK) {
	case FIPC_DUPLEX_CALL:
	case FIPC_DUPLEX_POST:
		return count <= FIPC_MSG_MAX_SLOTS;
	case FIPC_DUPLEX_REPLY:
	case FIPC_DUPLEX_ACK:
		return replies && count;
	default:
		return false;
	}
}

/* What the client finds at its done cursor: see fipc_duplex_client_look(). */
enum fipc_duplex_found {
	FIPC_DUPLEX_FOUND_NOTHING,
	FIPC_DUPLEX_FOUND_REPLY,
	FIPC_DUPLEX_FOUND_ACK,
	FIPC_DUPLEX_FOUND_BAD,
};

/*
 * Classify the flag at the client's done cursor.  A reply may retire at
 * most the positions submitted and not retired, less one reserved for
 * each other call still waiting for its reply; an acknowledgment one
 * reserved for every waiting call; with no position outstanding there
 * can be nothing to read.  The span goes to *@span, already bounded.
 */
static inline enum fipc_duplex_found
fipc_duplex_client_look(const struct fipc_duplex_client *c, u32 flag,
			u32 *span)
{
	u32 pos = c->done, held = c->submit - pos, limit;
	u32 count = fipc_duplex_count(flag);

	if (!held)
		return fipc_duplex_stale(flag, pos, c->lap_shift, true) ?
		       FIPC_DUPLEX_FOUND_NOTHING : FIPC_DUPLEX_FOUND_BAD;
	if (!fipc_duplex_stamped(flag, pos, c->lap_shift))
		return FIPC_DUPLEX_FOUND_BAD;
	switch (flag & FIPC_FLAG_KIND_MASK) {
	case FIPC_DUPLEX_CALL:
	case FIPC_DUPLEX_POST:
		/* Our own request slot: not answered yet. */
		return count <= FIPC_MSG_MAX_SLOTS ?
		       FIPC_DUPLEX_FOUND_NOTHING : FIPC_DUPLEX_FOUND_BAD;
	case FIPC_DUPLEX_REPLY:
		if (!c->calls)
			return FIPC_DUPLEX_FOUND_BAD;
		limit = held - (c->calls - 1);
		if (!count || count > limit)
			return FIPC_DUPLEX_FOUND_BAD;
		*span = array_index_nospec(count, limit + 1);
		return FIPC_DUPLEX_FOUND_REPLY;
	case FIPC_DUPLEX_ACK:
		limit = held - c->calls;
		if (!count || count > limit)
			return FIPC_DUPLEX_FOUND_BAD;
		*span = array_index_nospec(count, limit + 1);
		return FIPC_DUPLEX_FOUND_ACK;
	default:
		return FIPC_DUPLEX_FOUND_BAD;
	}
}

/*
 * Is @flag, at the server's read cursor, a value that means "no request
 * yet"?  Replies and acknowledgments can be there only if the position
 * one lap back has been retired already.
 */
static inline bool fipc_duplex_server_idle(const struct fipc_duplex_server *s,
					   u32 flag)
{
	u32 pos = s->read;

	return fipc_duplex_stale(flag, pos, s->lap_shift,
				 pos - s->complete <= s->mask);
}

/* @want, an expected flag, with its kind @from changed to @to. */
static inline u64 fipc_duplex_rekind(u64 want, u32 from, u32 to)
{
	return want ^ (from ^ to);
}

/*
 * The one-position flag of @kind one lap before the position whose
 * one-slot call flag is @want (FIPC_DUPLEX_BROKEN stays unmatchable).
 */
static inline u64 fipc_duplex_stale_flag(u64 want, u32 kind)
{
	return (fipc_duplex_rekind(want, FIPC_DUPLEX_CALL, kind) &
		~(u64)FIPC_FLAG_SEQ_MASK) | ((want - 1) & FIPC_FLAG_SEQ_MASK);
}

/* Is the server's one-position acknowledgment at the done cursor? */
static inline bool fipc_duplex_ack_at_done(const struct fipc_duplex_client *c)
{
	/* Acquire: our later writes over the position stay after it. */
	u32 flag = fipc_last_flag(fipc_slot_acquire(&c->slots[c->done_slot]));

	return flag == fipc_duplex_rekind(c->reply_flag, FIPC_DUPLEX_REPLY,
					  FIPC_DUPLEX_ACK);
}

/*
 * Set what each side keeps beside its positions (slot indexes, expected
 * flags, the client's limit) from the positions and the error: at init,
 * and by the _seek() helpers below.
 */
static inline void fipc_duplex_client_derive(struct fipc_duplex_client *c)
{
	c->submit_slot = c->submit & c->mask;
	c->done_slot = c->done & c->mask;
	c->limit = c->error ? c->submit : c->done + c->mask + 1;
	c->call_flag = fipc_duplex_flag(FIPC_DUPLEX_CALL, 1, c->submit,
					c->lap_shift);
	c->reply_flag = c->error ? FIPC_DUPLEX_BROKEN :
			fipc_duplex_flag(FIPC_DUPLEX_REPLY, 1, c->done,
					 c->lap_shift);
}

static inline void fipc_duplex_server_derive(struct fipc_duplex_server *s)
{
	s->read_slot = s->read & s->mask;
	s->complete_slot = s->complete & s->mask;
	s->reply_flag = fipc_duplex_flag(FIPC_DUPLEX_REPLY, 1, s->complete,
					 s->lap_shift);
	s->call_flag = s->error ? FIPC_DUPLEX_BROKEN :
		       fipc_duplex_flag(FIPC_DUPLEX_CALL, 1, s->read,
					s->lap_shift);
}

/*
 * For tests that start a ring at a later point of its life: an idle side
 * (nothing outstanding) at position @pos, as after @pos positions.
 */
static inline void fipc_duplex_client_seek(struct fipc_duplex_client *c,
					   u32 pos)
{
	c->submit = pos;
	c->done = pos;
	fipc_duplex_client_derive(c);
}

static inline void fipc_duplex_server_seek(struct fipc_duplex_server *s,
					   u32 pos)
{
	s->read = pos;
	s->complete = pos;
	fipc_duplex_server_derive(s);
}

/*
 * Step a cursor's slot index, *@slot, one position on, to position @next.
 * Return: the cursor's expected flag, @flag, or where the index wrapped
 * the @kind flag of @next's lap.  The fast paths' step: they hold the
 * cursor in locals.
 */
static inline u64 fipc_duplex_step_one(u32 *slot, u32 mask, u64 flag,
				       u32 kind, u32 next, u32 lap_shift)
{
	if (likely(*slot != mask)) {
		(*slot)++;
		return flag;
	}
	*slot = 0;
	return fipc_duplex_flag(kind, 1, next, lap_shift);
}

/*
 * The fast paths' one-position move of a cursor held in locals, at
 * @pos and slot index @slot with expected flag @flag: store it, moved,
 * in *@pos_at and *@slot_at.  Return: its new expected flag.
 */
static inline u64 fipc_duplex_move_one(u32 *pos_at, u32 *slot_at, u32 pos,
				       u32 slot, u32 mask, u64 flag, u32 kind,
				       u32 lap_shift)
{
	flag = fipc_duplex_step_one(&slot, mask, flag, kind, pos + 1,
				    lap_shift);
	*pos_at = pos + 1;
	*slot_at = slot;
	return flag;
}

/*
 * Move a cursor, @pos and its slot index @slot, by @n positions, at most
 * a ring.  Return: whether the slot index wrapped, and so the cursor's
 * expected flag must be set for the new lap (never on a broken side).
 */
static inline bool fipc_duplex_step(u32 *pos, u32 *slot, u32 n, u32 mask)
{
	u32 next = *slot + n;

	*pos += n;
	*slot = next & mask;
	return next > mask;
}

static inline void fipc_duplex_advance_done(struct fipc_duplex_client *c,
					    u32 n)
{
	c->limit += n;
	if (fipc_duplex_step(&c->done, &c->done_slot, n, c->mask))
		c->reply_flag = fipc_duplex_flag(FIPC_DUPLEX_REPLY, 1, c->done,
						 c->lap_shift);
}

static inline void fipc_duplex_advance_read(struct fipc_duplex_server *s,
					    u32 n)
{
	if (fipc_duplex_step(&s->read, &s->read_slot, n, s->mask))
		s->call_flag = fipc_duplex_flag(FIPC_DUPLEX_CALL, 1, s->read,
						s->lap_shift);
}

static inline void fipc_duplex_advance_complete(struct fipc_duplex_server *s,
						u32 n)
{
	if (fipc_duplex_step(&s->complete, &s->complete_slot, n, s->mask))
		s->reply_flag = fipc_duplex_flag(FIPC_DUPLEX_REPLY, 1,
						 s->complete, s->lap_shift);
}

/* Write a one-slot message and publish it with its flag. */
static inline void fipc_duplex_put(struct fipc_slot *slot,
				   const struct fipc_msg *msg, u32 flag)
{
	/* Release: the payload is visible before the flag announcing it. */
	fipc_slot_publish(slot, msg->data, flag);
}

#endif /* _FIPC_FIPC_DUPLEX_INTERNAL_H */
