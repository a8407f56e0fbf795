// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: module parameters, load and unload.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <xen/xen.h>
#include <fipc/fipc_poller_params.h>
#include <fipc/fipc_version.h>
#include "front.h"

unsigned int xff_max_queues = 8;
module_param_named(max_queues, xff_max_queues, uint, 0444);
MODULE_PARM_DESC(max_queues,
		 "Most channels (blk-mq hardware queues) per disk; also capped by vCPUs and the backend (default 8)");

unsigned int xff_ring_order = 2;
module_param_named(ring_order, xff_ring_order, uint, 0444);
MODULE_PARM_DESC(ring_order,
		 "log2 of each ring's size in 4 KiB pages, capped by the backend (default 2: 4 pages, 256 slots)");

unsigned int xff_queue_depth = 128;
module_param_named(queue_depth, xff_queue_depth, uint, 0444);
MODULE_PARM_DESC(queue_depth,
		 "Requests in flight per queue, at most the response ring's slots minus one (default 128)");

unsigned int xff_max_request_kb = 1024;
module_param_named(max_request_kb, xff_max_request_kb, uint, 0444);
MODULE_PARM_DESC(max_request_kb,
		 "Largest request in KiB, capped by the backend's fipc-max-request-bytes (default 1024)");

char xff_memshare_mode[8] = "auto";
module_param_string(memshare, xff_memshare_mode, sizeof(xff_memshare_mode),
		    0644);
MODULE_PARM_DESC(memshare,
		 "auto: use the memshare data path when the backend offers it and the toolstack consented (fipc-memshare=1); off: never (default auto)");

unsigned int xff_staging_pages = 1024;
module_param_named(staging_pages, xff_staging_pages, uint, 0644);
MODULE_PARM_DESC(staging_pages,
		 "memshare: pages per channel, granted writable once, that READs land in before being copied out (no grant per READ); capped by the backend; 0: READs carry grants (default 1024)");

unsigned int xff_staging_max_kb = 256;
module_param_named(staging_max_kb, xff_staging_max_kb, uint, 0644);
MODULE_PARM_DESC(staging_max_kb,
		 "Largest request copied through staging pages; larger ones carry grants (default 256)");

unsigned int xff_grant_staging_pages = 256;
module_param_named(grant_staging_pages, xff_grant_staging_pages, uint, 0644);
MODULE_PARM_DESC(grant_staging_pages,
		 "grant path: pages per channel, granted writable once, that READs and WRITEs of up to staging_max_kb are copied through, as blkif's persistent grants, where the backend offers it (fipc-grant-staging); capped by the backend; never for an untrusted backend; 0: every request carries grants; read at each connect (default 256)");

bool xff_trusted = true;
module_param_named(trusted, xff_trusted, bool, 0644);
MODULE_PARM_DESC(trusted,
		 "N: treat every backend as untrusted (data only through bounce pages, no memshare), as if each disk's frontend node said trusted=0; read when a disk is probed (default Y)");

struct fipc_poller_set xff_pollers = {
	.name = "xff-poll",
	.ops = &xff_poll_ops,
	.priv_size = sizeof(struct xff_poll_lat),
	.nr_pollers = FIPC_POLLERS_DEFAULT,
	.idle_us = FIPC_POLL_IDLE_US_DEFAULT,
	.idle_max_us = FIPC_POLL_IDLE_MAX_US_DEFAULT,
	/* Stopped for a save or a migration: see xff_resume(). */
	.freezable = true,
	.steal_sleep = true,
	.autoscale = true,
	.scale_up_pct = FIPC_POLL_SCALE_UP_PCT,
	.scale_down_pct = FIPC_POLL_SCALE_DOWN_PCT,
	.budget = 64,
};

FIPC_PARAM_POLLER_CPUS(xff_pollers);
FIPC_PARAM_POLLERS(xff_pollers);
FIPC_PARAM_POLL_IDLE_US(xff_pollers);
FIPC_PARAM_POLL_IDLE_MAX_US(xff_pollers);
FIPC_PARAM_POLL_AUTOSCALE(xff_pollers);
FIPC_PARAM_POLL_SCALE_UP_PCT(xff_pollers);
FIPC_PARAM_POLL_SCALE_DOWN_PCT(xff_pollers);
FIPC_PARAM_POLL_FIFO(xff_pollers);
FIPC_PARAM_POLL_STEAL_SLEEP(xff_pollers);
module_param_named(poll_budget, xff_pollers.budget, uint, 0644);
MODULE_PARM_DESC(poll_budget,
		 "Responses taken from one channel before moving to the next (default 64)");

static int __init xff_init(void)
{
	int err;

	/* dom0 may use fipc disks too (xl block-attach 0 ...). */
	if (!xen_domain())
		return -ENODEV;
	if (xff_ring_order > FIPC_MAX_ORDER)
		xff_ring_order = FIPC_MAX_ORDER;

	err = xff_major_register();
	if (err)
		return err;
	err = fipc_poller_set_start(&xff_pollers);
	if (err)
		goto out_major;
	xff_debugfs_init();
	err = xff_xenbus_register();
	if (err)
		goto out_pollers;
	pr_info(XFF_NAME " %s: major %d, %u poller(s), ring order %u\n",
		FIPC_VERSION, xff_major, xff_pollers.nr_pollers, xff_ring_order);
	return 0;

out_pollers:
	xff_debugfs_exit();
	fipc_poller_set_stop(&xff_pollers);
out_major:
	xff_major_unregister();
	return err;
}

static void __exit xff_exit(void)
{
	xff_xenbus_unregister();
	xff_linger_exit();
	xff_debugfs_exit();
	fipc_poller_set_stop(&xff_pollers);
	xff_major_unregister();
}

module_init(xff_init);
module_exit(xff_exit);

MODULE_DESCRIPTION("Xen fipc virtual block device frontend");
MODULE_LICENSE("GPL");
MODULE_VERSION(FIPC_VERSION);
MODULE_ALIAS("xen:fipcblk");
