#!/bin/sh
# storage-stacks, domU side.  The guest named "stack" verifies its xvdb
# (verify.fio: 512 B to 1 MiB, QD 1 and 32; -o SZ_SMALL, default 1m, and
# -o SZ_BIG, default 4m); any other is the neighbour:
# verified random I/O on its xvdb for -o BESIDE_S seconds (default 45).
. /fipc/lib.sh
. /fipc/scenario/guest-lib.sh
fipc_wait_disk xvdb 120 || exit 1
# "gone": 4 MiB of direct writes, then power off at once (storage-stacks'
# teardown: its staging pages are still held below the backend).
if [ "$FIPC_GUEST_NAME" = gone ]; then
	fipc_fio gone-write --name=gone --filename=/dev/xvdb --ioengine=libaio \
		--direct=1 --rw=write --bs=64k --iodepth=8 --size=4m
	exit $?
fi
if [ "$FIPC_GUEST_NAME" = stack ]; then
	FIPC_DEV=/dev/xvdb FIPC_BS_MIN=512 FIPC_SZ_SMALL=$(fipc_opt SZ_SMALL 1m) \
		FIPC_SZ_BIG=$(fipc_opt SZ_BIG 4m) \
		fipc_fio stack-verify /fipc/scenario/verify.fio
	exit $?
fi
fipc_fio beside --name=beside --filename=/dev/xvdb --ioengine=libaio \
	--direct=1 --rw=randrw --bs=4k --iodepth=16 --size=32m \
	--time_based=1 --runtime="$(fipc_opt BESIDE_S 45)" \
	--verify=crc32c --verify_fatal=1
