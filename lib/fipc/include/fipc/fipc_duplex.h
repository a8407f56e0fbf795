/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fipc duplex ring: requests and their replies in one ring.
 *
 * The ring is 2^order pages of 64-byte slots, 60 bytes of payload and a
 * flag word each (fipc.h), and carries both directions.  The client
 * writes requests at its submit cursor; the server reads them in order
 * and writes each reply at its completion cursor, which only ever covers
 * positions whose requests it has already read; the client reads the
 * replies in order at its done cursor.  A reply retires the positions
 * it covers (its span), and the client may fill any position up to one
 * ring ahead of its done cursor.  Nobody writes a "free" flag and nobody
 * reads a line before writing it, so a request and its reply cost the
 * transfers of one cache line there and back, as a cache-line ping-pong
 * does.
 *
 * Replies carry no id: the caller puts its own id in each request and
 * the server copies it into the reply; completions may come in any
 * order, each in the next position the server may write.
 *
 * The wire format and what a hostile peer can do are described in
 * docs/protocol.md, section "Duplex ring".
 */
#ifndef _FIPC_FIPC_DUPLEX_H
#define _FIPC_FIPC_DUPLEX_H

#include <fipc/fipc.h>

/*
 * Flag word of a duplex slot: a kind in bits 31..24, a count in bits
 * 23..16 and a stamp in bits 15..0, the low 16 bits of the slot's lap
 * (its position divided by the number of slots: every slot of one lap
 * has the same stamp, which changes once a lap, as a virtio packed
 * ring's wrap counter).  The count is the message length in slots in
 * the head slot of a request (0 in its continuation slots), and the
 * span (positions retired, at least 1) in a reply or an acknowledgment.
 * Zeroed memory is an empty ring.  The kinds differ from FIPC_FLAG_READY,
 * so that a peer speaking the retired one-way protocol is caught at
 * once.
 *
 * A lap stamp rather than the position's low bits, and a slot index
 * kept beside each client cursor rather than the position masked at
 * each use: together they took the ring level with a packed ring in
 * bursts on a 16-core Xeon, where either alone left it 8-26 % behind at
 * 16 messages (docs/benchmarks.md, "The client's slot index and the
 * flag's stamp").
 */
#define FIPC_DUPLEX_CALL	0xc1000000u	/* request, one reply expected */
#define FIPC_DUPLEX_POST	0xc2000000u	/* request, no reply */
#define FIPC_DUPLEX_REPLY	0xc4000000u	/* the reply to one call */
#define FIPC_DUPLEX_ACK		0xc8000000u	/* retires positions, no payload */
#define FIPC_DUPLEX_SPAN_MAX	255u

/* A position's lap is position >> FIPC_DUPLEX_LAP_SHIFT(order). */
#define FIPC_DUPLEX_LAP_SHIFT(order)	((order) + 6u)
static_assert(FIPC_RING_SLOTS(0) == 1u << FIPC_DUPLEX_LAP_SHIFT(0),
	      "64 slots in a page");

/*
 * An expected flag no flag read from the ring can equal: the fast paths
 * compare a 32-bit flag with a 64-bit expected one, which a broken side
 * sets to this so that its single compare fails and the slow path
 * returns the sticky error.
 */
#define FIPC_DUPLEX_BROKEN	0x100000000ull

/**
 * struct fipc_duplex_client - the requesting side's private state
 * @slots: the shared slots
 * @mask: number of slots minus one
 * @lap_shift: log2 of the number of slots (a position's lap is
 *	position >> @lap_shift)
 * @submit: position of the next request slot to write
 * @submit_slot: its slot, @submit & @mask, kept apart (see the flag word)
 * @done: position of the next reply to read; the client may fill
 *	positions up to @done + number of slots
 * @done_slot: its slot, @done & @mask
 * @calls: calls sent whose reply has not been read yet
 * @error: 0, or -EPROTO once the server has broken the protocol (sticky)
 * @limit: @done + number of slots, the first position not to fill; set
 *	to @submit once broken, so that the room check fails
 * @call_flag: the flag of a one-slot call at @submit
 * @reply_flag: the flag of a one-position reply at @done, or
 *	FIPC_DUPLEX_BROKEN
 *
 * The flags are set when their slot index wraps, not per message.
 */
struct fipc_duplex_client {
	struct fipc_slot *slots;
	u32 mask;
	u32 lap_shift;
	u32 submit;
	u32 submit_slot;
	u32 done;
	u32 done_slot;
	u32 calls;
	int error;
	u32 limit;
	u32 call_flag;
	u64 reply_flag;
};

/**
 * struct fipc_duplex_server - the serving side's private state
 * @slots: the shared slots
 * @mask: number of slots minus one
 * @lap_shift: log2 of the number of slots
 * @read: position of the next request to read
 * @read_slot: its slot, @read & @mask
 * @complete: position of the next reply or acknowledgment to write;
 *	everything before it has been handed back to the client
 * @complete_slot: its slot, @complete & @mask
 * @unanswered: calls read whose reply has not been written yet; one
 *	position between @complete and @read stays reserved for each
 * @ack_batch: retirable positions of calls to gather before acknowledging
 *	them without a reply
 * @error: 0, or -EPROTO once the client has broken the protocol (sticky)
 * @reply_flag: the flag of a one-position reply at @complete
 * @call_flag: the flag of a one-slot call at @read, or FIPC_DUPLEX_BROKEN
 */
struct fipc_duplex_server {
	struct fipc_slot *slots;
	u32 mask;
	u32 lap_shift;
	u32 read;
	u32 read_slot;
	u32 complete;
	u32 complete_slot;
	u32 unanswered;
	u32 ack_batch;
	int error;
	u32 reply_flag;
	u64 call_flag;
};

int fipc_duplex_client_init(struct fipc_duplex_client *c, void *mem,
			    unsigned int order);
int fipc_duplex_server_init(struct fipc_duplex_server *s, void *mem,
			    unsigned int order);
int fipc_duplex_set_ack_batch(struct fipc_duplex_server *s,
			      unsigned int batch);

int fipc_duplex_submit(struct fipc_duplex_client *c,
		       const struct fipc_msg *msg, unsigned int nslots,
		       bool posted);
int fipc_duplex_take_reply_slow(struct fipc_duplex_client *c,
				struct fipc_msg *reply);
int fipc_duplex_take_request_slow(struct fipc_duplex_server *s,
				  struct fipc_msg *buf,
				  unsigned int max_slots, bool *posted);
int fipc_duplex_reply_slow(struct fipc_duplex_server *s,
			   const struct fipc_msg *reply);
int fipc_duplex_take_replies_slow(struct fipc_duplex_client *c,
				  struct fipc_msg *const *bufs,
				  unsigned int n, unsigned int max);
int fipc_duplex_reply_n_slow(struct fipc_duplex_server *s,
			     const struct fipc_msg *const *replies,
			     unsigned int n);
void fipc_duplex_server_flush(struct fipc_duplex_server *s);

int fipc_duplex_client_wait(struct fipc_duplex_client *c,
			    struct fipc_waiter *w);
int fipc_duplex_server_wait(struct fipc_duplex_server *s,
			    struct fipc_waiter *w);

/* Helpers of the inline paths below; not API. */
#include <fipc/fipc_duplex_internal.h>

/*
 * The inline paths below load every field they need before a payload
 * copy and store what they change after it: the copy's bytes may alias
 * the private state, so the compiler would otherwise load it again.
 */

/* The API proper. */

/**
 * fipc_duplex_call() - send a request that expects one reply
 * @c: the client
 * @req: the request, @nslots payloads of FIPC_SLOT_PAYLOAD bytes
 * @nslots: its length in slots, 1..FIPC_MSG_MAX_SLOTS
 *
 * Reads no shared memory unless the ring is short of room, and then only
 * the slot at the done cursor, for acknowledgments (never a reply,
 * which only fipc_duplex_take_reply() takes).  Continuation slots are
 * written first and the head flag last, with release.
 *
 * Return: 0; -EAGAIN if there is no room for the whole request now
 * (take replies, or wait, and try again); -EINVAL for a bad length;
 * -EPROTO if the server broke the protocol (sticky).
 */
static inline int fipc_duplex_call(struct fipc_duplex_client *c,
				   const struct fipc_msg *req,
				   unsigned int nslots)
{
	u32 pos = c->submit, slot = c->submit_slot, mask = c->mask;
	u32 flag = c->call_flag, calls = c->calls;

	/* One compare for room and error: a broken client's limit is pos. */
	if (likely(nslots == 1 && pos != c->limit)) {
		fipc_duplex_put(&c->slots[slot], req, flag);
		c->calls = calls + 1;
		c->call_flag = fipc_duplex_move_one(&c->submit, &c->submit_slot,
						    pos, slot, mask, flag,
						    FIPC_DUPLEX_CALL,
						    c->lap_shift);
		return 0;
	}
	return fipc_duplex_submit(c, req, nslots, false);
}

/**
 * fipc_duplex_post() - send a request that expects no reply
 * @c: the client
 * @msg: the message, @nslots payloads
 * @nslots: its length in slots, 1..FIPC_MSG_MAX_SLOTS
 *
 * As fipc_duplex_call(), but the server answers nothing: it hands the
 * positions back at once with acknowledgments, which the client takes
 * in fipc_duplex_take_reply() or when it runs short of room.
 *
 * Return: as fipc_duplex_call().
 */
static inline int fipc_duplex_post(struct fipc_duplex_client *c,
				   const struct fipc_msg *msg,
				   unsigned int nslots)
{
	u32 pos = c->submit, slot = c->submit_slot, mask = c->mask;
	u32 call_flag = c->call_flag;
	u32 flag = call_flag ^ (FIPC_DUPLEX_CALL ^ FIPC_DUPLEX_POST);

	/*
	 * A stream keeps the ring full: the position to fill is the one at
	 * the done cursor, and what the server left there is, in the common
	 * case, its one-position acknowledgment of our post one lap back
	 * (allowed while more positions are held than calls wait).  Taken
	 * here, so that each post of a stream reads and writes the one line
	 * without the out-of-line call.  A broken client's limit is pos and
	 * its expected flags match nothing: the slow path says -EPROTO.
	 */
	if (likely(nslots == 1)) {
		if (pos == c->limit && pos - c->done > c->calls &&
		    fipc_duplex_ack_at_done(c))
			fipc_duplex_advance_done(c, 1);
		if (likely(pos != c->limit)) {
			fipc_duplex_put(&c->slots[slot], msg, flag);
			c->call_flag = fipc_duplex_move_one(&c->submit,
							    &c->submit_slot,
							    pos, slot, mask,
							    call_flag,
							    FIPC_DUPLEX_CALL,
							    c->lap_shift);
			return 0;
		}
	}
	return fipc_duplex_submit(c, msg, nslots, true);
}

/**
 * fipc_duplex_take_reply() - take the next reply, in ring order
 * @c: the client
 * @reply: private buffer for its one slot of payload
 *
 * Acknowledgments before the reply are taken on the way.  The reply is
 * copied once into @reply; the caller checks its content, in particular
 * that the id in it is one of its calls still waiting (the library only
 * guarantees that there are never more replies than calls).
 *
 * Return: 0 with the reply in @reply; -EAGAIN if none is there yet;
 * -EPROTO if the server broke the protocol (sticky).
 */
static inline int fipc_duplex_take_reply(struct fipc_duplex_client *c,
					 struct fipc_msg *reply)
{
	u32 pos = c->done, dslot = c->done_slot, mask = c->mask;
	u32 calls = c->calls, limit = c->limit;
	u64 want = c->reply_flag;
	const struct fipc_slot *slot = &c->slots[dslot];
	/*
	 * Acquire: pairs with the server's release of the flag; the payload
	 * we copy, and the request slots we later write over the positions
	 * it retires, are ordered after it.
	 */
	fipc_last_t last = fipc_slot_acquire(slot);
	u32 flag = fipc_last_flag(last);

	/*
	 * The common reply retires its own position only, which is always
	 * allowed while a call waits (every waiting call holds one).  The
	 * cursor then moves by a constant, not by a value loaded from the
	 * flag, so the CPU can look at the next slot before this flag's line
	 * has arrived: a run of replies is read in parallel, not one line
	 * transfer after another.  A broken client's @want matches nothing.
	 */
	if (likely(flag == want && calls)) {
		fipc_slot_copy_last(slot, reply, last);
		c->limit = limit + 1;
		c->calls = calls - 1;
		c->reply_flag = fipc_duplex_move_one(&c->done, &c->done_slot,
						     pos, dslot, mask, want,
						     FIPC_DUPLEX_REPLY,
						     c->lap_shift);
		return 0;
	}
	/*
	 * Our own one-slot call, still unanswered: said here, so that a
	 * client polling for its reply reads the line once a poll (the slow
	 * path would read the flag again, on a line the server is about to
	 * write).  The slow path would say the same.
	 */
	if (flag == fipc_duplex_rekind(want, FIPC_DUPLEX_REPLY,
				       FIPC_DUPLEX_CALL) && pos != c->submit)
		return -EAGAIN;
	return fipc_duplex_take_reply_slow(c, reply);
}

/**
 * fipc_duplex_take_request() - take the next request, in ring order
 * @s: the server
 * @buf: private buffer for up to @max_slots payloads
 * @max_slots: capacity of @buf in slots
 * @posted: if not NULL, set to whether the request expects no reply
 *
 * The request is copied once into @buf; the library has checked its
 * flags and length, the caller checks the content.  Each call taken
 * needs exactly one fipc_duplex_reply(), in any order.  Positions no
 * reply will retire are acknowledged here: a posted request's at once,
 * a call's continuation slots per fipc_duplex_set_ack_batch().
 *
 * Return: the length in slots; -EAGAIN if no request is there;
 * -EMSGSIZE if it is longer than @max_slots (it stays in the ring);
 * -EPROTO if the client broke the protocol (sticky).
 */
static inline int fipc_duplex_take_request(struct fipc_duplex_server *s,
					   struct fipc_msg *buf,
					   unsigned int max_slots,
					   bool *posted)
{
	u32 pos = s->read, rslot = s->read_slot, mask = s->mask;
	u32 unanswered = s->unanswered;
	u64 want = s->call_flag;
	const struct fipc_slot *slot = &s->slots[rslot];
	/* Acquire: pairs with the client's release of the head flag. */
	fipc_last_t last = fipc_slot_acquire(slot);
	u32 flag = fipc_last_flag(last);

	/*
	 * A one-slot call moves the cursor by a constant (see
	 * fipc_duplex_take_reply()) and counts a constant, so nothing of
	 * what we do next, the reply's position and span included, waits
	 * for this flag's line but the branch.  Posted requests, which may
	 * complete a batch to acknowledge, take the slow path.  A broken
	 * server's @want matches nothing.
	 */
	if (likely(flag == want && pos - s->complete <= mask && max_slots)) {
		fipc_slot_copy_last(slot, buf, last);
		s->unanswered = unanswered + 1;
		s->call_flag = fipc_duplex_move_one(&s->read, &s->read_slot,
						    pos, rslot, mask, want,
						    FIPC_DUPLEX_CALL,
						    s->lap_shift);
		if (posted)
			*posted = false;
		return 1;
	}
	/*
	 * A one-slot posted request when nothing else waits to be handed
	 * back: acknowledged at once, in one flag, with a constant span.
	 */
	if (flag == fipc_duplex_rekind(want, FIPC_DUPLEX_CALL,
				       FIPC_DUPLEX_POST) &&
	    pos - s->complete == unanswered && unanswered <= mask &&
	    max_slots) {
		fipc_slot_copy_last(slot, buf, last);
		fipc_duplex_advance_read(s, 1);
		/*
		 * Release: our copy of the request is complete before the
		 * client may write over the position.
		 */
		fipc_slot_release_flag(&s->slots[s->complete_slot],
				       (u32)fipc_duplex_rekind(s->reply_flag,
							       FIPC_DUPLEX_REPLY,
							       FIPC_DUPLEX_ACK));
		fipc_duplex_advance_complete(s, 1);
		if (posted)
			*posted = true;
		return 1;
	}
	/*
	 * The one-slot reply or acknowledgment of one lap back, at a
	 * position we have retired: no request yet.  As in
	 * fipc_duplex_take_reply(), a polling server reads the line once a
	 * poll; the slow path (fipc_duplex_server_idle()) agrees.
	 */
	if ((flag == fipc_duplex_stale_flag(want, FIPC_DUPLEX_REPLY) ||
	     flag == fipc_duplex_stale_flag(want, FIPC_DUPLEX_ACK)) &&
	    pos - s->complete <= mask)
		return -EAGAIN;
	return fipc_duplex_take_request_slow(s, buf, max_slots, posted);
}

/**
 * fipc_duplex_reply() - answer one call taken earlier
 * @s: the server
 * @reply: the reply, one slot of payload (with the call's id in it)
 *
 * Writes at the completion cursor, over a position whose request has
 * been read, and retires every position no other unanswered call needs,
 * one being kept for each.  Replies may be sent in any order relative
 * to the calls.  Reads no shared memory.
 *
 * Return: 0; -EINVAL if no call is waiting for a reply; -EPROTO if the
 * client broke the protocol (sticky).
 */
static inline int fipc_duplex_reply(struct fipc_duplex_server *s,
				    const struct fipc_msg *reply)
{
	u32 pos = s->complete, cslot = s->complete_slot, mask = s->mask;
	u32 unanswered = s->unanswered, flag = s->reply_flag;

	/*
	 * The common reply retires exactly its own position: every position
	 * read is held by an unanswered call.  Its flag is the precomputed
	 * one; anything else (a longer span, no call waiting, a broken
	 * ring) takes the slow path.
	 */
	if (likely(s->read - pos == unanswered && unanswered && !s->error)) {
		/*
		 * Release (in fipc_duplex_put()): our copy of the request
		 * retired here is complete before the client may write over
		 * it.
		 */
		fipc_duplex_put(&s->slots[cslot], reply, flag);
		s->unanswered = unanswered - 1;
		s->reply_flag = fipc_duplex_move_one(&s->complete,
						     &s->complete_slot,
						     pos, cslot, mask, flag,
						     FIPC_DUPLEX_REPLY,
						     s->lap_shift);
		return 0;
	}
	return fipc_duplex_reply_slow(s, reply);
}

/* Bursts: the one-at-a-time calls, with the cursors kept in registers. */

/*
 * The burst calls' step: copy the one-slot message at @slot into @buf if
 * its flag, read with acquire (the copy stays after it), is @want.
 * Return: the flag found.
 */
static inline u32 fipc_duplex_take_if(const struct fipc_slot *slot, u64 want,
				      struct fipc_msg *buf)
{
	/* Acquire: pairs with the peer's release of the flag. */
	fipc_last_t last = fipc_slot_acquire(slot);
	u32 flag = fipc_last_flag(last);

	if (flag == want)
		fipc_slot_copy_last(slot, buf, last);
	return flag;
}

/*
 * The burst calls' loop: take the run of one-slot messages of @kind from
 * the slot index *@slot on (position @pos, flag *@want), at most @lim of
 * them, into @bufs, stepping *@slot and *@want past each; *@found is the
 * last flag read (0 if none).  Always inline: the caller's cursors stay
 * in registers across the copies' compiler barriers.
 * Return: how many were taken.
 */
static __always_inline unsigned int
fipc_duplex_take_run(const struct fipc_slot *slots, u32 mask, u32 shift,
		     u32 kind, u32 pos, u32 *slot, u64 *want, u32 *found,
		     struct fipc_msg *const *bufs, unsigned int lim)
{
	unsigned int n;
	u32 flag = 0;

	for (n = 0; n < lim; n++) {
		flag = fipc_duplex_take_if(&slots[*slot], *want, bufs[n]);
		if (unlikely(flag != *want))
			break;
		*want = fipc_duplex_step_one(slot, mask, *want, kind,
					     pos + n + 1, shift);
	}
	*found = flag;
	return n;
}

/**
 * fipc_duplex_take_replies() - take up to @max replies, in ring order
 * @c: the client
 * @bufs: pointers to private buffers, one slot of payload each
 * @max: how many replies to take at most
 *
 * As fipc_duplex_take_reply() called until it fails or @max times: a run
 * of one-position replies is taken with the cursors in registers, and
 * whatever else is at the done cursor (acknowledgments, a longer span,
 * nothing, a bad flag) is left to fipc_duplex_take_reply() itself, so
 * that the burst accepts and rejects exactly what it does.
 *
 * Return: the number of replies taken into @bufs, 1..@max (a bad flag
 * after the first stops the burst; the next call returns the sticky
 * error); 0 if @max is 0; else as fipc_duplex_take_reply().
 */
static inline int fipc_duplex_take_replies(struct fipc_duplex_client *c,
					   struct fipc_msg *const *bufs,
					   unsigned int max)
{
	u32 pos = c->done, dslot = c->done_slot, calls = c->calls, flag;
	unsigned int n, lim = max < calls ? max : calls;
	u64 want = c->reply_flag;

	/* One bound for the buffers and the calls waiting. */
	n = fipc_duplex_take_run(c->slots, c->mask, c->lap_shift,
				 FIPC_DUPLEX_REPLY, pos, &dslot, &want, &flag,
				 bufs, lim);
	if (n) {
		c->limit += n;
		c->done = pos + n;
		c->done_slot = dslot;
		c->calls = calls - n;
		c->reply_flag = want;
	}
	if (n == max)
		return n;
	/* Our own call, unanswered: as fipc_duplex_take_reply() says it. */
	if (n < calls && flag == fipc_duplex_rekind(want, FIPC_DUPLEX_REPLY,
						    FIPC_DUPLEX_CALL) &&
	    pos + n != c->submit)
		return n ? (int)n : -EAGAIN;
	/* Anything else, out of line: what fipc_duplex_take_reply() takes. */
	return fipc_duplex_take_replies_slow(c, bufs, n, max);
}

/**
 * fipc_duplex_take_requests() - take up to @max one-slot calls, in order
 * @s: the server
 * @bufs: pointers to private buffers, one slot of payload each
 * @max: how many calls to take at most
 *
 * As fipc_duplex_take_request() with one-slot buffers, for one-slot
 * calls only: the burst stops at anything else and leaves it in the
 * ring, after checking it as fipc_duplex_take_request() does (a bad flag
 * breaks the ring here too).  Each call taken needs one reply.
 *
 * Return: the number of calls taken into @bufs, 1..@max (a bad flag
 * after the first stops the burst; the next call returns the sticky
 * error); 0 if @max is 0 or a request of another kind is next (take it
 * with fipc_duplex_take_request()); -EAGAIN if no request is there;
 * -EPROTO if the client broke the protocol.
 */
static inline int fipc_duplex_take_requests(struct fipc_duplex_server *s,
					    struct fipc_msg *const *bufs,
					    unsigned int max)
{
	u32 pos = s->read, rslot = s->read_slot, flag;
	u32 room = s->mask + 1 - (pos - s->complete);
	unsigned int n, lim = max < room ? max : room;
	u64 want = s->call_flag;
	int err;

	n = fipc_duplex_take_run(s->slots, s->mask, s->lap_shift,
				 FIPC_DUPLEX_CALL, pos, &rslot, &want, &flag,
				 bufs, lim);
	if (n) {
		s->read = pos + n;
		s->read_slot = rslot;
		s->call_flag = want;
		s->unanswered += n;
	}
	if (n == max)
		return n;
	/*
	 * Nothing yet: the reply or acknowledgment one lap back, at a
	 * position we have retired (as fipc_duplex_take_request() says it,
	 * reading the line once a poll; a broken server's @want, and so
	 * this flag, matches nothing).
	 */
	if (n < room && flag == fipc_duplex_stale_flag(want, FIPC_DUPLEX_REPLY))
		return n ? (int)n : -EAGAIN;
	/*
	 * Checked, never taken (no buffer): the sticky error if bad.  Out
	 * of line; fipc_duplex_take_request()'s fast paths need a buffer.
	 */
	err = fipc_duplex_take_request_slow(s, NULL, 0, NULL);
	if (n)
		return n;
	return err == -EMSGSIZE ? 0 : err;
}

/**
 * fipc_duplex_reply_n() - answer @n calls taken earlier, in one go
 * @s: the server
 * @replies: pointers to the replies, one slot of payload each
 * @n: their number
 *
 * As fipc_duplex_reply() for each reply in turn: the first retires what
 * no other call needs, each later one exactly its own position.
 *
 * Return: 0; -EINVAL if fewer than @n calls wait for a reply (nothing is
 * written then); -EPROTO if the client broke the protocol (sticky).
 */
static inline int fipc_duplex_reply_n(struct fipc_duplex_server *s,
				      const struct fipc_msg *const *replies,
				      unsigned int n)
{
	struct fipc_slot *slots = s->slots;
	u32 pos = s->complete, cslot = s->complete_slot, mask = s->mask;
	u32 unanswered = s->unanswered, flag = s->reply_flag, i;
	fipc_last_t hi;

	/*
	 * The common burst: every position read is held by an unanswered
	 * call (fipc_duplex_reply()'s fast case), so each reply retires
	 * exactly its own position, one after another.  Anything else (a
	 * first reply that retires more, too few calls, a broken ring, no
	 * reply) out of line.
	 */
	if (unlikely(!n || n > unanswered || s->read - pos != unanswered ||
		     s->error))
		return fipc_duplex_reply_n_slow(s, replies, n);
	hi = fipc_last_of_flag(flag);
	for (i = 0; i < n; i++) {
		/*
		 * Release: our copy of the request retired here is complete
		 * before the client may write over it.
		 */
		fipc_slot_publish_last(&slots[cslot], replies[i]->data, hi);
		pos++;
		if (likely(cslot != mask)) {
			cslot++;
		} else {
			cslot = 0;
			flag = fipc_duplex_flag(FIPC_DUPLEX_REPLY, 1, pos,
						s->lap_shift);
			hi = fipc_last_of_flag(flag);
		}
	}
	s->complete = pos;
	s->complete_slot = cslot;
	s->reply_flag = flag;
	s->unanswered = unanswered - n;
	return 0;
}

/**
 * fipc_duplex_reply_ready() - cheap check for a poll loop
 * @c: the client
 *
 * Reads one flag and copies nothing.
 *
 * Return: true if fipc_duplex_take_reply() should be called: a reply or
 * an acknowledgment is there, or a flag it will reject.
 */
static inline bool fipc_duplex_reply_ready(const struct fipc_duplex_client *c)
{
	u32 flag = fipc_last_flag(fipc_slot_peek(&c->slots[c->done_slot]));
	u32 span;

	return fipc_duplex_client_look(c, flag, &span) !=
	       FIPC_DUPLEX_FOUND_NOTHING;
}

/**
 * fipc_duplex_request_ready() - cheap check for a poll loop
 * @s: the server
 *
 * Reads one flag and copies nothing.
 *
 * Return: true if fipc_duplex_take_request() should be called: a
 * request is there, or a flag it will reject.
 */
static inline bool fipc_duplex_request_ready(const struct fipc_duplex_server *s)
{
	u32 flag = fipc_last_flag(fipc_slot_peek(&s->slots[s->read & s->mask]));

	return !fipc_duplex_server_idle(s, flag);
}

/**
 * fipc_duplex_room() - positions the client may fill without looking
 * @c: the client
 *
 * Private state only: acknowledgments not taken yet are not counted.
 *
 * Return: the number of slots a request may use now, 0..ring size.
 */
static inline unsigned int fipc_duplex_room(const struct fipc_duplex_client *c)
{
	return c->mask + 1 - (c->submit - c->done);
}

/**
 * fipc_duplex_calls() - calls waiting for their reply
 * @c: the client
 *
 * Return: calls sent whose reply has not been taken.
 */
static inline unsigned int fipc_duplex_calls(const struct fipc_duplex_client *c)
{
	return c->calls;
}

/**
 * fipc_duplex_unanswered() - calls taken and not answered yet
 * @s: the server
 *
 * Return: the number of fipc_duplex_reply() calls still owed.
 */
static inline unsigned int
fipc_duplex_unanswered(const struct fipc_duplex_server *s)
{
	return s->unanswered;
}

/**
 * fipc_duplex_client_error() - the sticky protocol error of a client
 * @c: the client
 *
 * Return: 0 while the server has followed the protocol, else -EPROTO.
 */
static inline int fipc_duplex_client_error(const struct fipc_duplex_client *c)
{
	return c->error;
}

/**
 * fipc_duplex_server_error() - the sticky protocol error of a server
 * @s: the server
 *
 * Return: 0 while the client has followed the protocol, else -EPROTO.
 */
static inline int fipc_duplex_server_error(const struct fipc_duplex_server *s)
{
	return s->error;
}

#endif /* _FIPC_FIPC_DUPLEX_H */
