// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the fipc receive path (and the sender's checks of
 * slots it wants to reuse) against hostile ring memory.
 *
 * The input picks the ring order, the release batch, the starting
 * sequence number, raw initial contents of a receiving and a sending
 * ring, and then a sequence of operations: library calls on our side,
 * and writes by the peer (well-formed messages or raw flags and bytes).
 *
 * Each library call is checked against a small reference model of the
 * protocol, written from fipc.h and the functions' documentation: the
 * exact return value, the private cursors, the sticky error, the bytes
 * copied out, and every byte of shared memory the call changed.  Each
 * ring lies between two inaccessible pages, so any access outside it
 * faults; private buffers are heap blocks of the exact size, so ASan
 * catches an overrun.
 *
 * The entry point's name is given by the build (-DFUZZ_ENTRY=...).
 */
#include <fipc/fipc.h>
#include "fuzz_input.h"

#define MAX_OPS		512
#define MAX_BUF		40	/* > FIPC_MSG_MAX_SLOTS: also too big */

/* Ring memory for each order, with an inaccessible page on each side. */
static struct fipc_slot *ring_mem[2][FIPC_MAX_ORDER + 1];

/**
 * struct model - what the protocol says the receiver's state is
 * @seq: next sequence number to read
 * @rel: first consumed slot not yet freed
 * @err: the sticky error
 */
struct model {
	u32 seq;
	u32 rel;
	int err;
};

/**
 * struct world - one fuzz case
 * @order: ring order
 * @slots: slots per ring
 * @batch: the receiver's release batch
 * @rx: our receiving ring
 * @tx: our sending ring
 * @m: the model of @rx
 * @m_tx_err: the model of @tx's sticky error
 * @rx_shadow: @rx memory before the current call
 * @tx_shadow: @tx memory before the current call
 * @peer_seq: where the peer writes its next well-formed message in @rx
 * @peer_free: the next slot of @tx the peer frees
 */
struct world {
	unsigned int order;
	unsigned int slots;
	unsigned int batch;
	struct fipc_ring rx;
	struct fipc_ring tx;
	struct model m;
	int m_tx_err;
	struct fipc_slot rx_shadow[FIPC_RING_SLOTS(FIPC_MAX_ORDER)];
	struct fipc_slot tx_shadow[FIPC_RING_SLOTS(FIPC_MAX_ORDER)];
	u32 peer_seq;
	u32 peer_free;
};

static struct world w;

static u32 ready(u32 seq, unsigned int len)
{
	return FIPC_FLAG_READY | (len << FIPC_FLAG_LEN_SHIFT) |
	       (seq & FIPC_FLAG_SEQ_MASK);
}

static struct fipc_slot *rx_shadow_at(u32 seq)
{
	return &w.rx_shadow[seq & (w.slots - 1)];
}

/* Head check of the model: length, 0 for empty, -EPROTO. */
static int model_head(void)
{
	u32 flag = rx_shadow_at(w.m.seq)->flag;
	unsigned int len;

	if (flag == FIPC_FLAG_FREE)
		return 0;
	if ((flag & ~FIPC_FLAG_LEN_MASK) != ready(w.m.seq, 0))
		return -EPROTO;
	len = (flag & FIPC_FLAG_LEN_MASK) >> FIPC_FLAG_LEN_SHIFT;
	if (!len || len > FIPC_MSG_MAX_SLOTS || len > w.slots)
		return -EPROTO;
	return len;
}

/*
 * Freeing is part of the model's view at once: a later read in the same
 * call (a burst that runs on past a batch release) sees the slot free.
 */
static void model_release(void)
{
	for (; w.m.rel != w.m.seq; w.m.rel++)
		rx_shadow_at(w.m.rel)->flag = FIPC_FLAG_FREE;
}

static void model_consumed(void)
{
	if (w.m.seq - w.m.rel >= w.batch)
		model_release();
}

static int model_fail(void)
{
	w.m.err = -EPROTO;
	return -EPROTO;
}

/*
 * After a receive-side call: the private state matches the model, and
 * the call changed shared memory only by freeing the slots it released.
 */
static void rx_after(u32 old_rel)
{
	u32 n = w.m.rel - old_rel;
	unsigned int i;

	CHECK(w.rx.seq == w.m.seq);
	CHECK(w.rx.release_seq == w.m.rel);
	CHECK(w.rx.error == w.m.err);
	CHECK(fipc_ring_error(&w.rx) == w.m.err);
	CHECK(w.m.seq - w.m.rel <= w.slots);
	CHECK(n <= w.slots);
	for (i = 0; i < w.slots; i++)
		CHECK(!memcmp(&w.rx.slots[i], &w.rx_shadow[i],
			      sizeof(w.rx_shadow[i])));
}

static void rx_before(void)
{
	memcpy(w.rx_shadow, w.rx.slots, w.slots * FIPC_SLOT_BYTES);
}

static struct fipc_msg *buf_alloc(unsigned int n)
{
	/* exact size: ASan reports a write past it; n = 0 gives a stub */
	struct fipc_msg *b = malloc(n ? n * sizeof(*b) : 1);

	CHECK(b);
	if (n)
		memset(b, 0xcd, n * sizeof(*b));
	return b;
}

static void op_recv(unsigned int max)
{
	struct fipc_msg *buf = buf_alloc(max);
	u32 old_rel = w.m.rel, seq = w.m.seq;
	int want, got, len;
	unsigned int i;

	rx_before();
	got = fipc_recv(&w.rx, buf, max);
	if (w.m.err) {
		want = w.m.err;
	} else {
		len = model_head();
		if (len < 0) {
			want = model_fail();
		} else if (!len) {
			model_release();
			want = -EAGAIN;
		} else if ((unsigned int)len > max) {
			want = -EMSGSIZE;
		} else {
			want = len;
			for (i = 1; i < (unsigned int)len; i++)
				if (rx_shadow_at(seq + i)->flag !=
				    ready(seq + i, 0))
					want = model_fail();
			if (want > 0) {
				w.m.seq += len;
				model_consumed();
			}
		}
	}
	CHECK(got == want);
	CHECK(got <= (int)max);
	if (got > 0) {
		for (i = 0; i < (unsigned int)got; i++)
			CHECK(!memcmp(buf[i].data,
				      rx_shadow_at(seq + i)->payload,
				      FIPC_SLOT_PAYLOAD));
	} else {
		/* nothing is written to the buffer on failure */
		for (i = 0; i < max; i++)
			CHECK(buf[i].data[0] == 0xcd &&
			      buf[i].data[FIPC_SLOT_PAYLOAD - 1] == 0xcd);
	}
	rx_after(old_rel);
	free(buf);
}

static void op_recv_burst(unsigned int count)
{
	struct fipc_msg *buf = buf_alloc(count);
	u32 old_rel = w.m.rel, seq = w.m.seq;
	unsigned int i, n = 0;
	int got, want, len = 0;

	rx_before();
	got = fipc_recv_burst(&w.rx, buf, count);
	if (w.m.err) {
		want = w.m.err;
	} else if (!count) {
		want = 0;	/* a burst of nothing touches nothing */
	} else {
		while (n < count) {
			len = model_head();
			if (len < 0)
				model_fail();
			if (len != 1)
				break;
			n++;
			w.m.seq++;
			model_consumed();
		}
		if (!len)
			model_release();
		want = (!n && len < 0) ? len : (int)n;
	}
	CHECK(got == want);
	CHECK(got <= (int)count);
	for (i = 0; got > 0 && i < (unsigned int)got; i++)
		CHECK(!memcmp(buf[i].data, rx_shadow_at(seq + i)->payload,
			      FIPC_SLOT_PAYLOAD));
	rx_after(old_rel);
	free(buf);
}

static void op_recv_release(void)
{
	u32 old_rel = w.m.rel;

	rx_before();
	fipc_recv_release(&w.rx);
	model_release();
	rx_after(old_rel);
}

static void op_rx_pending(unsigned int max)
{
	u32 old_rel = w.m.rel;
	unsigned int n, limit;
	int got, want;

	rx_before();
	got = fipc_rx_pending(&w.rx, max);
	if (w.m.err) {
		want = w.m.err;
	} else {
		limit = w.slots - (w.m.seq - w.m.rel);
		if (max < limit)
			limit = max;
		for (n = 0; n < limit; n++)
			if (rx_shadow_at(w.m.seq + n)->flag == FIPC_FLAG_FREE)
				break;
		want = n;
	}
	CHECK(got == want);
	CHECK(got == -EPROTO ||
	      (got >= 0 && (unsigned int)got <= max &&
	       (unsigned int)got <= w.slots));
	rx_after(old_rel);
}

static void op_rx_ready(void)
{
	u32 old_rel = w.m.rel;

	rx_before();
	CHECK(fipc_rx_ready(&w.rx) ==
	      (rx_shadow_at(w.m.seq)->flag != FIPC_FLAG_FREE));
	rx_after(old_rel);
}

static void op_wait(unsigned int spin_limit)
{
	struct fipc_waiter wt;
	u32 old_rel = w.m.rel;
	int got, want;

	CHECK(!fipc_waiter_init(&wt, FIPC_WAIT_PAUSE, spin_limit, NULL,
				NULL));
	rx_before();
	got = fipc_wait_rx(&w.rx, &wt);
	if (w.m.err) {
		want = w.m.err;
	} else if (rx_shadow_at(w.m.seq)->flag != FIPC_FLAG_FREE) {
		want = 0;
	} else {
		model_release();
		want = -ETIMEDOUT;
	}
	CHECK(got == want);
	CHECK(wt.empty_polls == (want == -ETIMEDOUT ? spin_limit : 0));
	CHECK(wt.sleeps == 0);
	rx_after(old_rel);
}

/* The peer writes a well-formed message of @len slots into @rx. */
static void peer_send(struct input *in, unsigned int len)
{
	struct fipc_slot *s;
	unsigned int i;

	/* behind the receiver (a huge difference) or a lap ahead */
	if (w.peer_seq - w.rx.seq >= w.slots)
		w.peer_seq = w.rx.seq;
	for (i = len; i-- > 0; ) {
		s = &w.rx.slots[(w.peer_seq + i) & (w.slots - 1)];
		in_bytes(in, s->payload, i ? 4 : 16);
		s->flag = ready(w.peer_seq + i, i ? 0 : len);
	}
	w.peer_seq += len;
}

/* The peer fills @n slots with well-formed one-slot messages. */
static void peer_fill(unsigned int n)
{
	struct fipc_slot *s;

	if (w.peer_seq - w.rx.seq >= w.slots)
		w.peer_seq = w.rx.seq;
	while (n--) {
		s = &w.rx.slots[w.peer_seq & (w.slots - 1)];
		memset(s->payload, (u8)w.peer_seq, FIPC_SLOT_PAYLOAD);
		s->flag = ready(w.peer_seq++, 1);
	}
}

/* The sender side: our ring, the peer frees or scribbles. */

static struct fipc_slot *tx_shadow_at(u32 seq)
{
	return &w.tx_shadow[seq & (w.slots - 1)];
}

/*
 * 0 free, -EAGAIN our message of one lap ago (a length we could have
 * written), -EPROTO anything else.
 */
static int model_tx_slot(u32 seq)
{
	u32 flag = tx_shadow_at(seq)->flag;

	if (flag == FIPC_FLAG_FREE)
		return 0;
	if ((flag & ~FIPC_FLAG_LEN_MASK) == ready(seq - w.slots, 0) &&
	    (flag & FIPC_FLAG_LEN_MASK) >> FIPC_FLAG_LEN_SHIFT <=
	    FIPC_MSG_MAX_SLOTS)
		return -EAGAIN;
	return -EPROTO;
}

static void tx_check_mem(void)
{
	unsigned int i;

	CHECK(w.tx.error == w.m_tx_err);
	for (i = 0; i < w.slots; i++)
		CHECK(!memcmp(&w.tx.slots[i], &w.tx_shadow[i],
			      sizeof(w.tx_shadow[i])));
}

static void make_msgs(struct fipc_msg *m, unsigned int n, u32 tag)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		memset(m[i].data, (u8)(tag + i), FIPC_SLOT_PAYLOAD);
}

static void op_send(unsigned int nslots)
{
	struct fipc_msg *m = buf_alloc(nslots);
	u32 seq = w.tx.seq;
	unsigned int i;
	int got, want = 0;

	make_msgs(m, nslots, seq);
	memcpy(w.tx_shadow, w.tx.slots, w.slots * FIPC_SLOT_BYTES);
	got = fipc_send(&w.tx, m, nslots);
	if (w.m_tx_err) {
		want = w.m_tx_err;
	} else if (!nslots || nslots > FIPC_MSG_MAX_SLOTS ||
		   nslots > w.slots) {
		want = -EINVAL;
	} else {
		for (i = 0; i < nslots && !want; i++)
			want = model_tx_slot(seq + i);
		if (want == -EPROTO)
			w.m_tx_err = want;
	}
	CHECK(got == want);
	if (!got) {
		CHECK(w.tx.seq == seq + nslots);
		for (i = 0; i < nslots; i++) {
			memcpy(tx_shadow_at(seq + i)->payload, m[i].data,
			       FIPC_SLOT_PAYLOAD);
			tx_shadow_at(seq + i)->flag =
				ready(seq + i, i ? 0 : nslots);
		}
	} else {
		CHECK(w.tx.seq == seq);
	}
	tx_check_mem();
	free(m);
}

static void op_send_burst(unsigned int count)
{
	struct fipc_msg *m = buf_alloc(count);
	u32 seq = w.tx.seq;
	unsigned int i, n = 0;
	int got, want, err = 0;

	make_msgs(m, count, seq);
	memcpy(w.tx_shadow, w.tx.slots, w.slots * FIPC_SLOT_BYTES);
	got = fipc_send_burst(&w.tx, m, count);
	if (w.m_tx_err) {
		want = w.m_tx_err;
	} else {
		/*
		 * A burst longer than the ring meets, one lap on, the first
		 * message it wrote itself: it stops there (-EAGAIN), which the
		 * snapshot taken before the call cannot show.
		 */
		for (n = 0; n < count && n < w.slots; n++) {
			err = model_tx_slot(seq + n);
			if (err)
				break;
		}
		if (err == -EPROTO)
			w.m_tx_err = err;
		want = (!n && err == -EPROTO) ? err : (int)n;
	}
	CHECK(got == want);
	CHECK(got <= (int)count);
	for (i = 0; got > 0 && i < (unsigned int)got; i++) {
		memcpy(tx_shadow_at(seq + i)->payload, m[i].data,
		       FIPC_SLOT_PAYLOAD);
		tx_shadow_at(seq + i)->flag = ready(seq + i, 1);
	}
	CHECK(w.tx.seq == seq + (got > 0 ? got : 0));
	tx_check_mem();
	free(m);
}

static void op_tx_space(unsigned int max)
{
	unsigned int n, limit = w.slots;
	int got, want, err = 0;

	memcpy(w.tx_shadow, w.tx.slots, w.slots * FIPC_SLOT_BYTES);
	got = fipc_tx_space(&w.tx, max);
	if (w.m_tx_err) {
		want = w.m_tx_err;
	} else {
		if (max < limit)
			limit = max;
		for (n = 0; n < limit; n++) {
			err = model_tx_slot(w.tx.seq + n);
			if (err)
				break;
		}
		if (err == -EPROTO)
			w.m_tx_err = err;
		want = err == -EPROTO ? err : (int)n;
	}
	CHECK(got == want);
	CHECK(got == -EPROTO ||
	      (got >= 0 && (unsigned int)got <= max &&
	       (unsigned int)got <= w.slots));
	tx_check_mem();
}

/* The peer frees up to @n of the slots we sent, oldest first. */
static void peer_free(unsigned int n)
{
	if (w.tx.seq - w.peer_free > w.slots)
		w.peer_free = w.tx.seq - w.slots;
	while (n-- && w.peer_free != w.tx.seq)
		w.tx.slots[w.peer_free++ & (w.slots - 1)].flag =
			FIPC_FLAG_FREE;
}

static void setup(struct input *in)
{
	u8 hdr = in_u8(in);
	unsigned int n, i;
	u32 start;

	memset(&w, 0, sizeof(w));
	w.order = hdr % (FIPC_MAX_ORDER + 1);
	w.slots = FIPC_RING_SLOTS(w.order);
	CHECK(!fipc_ring_init(&w.rx, ring_mem[0][w.order], w.order));
	CHECK(!fipc_ring_init(&w.tx, ring_mem[1][w.order], w.order));
	fipc_ring_clear(w.rx.slots, w.order);
	fipc_ring_clear(w.tx.slots, w.order);
	w.batch = 1 + in_u8(in) % (w.slots / 2);
	CHECK(!fipc_ring_set_release_batch(&w.rx, w.batch));
	/* a later point in the ring's life: both cursors moved on */
	start = (hdr & 0x80) ? in_u32(in) : 0;
	w.rx.seq = start;
	w.rx.release_seq = start;
	w.tx.seq = start;
	w.m.seq = start;
	w.m.rel = start;
	w.peer_seq = start;
	w.peer_free = start;
	/* raw initial contents: whole slots, from the cursor on */
	n = in_u8(in) % 65;
	for (i = 0; i < n; i++)
		in_bytes(in, &w.rx.slots[(start + i) & (w.slots - 1)],
			 FIPC_SLOT_BYTES);
	n = in_u8(in) % 65;
	for (i = 0; i < n; i++)
		in_bytes(in, &w.tx.slots[(start + i) & (w.slots - 1)],
			 FIPC_SLOT_BYTES);
}

int FUZZ_ENTRY(const u8 *data, size_t size);

int FUZZ_ENTRY(const u8 *data, size_t size)
{
	struct input in = { data, size };
	unsigned int ops, i, slot;
	u8 op, arg;
	u32 v;

	if (!ring_mem[0][0]) {
		for (i = 0; i <= FIPC_MAX_ORDER; i++) {
			ring_mem[0][i] = guarded_ring(i);
			ring_mem[1][i] = guarded_ring(i);
		}
	}
	setup(&in);
	for (ops = 0; ops < MAX_OPS && in.left; ops++) {
		op = in_u8(&in);
		arg = in_u8(&in);
		switch (op % 17) {
		case 0:
		case 1:
			op_recv(arg % (MAX_BUF + 1));
			break;
		case 2:
			op_recv_burst(arg % (MAX_BUF + 1));
			break;
		case 3:
			op_recv_release();
			break;
		case 4:
			op_rx_pending(arg < 250 ? arg : ~0u);
			break;
		case 5:
			op_rx_ready();
			break;
		case 6:
			op_wait(1 + arg % 4);
			break;
		case 7:
		case 8:
			peer_send(&in, 1 + arg % FIPC_MSG_MAX_SLOTS);
			break;
		case 9:
			/* the peer writes one raw flag near the cursor */
			v = in_u32(&in);
			slot = (w.rx.seq + arg) & (w.slots - 1);
			w.rx.slots[slot].flag = v;
			break;
		case 10:
			/* ... or payload bytes anywhere in the ring */
			slot = (w.rx.seq + arg) & (w.slots - 1);
			in_bytes(&in, w.rx.slots[slot].payload, 8);
			break;
		case 11:
			op_send(arg % (MAX_BUF + 1));
			break;
		case 12:
			op_send_burst(arg % (MAX_BUF + 1));
			break;
		case 13:
			op_tx_space(arg < 250 ? arg : ~0u);
			break;
		case 14:
			peer_free(arg);
			break;
		case 15:
			/* 0..1023 slots: a whole ring of the largest order */
			peer_fill(arg * 4 + (in_u8(&in) & 3));
			break;
		default:
			/* the peer writes a raw flag in our sending ring */
			v = in_u32(&in);
			slot = (w.tx.seq + arg) & (w.slots - 1);
			w.tx.slots[slot].flag = v;
			break;
		}
	}
	return 0;
}
