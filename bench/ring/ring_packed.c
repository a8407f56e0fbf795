// SPDX-License-Identifier: GPL-2.0
/*
 * A virtio-1.1 packed-style descriptor ring: one ring of 64 descriptors
 * of 64 bytes, the 56-byte message written in the descriptor itself.
 *
 * The driver (client) makes a descriptor available by writing it with
 * AVAIL = its wrap counter and USED = the inverse, flags last; the device
 * (server) sees it when AVAIL matches its own wrap counter and USED does
 * not, and later writes the used descriptor in place, in order, with
 * AVAIL = USED = its wrap counter.  Each side flips its wrap counter when
 * its index wraps.  No shared index: only the flags are polled.
 */
#include "packed_ring.h"

/**
 * struct pk_desc - a descriptor with its payload in place
 * @msg: the message (request, or response once used)
 * @len: bytes written by the device in a used descriptor
 * @id: buffer id, returned in the used descriptor
 * @flags: PACKED_F_AVAIL and PACKED_F_USED; written last
 */
struct pk_desc {
	struct bench_msg msg;
	u32 len;
	u16 id;
	u16 flags;
};

static_assert(sizeof(struct pk_desc) == BENCH_CACHE_LINE, "one line");

static struct pk_desc *pk_ring;
static struct packed_end *pk_cli, *pk_srv;

static inline void pk_advance(struct packed_cursor *c)
{
	if (++c->idx == BENCH_RING_SLOTS) {
		c->idx = 0;
		c->wrap ^= 1;
	}
}

/*
 * Write the descriptor at @c: @msg inline (NULL: none, length 0, as a
 * used descriptor without data), its index as id, then @flags; move on.
 */
static inline void pk_write(struct packed_cursor *c,
			    const struct bench_msg *msg, u16 flags)
{
	struct pk_desc *d = &pk_ring[c->idx];

	if (msg)
		d->msg = *msg;
	d->len = msg ? sizeof(*msg) : 0;
	d->id = c->idx;
	__atomic_store_n(&d->flags, flags, __ATOMIC_RELEASE);
	pk_advance(c);
}

static inline bool cli_post(const struct bench_buf *b)
{
	if (!pk_cli->num_free)
		return false;
	pk_write(&pk_cli->next, &b->msg, packed_avail_flags(pk_cli->next.wrap));
	pk_cli->num_free--;
	return true;
}

static inline void cli_flush(void)
{
}

/* The used descriptor at the driver's cursor, or NULL. */
static inline struct pk_desc *cli_used(void)
{
	struct pk_desc *d = &pk_ring[pk_cli->used.idx];
	u16 flags = __atomic_load_n(&d->flags, __ATOMIC_ACQUIRE);

	if (flags != packed_used_flags(pk_cli->used.wrap))
		return NULL;
	return d;
}

static inline bool cli_recv(struct bench_buf *b)
{
	struct pk_desc *d = cli_used();

	if (!d)
		return false;
	b->msg = d->msg;
	pk_advance(&pk_cli->used);
	pk_cli->num_free++;
	return true;
}

static inline void cli_reclaim(void)
{
	struct pk_desc *d;

	while ((d = cli_used())) {
		/* A driver looks up the buffer each used descriptor ends. */
		(void)READ_ONCE(d->id);
		pk_advance(&pk_cli->used);
		pk_cli->num_free++;
	}
}

static inline bool srv_recv(struct bench_buf *b)
{
	struct pk_desc *d = &pk_ring[pk_srv->next.idx];
	u16 flags = __atomic_load_n(&d->flags, __ATOMIC_ACQUIRE);

	if (flags != packed_avail_flags(pk_srv->next.wrap))
		return false;
	b->msg = d->msg;
	pk_advance(&pk_srv->next);
	return true;
}

static inline bool srv_complete(const struct bench_buf *b)
{
	pk_write(&pk_srv->used, NULL, packed_used_flags(pk_srv->used.wrap));
	return true;
}

static inline bool srv_reply(const struct bench_buf *b)
{
	pk_write(&pk_srv->used, &b->msg, packed_used_flags(pk_srv->used.wrap));
	return true;
}

/*
 * Bursts: the operations above, each cursor and its expected flags kept
 * in registers over the run (the shape of fipc_duplex_take_replies()).
 */
#define RING_HAS_BURST

/* Take up to @max descriptors at @c whose flags are @flags(wrap). */
static inline unsigned int pk_take_n(struct packed_cursor *c,
				     u16 (*flags)(u16 wrap),
				     struct bench_buf *const *b,
				     unsigned int max)
{
	struct packed_cursor cur = *c;
	u16 want = flags(cur.wrap);
	unsigned int n;
	struct pk_desc *d;

	for (n = 0; n < max; n++) {
		d = &pk_ring[cur.idx];
		if (__atomic_load_n(&d->flags, __ATOMIC_ACQUIRE) != want)
			break;
		b[n]->msg = d->msg;
		if (++cur.idx == BENCH_RING_SLOTS) {
			cur.idx = 0;
			cur.wrap ^= 1;
			want = flags(cur.wrap);
		}
	}
	*c = cur;
	return n;
}

static inline unsigned int cli_recv_n(struct bench_buf *const *b,
				      unsigned int max)
{
	unsigned int n = pk_take_n(&pk_cli->used, packed_used_flags, b, max);

	pk_cli->num_free += n;
	return n;
}

static inline unsigned int srv_recv_n(struct bench_buf *const *b,
				      unsigned int max)
{
	return pk_take_n(&pk_srv->next, packed_avail_flags, b, max);
}

static inline bool srv_reply_n(struct bench_buf *const *b, unsigned int n)
{
	struct packed_cursor cur = pk_srv->used;
	u16 flags = packed_used_flags(cur.wrap);
	unsigned int i;
	struct pk_desc *d;

	for (i = 0; i < n; i++) {
		d = &pk_ring[cur.idx];
		d->msg = b[i]->msg;
		d->len = sizeof(d->msg);
		d->id = cur.idx;
		__atomic_store_n(&d->flags, flags, __ATOMIC_RELEASE);
		if (++cur.idx == BENCH_RING_SLOTS) {
			cur.idx = 0;
			cur.wrap ^= 1;
			flags = packed_used_flags(cur.wrap);
		}
	}
	pk_srv->used = cur;
	return true;
}

#include "loops.h"

static int pk_setup(void)
{
	pk_ring = bench_alloc(BENCH_RING_SLOTS * sizeof(*pk_ring));
	pk_cli = bench_alloc(sizeof(*pk_cli));
	pk_srv = bench_alloc(sizeof(*pk_srv));
	if (!pk_ring || !pk_cli || !pk_srv)
		return -ENOMEM;
	packed_ends_init(pk_cli, pk_srv, BENCH_RING_SLOTS);
	return 0;
}

static void pk_teardown(void)
{
	bench_free(pk_ring, BENCH_RING_SLOTS * sizeof(*pk_ring));
	bench_free(pk_cli, sizeof(*pk_cli));
	bench_free(pk_srv, sizeof(*pk_srv));
}

/* Lines per exchange: one descriptor, payload inline, used in place. */
DEFINE_BENCH_RING(bench_ring_packed, "packed", pk_setup, pk_teardown, 1);
