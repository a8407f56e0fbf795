#!/bin/bash
# Scenario "noisy" (dom0 side): the noisy-neighbour benchmark of issue 13,
# part of the main job (make demo; bench/fio/report.py --noisy turns it
# into a section of fio.json and fio.md).  One boot, three guests, each
# with the same disk as classic phy: (xvdb) and as phy1: (xvdc):
#   A  the noisy neighbour: noisy-writer.fio (1 MiB random writes, QD
#      256) on a slow null_blk (-o SLOW_MS, 20 ms a request, -o
#      SLOW_DEPTH, 8 at a time)
#   B  quiet-reader.fio (4 KiB random reads, QD 1) on /dev/nullb0
#   C  the same on /dev/nullb1
# In each of -o NOISY_ROUNDS rounds (2), for phy and phy1 (phy first in
# odd rounds, phy1 first in even ones, so that drift of the emulated host
# does not favour one): B and C read alone (-o QUIET_S, 15 s); A starts
# writing (-o NOISY_S, 25 s); 3 s later B and C read again beside it.
# Their fio results (results/<guest>/r<N>.<cfg>-alone.json,
# r<N>.<cfg>-beside.json) carry the p50 and p99 completion latencies;
# the report takes each guest's median p99 growth over the rounds (one
# round's p99 in this testbed moves by tens of percent from run to run).
# Every phy1 disk is served by the one backend poller (default settings),
# every phy disk by its blkback thread.  Emulated timings: compare only
# inside one run.
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"

start() {
    local g
    fipc_dmesg_mark
    fipc_null_blk 1 2 || return 1
    fipc_null_blk_slow nullslow "$(fipc_opt SLOW_MS 20)" "$(fipc_opt SLOW_DEPTH 8)" 256 || return 1
    fipc_mailbox_new || return 1
    modprobe xen-blkback || { fipc_fail "modprobe xen-blkback failed"; return 1; }
    fipc_load_module fipc || return 1
    fipc_load_module xen-fipc-back poll_idle_max_us="$(fipc_opt POLL_IDLE_MAX_US 2000)" || return 1
    for g in A:/dev/nullslow B:/dev/nullb0 C:/dev/nullb1; do
        FIPC_DOMU_LOAD="fipc xen-fipc-front" fipc_domu_start "${g%%:*}" "$here/domU.cfg" \
            "$here/guest.sh" BACKING="${g#*:}" || return 1
    done
    for g in A B C; do
        fipc_domu_wait_marker "$g" "@@NOISY $g ready" 600 || return 1
    done
}

# phase WORD WHO TIMEOUT: post WORD in the mailbox, wait for each of WHO
# to say it is done with it.  Timed phases: dom0 looks at the guests every
# 20 s, not 2 (an xl run takes dom0's only vCPU from the backend).
phase() {
    local g
    fipc_mailbox_put /dev/nullmbox "$1" || return 1
    for g in $2; do
        FIPC_MARKER_LOOK_S=20 fipc_domu_wait_marker "$g" "@@NOISY $g $1 done rc=0" "$3" || return 1
    done
}

# measure CFG ROUND: B and C alone, then beside A (phases r<ROUND>.<CFG>-*).
measure() {
    local q n p=r$2.$1
    q=$(fipc_opt QUIET_S 15)
    n=$(fipc_opt NOISY_S 25)
    phase "$p-alone" "A B C" $((q * 4 + 120)) || return 1
    fipc_mailbox_put /dev/nullmbox "$p-noisy" || return 1
    fipc_domu_wait_marker A "@@NOISY A $p-noisy started" 120 || return 1
    sleep 3
    phase "$p-beside" "B C" $((q * 4 + 120)) || return 1
    FIPC_MARKER_LOOK_S=20 fipc_domu_wait_marker A "@@NOISY A $p-noisy done rc=0" $((n * 4 + 120)) || return 1
    fipc_log "round $2, $1: quiet reads alone and beside the noisy writer done"
}

finish() {
    local rc=0 g
    fipc_mailbox_put /dev/nullmbox bye || rc=1
    for g in A B C; do
        fipc_domu_wait "$g" 600 || rc=1
    done
    cat /sys/module/xen_fipc_back/parameters/poller_cpus > "$FIPC_RESULTS/dom0-pollers.txt"
    fipc_health final || rc=1
    return $rc
}

mkdir -p "$FIPC_RESULTS/dom0"
# round_step R CFG: one measurement of configuration CFG in round R.
round_step() { fipc_step "noisy-r$1-$2" 900 measure "$2" "$1"; }

fipc_opt_rounds rounds NOISY_ROUNDS 2
fipc_step noisy-start 900 start || exit 1
rc=0
fipc_rounds "$rounds" "phy phy1" "phy1 phy" round_step || rc=1
fipc_step noisy-finish 900 finish || rc=1
exit $rc
