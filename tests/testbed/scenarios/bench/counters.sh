#!/bin/sh
# Guest-side counters around each fio job (FIO_COUNTERS_CMD of run-fio.sh),
# "name value" lines: interrupts of the timed disk's event channels as this
# guest sees them (backend to frontend notifications) and, for a fipc disk
# (xvda = devid 51712), the frontend's own count of notifications it sent
# and the requests whose data it copied (front_copies), and the CPU time
# of its pollers so far, in microseconds; and the pollers' own counts
# (poller_cpus, summed over them: front_poll_loops, _empty, _sleeps,
# _contended_sleeps, _steal_sleeps, _short_sleeps, _wakeups, _irqs,
# _irqs_awake and _slept_us), which tell per job whether the poller took
# the answers awake or the event handler did, how often it slept early for
# another task or for another virtual CPU (stolen time) and how often a
# longer window would have polled through.
. /fipc/scenario/irqs.sh
echo "evtchn_to_front $(irq_sum "$FIPC_OPT_IRQ_PATTERN")"
d=/sys/bus/xen/devices/fipcblk-51712/statistics
if [ -d "$d" ]; then
	echo "evtchn_to_back $(cat "$d/notify_sent")"
	echo "front_copies $(front_copies 51712)"
fi
t=$(poller_ticks xff-poll)
if [ -n "$t" ]; then
	echo "front_poller_cpu_us $((t * 1000000 / $(clk_tck)))"
fi
f=/sys/module/xen_fipc_front/parameters/poller_cpus
if [ -f "$f" ]; then
	awk '$1 == "poller" {
		for (i = 2; i < NF; i++)
			if ($i ~ /^(loops|empty|sleeps|contended_sleeps|steal_sleeps|short_sleeps|wakeups|irqs|irqs_awake|slept_us)$/)
				sum[$i] += $(i + 1)
	}
	END { for (k in sum) printf "front_poll_%s %d\n", k, sum[k] }' "$f"
fi
