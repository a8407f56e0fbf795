#!/bin/bash
# Scenario "classic" (dom0 side): the baseline that fipc is compared against.
#   null_blk (memory backed) in dom0 -> classic xen-blkback -> xen-blkfront in
#   one PV domU; in the domU fio verify jobs (verify.fio) and a short
#   performance job (perf.fio); then the same performance job dom0-native on
#   the same device.
# Runs on the emulated testbed and on a real Xen dom0 alike, e.g.
#   tests/testbed/scenarios/classic/run.sh --results /tmp/r \
#       --domu-ramdisk domU.cpio [--backing /dev/sdX  # DESTROYS its data]
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_parse_args "$@"
here=$(cd "$(dirname "$0")" && pwd)
export FIPC_DOMU_LOAD=""     # stock xen-blkfront is part of the domU image

if [ -z "$FIPC_BACKING" ]; then
    fipc_step null-blk 60 fipc_null_blk 1 || exit 1
    FIPC_BACKING=/dev/nullb0
fi
export FIPC_BACKING
fipc_step domU-create 120 fipc_domu_start domU1 "$here/domU.cfg" "$here/guest.sh" \
    BACKING="$FIPC_BACKING" || exit 1
# Boot + verify + perf inside the guest, then collect its results.
fipc_step domU-fio 900 fipc_domu_wait domU1 840 || exit 1

export FIPC_DEV=$FIPC_BACKING
export FIPC_PERF_RUNTIME=$(fipc_opt PERF_RUNTIME 5)
fipc_step dom0-perf 120 fipc_fio dom0 perf "$here/perf.fio" || exit 1
