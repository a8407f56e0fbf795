#!/bin/bash
# Scenario "fipc-basic" (dom0 side): null_blk (memory backed) in dom0,
# served by xen-fipc-back to one PV domU running xen-fipc-front:
#   xvdb  one channel per guest vCPU (2)   xvdc  one channel (queues=1)
#   xvdd  a slow null_blk (100 ms a request, 4 at a time)
# All are phy1: disks of the domain's xl config (the patched xl of make
# dom0-overlay).  In the guest: fio verify (crc32c) on xvdb and xvdc, perf,
# QD1 reads on xvdb alone and beside a writer keeping xvdd's tags taken
# (the backend's poller must not wait for them: submit_again on xvdd, and
# the reads beside at least -o QUIET_MIN_PCT (10) % of those alone), a
# flush, the hostile request kinds; then the guest waits for dom0 (the
# mailbox at the end of xvdb) while dom0 takes the backend's counters and
# checks them (no protocol error, the hostile requests refused, flushes
# seen, channel counts, xvdd's writes answered from their bios'
# completions while the poller slept).  The guest powers off, libxl
# removes the disks, the modules unload, dom0 checks its own health.
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"
export FIPC_DOMU_LOAD="fipc xen-fipc-front"

start() {
    fipc_dmesg_mark
    fipc_null_blk 1 || return 1
    fipc_null_blk_slow nullslow "$(fipc_opt SLOW_MS 100)" 4 || return 1
    fipc_modules_load 0 || return 1
    # Staging pages on the grant path (on by default): set here too, so
    # that this scenario's checks of them do not depend on the default.
    echo Y > /sys/module/xen_fipc_back/parameters/grant_staging
    fipc_domu_start domU1 "$here/domU.cfg" "$here/guest.sh" || return 1
    xl domid domU1 > "$FIPC_WORK/domU1.id"
}

# The guest stops after its hostile requests and waits for the mailbox:
# the backend devices still exist, their counters are final.
counters() {
    local id v
    id=$(cat "$FIPC_WORK/domU1.id")
    fipc_domu_wait_marker domU1 '@@FIPC-BASIC counters' 1200 || return 1
    for v in 51728:xvdb 51744:xvdc 51760:xvdd; do
        fipc_be_stats_json "$id" "${v%%:*}" "$FIPC_RESULTS/dom0/backend-${v#*:}.json"
    done
    cat /sys/module/xen_fipc_back/parameters/poller_cpus > "$FIPC_RESULTS/dom0/pollers.txt"
    fipc_mailbox_put /dev/nullb0 done
}

# snap_stat DISK NAME: a backend counter from the snapshot, -1 if none.
snap_stat() {
    local v
    v=$(fipc_json_value "$FIPC_RESULTS/dom0/backend-$1.json" "$2")
    echo "${v:--1}"
}

check() {
    local rc=0 v
    cat "$FIPC_RESULTS/dom0/backend-xvdb.json" "$FIPC_RESULTS/dom0/pollers.txt"
    [ "$(snap_stat xvdb proto_errors)" = 0 ] || { fipc_fail "protocol errors on xvdb"; rc=1; }
    [ "$(snap_stat xvdb io_errors)" = 0 ] || { fipc_fail "I/O errors on xvdb"; rc=1; }
    v=$(snap_stat xvdb invalid_req)
    # 15 hostile kinds, and 2 through the grant path's staging pages.
    [ "$v" = 17 ] || { fipc_fail "xvdb invalid_req is $v, want 17 (hostile kinds)"; rc=1; }
    v=$(snap_stat xvdb grant_errors)
    [ "$v" = 3 ] || { fipc_fail "xvdb grant_errors is $v, want 3"; rc=1; }
    [ "$(snap_stat xvdb f_req)" -gt 0 ] || { fipc_fail "no flush reached the backend"; rc=1; }
    # The grant path's staging pages (grant_staging=Y above).
    v=$(snap_stat xvdb staged_req)
    [ "$v" -gt 0 ] || { fipc_fail "xvdb staged_req is $v: no request came through the grant path's staging pages"; rc=1; }
    fipc_log "xvdb: $v requests through staging pages, $(snap_stat xvdb grant_ops) grant operations (requests over staging_max_kb carry grants)"
    v=$(snap_stat xvdb queues)
    [ "$v" = 2 ] || { fipc_fail "xvdb has $v channels, want 2 (one per guest vCPU)"; rc=1; }
    v=$(snap_stat xvdc queues)
    [ "$v" = 1 ] || { fipc_fail "xvdc has $v channels, want 1 (queues=1)"; rc=1; }
    [ "$(snap_stat xvdc proto_errors)" = 0 ] || { fipc_fail "protocol errors on xvdc"; rc=1; }
    # The noisy neighbour's bios that found xvdd's tags taken went to a
    # worker (submit_again, debugfs), not waited for in the poller.
    v=$(snap_stat xvdd submit_again)
    [ "$v" -gt 0 ] || { fipc_fail "xvdd submit_again is $v: no bio of the noisy disk was handed to a worker"; rc=1; }
    fipc_log "noisy neighbour: xvdd submit_again $v, page_waits $(snap_stat xvdd page_waits)"
    [ "$(snap_stat xvdd io_errors)" = 0 ] || { fipc_fail "I/O errors on xvdd"; rc=1; }
    # xvdd's writes end 25 ms apart on average (100 ms each, 4 at a
    # time), far longer than the poller's idle window: those that find
    # the poller asleep are answered from the bio's completion, as
    # blkback answers, not by waking it (end_answers, debugfs).
    v=$(snap_stat xvdd end_answers)
    fipc_log "xvdd: $v of $(snap_stat xvdd wr_req) writes answered from their bio's completion, $(snap_stat xvdb end_answers) of xvdb's $(snap_stat xvdb rd_req) reads and $(snap_stat xvdb wr_req) writes"
    [ "$v" -gt 0 ] || { fipc_fail "xvdd end_answers is $v: no request was answered from its completion while the poller slept"; rc=1; }
    v=$(snap_stat xvdb xenbus_spurious_events)
    [ "$v" = 0 ] || [ "$v" = -1 ] || { fipc_fail "xvdb: $v event-channel events flagged spurious"; rc=1; }
    return $rc
}

finish() {
    local id rc=0
    id=$(cat "$FIPC_WORK/domU1.id")
    # The guest is gone: libxl removes its disks, the backend devices go.
    fipc_blk_wait_gone "$id" || rc=1
    fipc_back_unload || rc=1
    fipc_health final || rc=1
    return $rc
}

mkdir -p "$FIPC_RESULTS/dom0"
fipc_step fipc-start 180 start || exit 1
rc=0
fipc_step domU-counters 1260 counters || { rc=1; fipc_mailbox_put /dev/nullb0 done; }
fipc_step domU-finish 300 fipc_domu_wait domU1 240 || rc=1
fipc_step fipc-check 60 check || rc=1
fipc_step fipc-finish 120 finish || rc=1
exit $rc
