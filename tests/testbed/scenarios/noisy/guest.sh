#!/bin/sh
# Scenario "noisy", guest side (busybox sh; guest.sh).  Guest A is the noisy
# neighbour, B and C the quiet ones.  dom0 writes each phase into the
# mailbox xvdm (guest-lib.sh's fipc_mailbox_is); a guest runs its part of
# the phase and prints "@@NOISY <guest> <phase> done":
#   r<N>.<cfg>-alone    B and C: quiet-reader.fio on the disk of <cfg>
#   r<N>.<cfg>-noisy    A: noisy-writer.fio on the disk of <cfg>, in the
#                       background ("started" at once, "done" when it ends)
#   r<N>.<cfg>-beside   B and C: quiet-reader.fio again, A writing meanwhile
#   bye                 everybody: exit
# <N> is the round, <cfg> phy (xvdb, classic blkback) or phy1 (xvdc,
# xen-fipc-back); fio's results are named after the phase.
. /fipc/lib.sh
me=$FIPC_GUEST_NAME
export FIPC_QUIET_SECONDS=$(fipc_opt QUIET_S 15)
export FIPC_NOISY_SECONDS=$(fipc_opt NOISY_S 25)
for d in xvdb xvdc xvdm; do
	fipc_wait_disk $d 120 || exit 1
done
# -o POLL_IDLE_MAX_US=N: the frontend's longest idle window, as dom0's.
v=$(fipc_opt POLL_IDLE_MAX_US "")
[ -z "$v" ] || echo "$v" > /sys/module/xen_fipc_front/parameters/poll_idle_max_us
# -o POLL_STEAL_SLEEP=0|1: the frontend's poll_steal_sleep (default 1).
v=$(fipc_opt POLL_STEAL_SLEEP "")
[ -z "$v" ] || echo "$v" > /sys/module/xen_fipc_front/parameters/poll_steal_sleep

# counters PHASE: after a phase, this vCPU's stolen time so far (ms, from
# /proc/stat) and the frontend pollers' sleeps, contended_sleeps and
# steal_sleeps so far, into the guest's log.
counters() {
	awk -v p="@@NOISY $me $1 counters" '
		FILENAME == "/proc/stat" && $1 == "cpu" { steal = $9 }
		FILENAME != "/proc/stat" && $1 == "poller" {
			for (i = 2; i < NF; i++)
				if ($i ~ /^(sleeps|contended_sleeps|steal_sleeps)$/)
					sum[$i] += $(i + 1)
		}
		END { printf "%s steal_ms %d poll_sleeps %d poll_contended_sleeps %d poll_steal_sleeps %d\n",
			p, steal * 10, sum["sleeps"], sum["contended_sleeps"], sum["steal_sleeps"] }' \
		/proc/stat /sys/module/xen_fipc_front/parameters/poller_cpus
}
echo "@@NOISY $me ready"
rc=0
while :; do
	fipc_mailbox_next /dev/xvdm
	case $phase in
	r[0-9]*.phy-alone|r[0-9]*.phy-noisy|r[0-9]*.phy-beside) dev=/dev/xvdb ;;
	r[0-9]*.phy1-alone|r[0-9]*.phy1-noisy|r[0-9]*.phy1-beside) dev=/dev/xvdc ;;
	bye) break ;;
	*) continue ;;
	esac
	case $me:${phase#*-} in
	A:noisy)
		(FIPC_DEV=$dev fipc_fio "$phase" /fipc/scenario/noisy-writer.fio
		 echo "@@NOISY $me $phase done rc=$?") &
		echo "@@NOISY $me $phase started"
		;;
	A:*) echo "@@NOISY $me $phase done rc=0" ;;
	*:noisy) echo "@@NOISY $me $phase done rc=0" ;;
	*)
		FIPC_DEV=$dev fipc_fio "$phase" /fipc/scenario/quiet-reader.fio || rc=1
		counters "$phase"
		echo "@@NOISY $me $phase done rc=$rc"
		;;
	esac
done
wait
echo "@@NOISY $me bye rc=$rc"
exit $rc
