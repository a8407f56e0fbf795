// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: a device's counters, summed over its channels.  The
 * channels count in chan->st; a device keeps the counts of channels it
 * tore down in be->retired, so that its counters survive reconnections.
 * Read by sysfs (back_sysfs.c) and by the per-guest totals (back_guest.c).
 */
#include "back.h"

/**
 * xfb_stats_retire() - keep the counters of channels about to be freed
 * @be: the device, its channels detached from the pollers
 */
void xfb_stats_retire(struct xfb_be *be)
{
	unsigned int i, k;

	for (i = 0; i < be->nr_chans; i++) {
		for (k = 0; k < XFB_NR_STATS; k++)
			be->retired[k] += be->chans[i].st[k];
		memset(be->chans[i].st, 0, sizeof(be->chans[i].st));
	}
}

/**
 * xfb_be_stat() - a device's counter, its torn-down channels included
 * @be: the device, its mutex held
 * @idx: the counter
 *
 * Return: the sum.
 */
u64 xfb_be_stat(struct xfb_be *be, enum xfb_stat idx)
{
	unsigned int i;
	u64 sum = be->retired[idx];

	for (i = 0; i < be->nr_chans; i++)
		sum += READ_ONCE(be->chans[i].st[idx]);
	return sum;
}
