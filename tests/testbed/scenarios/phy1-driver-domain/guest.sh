#!/bin/sh
# phy1-driver-domain, client domU side: xvdb is a phy1 disk whose backend
# is a driver domain.  Verify it with fio, leave a random 4 KiB block at
# 896 MiB, then follow dom0's xl block-detach / block-attach cycles
# (-o CYCLES=N, default 2): report "@@FIPC-DD gone I end" when xvdb has gone,
# "@@FIPC-DD back I end" when it is back and still holds that block; verify
# the re-attached disk with fio again and power off.
. /fipc/lib.sh
export FIPC_SZ_SMALL=$(fipc_opt SZ_SMALL 1m) FIPC_SZ_BIG=$(fipc_opt SZ_BIG 4m)
n=$(fipc_opt CYCLES 2)
pat=229376   # 4 KiB blocks: 896 MiB, beyond verify.fio's regions
rc=0
fipc_wait_disk xvdb 120 || exit 1
FIPC_DEV=/dev/xvdb FIPC_BS_MIN=512 fipc_fio verify-xvdb /fipc/scenario/verify.fio || rc=1
dd if=/dev/urandom of=/tmp/pat bs=4096 count=1 2>/dev/null
dd if=/tmp/pat of=/dev/xvdb bs=4096 seek=$pat count=1 oflag=direct conv=fsync 2>/dev/null ||
	{ echo "cannot write the pattern block"; rc=1; }
echo "@@FIPC-DD client-verified"

# c, not i: fipc_wait_disk (guest-lib.sh) uses i.
c=1 same=0
while [ $c -le "$n" ]; do
	j=0
	while [ -e /sys/block/xvdb ]; do
		j=$((j + 1))
		if [ $j -ge 6000 ]; then
			echo "cycle $c: xvdb still there after 300 s"
			exit 1
		fi
		sleep 0.05
	done
	rm -f /dev/xvdb
	echo "@@FIPC-DD gone $c end"
	fipc_wait_disk xvdb 300 || exit 1
	if dd if=/dev/xvdb of=/tmp/got bs=4096 skip=$pat count=1 iflag=direct 2>/dev/null &&
	   cmp -s /tmp/pat /tmp/got; then
		same=$((same + 1))
	else
		echo "cycle $c: the pattern block differs after xl block-attach"
		rc=1
	fi
	echo "@@FIPC-DD back $c end"
	c=$((c + 1))
done
echo "{\"cycles\": $n, \"pattern_kept\": $same}" > /fipc/out/cycles.json
FIPC_DEV=/dev/xvdb FIPC_BS_MIN=512 fipc_fio verify-xvdb-reattached /fipc/scenario/verify.fio || rc=1
exit $rc
