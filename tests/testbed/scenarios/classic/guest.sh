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
if [ "$(fipc_opt CRASH 0)" = 1 ]; then
    # Self-test (-o CRASH=1): the guest kernel panics; the run MUST fail
    # naming phase domU-fio, with the guest's console tail.
    echo c > /proc/sysrq-trigger
fi
rc=0
fipc_fio verify /fipc/scenario/verify.fio || rc=1
if [ "$(fipc_opt CORRUPT 0)" = 1 ]; then
    # Self-test of the checks (-o CORRUPT=1): overwrite one block inside the
    # region verify-seq-4k-qd1 wrote (offset 32 MiB), then re-verify that
    # region without rewriting it.  This run MUST fail.
    echo "classic: CORRUPT=1: zeroing one 4 KiB block at 32 MiB + 12 KiB"
    dd if=/dev/zero of="$FIPC_DEV" bs=4096 count=1 seek=$((32 * 256 + 3)) conv=notrunc,fsync
    fipc_fio reverify-corrupted --section=verify-seq-4k-qd1 --verify_only /fipc/scenario/verify.fio || rc=1
fi
fipc_fio perf /fipc/scenario/perf.fio || rc=1
exit $rc
