#!/bin/sh
# Scenario "bench" (domU side, busybox sh): the timed fio jobs on xvda with
# event-channel counts around them, then a crc32c verification pass on xvdb.
. /fipc/lib.sh
perf=/dev/xvda
verify=/dev/xvdb
# Classic disks exist at boot; fipc disks once xen-fipc-front (loaded
# just before this script) has connected them: wait, and make the nodes.
for d in $perf $verify; do
	i=0
	while [ ! -e "/sys/block/${d#/dev/}" ]; do
		i=$((i + 1))
		[ $i -lt 600 ] || { echo "bench: no $d in the guest after 60 s"; exit 1; }
		sleep 0.1
	done
	if [ ! -b "$d" ]; then
		mm=$(cat "/sys/block/${d#/dev/}/dev")
		mknod "$d" b "${mm%%:*}" "${mm##*:}"
	fi
done

# Interrupts of our disk's event channels, as the frontend sees them.
. /fipc/scenario/irqs.sh
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $6 + $7 + $8 }' /proc/stat; }

# -o POLL_IDLE_US=N, -o POLL_IDLE_MAX_US=N: the frontend's pollers' idle
# window (shortest, longest), as dom0's (xen-fipc-back) get them;
# -o FRONT_POLL_IDLE_US=N and -o FRONT_POLL_IDLE_MAX_US=N set the
# frontend's alone.
for k in POLL_IDLE_US POLL_IDLE_MAX_US; do
	p=/sys/module/xen_fipc_front/parameters/$(echo $k | tr A-Z a-z)
	v=$(fipc_opt FRONT_$k "$(fipc_opt $k "")")
	if [ -n "$v" ] && [ -f "$p" ]; then
		echo "$v" > "$p"
	fi
done

export FIO_RUNTIME=$(fipc_opt FIO_RUNTIME 5)
export FIO_RAMP=$(fipc_opt FIO_RAMP 1)
export FIO_NUMJOBS=$(grep -c ^processor /proc/cpuinfo)
export FIO_LAT_CPU=0
export FIO_COUNTERS_CMD="sh /fipc/scenario/counters.sh" FIPC_OPT_IRQ_PATTERN
[ -n "$(fipc_opt FIO_JOBS '')" ] && export FIO_JOBS="$(fipc_opt FIO_JOBS '')"

i0=$(irq_sum "$FIPC_OPT_IRQ_PATTERN")
c0=$(cpu_ticks)
p0=$(poller_ticks xff-poll)
k0=$(front_copies 51712)
echo "@@FIPC-BENCH timed-start"
rc=0
sh /fipc/scenario/run-fio.sh $perf /fipc/out || rc=1
echo "@@FIPC-BENCH timed-done"
# The frontend pollers' own counters, for reading (fipc disks only).
f=/sys/module/xen_fipc_front/parameters/poller_cpus
[ -f $f ] && cat $f > /fipc/out/front-pollers.txt
i1=$(irq_sum "$FIPC_OPT_IRQ_PATTERN")
c1=$(cpu_ticks)
p1=$(poller_ticks xff-poll)
k1=$(front_copies 51712)
hz=$(clk_tck)
secs() { awk -v t="$1" -v hz="$hz" 'BEGIN { printf "%.2f", t / hz }'; }
# The frontend's pollers (xff-poll/N): only where there are some, so that
# a classic disk reports no poller time rather than zero.
poll=
[ -n "$p0" ] && [ -n "$p1" ] &&
	poll=", \"front_poller_cpu_seconds\": $(secs $((p1 - p0)))"
# Copies: the fipc frontend's count (classic blkfront's is not readable).
[ -n "$k0" ] && [ -n "$k1" ] && poll="$poll, \"front_copies\": $((k1 - k0))"
printf '{"evtchn_to_front": %d, "guest_cpu_seconds": %s%s}\n' $((i1 - i0)) \
	"$(secs $((c1 - c0)))" "$poll" > /fipc/out/front-counters.json

echo "bench: verification pass on $verify"
mkdir -p /fipc/out/verify
FIO_COUNTERS_CMD= FIO_VERIFY=1 FIO_VERIFY_SIZE=$(fipc_opt VERIFY_SIZE 2m) \
	FIO_VERIFY_SIZE_512=$(fipc_opt VERIFY_SIZE_512 256k) \
	sh /fipc/scenario/run-fio.sh $verify /fipc/out/verify || rc=1

# Idle: -o IDLE_S seconds (10) without I/O, right after the last one.  What
# the disk costs then (pollers' CPU, notifications) is what an idle guest
# costs; dom0 counts its side between the same markers.
idle=$(fipc_opt IDLE_S 10)
i0=$(irq_sum "$FIPC_OPT_IRQ_PATTERN")
p0=$(poller_ticks xff-poll)
echo "@@FIPC-BENCH idle-start"
sleep "$idle"
echo "@@FIPC-BENCH idle-done"
# dom0 reads its side of the idle window now: stay up (and idle) a moment.
sleep 3
i1=$(irq_sum "$FIPC_OPT_IRQ_PATTERN")
p1=$(poller_ticks xff-poll)
poll=
[ -n "$p0" ] && [ -n "$p1" ] &&
	poll=", \"front_poller_cpu_seconds\": $(secs $((p1 - p0)))"
printf '{"idle_seconds": %s, "evtchn_to_front": %d%s}\n' "$idle" $((i1 - i0)) "$poll" \
	> /fipc/out/idle-front.json
exit $rc
