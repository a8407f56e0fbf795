// SPDX-License-Identifier: GPL-2.0
/*
 * fipc duplex ring set-up: empty ring memory, and a client or a server
 * view of one ring.
 */
#include <fipc/fipc_duplex.h>

/* Default acknowledgment batch: a quarter of the ring, see below. */
#define FIPC_DUPLEX_ACK_BATCH_DIV	4

/**
 * fipc_ring_clear() - make ring memory an empty ring
 * @mem: the ring's memory, FIPC_RING_BYTES(@order) bytes
 * @order: log2 of the ring size in 4 KiB pages
 *
 * Only the side that allocates the ring calls this, before it shares the
 * memory; FIPC_FLAG_FREE is zero, so zeroed memory is already empty.
 */
void fipc_ring_clear(void *mem, unsigned int order)
{
	memset(mem, 0, FIPC_RING_BYTES(order));
}
EXPORT_SYMBOL_GPL(fipc_ring_clear);

static int fipc_duplex_check_mem(void *mem, unsigned int order)
{
	if (order > FIPC_MAX_ORDER || !mem ||
	    ((uintptr_t)mem & (FIPC_SLOT_BYTES - 1)))
		return -EINVAL;
	return 0;
}

/**
 * fipc_duplex_client_init() - attach a client to duplex ring memory
 * @c: the client's private state
 * @mem: the shared memory, FIPC_RING_BYTES(@order) bytes, slot aligned
 * @order: log2 of the ring size in 4 KiB pages, FIPC_MIN_ORDER..MAX_ORDER
 *
 * Client and server start at position 0 on an empty ring: memory zeroed
 * with fipc_ring_clear() before either side uses it.  The caller owns
 * the memory (allocates, grants or maps it).
 *
 * Return: 0, or -EINVAL for a bad order or misaligned memory.
 */
int fipc_duplex_client_init(struct fipc_duplex_client *c, void *mem,
			    unsigned int order)
{
	int err = fipc_duplex_check_mem(mem, order);

	if (err)
		return err;
	c->slots = mem;
	c->mask = FIPC_RING_SLOTS(order) - 1;
	c->lap_shift = FIPC_DUPLEX_LAP_SHIFT(order);
	c->submit = 0;
	c->done = 0;
	c->calls = 0;
	c->error = 0;
	fipc_duplex_client_derive(c);
	return 0;
}
EXPORT_SYMBOL_GPL(fipc_duplex_client_init);

/**
 * fipc_duplex_server_init() - attach a server to duplex ring memory
 * @s: the server's private state
 * @mem: the shared memory, as for fipc_duplex_client_init()
 * @order: log2 of the ring size in 4 KiB pages
 *
 * The acknowledgment batch (fipc_duplex_set_ack_batch()) starts at a
 * quarter of the ring.
 *
 * Return: 0, or -EINVAL for a bad order or misaligned memory.
 */
int fipc_duplex_server_init(struct fipc_duplex_server *s, void *mem,
			    unsigned int order)
{
	int err = fipc_duplex_check_mem(mem, order);
	u32 batch;

	if (err)
		return err;
	s->slots = mem;
	s->mask = FIPC_RING_SLOTS(order) - 1;
	s->lap_shift = FIPC_DUPLEX_LAP_SHIFT(order);
	s->read = 0;
	s->complete = 0;
	s->unanswered = 0;
	batch = FIPC_RING_SLOTS(order) / FIPC_DUPLEX_ACK_BATCH_DIV;
	if (batch > FIPC_DUPLEX_SPAN_MAX)
		batch = FIPC_DUPLEX_SPAN_MAX;
	s->ack_batch = batch;
	s->error = 0;
	fipc_duplex_server_derive(s);
	return 0;
}
EXPORT_SYMBOL_GPL(fipc_duplex_server_init);

/**
 * fipc_duplex_set_ack_batch() - when to hand back a call's extra positions
 * @s: the server
 * @batch: retirable positions to gather before acknowledging them, 1 to
 *	min(ring size, FIPC_DUPLEX_SPAN_MAX)
 *
 * The continuation slots of the calls read are retired by the next
 * reply, or by an acknowledgment once @batch of them have gathered, so
 * that a client sending long requests gets room back before the replies
 * come.  Positions of posted requests are acknowledged at once (batching
 * those was measured slower, docs/benchmarks.md).  Anything retirable is
 * also acknowledged before the server's waiter sleeps and on
 * fipc_duplex_server_flush().  A reply retires at most @batch positions
 * (the retirable ones and its own), which keeps its span in its flag.
 *
 * Return: 0; -EINVAL if @batch is out of range; -EBUSY while positions
 * wait to be handed back (after fipc_duplex_server_flush() it works).
 */
int fipc_duplex_set_ack_batch(struct fipc_duplex_server *s,
			      unsigned int batch)
{
	if (batch < 1 || batch > s->mask + 1 || batch > FIPC_DUPLEX_SPAN_MAX)
		return -EINVAL;
	/*
	 * Fewer than a batch are ever left waiting; a smaller batch with
	 * more waiting would let the next reply's span reach past it.
	 */
	if (s->read - s->complete != s->unanswered)
		return -EBUSY;
	s->ack_batch = batch;
	return 0;
}
EXPORT_SYMBOL_GPL(fipc_duplex_set_ack_batch);
