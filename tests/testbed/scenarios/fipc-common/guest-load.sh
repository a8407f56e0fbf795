#!/bin/sh
# fipc-destroy, domU side: verified random writes on xvdb that never end;
# dom0 destroys the domain in the middle.
. /fipc/lib.sh
fipc_wait_disk xvdb 120 || exit 1
echo "fipc-destroy: I/O running on xvdb"
fio --name=load --filename=/dev/xvdb --ioengine=libaio --direct=1 \
    --rw=randrw --bs=4k --iodepth=32 --numjobs=1 --size=64m \
    --time_based=1 --runtime=100000 --verify=crc32c > /dev/null 2>&1
echo "fipc-destroy: fio ended (it should have been killed)"
exit 1
