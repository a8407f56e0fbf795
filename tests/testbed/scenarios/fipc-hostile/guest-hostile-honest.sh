#!/bin/sh
# fipc-hostile, honest guest: rounds of verified random writes
# (hostile-verify.fio) on its phy1 disk xvdb, served by the same backend
# and poller as the attacker's, until dom0 posts "done" in the mailbox at
# the end of xvdb (or -o HONEST_MAX_ROUNDS rounds); then waits for "bye"
# (dom0 reads the backend's counters first).  Every round's fio JSON is
# kept (honest-verify-N.json) and judged.
. /fipc/lib.sh
export FIPC_DEV=/dev/xvdb
export FIPC_SZ_4K=$(fipc_opt HONEST_SZ_4K 8m) FIPC_SZ_64K=$(fipc_opt HONEST_SZ_64K 32m)
max=$(fipc_opt HONEST_MAX_ROUNDS 80)
fipc_wait_disk xvdb 120 || exit 1
# Progress for a dom0 that cannot read the backend's counters (the
# backend in a driver domain, -o BACKEND=dd): xvdb's completed reads and
# writes every 2 s.
(while :; do
	set -- $(cat /sys/block/xvdb/stat)
	echo "@@FIPC-HOSTILE honest io reads=$1 writes=$5"
	sleep 2
done) &
progress=$!
echo "@@FIPC-HOSTILE honest running"
rc=0
i=0
while :; do
	i=$((i + 1))
	fipc_fio "honest-verify-$i" /fipc/scenario/hostile-verify.fio || rc=1
	fipc_mailbox_is /dev/xvdb done && break
	if [ "$i" -ge "$max" ]; then
		echo "honest: no 'done' from dom0 after $i rounds"
		rc=1
		break
	fi
done
kill $progress
echo "@@FIPC-HOSTILE honest finished rounds=$i rc=$rc"
# dom0 reads our backend's counters while the disk is still there.
j=0
while ! fipc_mailbox_is /dev/xvdb bye && [ $j -lt 600 ]; do
	sleep 0.2
	j=$((j + 1))
done
exit $rc
