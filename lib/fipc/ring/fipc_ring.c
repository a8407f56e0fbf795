// SPDX-License-Identifier: GPL-2.0
/*
 * fipc ring and channel set-up.
 */
#include "fipc_internal.h"

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

/**
 * fipc_ring_init() - attach a private ring view to shared ring memory
 * @ring: the private state to set up
 * @mem: the shared memory, aligned to FIPC_SLOT_BYTES (pages in practice)
 * @order: log2 of the ring size in 4 KiB pages, FIPC_MIN_ORDER..MAX_ORDER
 *
 * Both ends start at sequence 0; the memory must be an empty ring (see
 * fipc_ring_clear()) before either side uses it.  The caller owns the
 * memory: allocating, granting or mapping it is not the library's job.
 *
 * Return: 0, or -EINVAL for a bad order or misaligned memory.
 */
int fipc_ring_init(struct fipc_ring *ring, void *mem, unsigned int order)
{
	if (order > FIPC_MAX_ORDER || !mem ||
	    ((uintptr_t)mem & (FIPC_SLOT_BYTES - 1)))
		return -EINVAL;

	ring->slots = mem;
	ring->mask = FIPC_RING_SLOTS(order) - 1;
	ring->seq = 0;
	ring->release_seq = 0;
	ring->release_batch = 1;
	ring->error = 0;
	return 0;
}
EXPORT_SYMBOL_GPL(fipc_ring_init);

/**
 * fipc_ring_set_release_batch() - free consumed slots in batches
 * @rx: a receiving ring
 * @batch: consumed slots to collect before writing them free, at least 1
 *	and at most half the ring
 *
 * Collected slots are also freed whenever the ring is found empty and by
 * fipc_recv_release(), so a waiting sender is never starved.
 *
 * Return: 0, or -EINVAL if @batch is out of range.
 */
int fipc_ring_set_release_batch(struct fipc_ring *rx, unsigned int batch)
{
	/*
	 * Half the ring at most: the receiver's cursor must never reach a
	 * slot it has consumed but not freed, or it would read a stale flag.
	 */
	if (batch < 1 || batch > fipc_ring_slots(rx) / 2)
		return -EINVAL;
	rx->release_batch = batch;
	return 0;
}
EXPORT_SYMBOL_GPL(fipc_ring_set_release_batch);

/**
 * fipc_chan_init() - set up both rings of a channel
 * @chan: the channel
 * @tx_mem: memory of the ring this side sends on
 * @rx_mem: memory of the ring this side receives from
 * @order: log2 of each ring's size in 4 KiB pages
 *
 * The peer calls this with the two memories swapped.
 *
 * Return: 0, or -EINVAL as fipc_ring_init() or if the rings overlap.
 */
int fipc_chan_init(struct fipc_chan *chan, void *tx_mem, void *rx_mem,
		   unsigned int order)
{
	uintptr_t tx = (uintptr_t)tx_mem, rx = (uintptr_t)rx_mem;
	int err;

	if (order > FIPC_MAX_ORDER)
		return -EINVAL;
	/* The two rings of a channel must not overlap. */
	if (tx < rx + FIPC_RING_BYTES(order) && rx < tx + FIPC_RING_BYTES(order))
		return -EINVAL;
	err = fipc_ring_init(&chan->tx, tx_mem, order);
	if (err)
		return err;
	return fipc_ring_init(&chan->rx, rx_mem, order);
}
EXPORT_SYMBOL_GPL(fipc_chan_init);
