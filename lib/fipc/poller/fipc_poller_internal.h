/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the pollers (fipc_poller.c) and their auto-scaling
 * (fipc_poller_scale.c).  Not API.
 */
#ifndef _FIPC_POLLER_INTERNAL_H
#define _FIPC_POLLER_INTERNAL_H

#include <fipc/fipc_poller.h>

void fipc_poller_account(struct fipc_poller *pl, u64 busy_ns, u64 now);
struct fipc_poller *fipc_poller_pick(struct fipc_poller_set *set,
				     const struct fipc_poll_entry *entry,
				     unsigned int start);

#endif /* _FIPC_POLLER_INTERNAL_H */
