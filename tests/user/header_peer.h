/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Both ends of a fipcblk channel's duplex ring (protocol 3), written from
 * xen/include/public/io/fipcblk.h alone (no lib/fipc, no Linux header):
 * tests/user/header_test.c runs each end against lib/fipc's other end to
 * show that the public header is enough to write a peer.
 */
#ifndef _FIPC_TESTS_HEADER_PEER_H
#define _FIPC_TESTS_HEADER_PEER_H

#include <stdint.h>

struct fipcblk_request;
struct fipcblk_response;
struct fipcblk_slot;

/* The frontend's private view of one ring (fipcblk.h's cursors). */
struct peer_front {
	struct fipcblk_slot *slots;
	uint32_t nr_slots;
	uint32_t order;
	uint32_t submit;
	uint32_t done;
	uint32_t calls;
	int broken;
};

/*
 * The backend's private view; ack_batch: retirable positions gathered
 * before it acknowledges them (1: at once; they are retired anyway by the
 * next response while they fit in its count).
 */
struct peer_back {
	struct fipcblk_slot *slots;
	uint32_t nr_slots;
	uint32_t order;
	uint32_t read;
	uint32_t complete;
	uint32_t unanswered;
	uint32_t ack_batch;
	int broken;
};

#define PEER_OK		0
#define PEER_EMPTY	(-1)	/* nothing to take yet */
#define PEER_FULL	(-2)	/* no room for the request now */
#define PEER_BROKEN	(-3)	/* the other end broke the protocol (sticky) */
/* taken, but its length is not its references' (answer an error) */
#define PEER_INVALID	(-4)

void peer_front_init(struct peer_front *f, void *mem, unsigned int order);
int peer_front_request(struct peer_front *f,
		       const struct fipcblk_request *req, const uint32_t *refs,
		       unsigned int nr_refs);
int peer_front_response(struct peer_front *f, struct fipcblk_response *rsp);

void peer_back_init(struct peer_back *b, void *mem, unsigned int order,
		    unsigned int ack_batch);
int peer_back_request(struct peer_back *b, struct fipcblk_request *req,
		      uint32_t *refs, unsigned int *nr_refs);
int peer_back_response(struct peer_back *b,
		       const struct fipcblk_response *rsp);
unsigned int peer_request_refs(const struct fipcblk_request *req);

#endif /* _FIPC_TESTS_HEADER_PEER_H */
