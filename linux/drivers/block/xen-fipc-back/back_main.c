// SPDX-License-Identifier: GPL-2.0
/*
 * xen-fipc-back: module parameters, load and unload.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <xen/xen.h>
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

static int xfb_set_poller_cpus(const char *val, const struct kernel_param *kp)
{
	return xfb_pollers_repin(val);
}

static int xfb_get_poller_cpus(char *buf, const struct kernel_param *kp)
{
	return xfb_pollers_show(buf);
}

static const struct kernel_param_ops xfb_poller_cpus_ops = {
	.set = xfb_set_poller_cpus,
	.get = xfb_get_poller_cpus,
};

module_param_cb(poller_cpus, &xfb_poller_cpus_ops, NULL, 0644);
MODULE_PARM_DESC(poller_cpus,
		 "Read: one line per poller with its CPU and counters. Write a CPU list (e.g. 1,3) to re-pin poller i to the i-th CPU");

unsigned int xfb_nr_pollers = 1;
module_param_named(pollers, xfb_nr_pollers, uint, 0444);
MODULE_PARM_DESC(pollers, "Number of polling threads, 1 to 8 (default 1)");

unsigned int xfb_poll_idle_us = 200;
module_param_named(poll_idle_us, xfb_poll_idle_us, uint, 0644);
MODULE_PARM_DESC(poll_idle_us,
		 "Idle time in microseconds after which a poller sleeps on the event channels (default 200)");

unsigned int xfb_poll_budget = 32;
module_param_named(poll_budget, xfb_poll_budget, uint, 0644);
MODULE_PARM_DESC(poll_budget,
		 "Requests taken from one channel before moving to the next (default 32)");

/*
 * SCHED_NORMAL by default: a FIFO poller that never sleeps under load
 * starves the I/O submitters and softirqs of its CPU and is stopped by RT
 * throttling (50 ms every second).  FIFO is for CPUs given to the pollers.
 */
bool xfb_poll_fifo;
module_param_named(poll_fifo, xfb_poll_fifo, bool, 0444);
MODULE_PARM_DESC(poll_fifo,
		 "Run pollers at SCHED_FIFO, for CPUs dedicated to them (default false)");

static int __init xfb_init(void)
{
	int err;

	if (!xen_domain())
		return -ENODEV;
	if (!xfb_nr_pollers || xfb_nr_pollers > XFB_MAX_POLLERS) {
		pr_err(XFB_NAME ": pollers must be 1..%u\n", XFB_MAX_POLLERS);
		return -EINVAL;
	}
	err = xfb_pollers_start();
	if (err)
		return err;
	err = xfb_xenbus_register();
	if (err) {
		xfb_pollers_stop();
		return err;
	}
	pr_info(XFB_NAME ": %u poller(s), requests up to %u bytes\n",
		xfb_nr_pollers, xfb_max_request_bytes);
	return 0;
}

static void __exit xfb_exit(void)
{
	xfb_xenbus_unregister();
	xfb_pollers_stop();
}

module_init(xfb_init);
module_exit(xfb_exit);

MODULE_DESCRIPTION("Xen fipc virtual block device backend");
MODULE_LICENSE("GPL");
MODULE_ALIAS("xen-backend:fipcblk");
