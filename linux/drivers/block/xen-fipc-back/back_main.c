// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: module parameters, load and unload.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <xen/xen.h>
#include <fipc/fipc_poller_params.h>
#include <fipc/fipc_version.h>
#include "back.h"

unsigned int xfb_max_queues = 8;
module_param_named(max_queues, xfb_max_queues, uint, 0644);
MODULE_PARM_DESC(max_queues,
		 "Most channels per device offered (multi-queue-max-queues; default 8)");

unsigned int xfb_max_ring_order = FIPC_MAX_ORDER;
module_param_named(max_ring_order, xfb_max_ring_order, uint, 0644);
MODULE_PARM_DESC(max_ring_order,
		 "Largest ring order offered (fipc-max-ring-order, default 4: 16 pages)");

unsigned int xfb_max_request_bytes = 1024 * 1024;
module_param_named(max_request_bytes, xfb_max_request_bytes, uint, 0444);
MODULE_PARM_DESC(max_request_bytes,
		 "Largest request offered (fipc-max-request-bytes), 4096 to 1937408 (default 1 MiB)");

unsigned int xfb_max_inflight = 128;
module_param_named(max_inflight, xfb_max_inflight, uint, 0644);
MODULE_PARM_DESC(max_inflight,
		 "Requests served at once per channel; more wait in the ring (default 128)");

unsigned int xfb_max_buffer_pages = 1024;
module_param_named(max_buffer_pages, xfb_max_buffer_pages, uint, 0644);
MODULE_PARM_DESC(max_buffer_pages,
		 "Pages for grant mappings kept cached per channel when idle (default 1024)");

bool xfb_memshare_enabled = true;
module_param_named(memshare, xfb_memshare_enabled, bool, 0644);
MODULE_PARM_DESC(memshare,
		 "Offer the memshare data path where the toolstack allows it (fipc-memshare-allowed=1; default Y)");

bool xfb_memshare_writable = true;
module_param_named(memshare_writable, xfb_memshare_writable, bool, 0644);
MODULE_PARM_DESC(memshare_writable,
		 "memshare: map a guest's memory writable where its frontend asks (fipc-memshare-writable=1: PVH and HVM guests, whose READs then name their pages by pfn, with no staging copy; default Y)");

unsigned int xfb_staging_max_pages = 1024;
module_param_named(staging_max_pages, xfb_staging_max_pages, uint, 0644);
MODULE_PARM_DESC(staging_max_pages,
		 "Staging pages per channel a frontend may give us, mapped writable once, for I/O without grant operations (fipc-staging-max-pages; at most 1024, 0: none; default 1024)");

bool xfb_grant_staging = true;
module_param_named(grant_staging, xfb_grant_staging, bool, 0644);
MODULE_PARM_DESC(grant_staging,
		 "Accept staging pages on the grant data path too (fipc-grant-staging), so that small requests need no grant map and unmap, as blkif's persistent grants; read when a device is probed (default Y)");

unsigned int xfb_memshare_max_mib = 512;
module_param_named(memshare_max_mib, xfb_memshare_max_mib, uint, 0644);
MODULE_PARM_DESC(memshare_max_mib,
		 "memshare: guest memory mapped at once for all guests together, in MiB; a guest that would pass it connects on grant. Each page is one of the backend domain's grant mappings (Xen's gnttab_max_maptrack_frames x 256; default 1024 x 256 = 1 GiB), which blkback and netback need too (default 512)");

unsigned int xfb_memshare_guest_max_mib;
module_param_named(memshare_guest_max_mib, xfb_memshare_guest_max_mib, uint, 0644);
MODULE_PARM_DESC(memshare_guest_max_mib,
		 "memshare: one guest's share of memshare_max_mib, all its disks together, in MiB; a guest whose memory would pass it connects on grant (0: half of memshare_max_mib; default 0)");

unsigned long xfb_max_grant_mappings;
module_param_named(max_grant_mappings, xfb_max_grant_mappings, ulong, 0644);
MODULE_PARM_DESC(max_grant_mappings,
		 "Grant mappings the backend keeps at once, all guests together: rings, staging pages, memshare tables and requests' grants. Past it a connect is refused (rings) or falls back to per-request grants, and requests wait. 0 at load: 3/4 of the domain's maptrack (gnttab_max_maptrack_frames on Xen's command line, else 1024, x 256 entries; default 0)");

unsigned int xfb_max_guest_grants = 8192;
module_param_named(max_guest_grants, xfb_max_guest_grants, uint, 0644);
MODULE_PARM_DESC(max_guest_grants,
		 "Grants of one guest's requests mapped at once, all its disks together; more requests wait. Each is one of the backend domain's grant mappings (maptrack), shared with every other guest (default 8192: 32 MiB in flight)");

unsigned int xfb_max_guest_staging_pages = 16384;
module_param_named(max_guest_staging_pages, xfb_max_guest_staging_pages, uint, 0644);
MODULE_PARM_DESC(max_guest_staging_pages,
		 "memshare: staging pages one guest's channels keep mapped at once, all its disks together; past it, requests map the staging pages they name (each is a grant mapping, maptrack, for the connection's life; default 16384: 64 MiB, two disks of 8 channels)");

struct fipc_poller_set xfb_pollers = {
	.name = "xfb-poll",
	.ops = &xfb_poll_ops,
	.priv_size = sizeof(struct xfb_poll_lat),
	.nr_pollers = FIPC_POLLERS_DEFAULT,
	.idle_us = FIPC_POLL_IDLE_US_DEFAULT,
	.idle_max_us = FIPC_POLL_IDLE_MAX_US_DEFAULT,
	.steal_sleep = true,
	.autoscale = true,
	.scale_up_pct = FIPC_POLL_SCALE_UP_PCT,
	.scale_down_pct = FIPC_POLL_SCALE_DOWN_PCT,
	.budget = 32,
};

FIPC_PARAM_POLLER_CPUS(xfb_pollers);
FIPC_PARAM_POLLERS(xfb_pollers);
FIPC_PARAM_POLL_IDLE_US(xfb_pollers);
FIPC_PARAM_POLL_IDLE_MAX_US(xfb_pollers);
FIPC_PARAM_POLL_AUTOSCALE(xfb_pollers);
FIPC_PARAM_POLL_SCALE_UP_PCT(xfb_pollers);
FIPC_PARAM_POLL_SCALE_DOWN_PCT(xfb_pollers);
FIPC_PARAM_POLL_FIFO(xfb_pollers);
FIPC_PARAM_POLL_STEAL_SLEEP(xfb_pollers);
module_param_named(poll_budget, xfb_pollers.budget, uint, 0644);
MODULE_PARM_DESC(poll_budget,
		 "Requests taken from one channel before moving to the next (default 32)");

static int __init xfb_init(void)
{
	int err;

	if (!xen_domain())
		return -ENODEV;
	xfb_maptrack_init();
	err = xfb_nowait_init();
	if (err)
		return err;
	err = fipc_poller_set_start(&xfb_pollers);
	if (err)
		goto out_nowait;
	err = xfb_xenbus_register();
	if (err)
		goto out_pollers;
	pr_info(XFB_NAME " %s: %u poller(s), requests up to %u bytes\n",
		FIPC_VERSION, xfb_pollers.nr_pollers, xfb_max_request_bytes);
	return 0;

out_pollers:
	fipc_poller_set_stop(&xfb_pollers);
out_nowait:
	xfb_nowait_exit();
	return err;
}

static void __exit xfb_exit(void)
{
	xfb_xenbus_unregister();
	fipc_poller_set_stop(&xfb_pollers);
	xfb_nowait_exit();
}

module_init(xfb_init);
module_exit(xfb_exit);

MODULE_DESCRIPTION("Xen fipc virtual block device backend");
MODULE_LICENSE("GPL");
MODULE_VERSION(FIPC_VERSION);
MODULE_ALIAS("xen-backend:fipcblk");
