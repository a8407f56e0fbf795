#!/bin/sh
# Scenario "dom0-latency", guest side (busybox sh).  dom0 writes each phase
# into the mailbox xvdm (guest-lib.sh's fipc_mailbox_next):
#   r<N>.phy, r<N>.phy1  burst I/O on xvdb (phy:) or xvdc (phy1:): fio
#                        burst.fio for -o BURST_ON_S (2) seconds, then
#                        -o BURST_OFF_S (1) seconds of rest, again and
#                        again while the mailbox holds the phase; "started"
#                        at once, "done" once dom0 posted another word
#   bye                  exit
# Each burst's fio result is /fipc/out/<phase>-b<K>.json (exit status:
# .rc, which the host's summarize.py wants beside it).  The bursts
# print nothing: every console line is work for dom0's xenconsoled, in
# the middle of dom0's probe.  -o SELFTEST=noio: no I/O in the phy1
# phases (the scenario must then fail).
. /fipc/lib.sh
on=$(fipc_opt BURST_ON_S 2)
off=$(fipc_opt BURST_OFF_S 1)
for d in xvdb xvdc xvdm; do
	fipc_wait_disk $d 120 || exit 1
done
echo "@@DOM0LAT ready"
rc=0
while :; do
	fipc_mailbox_next /dev/xvdm
	case $phase in
	r[0-9]*.phy) dev=/dev/xvdb ;;
	r[0-9]*.phy1) dev=/dev/xvdc ;;
	bye) break ;;
	*) continue ;;
	esac
	echo "@@DOM0LAT $phase started"
	n=0
	bad=0
	while fipc_mailbox_is /dev/xvdm "$phase"; do
		if [ "$(fipc_opt SELFTEST "")" = noio ] && [ "$dev" = /dev/xvdc ]; then
			sleep 1
			continue
		fi
		n=$((n + 1))
		FIPC_DEV=$dev FIPC_BURST_S=$on fio --output-format=json \
			--output="/fipc/out/$phase-b$n.json" /fipc/scenario/burst.fio
		r=$?
		echo $r > "/fipc/out/$phase-b$n.rc"
		[ $r -eq 0 ] || bad=$((bad + 1))
		sleep "$off"
	done
	[ $bad -eq 0 ] || rc=1
	echo "@@DOM0LAT $phase done bursts=$n failed=$bad"
done
echo "@@DOM0LAT bye rc=$rc"
exit $rc
