// SPDX-License-Identifier: GPL-2.0
/*
 * fipc pollers: the kick that wakes a sleeping one (kernel only).
 *
 * Kicked by the pollers' own code (fipc_poller.c: a channel's interrupt,
 * a driver's wake, a channel attached) and by their auto-scaling
 * (fipc_poller_scale.c: a poller handed channels).  Moved here from
 * fipc_poller.c so that those two never call each other: fipc_poller.c
 * calls the auto-scaling and this file, the auto-scaling only this file.
 */
#include <linux/atomic.h>
#include <linux/export.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include <fipc/fipc_poller.h>

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
