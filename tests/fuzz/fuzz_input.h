/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fuzz targets share: the input, read front to back (zeros once
 * it is used up), the invariant check that aborts, and ring memory with
 * an inaccessible page on each side.
 */
#ifndef _FIPC_FUZZ_INPUT_H
#define _FIPC_FUZZ_INPUT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <fipc/fipc.h>

#define GUARD		FIPC_PAGE_BYTES

struct input {
	const u8 *p;
	size_t left;
};

static inline u8 in_u8(struct input *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

static inline u32 in_u32(struct input *in)
{
	u32 v = in_u8(in);

	v |= (u32)in_u8(in) << 8;
	v |= (u32)in_u8(in) << 16;
	return v | (u32)in_u8(in) << 24;
}

static inline void in_bytes(struct input *in, void *dst, size_t n)
{
	size_t k = n < in->left ? n : in->left;

	memcpy(dst, in->p, k);
	memset((u8 *)dst + k, 0, n - k);
	in->p += k;
	in->left -= k;
}

static inline void die(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: invariant failed: %s\n", file, line, what);
	abort();
}

#define CHECK(cond)	\
	do { if (!(cond)) die(__FILE__, __LINE__, #cond); } while (0)

/* A ring of @order between two inaccessible pages: overruns fault. */
static inline struct fipc_slot *guarded_ring(unsigned int order)
{
	size_t bytes = FIPC_RING_BYTES(order);
	u8 *p = mmap(NULL, bytes + 2 * GUARD, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	CHECK(!mprotect(p + GUARD, bytes, PROT_READ | PROT_WRITE));
	return (struct fipc_slot *)(p + GUARD);
}

#endif /* _FIPC_FUZZ_INPUT_H */
