// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the fipc duplex ring (fipc_duplex.h), both ends,
 * against hostile ring memory.
 *
 * The input picks the ring order, the server's acknowledgment batch, the
 * starting position, raw initial contents of the ring, and then a
 * sequence of operations: library calls of the client and of the server
 * (which share the ring, each the other's peer), and writes of a hostile
 * peer (raw flags and bytes anywhere near the cursors, or well-formed
 * requests and replies at places the protocol forbids or allows).
 *
 * Each library call is checked against a reference model of the
 * protocol written from docs/protocol.md ("Duplex ring"), not from the
 * library: the exact return value, both ends' private cursors and sticky
 * errors, the bytes copied out, and every byte of shared memory the call
 * changed.  The ring lies between two inaccessible pages, so any access
 * outside it faults; private buffers are heap blocks of the exact size,
 * so ASan catches an overrun.
 *
 * The entry point's name is given by the build (-DFUZZ_ENTRY=...).
 */
#include <fipc/fipc_duplex.h>
#include "fuzz_input.h"

#define MAX_OPS		512
#define MAX_BUF		40	/* > FIPC_MSG_MAX_SLOTS: also too big */
#define MSG_MAX		32
#define SPAN_MAX	255
#define BURST_MAX	64	/* the longest burst of the burst calls */

/* The wire format, from docs/protocol.md. */
#define K_CALL		0xc1u
#define K_POST		0xc2u
#define K_REPLY		0xc4u
#define K_ACK		0xc8u

static struct fipc_slot *ring_mem[FIPC_MAX_ORDER + 1];

/**
 * struct model_client - what the protocol says the client's state is
 * @submit: next position to write a request at
 * @done: next position to read a reply at
 * @calls: calls without their reply
 * @err: the sticky error
 */
struct model_client {
	u32 submit;
	u32 done;
	u32 calls;
	int err;
};

/**
 * struct model_server - what the protocol says the server's state is
 * @read: next position to read a request at
 * @complete: next position to write a reply or acknowledgment at
 * @unanswered: calls read without their reply
 * @batch: the acknowledgment batch
 * @err: the sticky error
 */
struct model_server {
	u32 read;
	u32 complete;
	u32 unanswered;
	u32 batch;
	int err;
};

/**
 * struct world - one fuzz case
 * @order: ring order
 * @slots: slots in the ring
 * @mem: the ring
 * @c: the client under test
 * @s: the server under test
 * @mc: the client's model
 * @ms: the server's model
 * @shadow: the ring as the model expects it
 */
struct world {
	unsigned int order;
	unsigned int slots;
	struct fipc_slot *mem;
	struct fipc_duplex_client c;
	struct fipc_duplex_server s;
	struct model_client mc;
	struct model_server ms;
	struct fipc_slot shadow[FIPC_RING_SLOTS(FIPC_MAX_ORDER)];
};

static struct world w;

/* A position's stamp: the low 16 bits of its lap (docs/protocol.md). */
static u32 stamp_of(u32 pos)
{
	return (pos / w.slots) & 0xffff;
}

static u32 flag_of(u32 kind, u32 count, u32 pos)
{
	return kind << 24 | count << 16 | stamp_of(pos);
}

static u32 kind_of(u32 flag)
{
	return flag >> 24;
}

static u32 count_of(u32 flag)
{
	return (flag >> 16) & 0xff;
}

static bool stamped(u32 flag, u32 pos)
{
	return (flag & 0xffff) == stamp_of(pos);
}

static struct fipc_slot *shadow_at(u32 pos)
{
	return &w.shadow[pos & (w.slots - 1)];
}

static void snapshot(void)
{
	memcpy(w.shadow, w.mem, w.slots * FIPC_SLOT_BYTES);
}

/* After a library call: state as modelled, memory as the shadow. */
static void compare(void)
{
	unsigned int i;

	CHECK(w.c.submit == w.mc.submit);
	CHECK(w.c.done == w.mc.done);
	/* The slot kept beside each client cursor is the cursor's. */
	CHECK(w.c.submit_slot == (w.mc.submit & (w.slots - 1)));
	CHECK(w.c.done_slot == (w.mc.done & (w.slots - 1)));
	CHECK(w.c.calls == w.mc.calls);
	CHECK(w.c.error == w.mc.err);
	/* So are the server's, and each side's expected flags. */
	CHECK(w.s.read_slot == (w.ms.read & (w.slots - 1)));
	CHECK(w.s.complete_slot == (w.ms.complete & (w.slots - 1)));
	CHECK(w.c.call_flag == flag_of(K_CALL, 1, w.mc.submit));
	CHECK(w.c.reply_flag == (w.mc.err ? FIPC_DUPLEX_BROKEN :
				 flag_of(K_REPLY, 1, w.mc.done)));
	CHECK(w.c.limit == (w.mc.err ? w.mc.submit : w.mc.done + w.slots));
	CHECK(w.s.reply_flag == flag_of(K_REPLY, 1, w.ms.complete));
	CHECK(w.s.call_flag == (w.ms.err ? FIPC_DUPLEX_BROKEN :
				flag_of(K_CALL, 1, w.ms.read)));
	CHECK(fipc_duplex_client_error(&w.c) == w.mc.err);
	CHECK(w.s.read == w.ms.read);
	CHECK(w.s.complete == w.ms.complete);
	CHECK(w.s.unanswered == w.ms.unanswered);
	CHECK(w.s.ack_batch == w.ms.batch);
	CHECK(w.s.error == w.ms.err);
	CHECK(fipc_duplex_server_error(&w.s) == w.ms.err);
	/* The client never holds more positions than the ring has. */
	CHECK(w.mc.submit - w.mc.done <= w.slots);
	CHECK(w.mc.calls <= w.mc.submit - w.mc.done);
	CHECK(w.ms.unanswered <= w.ms.read - w.ms.complete);
	CHECK(w.ms.read - w.ms.complete <= w.slots);
	for (i = 0; i < w.slots; i++)
		CHECK(!memcmp(&w.mem[i], &w.shadow[i], sizeof(w.shadow[i])));
}

/*
 * May @flag be what position @pos minus a ring left in its slot: a
 * request slot, or (@replies) a reply or acknowledgment, stamped with
 * that position; zero if that position was never written.
 */
static bool model_stale(u32 flag, u32 pos, bool replies)
{
	u32 count = count_of(flag);

	if (!flag)
		return pos < w.slots;
	if (!stamped(flag, pos - w.slots))
		return false;
	switch (kind_of(flag)) {
	case K_CALL:
	case K_POST:
		return count <= MSG_MAX;
	case K_REPLY:
	case K_ACK:
		return replies && count >= 1;
	}
	return false;
}

enum found { NOTHING, REPLY, ACK, BAD };

/* What the client finds at its done cursor. */
static enum found model_look(u32 flag, u32 *span)
{
	u32 held = w.mc.submit - w.mc.done, count = count_of(flag);

	if (!held)
		return model_stale(flag, w.mc.done, true) ? NOTHING : BAD;
	if (!stamped(flag, w.mc.done))
		return BAD;
	switch (kind_of(flag)) {
	case K_CALL:
	case K_POST:
		return count <= MSG_MAX ? NOTHING : BAD;
	case K_REPLY:
		/* one position stays for each other waiting call */
		if (!w.mc.calls || !count || count > held - (w.mc.calls - 1))
			return BAD;
		*span = count;
		return REPLY;
	case K_ACK:
		if (!count || count > held - w.mc.calls)
			return BAD;
		*span = count;
		return ACK;
	}
	return BAD;
}

static struct fipc_msg *buf_alloc(unsigned int n)
{
	struct fipc_msg *b = malloc(n ? n * sizeof(*b) : 1);

	CHECK(b);
	if (n)
		memset(b, 0xcd, n * sizeof(*b));
	return b;
}

static void check_untouched(const struct fipc_msg *b, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < FIPC_SLOT_PAYLOAD; j++)
			CHECK(b[i].data[j] == 0xcd);
}

/* The client */

static void op_submit(unsigned int n, bool posted)
{
	struct fipc_msg *m = buf_alloc(n);
	u32 pos = w.mc.submit, span = 0, i;
	int got, want = 0;

	for (i = 0; i < n; i++)
		memset(m[i].data, (u8)(pos + i), FIPC_SLOT_PAYLOAD);
	snapshot();
	got = posted ? fipc_duplex_post(&w.c, m, n) :
		       fipc_duplex_call(&w.c, m, n);
	if (w.mc.err) {
		want = w.mc.err;
	} else if (!n || n > MSG_MAX) {
		want = -EINVAL;
	} else {
		/* room is private; only if short, acknowledgments */
		while (w.slots - (w.mc.submit - w.mc.done) < n) {
			enum found f = model_look(shadow_at(w.mc.done)->flag,
						  &span);

			if (f == ACK) {
				w.mc.done += span;
				continue;
			}
			want = f == BAD ? -EPROTO : -EAGAIN;
			if (f == BAD)
				w.mc.err = -EPROTO;
			break;
		}
	}
	if (!want) {
		for (i = 0; i < n; i++) {
			memcpy(shadow_at(pos + i)->payload, m[i].data,
			       FIPC_SLOT_PAYLOAD);
			shadow_at(pos + i)->flag =
				flag_of(posted ? K_POST : K_CALL, i ? 0 : n,
					pos + i);
		}
		w.mc.submit += n;
		w.mc.calls += !posted;
	}
	CHECK(got == want);
	compare();
	free(m);
}

/* The model's fipc_duplex_take_reply(): its result, the reply's slot. */
static int model_take_reply(struct fipc_slot *payload)
{
	u32 span = 0;
	enum found f;

	for (;;) {
		if (w.mc.err)
			return w.mc.err;
		f = model_look(shadow_at(w.mc.done)->flag, &span);
		if (f != ACK)
			break;
		w.mc.done += span;
	}
	if (f == REPLY) {
		*payload = *shadow_at(w.mc.done);
		w.mc.done += span;
		w.mc.calls--;
		return 0;
	}
	if (f == NOTHING)
		return -EAGAIN;
	w.mc.err = -EPROTO;
	return -EPROTO;
}

static void op_take_reply(void)
{
	struct fipc_msg *b = buf_alloc(1);
	struct fipc_slot want_payload;
	int got, want;

	snapshot();
	got = fipc_duplex_take_reply(&w.c, b);
	want = model_take_reply(&want_payload);
	CHECK(got == want);
	if (!got)
		CHECK(!memcmp(b->data, want_payload.payload,
			      FIPC_SLOT_PAYLOAD));
	else
		check_untouched(b, 1);
	compare();
	free(b);
}

/*
 * After a burst into the @k buffers @b: the first @n hold the payloads
 * of @want, the rest are untouched; state and memory as modelled.
 */
static void check_burst(struct fipc_msg *b, const struct fipc_slot *want,
			unsigned int n, unsigned int k)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		CHECK(!memcmp(b[i].data, want[i].payload, FIPC_SLOT_PAYLOAD));
	check_untouched(b + n, k - n);
	compare();
	free(b);
}

/* Up to @k replies in one burst: as many single takes until one fails. */
static void op_take_replies(unsigned int k)
{
	struct fipc_msg *b = buf_alloc(k), *p[BURST_MAX];
	struct fipc_slot want_slots[BURST_MAX];
	unsigned int i, n;
	int got, want = 0;

	for (i = 0; i < k; i++)
		p[i] = &b[i];
	snapshot();
	got = fipc_duplex_take_replies(&w.c, p, k);
	for (n = 0; n < k; n++) {
		want = model_take_reply(&want_slots[n]);
		if (want)
			break;
	}
	if (n)
		want = n;
	CHECK(got == want);
	check_burst(b, want_slots, n, k);
}

static void op_reply_ready(void)
{
	u32 span;

	snapshot();
	CHECK(fipc_duplex_reply_ready(&w.c) ==
	      (model_look(shadow_at(w.mc.done)->flag, &span) != NOTHING));
	CHECK(fipc_duplex_room(&w.c) == w.slots - (w.mc.submit - w.mc.done));
	CHECK(fipc_duplex_calls(&w.c) == w.mc.calls);
	compare();
}

static void op_client_wait(unsigned int spin)
{
	struct fipc_waiter wt;
	u32 span;
	int got, want;

	CHECK(!fipc_waiter_init(&wt, FIPC_WAIT_PAUSE, spin, NULL, NULL));
	snapshot();
	got = fipc_duplex_client_wait(&w.c, &wt);
	if (w.mc.err)
		want = w.mc.err;
	else if (model_look(shadow_at(w.mc.done)->flag, &span) != NOTHING)
		want = 0;
	else
		want = -ETIMEDOUT;
	CHECK(got == want);
	CHECK(wt.empty_polls == (want == -ETIMEDOUT ? spin : 0));
	compare();
}

/* The server */

static void model_ack(u32 n)
{
	u32 span;

	while (n) {
		span = n < SPAN_MAX ? n : SPAN_MAX;
		shadow_at(w.ms.complete)->flag =
			flag_of(K_ACK, span, w.ms.complete);
		w.ms.complete += span;
		n -= span;
	}
}

static u32 model_retirable(void)
{
	return w.ms.read - w.ms.complete - w.ms.unanswered;
}

/*
 * What fipc_duplex_take_request() with room for @max slots finds at the
 * read cursor: its result, the error set if the flag is bad, nothing
 * taken; the request's length and kind if there is one.
 */
static int model_request_look(unsigned int max, u32 *len_out, u32 *kind)
{
	u32 pos = w.ms.read, flag = shadow_at(pos)->flag, len = 0, i;
	int want;

	*kind = kind_of(flag);
	if (w.ms.err) {
		want = w.ms.err;
	} else if ((*kind == K_CALL || *kind == K_POST) && stamped(flag, pos)) {
		len = count_of(flag);
		want = len;
		if (!len || len > MSG_MAX ||
		    pos + len - w.ms.complete > w.slots)
			want = -EPROTO;
		else if (len > max)
			want = -EMSGSIZE;
		for (i = 1; want > 0 && i < len; i++)
			if (shadow_at(pos + i)->flag !=
			    flag_of(*kind, 0, pos + i))
				want = -EPROTO;
		if (want == -EPROTO)
			w.ms.err = -EPROTO;
	} else if (model_stale(flag, pos, pos - w.ms.complete < w.slots)) {
		want = -EAGAIN;
	} else {
		w.ms.err = -EPROTO;
		want = -EPROTO;
	}
	*len_out = len;
	return want;
}

static void op_take_request(unsigned int max)
{
	struct fipc_msg *b = buf_alloc(max);
	struct fipc_slot *want_slots = NULL;
	u32 pos = w.ms.read, kind, len, i, n;
	bool posted = false, want_posted = false;
	int got, want;

	snapshot();
	got = fipc_duplex_take_request(&w.s, b, max, &posted);
	want = model_request_look(max, &len, &kind);
	if (want > 0) {
		want_slots = malloc(len * sizeof(*want_slots));
		CHECK(want_slots);
		for (i = 0; i < len; i++)
			want_slots[i] = *shadow_at(pos + i);
		w.ms.read += len;
		w.ms.unanswered += kind == K_CALL;
		want_posted = kind == K_POST;
		n = model_retirable();
		if (n && (want_posted || n >= w.ms.batch))
			model_ack(n);
	}
	CHECK(got == want);
	if (got > 0) {
		CHECK(posted == want_posted);
		for (i = 0; i < len; i++)
			CHECK(!memcmp(b[i].data, want_slots[i].payload,
				      FIPC_SLOT_PAYLOAD));
	} else {
		check_untouched(b, max);
	}
	compare();
	free(want_slots);
	free(b);
}

/*
 * Up to @k one-slot calls in one burst; whatever else is next is looked
 * at as fipc_duplex_take_request() would, and left in the ring.
 */
static void op_take_requests(unsigned int k)
{
	struct fipc_msg *b = buf_alloc(k), *p[BURST_MAX];
	struct fipc_slot want_slots[BURST_MAX];
	unsigned int i, n = 0;
	u32 pos, len, kind;
	int got, want = 0;

	for (i = 0; i < k; i++)
		p[i] = &b[i];
	snapshot();
	got = fipc_duplex_take_requests(&w.s, p, k);
	for (; n < k; n++) {
		pos = w.ms.read;
		if (w.ms.err || shadow_at(pos)->flag != flag_of(K_CALL, 1, pos) ||
		    pos - w.ms.complete >= w.slots) {
			want = model_request_look(0, &len, &kind);
			break;
		}
		want_slots[n] = *shadow_at(pos);
		w.ms.read++;
		w.ms.unanswered++;
	}
	if (n)
		want = n;
	else if (want == -EMSGSIZE)
		want = 0;
	CHECK(got == want);
	check_burst(b, want_slots, n, k);
}

/* The model's fipc_duplex_reply() of @m. */
static int model_reply(const struct fipc_msg *m)
{
	u32 pos = w.ms.complete, span;

	if (w.ms.err)
		return w.ms.err;
	if (!w.ms.unanswered)
		return -EINVAL;
	span = model_retirable() + 1;
	CHECK(span <= w.ms.batch && span <= SPAN_MAX);
	memcpy(shadow_at(pos)->payload, m->data, FIPC_SLOT_PAYLOAD);
	shadow_at(pos)->flag = flag_of(K_REPLY, span, pos);
	w.ms.complete += span;
	w.ms.unanswered--;
	return 0;
}

static void op_reply(void)
{
	struct fipc_msg *m = buf_alloc(1);
	int got;

	memset(m->data, (u8)~w.ms.complete, FIPC_SLOT_PAYLOAD);
	snapshot();
	got = fipc_duplex_reply(&w.s, m);
	CHECK(got == model_reply(m));
	compare();
	free(m);
}

/* @k replies in one go: all of them, or none if fewer calls wait. */
static void op_reply_n(unsigned int k)
{
	struct fipc_msg *b = buf_alloc(k);
	const struct fipc_msg *p[BURST_MAX];
	unsigned int i;
	int got, want = 0;

	for (i = 0; i < k; i++) {
		memset(b[i].data, (u8)(w.ms.complete + i * 7), FIPC_SLOT_PAYLOAD);
		p[i] = &b[i];
	}
	snapshot();
	got = fipc_duplex_reply_n(&w.s, p, k);
	if (w.ms.err)
		want = w.ms.err;
	else if (k > w.ms.unanswered)
		want = -EINVAL;
	for (i = 0; !want && i < k; i++)
		CHECK(!model_reply(&b[i]));
	CHECK(got == want);
	compare();
	free(b);
}

static void op_flush(void)
{
	snapshot();
	fipc_duplex_server_flush(&w.s);
	if (!w.ms.err)
		model_ack(model_retirable());
	compare();
}

static void op_request_ready(void)
{
	u32 pos = w.ms.read;

	snapshot();
	CHECK(fipc_duplex_request_ready(&w.s) ==
	      !model_stale(shadow_at(pos)->flag, pos,
			   pos - w.ms.complete < w.slots));
	CHECK(fipc_duplex_unanswered(&w.s) == w.ms.unanswered);
	compare();
}

static void op_server_wait(unsigned int spin)
{
	struct fipc_waiter wt;
	u32 pos = w.ms.read;
	int got, want;

	CHECK(!fipc_waiter_init(&wt, FIPC_WAIT_PAUSE, spin, NULL, NULL));
	snapshot();
	got = fipc_duplex_server_wait(&w.s, &wt);
	if (w.ms.err) {
		want = w.ms.err;
	} else if (!model_stale(shadow_at(pos)->flag, pos,
				pos - w.ms.complete < w.slots)) {
		want = 0;
	} else {
		/* everything it holds is handed back before giving up */
		model_ack(model_retirable());
		want = -ETIMEDOUT;
	}
	CHECK(got == want);
	CHECK(wt.empty_polls == (want == -ETIMEDOUT ? spin : 0));
	compare();
}

static void op_set_batch(unsigned int batch)
{
	int got, want;

	snapshot();
	got = fipc_duplex_set_ack_batch(&w.s, batch);
	if (!batch || batch > w.slots || batch > SPAN_MAX) {
		want = -EINVAL;
	} else if (model_retirable()) {
		want = -EBUSY;
	} else {
		want = 0;
		w.ms.batch = batch;
	}
	CHECK(got == want);
	compare();
}

/* The hostile peer: writes, no checks. */

/* A well-formed request of @len slots at @pos, as any client could. */
static void peer_request(struct input *in, u32 pos, unsigned int len,
			 u32 kind)
{
	struct fipc_slot *s;
	unsigned int i;

	for (i = len; i-- > 0; ) {
		s = &w.mem[(pos + i) & (w.slots - 1)];
		in_bytes(in, s->payload, 4);
		s->flag = flag_of(kind, i ? 0 : len, pos + i);
	}
}

/* A reply or acknowledgment of @span at @pos, as any server could. */
static void peer_reply(struct input *in, u32 pos, u32 span, u32 kind)
{
	struct fipc_slot *s = &w.mem[pos & (w.slots - 1)];

	in_bytes(in, s->payload, 4);
	s->flag = flag_of(kind, span, pos);
}

static void setup(struct input *in)
{
	u8 hdr = in_u8(in), b = in_u8(in);
	u32 start = 0, i, n, slots;

	memset(&w, 0, sizeof(w));
	w.order = hdr % (FIPC_MAX_ORDER + 1);
	slots = FIPC_RING_SLOTS(w.order);
	w.slots = slots;
	w.mem = ring_mem[w.order];
	fipc_ring_clear(w.mem, w.order);
	CHECK(!fipc_duplex_client_init(&w.c, w.mem, w.order));
	CHECK(!fipc_duplex_server_init(&w.s, w.mem, w.order));
	w.ms.batch = w.s.ack_batch;
	CHECK(w.ms.batch == (slots / 4 < SPAN_MAX ? slots / 4 : SPAN_MAX));
	if (b) {
		b = 1 + b % (slots < SPAN_MAX ? slots : SPAN_MAX);
		CHECK(!fipc_duplex_set_ack_batch(&w.s, b));
		w.ms.batch = b;
	}
	/* a later point in the ring's life: every cursor moved on */
	if (hdr & 0x80)
		start = in_u32(in);
	fipc_duplex_client_seek(&w.c, start);
	fipc_duplex_server_seek(&w.s, start);
	w.mc.submit = start;
	w.mc.done = start;
	w.ms.read = start;
	w.ms.complete = start;
	/* raw initial contents: whole slots, from the cursor on */
	n = in_u8(in) % 65;
	for (i = 0; i < n; i++)
		in_bytes(in, &w.mem[(start + i) & (slots - 1)],
			 FIPC_SLOT_BYTES);
}

int FUZZ_ENTRY(const u8 *data, size_t size);

int FUZZ_ENTRY(const u8 *data, size_t size)
{
	struct input in = { data, size };
	unsigned int ops, i;
	u8 op, arg;
	u32 v;

	if (!ring_mem[0])
		for (i = 0; i <= FIPC_MAX_ORDER; i++)
			ring_mem[i] = guarded_ring(i);
	setup(&in);
	for (ops = 0; ops < MAX_OPS && in.left; ops++) {
		op = in_u8(&in);
		arg = in_u8(&in);
		switch (op % 23) {
		case 0:
		case 1:
			op_submit(arg % 4 ? 1 + arg % 4 / 3 : arg % (MAX_BUF + 1),
				  false);
			break;
		case 2:
			op_submit(arg % 3 ? 1 : arg % (MAX_BUF + 1), true);
			break;
		case 3:
		case 4:
			op_take_reply();
			break;
		case 5:
			op_reply_ready();
			break;
		case 6:
			op_client_wait(1 + arg % 4);
			break;
		case 7:
		case 8:
			op_take_request(arg % (MAX_BUF + 1));
			break;
		case 9:
		case 10:
			op_reply();
			break;
		case 11:
			op_flush();
			break;
		case 12:
			op_request_ready();
			break;
		case 13:
			op_server_wait(1 + arg % 4);
			break;
		case 14:
			op_set_batch(arg);
			break;
		case 15:
			/* a raw flag near the server's or the client's cursor */
			v = in_u32(&in);
			w.mem[((arg & 1 ? w.s.read : w.c.done) + (arg >> 1)) &
			      (w.slots - 1)].flag = v;
			break;
		case 16:
			/* payload bytes anywhere */
			in_bytes(&in, w.mem[(w.s.read + arg) &
					    (w.slots - 1)].payload, 8);
			break;
		case 17:
			/* a well-formed request at or near the read cursor */
			v = in_u8(&in);
			peer_request(&in, w.s.read + (v >> 4),
				     1 + arg % MSG_MAX,
				     v & 1 ? K_POST : K_CALL);
			break;
		case 18:
			/* a reply or ack at or near the done cursor */
			v = in_u8(&in);
			peer_reply(&in, w.c.done + (v >> 4), arg,
				   v & 1 ? K_ACK : K_REPLY);
			break;
		case 20:
			op_take_replies(arg % (BURST_MAX + 1));
			break;
		case 21:
			op_take_requests(arg % (BURST_MAX + 1));
			break;
		case 22:
			op_reply_n(arg % (BURST_MAX + 1));
			break;
		default:
			/* lots of calls in one go, answered or not */
			for (i = 0; i < arg % 70; i++)
				op_submit(1, false);
			break;
		}
	}
	return 0;
}
