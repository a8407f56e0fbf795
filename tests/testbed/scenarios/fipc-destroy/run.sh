#!/bin/bash
# Scenario "fipc-destroy" (dom0 side): a domU runs endless verified random
# I/O on a fipc disk (QD 32, a phy1: disk of its xl config); once the
# backend has served a few hundred requests, dom0 runs "xl destroy".  The backend must see the frontend go,
# wait for its bios, unmap every grant and ring, and unregister; the
# domain must then disappear completely (a domain that lingers as a zombie
# still has pages mapped by dom0), and libxl must remove the disk's
# xenstore nodes.  Repeated -o ROUNDS=N times (default 2), the guests
# taking turns from -o ROUND_TYPES (default "pv pvh": a PV guest, then a
# PVH guest).
# Then a removal that outlasts its wait (handoff): a disk on a null_blk
# device taking 9 s a request is attached to a running guest, whose
# partition scan keeps a read in flight; dom0 unbinds the backend device
# at once.  Removal must return after its 5 s wait, handing the drain to
# the background, and the backend must not write Closed in xenstore
# until that drain has ended (the guest's pages are mapped until then);
# bound again, the device must connect again (its reads through the
# grant path's staging pages, on by default).  Then the guest is paused
# while its other disk is unbound and bound (paused_rebind below).  Then
# the modules are unloaded and dom0's health checked.  The handoff guest
# is PVH (-o HANDOFF_TYPE=pv for a PV one): with it a PVH guest's disk is
# attached, its backend unbound and bound again twice, another disk (a
# loop device) attached and detached with xl, and the guest destroyed,
# as PV guests' disks are in fipc-basic, phy1-xl and the rounds above.
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"
export FIPC_DOMU_LOAD="fipc xen-fipc-front"

prepare() {
    fipc_dmesg_mark
    fipc_null_blk 1 && fipc_modules_load 0 || return 1
    # /dev/nullhang, for the handoff: 9 s a request, bio-based (null_blk's
    # blk-mq mode times out at 5 s).  Made while the rounds run (they do
    # not use it): powering it on waits for its own partition scan, a few
    # of those requests (28 s, emulated).
    (fipc_null_blk_slow nullhang 9000 4 16 0; echo $? > "$FIPC_WORK/nullhang.rc.new" &&
        mv "$FIPC_WORK/nullhang.rc.new" "$FIPC_WORK/nullhang.rc") \
        > "$FIPC_WORK/nullhang.log" 2>&1 &
}

round() {
    local n=$1 id i=0 w types type
    read -r -a types <<< "$(fipc_opt ROUND_TYPES "pv pvh")"
    type=${types[$(((n - 1) % ${#types[@]}))]}
    fipc_log "round $n: a $type guest"
    fipc_domu_start "domU$n" "$here/domU.cfg" "$common/guest-load.sh" TYPE="$type" || return 1
    id=$(xl domid "domU$n") || return 1
    while w=$(fipc_be_stat "$id" 51728 wr_req) && [ "$w" -lt 300 ]; do
        i=$((i + 1))
        if [ $i -ge 3000 ]; then
            fipc_fail "round $n: no I/O after 300 s (wr_req $w)"
            fipc_domu_console_tail "domU$n"
            xl destroy "domU$n"
            return 1
        fi
        fipc_nap 0.1
    done
    fipc_log "round $n: destroying domain $id under I/O (wr_req $w, inflight $(cat /sys/bus/xen-backend/devices/fipcblk-$id-51728/statistics/inflight))"
    xl destroy "domU$n" || { fipc_fail "xl destroy failed"; return 1; }
    fipc_destroyed_wait "round $n" "$id" 51728 || return 1
    [ -f "$FIPC_WORK/domU$n/loop" ] && losetup -d "$(cat "$FIPC_WORK/domU$n/loop")"
    fipc_log "round $n: domain $id gone, backend clean"
}

# domuh_console_clean PATTERN MESSAGE: fail with MESSAGE (and the first
# lines found) if domUh's console has a line matching PATTERN (grep -iE).
domuh_console_clean() {
    local con=$FIPC_CONSOLE_DIR/guest-domUh.log
    tr -d '\r' < "$con" | grep -qiE "$1" || return 0
    fipc_fail "$2"
    tr -d '\r' < "$con" | grep -iE -m 3 "$1"
    return 1
}

# The guest paused while dom0 unbinds and binds its xvdb (fast, under the
# guest's endless verified writes): its frontend misses the old backend's
# Closing and Closed and is still Connected when the new backend probes.
# The new backend must not take over the rings in use (it would read them
# from slot 0, past requests the old one took and never answered): it
# asks the frontend to reconnect ("asking it to reconnect" in dom0's log),
# and once unpaused the guest's writes go on on a new connection, with no
# error.  Before, the new backend attached to the old rings and the
# guest's I/O stopped for good (0 writes in 60 s, 2026-11-25).
paused_rebind() {
    local id=$1 dev=fipcblk-$1-51728 drv=/sys/bus/xen-backend/drivers/fipcblk rc=0 i=0 w
    fipc_dmesg_mark
    xl pause domUh || { fipc_fail "paused-rebind: xl pause failed"; return 1; }
    echo "$dev" > "$drv/unbind" || { fipc_fail "paused-rebind: cannot unbind $dev"; rc=1; }
    echo "$dev" > "$drv/bind" || { fipc_fail "paused-rebind: cannot bind $dev again"; rc=1; }
    sleep 2
    fipc_dmesg_since_mark | grep -q "$dev: frontend still connected to an earlier backend: asking it to reconnect" ||
        { fipc_fail "paused-rebind: the new backend did not ask the still-connected frontend to reconnect"; rc=1; }
    xl unpause domUh || { fipc_fail "paused-rebind: xl unpause failed"; return 1; }
    fipc_blk_wait_connected "$id" 51728 60 || rc=1
    # The new connection's statistics start at 0: the writes go on.
    until w=$(fipc_be_stat "$id" 51728 wr_req) && [ "$w" -ge 100 ]; do
        i=$((i + 1))
        if [ $i -ge 600 ]; then
            fipc_fail "paused-rebind: $w writes on xvdb's new connection 60 s after the guest was unpaused (want 100)"
            rc=1
            break
        fi
        fipc_nap 0.1
    done
    fipc_log "paused-rebind: $w writes on xvdb's new connection $((i / 10)) s after the unpause"
    domuh_console_clean 'xvdb.*error|error.*xvdb|fio ended' \
        "paused-rebind: the guest logged an error for xvdb or its fio ended" || rc=1
    return $rc
}

# vdev_gone DOMID VDEV: neither the backend device nor the xenstore
# nodes of disk VDEV of domain DOMID are left.
vdev_gone() {
    [ ! -e "$FIPC_BE_SYSFS/fipcblk-$1-$2" ] &&
        ! xenstore-exists "/local/domain/0/backend/fipcblk/$1/$2"
}

# detach_attach DOMID: xl block-attach of a loop device (over a tmpfs
# file) to the handoff guest as xvdd, connected on both sides, then xl
# block-detach: the guest lets it go and libxl's removal leaves neither
# the backend device nor its xenstore nodes (a PVH guest with
# HANDOFF_TYPE's default; PV guests' disks cycle in phy1-xl).
detach_attach() {
    local id=$1 img=/run/fipc/detach.img loop t0 rc=0
    truncate -s 64M "$img" && loop=$(losetup -f --show "$img") ||
        { fipc_fail "detach-attach: no loop device"; return 1; }
    if ! xl block-attach domUh "phy1:$loop,xvdd,w"; then
        fipc_fail "detach-attach: xl block-attach of $loop as xvdd failed"
        losetup -d "$loop"
        return 1
    fi
    fipc_blk_wait_connected "$id" 51760 60 || rc=1
    t0=$(date +%s%N)
    xl block-detach domUh xvdd || { fipc_fail "detach-attach: xl block-detach xvdd failed"; rc=1; }
    fipc_until 30 vdev_gone "$id" 51760 || {
        fipc_fail "detach-attach: xvdd's backend device or xenstore nodes still there 30 s after xl block-detach"
        rc=1
    }
    fipc_log "detach-attach: xvdd ($loop) attached, connected and detached; gone $((($(date +%s%N) - t0) / 1000000)) ms after xl block-detach began"
    losetup -d "$loop" || { fipc_fail "detach-attach: $loop still in use after the detach"; rc=1; }
    rm -f "$img"
    return $rc
}

# A removal whose bios outlast XFB_REMOVE_DRAIN_WAIT (5 s): see the top.
handoff() {
    local id dev drv=/sys/bus/xen-backend/drivers/fipcblk t0 t1 tc=0 now i=0 v rc=0
    fipc_until 120 test -e "$FIPC_WORK/nullhang.rc" &&
        fipc_file_is "$FIPC_WORK/nullhang.rc" 0 ||
        { fipc_fail "handoff: /dev/nullhang was not made"; cat "$FIPC_WORK/nullhang.log"; return 1; }
    cat "$FIPC_WORK/nullhang.log"
    fipc_domu_start domUh "$here/domU.cfg" "$common/guest-load.sh" \
        TYPE="$(fipc_opt HANDOFF_TYPE pvh)" || return 1
    id=$(xl domid domUh) || return 1
    dev=fipcblk-$id-51744
    xl block-attach domUh phy1:/dev/nullhang,xvdc,w || { fipc_fail "handoff: xl block-attach failed"; xl destroy domUh; return 1; }
    # The guest's partition scan reads xvdc: 9 s a request.
    until [ "$(fipc_be_stat "$id" 51744 inflight)" -gt 0 ] 2>/dev/null; do
        i=$((i + 1))
        if [ $i -ge 600 ]; then
            fipc_fail "handoff: no request in flight on xvdc after 60 s (state $(fipc_blk_state "$id" 51744 back))"
            xl destroy domUh
            return 1
        fi
        fipc_nap 0.1
    done
    fipc_dmesg_mark
    t0=$(date +%s%N)
    echo "$dev" > "$drv/unbind" || { fipc_fail "handoff: cannot unbind $dev"; rc=1; }
    t1=$(date +%s%N)
    v=$(fipc_blk_state "$id" 51744 back)
    fipc_log "handoff: unbind took $(((t1 - t0) / 1000000)) ms with $dev's read in flight; backend state then $v"
    [ $(((t1 - t0) / 1000000)) -ge 4500 ] && [ $(((t1 - t0) / 1000000)) -lt 7500 ] ||
        { fipc_fail "handoff: unbind took $(((t1 - t0) / 1000000)) ms, want 4500-7500 (a 5 s wait, then the drain handed off)"; rc=1; }
    fipc_dmesg_since_mark | grep -q "$dev: removed; its bios in flight are drained in the background" ||
        { fipc_fail "handoff: no 'drained in the background' line for $dev"; rc=1; }
    while now=$(date +%s%N) && [ $(((now - t0) / 1000000000)) -lt 30 ]; do
        v=$(fipc_blk_state "$id" 51744 back)
        if [ "$v" = 6 ] || [ -z "$v" ]; then
            tc=$(((now - t0) / 1000000))
            break
        fi
        fipc_nap 0.1
    done
    fipc_log "handoff: backend Closed $tc ms after the unbind began (its read ends 9000 ms after it was issued)"
    # Removal returns after its 5 s wait; the read, issued a little
    # before t0 (0.4 s in a run of 2026-11-23, emulated), ends before
    # t0 + 9 s.  Closed before t0 + 6.5 s was written while the read
    # still used the guest's page (before the fix: at removal's return).
    [ "$tc" -ge 6500 ] ||
        { fipc_fail "handoff: backend state '$v' ${tc} ms after the unbind began: Closed while the read was in flight, or never (want 6500-30000 ms)"; rc=1; }
    echo "$dev" > "$drv/bind" || { fipc_fail "handoff: cannot bind $dev again"; rc=1; }
    fipc_blk_wait_connected "$id" 51744 60 || rc=1
    fipc_log "handoff: bound again, backend state $(fipc_blk_state "$id" 51744 back)"
    # The guest's read, requeued by its frontend, is taken by the new
    # connection and served 9 s later with no I/O error in the guest.
    i=0
    until [ "$(fipc_be_stat "$id" 51744 rd_req)" -gt 0 ] 2>/dev/null; do
        i=$((i + 1))
        if [ $i -ge 300 ]; then
            fipc_fail "handoff: no read served on xvdc 30 s after it connected again (rd_req $(fipc_be_stat "$id" 51744 rd_req))"
            rc=1
            break
        fi
        fipc_nap 0.1
    done
    # With grant_staging (the default) the reads go through the staging
    # pages: the case that hung for good while the frontend added its
    # disk in the xenwatch thread.
    if [ "$(cat /sys/module/xen_fipc_back/parameters/grant_staging)" = Y ]; then
        v=$(fipc_be_stat "$id" 51744 staged_req)
        fipc_log "handoff: staged reads on the new connection: $v"
        [ "$v" -gt 0 ] 2>/dev/null ||
            { fipc_fail "handoff: grant_staging=Y, yet no read of xvdc went through staging pages (staged_req $v)"; rc=1; }
    fi
    sleep 10
    domuh_console_clean 'xvdc.*error|error.*xvdc' \
        "handoff: the guest logged an error for xvdc" || rc=1
    paused_rebind "$id" || rc=1
    detach_attach "$id" || rc=1
    fipc_domu_kernel_clean domUh handoff || rc=1
    xl destroy domUh || { fipc_fail "xl destroy failed"; return 1; }
    fipc_destroyed_wait handoff "$id" 51728 || return 1
    [ -f "$FIPC_WORK/domUh/loop" ] && losetup -d "$(cat "$FIPC_WORK/domUh/loop")"
    return $rc
}

finish() {
    local rc=0
    fipc_back_unload || rc=1
    # The device the destroyed guests wrote to is still sound and usable
    # from dom0 once the backend let go of it (also the run's fio result).
    FIPC_DEV=/dev/nullb0 FIPC_BS_MIN=512 FIPC_SZ_SMALL=1m FIPC_SZ_BIG=4m \
        fipc_fio after-destroy-nullb0 "$common/verify.fio" || rc=1
    fipc_health final || rc=1
    return $rc
}

fipc_step fipc-prepare 120 prepare || exit 1
rc=0
for n in $(seq 1 "$(fipc_opt ROUNDS 2)"); do
    fipc_step "destroy-round-$n" 600 round "$n" || { rc=1; break; }
done
fipc_step handoff 300 handoff || rc=1
fipc_step fipc-finish 120 finish || rc=1
exit $rc
