#!/bin/sh
# Scenario "steal", guest side (busybox sh).  Two roles, by the guest's
# name:
#   H  the busy guest: a busy loop from "ready" until dom0 destroys it
#      (its vCPU shares pCPU 0 with dom0's, so with the backend poller)
#   R  the reader: dom0 writes each phase into the mailbox xvdm; R prints
#      "@@STEAL R <phase> started", runs quiet-reader.fio (4 KiB random
#      reads, QD 1) for -o STEAL_S (24) seconds on xvdc (classic phy:) in
#      a phase named *.phy, on xvdb (phy1) in any other, then
#      "@@STEAL R <phase> done rc=<rc> iops=<n> p50_us=<n> p99_us=<n>
#      mean_us=<n>" (completion latency percentiles, total latency mean);
#      "bye" ends it.
. /fipc/lib.sh
me=$FIPC_GUEST_NAME
if [ "$me" = H ]; then
	echo "@@STEAL H ready"
	while :; do :; done
fi
export FIPC_QUIET_SECONDS=$(fipc_opt STEAL_S 24)
for d in xvdb xvdc xvdm; do
	fipc_wait_disk $d 120 || exit 1
done

# us JSON KEY N: the N-th value of KEY in fio's JSON, from ns to us (0
# where fio wrote none: its rc says why).
us() {
	v=$(fipc_json_value "$1" "$2" "$3")
	v=${v%%.*}
	echo $(( ${v:-0} / 1000 ))
}

echo "@@STEAL R ready"
rc=0
while :; do
	fipc_mailbox_next /dev/xvdm
	[ "$phase" = bye ] && break
	dev=/dev/xvdb
	case $phase in *.phy) dev=/dev/xvdc ;; esac
	echo "@@STEAL R $phase started on $dev"
	r=0
	FIPC_DEV=$dev fipc_fio "$phase" /fipc/scenario/quiet-reader.fio || r=1
	[ $r = 0 ] || rc=1
	j=/fipc/out/$phase.json
	# fio's read section comes first: its "iops", then the means of
	# slat, clat and lat, then clat's percentiles.
	iops=$(fipc_json_value "$j" iops 1)
	iops=${iops%%.*}
	echo "@@STEAL R $phase done rc=$r iops=${iops:-0} p50_us=$(us "$j" 50.000000 1) p99_us=$(us "$j" 99.000000 1) mean_us=$(us "$j" mean 3)"
done
echo "@@STEAL R bye rc=$rc"
exit $rc
