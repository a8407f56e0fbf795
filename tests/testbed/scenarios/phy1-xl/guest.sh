#!/bin/sh
# phy1-xl, domU side: verify the phy1 disk xl created (xvdb), then watch
# xvdc come and go while dom0 runs xl block-attach/block-detach cycles
# (reading from it each time it is there), until dom0 posts "done" in the
# mailbox at the end of xvdb; then verify the xvdc dom0 left attached.
. /fipc/lib.sh
export FIPC_SZ_SMALL=$(fipc_opt SZ_SMALL 1m) FIPC_SZ_BIG=$(fipc_opt SZ_BIG 4m)
rc=0
fipc_wait_disk xvdb 120 || exit 1
FIPC_DEV=/dev/xvdb FIPC_BS_MIN=512 fipc_fio verify-xvdb /fipc/scenario/verify.fio || rc=1

echo "@@FIPC-PHY1 cycles-start"
seen=0 reads=0 present=0
while ! fipc_mailbox_is /dev/xvdb done; do
	if [ -e /sys/block/xvdc ]; then
		if [ $present = 0 ]; then
			seen=$((seen + 1))
			present=1
			[ -b /dev/xvdc ] || fipc_wait_disk xvdc 1
			dd if=/dev/xvdc of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null &&
				reads=$((reads + 1))
		fi
	else
		present=0
		rm -f /dev/xvdc
	fi
	sleep 0.05
done
echo "phy1-xl: xvdc appeared $seen times, read $reads times"
echo "{\"xvdc_seen\": $seen, \"xvdc_reads\": $reads}" > /fipc/out/cycles.json
fipc_wait_disk xvdc 60 || rc=1
FIPC_DEV=/dev/xvdc FIPC_BS_MIN=512 fipc_fio verify-xvdc /fipc/scenario/verify.fio || rc=1
exit $rc
