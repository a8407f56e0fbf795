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
fipc_scenario_begin "$@"
export FIPC_DOMU_LOAD=""     # stock xen-blkfront is part of the domU image

# One backing device per domU (--domus N: several domUs at once, each with
# its own null_blk device; --backing DEV: exactly one domU on DEV).
n=$FIPC_DOMUS
[ "$n" -ge 1 ] || fipc_die "classic needs at least one domU"
if [ -z "$FIPC_BACKING" ]; then
    fipc_step null-blk 60 fipc_null_blk 1 "$n" || exit 1
    FIPC_BACKING=/dev/nullb0
elif [ "$n" -ne 1 ]; then
    fipc_die "--backing takes exactly one domU"
fi
export FIPC_BACKING here n

backing_of() { [ "$n" -eq 1 ] && echo "$FIPC_BACKING" || echo "/dev/nullb$(($1 - 1))"; }
create_all() {
    local i
    for i in $(seq 1 "$n"); do
        fipc_domu_start "domU$i" "$here/domU.cfg" "$here/guest.sh" \
            BACKING="$(backing_of "$i")" || return 1
    done
}
wait_all() {   # all domUs run at the same time; collect every one of them
    local i rc=0
    for i in $(seq 1 "$n"); do
        fipc_domu_wait "domU$i" 840 || rc=1
    done
    return $rc
}
fipc_step domU-create $((120 * n)) create_all || exit 1
# Boot + verify + perf inside the guest(s), then collect their results.
fipc_step domU-fio 900 wait_all || exit 1

export FIPC_DEV=$FIPC_BACKING
export FIPC_PERF_RUNTIME=$(fipc_opt PERF_RUNTIME 5)
fipc_step dom0-perf 120 fipc_fio dom0 perf "$here/perf.fio" || exit 1
