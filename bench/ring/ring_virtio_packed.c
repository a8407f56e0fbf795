// SPDX-License-Identifier: GPL-2.0
/*
 * "virtio_pk": a packed virtqueue as the VIRTIO 1.1 specification
 * describes it (section "Packed Virtqueues"), written from that text:
 * 16-byte descriptors {addr, len, id, flags}, buffers out of line.
 *
 * Each request is a chain of two descriptors, as a block request is: a
 * device-readable one for the request buffer, then a device-writable one
 * (F_WRITE) for the response buffer.  The driver (client) writes the
 * request into its buffer and both descriptors, each with AVAIL = its
 * wrap counter and USED = the inverse, the head's flags last.  The
 * device (server) sees a chain when the head's AVAIL matches its wrap
 * counter and USED does not, reads the request through the descriptor's
 * address, writes the response through the second one's, then writes one
 * used descriptor in place (buffer id, bytes written, AVAIL = USED = its
 * wrap counter) and skips the chain's length.  The buffer id is in the
 * last descriptor of the chain, as the specification asks.
 *
 * 128 descriptors (64 chains, as many requests in flight as the other
 * rings' 64 slots).  Notifications are off (the event suppression
 * structures are not modelled): both sides poll descriptor flags.
 */
#include "packed_ring.h"

#define VP_DESCS	(2 * BENCH_RING_SLOTS)
#define VP_CHAIN	2u

#define VP_F_NEXT	0x0001u
#define VP_F_WRITE	0x0002u

/**
 * struct vp_desc - a packed virtqueue descriptor
 * @addr: buffer address
 * @len: buffer length; in a used descriptor, bytes the device wrote
 * @id: buffer id
 * @flags: VP_F_*; the head's are written last
 */
struct vp_desc {
	u64 addr;
	u32 len;
	u16 id;
	u16 flags;
};

static_assert(sizeof(struct vp_desc) == 16, "16-byte descriptors");

/**
 * struct vp_device - the device's private state, on its own line
 * @cur: its cursors
 * @id: buffer id of the chain being served
 * @rsp: the response buffer of that chain
 */
struct vp_device {
	struct packed_end cur;
	u16 id;
	struct bench_msg *rsp;
};

static_assert(sizeof(struct vp_device) <= BENCH_CACHE_LINE, "one line");

static struct vp_desc *vp_ring;
static struct bench_buf *vp_req_bufs, *vp_rsp_bufs;	/* by buffer id */
static struct packed_end *vp_drv;	/* on its own line */
static struct vp_device *vp_dev;

static inline void vp_skip_chain(struct packed_cursor *c)
{
	c->idx += VP_CHAIN;
	if (c->idx >= VP_DESCS) {
		c->idx -= VP_DESCS;
		c->wrap ^= 1;
	}
}

static inline u16 vp_flags(const struct vp_desc *d)
{
	return __atomic_load_n(&d->flags, __ATOMIC_ACQUIRE);
}

static inline bool cli_post(const struct bench_buf *b)
{
	u16 head = vp_drv->next.idx, id = head / VP_CHAIN;
	u16 avail = packed_avail_flags(vp_drv->next.wrap);
	struct vp_desc *d = &vp_ring[head];

	if (vp_drv->num_free < VP_CHAIN)
		return false;
	vp_req_bufs[id].msg = b->msg;
	d[1].addr = (uintptr_t)&vp_rsp_bufs[id].msg;
	d[1].len = sizeof(struct bench_msg);
	d[1].id = id;
	d[1].flags = VP_F_WRITE | avail;
	d[0].addr = (uintptr_t)&vp_req_bufs[id].msg;
	d[0].len = sizeof(struct bench_msg);
	d[0].id = id;
	__atomic_store_n(&d[0].flags, VP_F_NEXT | avail, __ATOMIC_RELEASE);
	vp_skip_chain(&vp_drv->next);
	vp_drv->num_free -= VP_CHAIN;
	return true;
}

static inline void cli_flush(void)
{
}

/* The used descriptor at the driver's cursor, or NULL. */
static inline struct vp_desc *cli_used(void)
{
	struct vp_desc *d = &vp_ring[vp_drv->used.idx];

	if ((vp_flags(d) & (PACKED_F_AVAIL | PACKED_F_USED)) !=
	    packed_used_flags(vp_drv->used.wrap))
		return NULL;
	vp_skip_chain(&vp_drv->used);
	vp_drv->num_free += VP_CHAIN;
	return d;
}

static inline bool cli_recv(struct bench_buf *b)
{
	struct vp_desc *d = cli_used();

	if (!d)
		return false;
	if (d->len)
		b->msg = vp_rsp_bufs[d->id].msg;
	else	/* a completion without data: the request it ends */
		b->msg.seq = vp_req_bufs[d->id].msg.seq;
	return true;
}

static inline void cli_reclaim(void)
{
	while (cli_used())
		;
}

static inline bool srv_recv(struct bench_buf *b)
{
	struct vp_desc *d = &vp_ring[vp_dev->cur.next.idx];

	if ((vp_flags(d) & (PACKED_F_AVAIL | PACKED_F_USED)) !=
	    packed_avail_flags(vp_dev->cur.next.wrap))
		return false;
	b->msg = *(const struct bench_msg *)(uintptr_t)d[0].addr;
	vp_dev->rsp = (struct bench_msg *)(uintptr_t)d[1].addr;
	vp_dev->id = d[1].id;
	vp_skip_chain(&vp_dev->cur.next);
	return true;
}

static inline void vp_write_used(u32 len)
{
	struct vp_desc *d = &vp_ring[vp_dev->cur.used.idx];

	d->id = vp_dev->id;
	d->len = len;
	__atomic_store_n(&d->flags, packed_used_flags(vp_dev->cur.used.wrap),
			 __ATOMIC_RELEASE);
	vp_skip_chain(&vp_dev->cur.used);
}

static inline bool srv_reply(const struct bench_buf *b)
{
	*vp_dev->rsp = b->msg;
	vp_write_used(sizeof(b->msg));
	return true;
}

static inline bool srv_complete(const struct bench_buf *b)
{
	vp_write_used(0);
	return true;
}

#include "loops.h"

#define VP_RING_BYTES	(VP_DESCS * sizeof(struct vp_desc))
#define VP_BUFS_BYTES	(BENCH_RING_SLOTS * sizeof(struct bench_buf))

static int vp_setup(void)
{
	vp_ring = bench_alloc(VP_RING_BYTES);
	vp_req_bufs = bench_alloc(VP_BUFS_BYTES);
	vp_rsp_bufs = bench_alloc(VP_BUFS_BYTES);
	vp_drv = bench_alloc(BENCH_CACHE_LINE);
	vp_dev = bench_alloc(BENCH_CACHE_LINE);
	if (!vp_ring || !vp_req_bufs || !vp_rsp_bufs || !vp_drv || !vp_dev)
		return -ENOMEM;
	packed_ends_init(vp_drv, &vp_dev->cur, VP_DESCS);
	return 0;
}

static void vp_teardown(void)
{
	bench_free(vp_ring, VP_RING_BYTES);
	bench_free(vp_req_bufs, VP_BUFS_BYTES);
	bench_free(vp_rsp_bufs, VP_BUFS_BYTES);
	bench_free(vp_drv, BENCH_CACHE_LINE);
	bench_free(vp_dev, BENCH_CACHE_LINE);
}

/*
 * Lines per exchange: three; the chain's descriptor line (out, and back
 * with the used descriptor), the request buffer and the response buffer.
 */
DEFINE_BENCH_RING(bench_ring_virtio_packed, "virtio_pk", vp_setup,
		  vp_teardown, 3);
