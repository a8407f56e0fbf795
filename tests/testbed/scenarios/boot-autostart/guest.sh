#!/bin/sh
# boot-autostart, domU side: a guest xendomains started at dom0's boot.
# Verify xvdb (phy1:), see xvdc, then wait for dom0's words in xvdb's
# mailbox: "drop": let go of xvdc (unbind its frontend device, as a guest
# that lost interest in a disk would), so that dom0 can diagnose a disk
# the guest closed; then run what dom0 sends through fipc-exec-disk
# (fipc bench) until "done": the end.
. /fipc/lib.sh
export FIPC_SZ_SMALL=$(fipc_opt SZ_SMALL 512k) FIPC_SZ_BIG=$(fipc_opt SZ_BIG 2m)
rc=0
fipc_wait_disk xvdb 120 || exit 1
fipc_wait_disk xvdc 120 || exit 1
FIPC_DEV=/dev/xvdb FIPC_BS_MIN=512 fipc_fio verify-xvdb /fipc/scenario/verify.fio || rc=1
dd if=/dev/xvdc of=/dev/null bs=4k count=16 iflag=direct 2>/dev/null ||
	{ echo "boot-autostart: FAIL reading xvdc"; rc=1; }
echo "@@FIPC-AUTOSTART verified rc=$rc data_path $(cat /sys/bus/xen/devices/fipcblk-51728/statistics/data_path)"
# "done" instead of "drop": dom0 gave up early; end now.
while ! fipc_mailbox_is /dev/xvdb drop; do
	fipc_mailbox_is /dev/xvdb done && exit $rc
	sleep 0.1
done
echo fipcblk-51744 > /sys/bus/xen/drivers/fipcblk/unbind ||
	{ echo "boot-autostart: FAIL unbinding xvdc"; rc=1; }
echo "@@FIPC-AUTOSTART dropped xvdc"
# Until "done": serve dom0's commands (fipc bench through fipc-exec-disk).
until fipc_mailbox_is /dev/xvdb done; do
	fipc_exec_serve /dev/xvdb || sleep 0.1
done
exit $rc
