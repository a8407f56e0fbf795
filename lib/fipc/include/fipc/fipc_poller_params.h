/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fipc pollers: a poller set's module parameters, for the drivers
 * (kernel only; the set: <fipc/fipc_poller.h>).
 */
#ifndef _FIPC_FIPC_POLLER_PARAMS_H
#define _FIPC_FIPC_POLLER_PARAMS_H

#include <linux/moduleparam.h>
#include <linux/stringify.h>
#include <fipc/fipc_poller.h>

/*
 * Auto-scaling (fipc_poller_scale.c): each poller's load is the share of
 * a period it spent in rounds that found work; FIPC_POLL_SCALE_PERIODS
 * periods in a row at or above the set's scale_up_pct (default
 * FIPC_POLL_SCALE_UP_PCT) spread its channels, below scale_down_pct
 * (default FIPC_POLL_SCALE_DOWN_PCT) gather them.
 */
#define FIPC_POLL_SCALE_PERIOD_MS	100
#define FIPC_POLL_SCALE_PERIODS		5

/*
 * A poller set's module parameters, one macro each, with the same names
 * and meaning in every driver: pollers (nr_pollers, at load),
 * poll_idle_us (idle_us), poll_idle_max_us (idle_max_us), poll_fifo
 * (fifo, at load), poll_autoscale (autoscale), poll_scale_up_pct and
 * poll_scale_down_pct (scale_up_pct, scale_down_pct) and poller_cpus
 * (read: fipc_poller_set_show(); write a CPU list:
 * fipc_poller_set_repin()).  @set is the struct fipc_poller_set itself,
 * not a pointer.  The budget's meaning and default are the driver's: it
 * declares that parameter itself.
 *
 * SCHED_NORMAL by default: a FIFO poller that never sleeps under load
 * starves the I/O submitters and softirqs of its CPU and is stopped by
 * RT throttling (50 ms every second).  FIFO is for CPUs given to the
 * pollers.
 */
#define FIPC_PARAM_POLLER_CPUS(set)					\
	module_param_cb(poller_cpus, &fipc_poller_cpus_param_ops, &(set), \
			0644);						\
	MODULE_PARM_DESC(poller_cpus,					\
		"Read: one line per poller with its CPU and counters. "	\
		"Write a CPU list (e.g. 1,3) to re-pin poller i to the i-th CPU")
#define FIPC_PARAM_POLLERS(set)						\
	module_param_named(pollers, (set).nr_pollers, uint, 0444);	\
	MODULE_PARM_DESC(pollers, "Number of polling threads, 1 to "	\
		__stringify(FIPC_POLLERS_MAX) " (default "		\
		__stringify(FIPC_POLLERS_DEFAULT) ")")
#define FIPC_PARAM_POLL_IDLE_US(set)					\
	module_param_named(poll_idle_us, (set).idle_us, uint, 0644);	\
	MODULE_PARM_DESC(poll_idle_us,					\
		"Shortest idle time in microseconds after which a poller sleeps " \
		"on the event channels (default "			\
		__stringify(FIPC_POLL_IDLE_US_DEFAULT) ")")
#define FIPC_PARAM_POLL_IDLE_MAX_US(set)				\
	module_param_named(poll_idle_max_us, (set).idle_max_us, uint, 0644); \
	MODULE_PARM_DESC(poll_idle_max_us,				\
		"Longest idle time in microseconds a poller learns to poll " \
		"through: the mean gap between its work plus the larger of " \
		"that mean and four mean deviations, if shorter "	\
		"(default " __stringify(FIPC_POLL_IDLE_MAX_US_DEFAULT)	\
		"; at most poll_idle_us: fixed)")
#define FIPC_PARAM_POLL_AUTOSCALE(set)					\
	module_param_named(poll_autoscale, (set).autoscale, bool, 0644); \
	MODULE_PARM_DESC(poll_autoscale,				\
		"Start channels on one poller and spread them over more only " \
		"while the busy ones stay busy (default true; live)")
#define FIPC_PARAM_POLL_SCALE_UP_PCT(set)				\
	module_param_cb(poll_scale_up_pct, &fipc_poll_pct_param_ops,	\
			&(set).scale_up_pct, 0644);			\
	MODULE_PARM_DESC(poll_scale_up_pct,				\
		"Auto-scaling: a poller busy this share of the time, percent, " \
		"for " __stringify(FIPC_POLL_SCALE_PERIODS) " periods of " \
		__stringify(FIPC_POLL_SCALE_PERIOD_MS) " ms hands half of its " \
		"channels to an idle poller (1-100, default "		\
		__stringify(FIPC_POLL_SCALE_UP_PCT) "; live)")
#define FIPC_PARAM_POLL_SCALE_DOWN_PCT(set)				\
	module_param_cb(poll_scale_down_pct, &fipc_poll_pct_param_ops,	\
			&(set).scale_down_pct, 0644);			\
	MODULE_PARM_DESC(poll_scale_down_pct,				\
		"Auto-scaling: a poller busy less than this share of the time, " \
		"percent, hands all of its channels to a lower poller with room " \
		"for them (1-100, below poll_scale_up_pct, default "	\
		__stringify(FIPC_POLL_SCALE_DOWN_PCT) "; live)")
#define FIPC_PARAM_POLL_FIFO(set)					\
	module_param_named(poll_fifo, (set).fifo, bool, 0444);		\
	MODULE_PARM_DESC(poll_fifo,					\
		"Run pollers at SCHED_FIFO, for CPUs dedicated to them (default false)")
#define FIPC_PARAM_POLL_STEAL_SLEEP(set)				\
	module_param_named(poll_steal_sleep, (set).steal_sleep, bool, 0644); \
	MODULE_PARM_DESC(poll_steal_sleep,				\
		"A poller without work sleeps, even within poll_idle_us, when " \
		"the hypervisor lately kept its virtual CPU waiting a quarter " \
		"of the time or more while another ran on its CPU (stolen " \
		"time), rather than polling on and taking that CPU from it " \
		"(default true; live)")

/* poller_cpus' ops and the percentages' (fipc_poller_sysfs.c). */
extern const struct kernel_param_ops fipc_poller_cpus_param_ops;
extern const struct kernel_param_ops fipc_poll_pct_param_ops;

#endif /* _FIPC_FIPC_POLLER_PARAMS_H */
