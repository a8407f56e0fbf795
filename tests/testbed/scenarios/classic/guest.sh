#!/bin/sh
# Scenario "classic" (domU side, busybox sh): verify, then measure, the disk
# that dom0 gave us over classic blkback (xvda).
. /fipc/lib.sh
export FIPC_DEV=/dev/xvda
export FIPC_VERIFY_SIZE_512=$(fipc_opt VERIFY_SIZE_512 256k)
export FIPC_VERIFY_SIZE_4K=$(fipc_opt VERIFY_SIZE_4K 1m)
export FIPC_PERF_RUNTIME=$(fipc_opt PERF_RUNTIME 5)
if [ ! -b "$FIPC_DEV" ]; then
    echo "classic: no $FIPC_DEV in the guest"
    exit 1
fi
echo "classic: $FIPC_DEV has $(cat /sys/block/xvda/size) sectors," \
    "logical block $(cat /sys/block/xvda/queue/logical_block_size)"
rc=0
fipc_fio verify /fipc/scenario/verify.fio || rc=1
fipc_fio perf /fipc/scenario/perf.fio || rc=1
exit $rc
