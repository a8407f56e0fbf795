/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What both packed-style rings (ring_packed.c, ring_virtio_packed.c)
 * share of a virtio 1.1 packed ring: the AVAIL and USED descriptor flags,
 * set against wrap counters, and each side's cursors.
 */
#ifndef _BENCH_RING_PACKED_RING_H
#define _BENCH_RING_PACKED_RING_H

#include "bench.h"

#define PACKED_F_AVAIL	0x0080u	/* bit 7 */
#define PACKED_F_USED	0x8000u	/* bit 15 */

/* A descriptor made available with wrap counter wrap. */
static inline u16 packed_avail_flags(u16 wrap)
{
	return wrap ? PACKED_F_AVAIL : PACKED_F_USED;
}

/* A descriptor marked used with wrap counter wrap. */
static inline u16 packed_used_flags(u16 wrap)
{
	return wrap ? PACKED_F_AVAIL | PACKED_F_USED : 0;
}

/**
 * struct packed_cursor - a position in the descriptor ring and its wrap
 * @idx: descriptor index
 * @wrap: wrap counter, starts at 1
 */
struct packed_cursor {
	u16 idx;
	u16 wrap;
};

/**
 * struct packed_end - one side's cursors
 * @next: driver: next descriptor to make available; device: next to read
 * @used: driver: next used descriptor to take back; device: next to write
 * @num_free: driver only: descriptors it may make available
 */
struct packed_end {
	struct packed_cursor next;
	struct packed_cursor used;
	unsigned int num_free;
};

/*
 * Both sides at the start of a ring of @descs descriptors: index 0, wrap
 * counters 1, every descriptor free to the driver.
 */
static inline void packed_ends_init(struct packed_end *drv,
				    struct packed_end *dev, unsigned int descs)
{
	const struct packed_cursor start = { .idx = 0, .wrap = 1 };

	drv->next = start;
	drv->used = start;
	drv->num_free = descs;
	dev->next = start;
	dev->used = start;
	dev->num_free = 0;
}

#endif /* _BENCH_RING_PACKED_RING_H */
