/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A ring peer written from xen/include/public/io/fipcblk.h alone (no
 * lib/fipc, no Linux header): tests/user/header_test.c runs it against
 * lib/fipc to show that the public header is enough to write a peer.
 */
#ifndef _FIPC_TESTS_HEADER_PEER_H
#define _FIPC_TESTS_HEADER_PEER_H

#include <stdint.h>

struct fipcblk_request;
struct fipcblk_slot;

/* A peer's private view of one ring: the shared slots and its cursor. */
struct peer_ring {
	struct fipcblk_slot *slots;
	uint32_t nr_slots;
	uint32_t seq;
};

#define PEER_EMPTY	0
#define PEER_FULL	(-1)
#define PEER_BROKEN	(-2)

void peer_ring_init(struct peer_ring *r, void *mem, unsigned int order);
int peer_send_request(struct peer_ring *r, const struct fipcblk_request *req,
		      const uint32_t *refs, unsigned int nr_refs);
int peer_recv(struct peer_ring *r, struct fipcblk_slot *buf,
	      unsigned int max_slots);

#endif /* _FIPC_TESTS_HEADER_PEER_H */
