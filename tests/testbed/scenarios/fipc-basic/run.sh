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
    # The backend devices go away with the guest (it powers off at the
    # end): keep the last view of their counters and of the pollers.
    (
        while xl domid domU1 >/dev/null 2>&1; do
            for v in 51728:xvdb 51744:xvdc; do
                [ -d "$FIPC_BE_SYSFS/fipcblk-$id-${v%%:*}" ] || continue
                # A device going away mid-read leaves empty values: keep
                # the previous, complete snapshot then.
                fipc_be_stats_json "$id" "${v%%:*}" "$FIPC_WORK/be-${v#*:}.tmp" &&
                    grep -q '"proto_errors": [0-9]' "$FIPC_WORK/be-${v#*:}.tmp" &&
                    ! grep -q '": [,}]' "$FIPC_WORK/be-${v#*:}.tmp" &&
                    mv "$FIPC_WORK/be-${v#*:}.tmp" "$FIPC_WORK/be-${v#*:}.json"
            done
            cat /sys/module/xen_fipc_back/parameters/poller_cpus > "$FIPC_WORK/pollers.tmp" &&
                mv "$FIPC_WORK/pollers.tmp" "$FIPC_WORK/pollers.txt"
            sleep 0.5
        done
    ) > /dev/null 2>&1 &
    echo $! > "$FIPC_WORK/snap.pid"
}

# snap_stat DISK NAME: a backend counter from the last snapshot, -1 if none.
snap_stat() {
    local v
    v=$(sed -n "s/.*\"$2\": \([0-9-]*\).*/\1/p" "$FIPC_WORK/be-$1.json" 2>/dev/null)
    echo "${v:--1}"
}

check() {
    local rc=0 v i wait_pid
    wait_pid=$(cat "$FIPC_WORK/snap.pid")
    # The snapshot loop ends with the domain.
    for i in $(seq 1 50); do kill -0 "$wait_pid" 2>/dev/null || break; sleep 0.2; done
    cp "$FIPC_WORK/be-xvdb.json" "$FIPC_RESULTS/dom0/backend-xvdb.json" 2>/dev/null
    cp "$FIPC_WORK/be-xvdc.json" "$FIPC_RESULTS/dom0/backend-xvdc.json" 2>/dev/null
    cp "$FIPC_WORK/pollers.txt" "$FIPC_RESULTS/dom0/pollers.txt" 2>/dev/null
    cat "$FIPC_RESULTS/dom0/backend-xvdb.json" "$FIPC_RESULTS/dom0/pollers.txt"
    [ "$(snap_stat xvdb proto_errors)" = 0 ] || { fipc_fail "protocol errors on xvdb"; rc=1; }
    [ "$(snap_stat xvdb io_errors)" = 0 ] || { fipc_fail "I/O errors on xvdb"; rc=1; }
    v=$(snap_stat xvdb invalid_req)
    [ "$v" = 15 ] || { fipc_fail "xvdb invalid_req is $v, want 15 (hostile kinds)"; rc=1; }
    v=$(snap_stat xvdb grant_errors)
    [ "$v" = 3 ] || { fipc_fail "xvdb grant_errors is $v, want 3"; rc=1; }
    [ "$(snap_stat xvdb f_req)" -gt 0 ] || { fipc_fail "no flush reached the backend"; rc=1; }
    v=$(snap_stat xvdb xenbus_spurious_events)
    [ "$v" = 0 ] || [ "$v" = -1 ] || { fipc_fail "xvdb: $v event-channel events flagged spurious"; rc=1; }
    return $rc
}

finish() {
    local id rc=0
    id=$(cat "$FIPC_WORK/domU1.id")
    # The guest is gone: the backend devices must go with it (as in
    # fipc-destroy); libxl does not know fipcblk disks yet, so remove
    # their xenstore directories ourselves.
    local i=0
    while ls /sys/bus/xen-backend/devices/ | grep -q "^fipcblk-$id-"; do
        i=$((i + 1))
        if [ $i -ge 100 ]; then
            fipc_fail "backend devices left 10 s after the guest went away"
            rc=1
            break
        fi
        sleep 0.1
    done
    xenstore-rm "/local/domain/0/backend/fipcblk/$id" 2>/dev/null
    rmmod xen-fipc-back || { fipc_fail "rmmod xen-fipc-back failed"; rc=1; }
    rmmod fipc || rc=1
    fipc_health final || rc=1
    return $rc
}

export -f start snap_stat check finish
mkdir -p "$FIPC_RESULTS/dom0"
fipc_step fipc-start 180 start || exit 1
rc=0
fipc_step domU-fio 1200 fipc_domu_wait domU1 1140 || rc=1
fipc_step fipc-check 60 check || rc=1
fipc_step fipc-finish 120 finish || rc=1
exit $rc
