// SPDX-License-Identifier: GPL-2.0
/*
 * fipc pollers: the kick that wakes a sleeping one (kernel only).
 *
 * Kicked by the run loop (fipc_poller.c: a channel's interrupt, a
 * driver's wake), by placement (fipc_poller_place.c: a channel
 * attached) and by auto-scaling (fipc_poller_scale.c: a poller handed
 * channels).  A file of its own, below all three, so that none of them
 * calls another to kick.
 */
#include <linux/atomic.h>
#include <linux/export.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include "fipc_poller_internal.h"

/**
 * fipc_poller_kick() - wake a poller that may be sleeping
 * @pl: the poller
 *
 * Safe from any context, including hard irq.
 */
void fipc_poller_kick(struct fipc_poller *pl)
{
	/* The first kick of a sleep starts the wake-up time. */
	if (READ_ONCE(pl->asleep) && !atomic64_read(&pl->kick_ns))
		atomic64_cmpxchg(&pl->kick_ns, 0, ktime_get_ns());
	atomic_set(&pl->kicked, 1);
	wake_up(&pl->wq);
}
EXPORT_SYMBOL_GPL(fipc_poller_kick);
