/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AVAIL and USED descriptor flags of a virtio 1.1 packed ring, which
 * both packed-style rings (ring_packed.c, ring_virtio_packed.c) set
 * against their wrap counters.
 */
#ifndef _BENCH_RING_PACKED_FLAGS_H
#define _BENCH_RING_PACKED_FLAGS_H

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

#endif /* _BENCH_RING_PACKED_FLAGS_H */
