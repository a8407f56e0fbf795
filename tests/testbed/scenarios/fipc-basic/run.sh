#!/bin/bash
# Scenario "fipc-basic" (dom0 side): null_blk (memory backed) in dom0,
# served by xen-fipc-back to one PV domU running xen-fipc-front:
#   xvdb  one channel per guest vCPU      xvdc  one channel (fipc-max-queues=1)
# The disks are created with xenstore-write (fipc-common/fipc-lib.sh), as
# libxl would.  In the guest: fio verify (crc32c) on both, perf, the
# hostile request kinds.  Then dom0 checks the backend's counters (no
# protocol error, the hostile requests refused, flushes seen), detaches,
# unloads, and checks its own health.
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_parse_args "$@"
here=$(cd "$(dirname "$0")" && pwd)
common=$(cd "$here/../fipc-common" && pwd)
. "$common/fipc-lib.sh"
export here common
export FIPC_DOMU_LOAD="fipc xen-fipc-front"

start() {
    fipc_dmesg_mark
    fipc_null_blk 1 || return 1
    fipc_modules_load 0 || return 1
    fipc_domu_start domU1 "$common/domU.cfg" "$common/guest-basic.sh" || return 1
    local id
    id=$(xl domid domU1) || return 1
    echo "$id" > "$FIPC_WORK/domU1.id"
    fipc_blk_attach "$id" 51728 /dev/nullb0 w || return 1
    fipc_blk_attach "$id" 51744 /dev/nullb0 w fipc-max-queues=1 || return 1
}

check() {
    local id rc=0 v
    id=$(cat "$FIPC_WORK/domU1.id")
    fipc_be_stats_json "$id" 51728 "$FIPC_RESULTS/dom0/backend-xvdb.json"
    fipc_be_stats_json "$id" 51744 "$FIPC_RESULTS/dom0/backend-xvdc.json"
    cat "$FIPC_RESULTS/dom0/backend-xvdb.json"
    [ "$(fipc_be_stat "$id" 51728 proto_errors)" = 0 ] || { fipc_fail "protocol errors on xvdb"; rc=1; }
    [ "$(fipc_be_stat "$id" 51728 io_errors)" = 0 ] || { fipc_fail "I/O errors on xvdb"; rc=1; }
    v=$(fipc_be_stat "$id" 51728 invalid_req)
    [ "$v" = 15 ] || { fipc_fail "xvdb invalid_req is $v, want 15 (hostile kinds)"; rc=1; }
    v=$(fipc_be_stat "$id" 51728 grant_errors)
    [ "$v" = 3 ] || { fipc_fail "xvdb grant_errors is $v, want 3"; rc=1; }
    [ "$(fipc_be_stat "$id" 51728 f_req)" -gt 0 ] || { fipc_fail "no flush reached the backend"; rc=1; }
    cat /sys/module/xen_fipc_back/parameters/poller_cpus
    return $rc
}

finish() {
    local id rc=0
    id=$(cat "$FIPC_WORK/domU1.id")
    # The guest is gone: the backend devices went with its xenstore nodes.
    fipc_blk_detach "$id" 51728
    fipc_blk_detach "$id" 51744
    sleep 1
    ls /sys/bus/xen-backend/devices/ | grep -q "^fipcblk-$id-" &&
        { fipc_fail "backend devices left after the guest went away"; rc=1; }
    rmmod xen-fipc-back || { fipc_fail "rmmod xen-fipc-back failed"; rc=1; }
    rmmod fipc || rc=1
    fipc_health final || rc=1
    return $rc
}

export -f start check finish
mkdir -p "$FIPC_RESULTS/dom0"
fipc_step fipc-start 180 start || exit 1
rc=0
fipc_step domU-fio 1200 fipc_domu_wait domU1 1140 || rc=1
fipc_step fipc-check 60 check || rc=1
fipc_step fipc-finish 120 finish || rc=1
exit $rc
