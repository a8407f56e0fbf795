#!/bin/bash
# Scenario "dom0-latency" (dom0 side): the dom0 responsiveness benchmark
# of issue 48, part of the main job (make demo; bench/fio/report.py
# --dom0-latency adds its table).  Does a guest's I/O burst make dom0's
# own tasks wake late?  fipc's backend poller and classic blkback run on
# dom0's CPU beside every dom0 task.  One boot, one guest with the same
# null_blk disk as classic phy: (xvdb) and as phy1: (xvdc).  dom0 runs
# wakeprobe (bench/dom0-latency/wakeprobe.c, built static on the host:
# scenario.conf HOST_TOOLS) at SCHED_OTHER, pinned to the backend
# poller's CPU (dom0 has one vCPU here: all of dom0 is on it), for -o
# PROBE_S (3) seconds of 1 ms sleeps, then as long of pipe wake-ups:
#   self-test  alone with a SCHED_FIFO hog on its CPU that spins -o HOG_MS
#              (20) ms in every 4 * HOG_MS: its p99 must reach HOG_MS / 2
#   r<N>.idle  the guest idle
#   r<N>.phy   the guest bursting 4 KiB random reads and writes at QD 32
#              on xvdb (-o BURST_ON_S (2) s on, -o BURST_OFF_S (1) s off)
#   r<N>.phy1  the same on xvdc
# for -o ROUNDS (2) rounds (phy first in odd rounds, phy1 first in even
# ones).  dom0 counts the requests the backing device completed during
# each probe (the guest's IOPS during it; fio's own per burst come back
# with the guest).  summary.py writes dom0-latency.json and judges: the
# self-test, samples in every phase, guest I/O during every burst phase.
# phy1's p99 no worse than phy's beyond the rounds' spread is the issue's
# target: reported, and judged only with -o JUDGE=1 (emulated timings are
# functional evidence only).  -o POLL_FIFO=1 loads the backend with its
# pollers at SCHED_FIFO; -o SELFTEST=noio: no guest I/O on phy1 (must fail).
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"

probe=${S:-/fipc/stage}/tools/wakeprobe
out=$FIPC_RESULTS/dom0
mkdir -p "$out"
export probe out

start() {
    local p
    [ -x "$probe" ] || { fipc_fail "no $probe (scenario.conf HOST_TOOLS)"; return 1; }
    fipc_dmesg_mark
    fipc_null_blk 1 1 || return 1
    fipc_mailbox_new || return 1
    modprobe xen-blkback || { fipc_fail "modprobe xen-blkback failed"; return 1; }
    fipc_load_module fipc || return 1
    p=()
    [ "$(fipc_opt POLL_FIFO 0)" = 1 ] && p=(poll_fifo=1)
    fipc_load_module xen-fipc-back "${p[@]}" || return 1
    FIPC_DOMU_LOAD="fipc xen-fipc-front" fipc_domu_start guest "$here/domU.cfg" \
        "$here/guest.sh" BACKING=/dev/nullb0 || return 1
    fipc_domu_wait_marker guest "@@DOM0LAT ready" 600
}

# probe_cpu: the first backend poller's CPU (poller_cpus), else 0.
probe_cpu() {
    awk '$1 == "poller" && $3 == "cpu" { print $4; exit }' \
        /sys/module/xen_fipc_back/parameters/poller_cpus 2>/dev/null | grep . || echo 0
}

# dev_ios: requests /dev/nullb0 completed so far (reads + writes).
dev_ios() { awk '{ print $1 + $5 }' /sys/block/nullb0/stat; }

# io_seen SECONDS: wait until /dev/nullb0 completes requests.
io_seen() {
    local a b i=0
    a=$(dev_ios)
    while [ $i -lt $(($1 * 2)) ]; do
        sleep 0.5
        b=$(dev_ios)
        [ "$b" -gt "$a" ] && return 0
        i=$((i + 1))
    done
    return 1
}

# run_probe LABEL FILE [WAKEPROBE ARGS...]: the probe on the poller's CPU,
# its JSON lines into FILE.
run_probe() {
    local label=$1 file=$2 cpu
    shift 2
    cpu=$(probe_cpu)
    fipc_log "wakeprobe $label on CPU $cpu: $*"
    timeout 120 "$probe" -c "$cpu" -l "$label" "$@" > "$file" ||
        { fipc_fail "wakeprobe $label failed"; cat "$file"; return 1; }
    cat "$file"
}

selftest() {
    local hog
    hog=$(fipc_opt HOG_MS 20)
    run_probe selftest "$out/selftest.jsonl" -m sleep -d 2 -H "$hog"
}

# measure CFG ROUND: the probe while the guest bursts on CFG's disk (idle:
# no bursts); the backing device's completions during it.
measure() {
    local p=r$2.$1 s a b t0 t1
    s=$(fipc_opt PROBE_S 3)
    if [ "$1" != idle ]; then
        fipc_mailbox_put /dev/nullmbox "$p" || return 1
        fipc_domu_wait_marker guest "@@DOM0LAT $p started" 120 || return 1
        io_seen 30 || fipc_log "$p: no I/O on /dev/nullb0 after 30 s (summary.py judges)"
    fi
    a=$(dev_ios)
    t0=$(date +%s.%N)
    run_probe "$p" "$out/probe-$p.jsonl" -m both -d $((s * 2)) || return 1
    t1=$(date +%s.%N)
    b=$(dev_ios)
    echo "ios $((b - a)) seconds $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" \
        > "$out/dev-$p.txt"
    fipc_log "$p: /dev/nullb0 completed $((b - a)) requests during the probe"
    [ "$1" = idle ] && return 0
    fipc_mailbox_put /dev/nullmbox "$p-end" || return 1
    fipc_domu_wait_marker guest "@@DOM0LAT $p done" 120
}

finish() {
    local rc=0
    fipc_mailbox_put /dev/nullmbox bye || rc=1
    fipc_domu_wait guest 600 || rc=1
    cat /sys/module/xen_fipc_back/parameters/poller_cpus > "$out/pollers.txt"
    cat /sys/module/xen_fipc_back/parameters/poll_fifo > "$out/poll_fifo.txt" 2>/dev/null
    fipc_health final || rc=1
    return $rc
}

summarize() {
    python3 "$here/summary.py" "$FIPC_RESULTS" --probe-s "$(fipc_opt PROBE_S 3)" \
        --hog-ms "$(fipc_opt HOG_MS 20)" --judge "$(fipc_opt JUDGE 0)" \
        --poll-fifo "$(fipc_opt POLL_FIFO 0)" --dom0-vcpus "$(nproc)"
}

# round_step R CFG: one measurement of configuration CFG in round R.
round_step() { fipc_step "dom0lat-r$1-$2" 300 measure "$2" "$1"; }

rc=0
fipc_opt_rounds rounds ROUNDS 2
fipc_step dom0lat-start 900 start || exit 1
fipc_step dom0lat-selftest 300 selftest || rc=1
fipc_rounds "$rounds" "idle phy phy1" "idle phy1 phy" round_step || rc=1
fipc_step dom0lat-finish 900 finish || rc=1
fipc_step dom0lat-summary 120 summarize || rc=1
exit $rc
