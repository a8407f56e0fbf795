// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-front: module parameters, load and unload.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <xen/xen.h>
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

static int xff_set_pollers_cpus(const char *val, const struct kernel_param *kp)
{
	return xff_pollers_repin(val);
}

static int xff_get_pollers_cpus(char *buf, const struct kernel_param *kp)
{
	return xff_pollers_show(buf);
}

static const struct kernel_param_ops xff_poller_cpus_ops = {
	.set = xff_set_pollers_cpus,
	.get = xff_get_pollers_cpus,
};

module_param_cb(poller_cpus, &xff_poller_cpus_ops, NULL, 0644);
MODULE_PARM_DESC(poller_cpus,
		 "Read: one line per poller with its CPU and counters. Write a CPU list (e.g. 1,3) to re-pin poller i to the i-th CPU");

unsigned int xff_nr_pollers = 1;
module_param_named(pollers, xff_nr_pollers, uint, 0444);
MODULE_PARM_DESC(pollers, "Number of polling threads, 1 to 8 (default 1)");

unsigned int xff_poll_idle_us = 200;
module_param_named(poll_idle_us, xff_poll_idle_us, uint, 0644);
MODULE_PARM_DESC(poll_idle_us,
		 "Idle time in microseconds after which a poller sleeps on the event channel (default 200)");

unsigned int xff_poll_budget = 64;
module_param_named(poll_budget, xff_poll_budget, uint, 0644);
MODULE_PARM_DESC(poll_budget,
		 "Responses taken from one channel before moving to the next (default 64)");

/*
 * SCHED_NORMAL by default: a FIFO poller that never sleeps under load
 * starves the I/O submitters and softirqs of its CPU and is stopped by RT
 * throttling (50 ms every second).  FIFO is for CPUs given to the pollers.
 */
bool xff_poll_fifo;
module_param_named(poll_fifo, xff_poll_fifo, bool, 0444);
MODULE_PARM_DESC(poll_fifo,
		 "Run pollers at SCHED_FIFO, for CPUs dedicated to them (default false)");

static int __init xff_init(void)
{
	int err;

	/* dom0 may use fipc disks too (xl block-attach 0 ...). */
	if (!xen_domain())
		return -ENODEV;
	if (!xff_nr_pollers || xff_nr_pollers > XFF_MAX_POLLERS) {
		pr_err(XFF_NAME ": pollers must be 1..%u\n", XFF_MAX_POLLERS);
		return -EINVAL;
	}
	if (xff_ring_order > FIPC_MAX_ORDER)
		xff_ring_order = FIPC_MAX_ORDER;

	err = xff_major_register();
	if (err)
		return err;
	err = xff_pollers_start();
	if (err)
		goto out_major;
	xff_debugfs_init();
	err = xff_xenbus_register();
	if (err)
		goto out_pollers;
	pr_info(XFF_NAME ": major %d, %u poller(s), ring order %u\n",
		xff_major, xff_nr_pollers, xff_ring_order);
	return 0;

out_pollers:
	xff_debugfs_exit();
	xff_pollers_stop();
out_major:
	xff_major_unregister();
	return err;
}

static void __exit xff_exit(void)
{
	xff_xenbus_unregister();
	xff_debugfs_exit();
	xff_pollers_stop();
	xff_major_unregister();
}

module_init(xff_init);
module_exit(xff_exit);

MODULE_DESCRIPTION("Xen fipc virtual block device frontend");
MODULE_LICENSE("GPL");
MODULE_ALIAS("xen:fipcblk");
