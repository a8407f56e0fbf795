#!/bin/bash
# Scenario "fipc-destroy" (dom0 side): a domU runs endless verified random
# I/O on a fipc disk (QD 32, a phy1: disk of its xl config); once the
# backend has served a few hundred requests, dom0 runs "xl destroy".  The backend must see the frontend go,
# wait for its bios, unmap every grant and ring, and unregister; the
# domain must then disappear completely (a domain that lingers as a zombie
# still has pages mapped by dom0), and libxl must remove the disk's
# xenstore nodes.  Repeated -o ROUNDS=N times (default 2),
# then the modules are unloaded and dom0's health checked.
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_parse_args "$@"
here=$(cd "$(dirname "$0")" && pwd)
common=$(cd "$here/../fipc-common" && pwd)
. "$common/fipc-lib.sh"
export here common
export FIPC_DOMU_LOAD="fipc xen-fipc-front"

prepare() {
    fipc_dmesg_mark
    fipc_null_blk 1 && fipc_modules_load 0
}

round() {
    local n=$1 id i=0 w
    fipc_domu_start "domU$n" "$here/domU.cfg" "$common/guest-load.sh" || return 1
    id=$(xl domid "domU$n") || return 1
    while w=$(fipc_be_stat "$id" 51728 wr_req) && [ "$w" -lt 300 ]; do
        i=$((i + 1))
        if [ $i -ge 3000 ]; then
            fipc_fail "round $n: no I/O after 300 s (wr_req $w)"
            fipc_domu_console_tail "domU$n"
            xl destroy "domU$n"
            return 1
        fi
        sleep 0.1
    done
    fipc_log "round $n: destroying domain $id under I/O (wr_req $w, inflight $(cat /sys/bus/xen-backend/devices/fipcblk-$id-51728/statistics/inflight))"
    xl destroy "domU$n" || { fipc_fail "xl destroy failed"; return 1; }
    fipc_destroyed_wait "round $n" "$id" 51728 || return 1
    [ -f "$FIPC_WORK/domU$n/loop" ] && losetup -d "$(cat "$FIPC_WORK/domU$n/loop")"
    fipc_log "round $n: domain $id gone, backend clean"
}

finish() {
    local rc=0
    rmmod xen-fipc-back || { fipc_fail "rmmod xen-fipc-back failed"; rc=1; }
    rmmod fipc || rc=1
    # The device the destroyed guests wrote to is still sound and usable
    # from dom0 once the backend let go of it (also the run's fio result).
    FIPC_DEV=/dev/nullb0 FIPC_BS_MIN=512 FIPC_SZ_SMALL=1m FIPC_SZ_BIG=4m \
        fipc_fio dom0 after-destroy-nullb0 "$common/verify.fio" || rc=1
    fipc_health final || rc=1
    return $rc
}

export -f prepare round finish
fipc_step fipc-prepare 120 prepare || exit 1
rc=0
for n in $(seq 1 "$(fipc_opt ROUNDS 2)"); do
    fipc_step "destroy-round-$n" 600 round "$n" || { rc=1; break; }
done
fipc_step fipc-finish 120 finish || rc=1
exit $rc
