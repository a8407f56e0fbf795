#!/bin/bash
# Scenario "steal" (dom0 side): what poll_steal_sleep is for (issue 13,
# make bench-steal).  dom0 has one vCPU, on pCPU 0, and so one backend
# poller there.  Guest H, pinned to pCPU 0 too, runs a busy loop: Xen
# shares that pCPU between H's vCPU and dom0's, and the time dom0's vCPU
# waits for it is dom0's stolen time.  Guest R, on pCPU 1, reads
# /dev/nullb0 (4 KiB random reads at QD 1, -o STEAL_S seconds, 24) as a
# phy1 disk through that poller, or as a classic phy: disk through
# blkback's thread.  Phases, in one boot:
#   idle     H busy, R not reading: what H gets with dom0 idle
#   alone    H paused, R reading phy1: R's latency with pCPU 0 dom0's own
#   r<N>.on  H busy, R reading phy1, poll_steal_sleep=1 (the default)
#   r<N>.off the same with poll_steal_sleep=0
#   r<N>.phy H busy, R reading phy: (what an event-driven backend gets)
# for -o STEAL_ROUNDS rounds (2), in the order on, off, phy in odd rounds
# and phy, off, on in even ones, so that drift of the emulated host
# favours none.  In each phase dom0 measures over a window of STEAL_S - 6
# seconds that starts 2 s after R said it started: the CPU time Xen gave
# H's vCPU and dom0's (xl vcpu-list), dom0's stolen time (/proc/stat),
# the backends' threads' CPU time (fipc's pollers, blkback's threads),
# the fipc pollers' sleeps and steal sleeps, R's reads at both backends
# and the events dom0 took from R; R reports its fio IOPS and
# latencies.  Rows in
# $FIPC_RESULTS/steal.json, the table in steal.md (also printed).
# Emulated timings: compare only inside one run.
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"
. "$here/../bench/irqs.sh"
# Exported: fipc_step runs the phases in a child bash.
export STEAL_PARAM=/sys/module/xen_fipc_back/parameters/poll_steal_sleep
export BACK_POLLERS=/sys/module/xen_fipc_back/parameters/poller_cpus
SECS=$(fipc_opt STEAL_S 24)
export SECS WINDOW=$((SECS - 6)) XVDB=51728 XVDC=51744

start() {
    local cpu
    fipc_dmesg_mark
    fipc_null_blk 1 1 || return 1
    fipc_mailbox_new || return 1
    fipc_load_module fipc || return 1
    fipc_load_module xen-fipc-back || return 1
    [ -w "$STEAL_PARAM" ] ||
        { fipc_fail "this xen-fipc-back has no poll_steal_sleep parameter"; return 1; }
    cpu=$(sed -n 's/^poller 0 cpu \([0-9]*\) .*/\1/p' "$BACK_POLLERS")
    [ "$cpu" = 0 ] ||
        { fipc_fail "the backend poller is on CPU '$cpu', not dom0's vCPU 0: $(tr '\n' ';' < "$BACK_POLLERS")"; return 1; }
    FIPC_DOMU_LOAD="fipc xen-fipc-front" fipc_domu_start R "$here/reader.cfg" \
        "$here/guest.sh" || return 1
    fipc_domu_wait_marker R "@@STEAL R ready" 600 || return 1
    FIPC_DOMU_LOAD="" fipc_domu_start H "$here/hog.cfg" "$here/guest.sh" || return 1
    fipc_domu_wait_marker H "@@STEAL H ready" 600 || return 1
    xl domid R > "$FIPC_WORK/R.id"
    fipc_log "vCPUs: $(xl vcpu-list | awk 'NR > 1 { printf "%s/%s on pCPU %s; ", $1, $3, $4 }')"
    : > "$FIPC_RESULTS/rows.txt"
}

# vcpu_s DOMAIN: the CPU seconds Xen has given DOMAIN's vCPU 0.
vcpu_s() { xl vcpu-list "$1" 2>/dev/null | awk 'NR == 2 { print $6 }'; }

# poller_sum FIELD: FIELD summed over the backend's pollers.
poller_sum() {
    awk -v k="$1" '$1 == "poller" { for (i = 2; i < NF; i++) if ($i == k) s += $(i + 1) }
        END { print s + 0 }' "$BACK_POLLERS"
}

# backend_ticks DOMID: CPU time (clock ticks) of the backends' threads:
# fipc's pollers (xfb-poll/N) and blkback's threads of guest DOMID
# (xen-blkback names them <domid>.<disk>-<ring>).
backend_ticks() {
    local t
    t=$(thread_ticks 'xfb-poll/[0-9]*' "$1.xvd*-[0-9]*")
    echo "${t% *}"
}

# sample: one line of counters: time (s), H's and dom0's vCPU seconds,
# dom0's stolen ticks, the fipc pollers' sleeps and steal sleeps, R's
# reads at both backends, the events dom0 took from R's frontends, the
# backends' threads' ticks, the fipc backend's answers from bio
# completions (end_answers).
sample() {
    local id
    id=$(cat "$FIPC_WORK/R.id")
    echo "$(date +%s.%N) $(vcpu_s H) $(vcpu_s Domain-0)" \
        "$(awk '$1 == "cpu" { print $9 }' /proc/stat)" \
        "$(poller_sum sleeps) $(poller_sum steal_sleeps)" \
        "$(($(fipc_be_stat "$id" $XVDB rd_req) + $(cat "$FIPC_BE_SYSFS/vbd-$id-$XVDC/statistics/rd_req")))" \
        "$(irq_sum 'xen-fipc-back|blkif-backend') $(backend_ticks "$id")" \
        "$(fipc_be_stat "$id" $XVDB end_answers)"
}

# row PHASE CONFIG BEFORE AFTER FIO: a row of rows.txt: the phase, its
# configuration (on, off, phy), the window's seconds, then the
# differences of the counters of sample, then R's fio figures (FIO:
# "iops p50 p99 mean", or "- - - -" for a phase without reads).
row() {
    echo "$1 $2 $(awk -v a="$3" -v b="$4" 'BEGIN {
        n = split(a, x, " "); split(b, y, " ")
        printf "%.2f", y[1] - x[1]
        for (i = 2; i <= n; i++) printf " %s", y[i] - x[i]
    }') $5" >> "$FIPC_RESULTS/rows.txt"
}

# idle: H busy, R not reading, for the window.
idle() {
    local s0 s1
    echo 1 > "$STEAL_PARAM" || return 1
    s0=$(sample)
    sleep "$WINDOW"
    s1=$(sample)
    row idle on "$s0" "$s1" "- - - -"
}

# measure PHASE CONFIG: R reads in PHASE, CONFIG on or off (phy1 with
# poll_steal_sleep 1 or 0) or phy (classic); H is paused for the phase
# "alone".
measure() {
    local ph=$1 s0 s1 line fio rc=0 set=1
    local con=$FIPC_CONSOLE_DIR/guest-R.log
    [ "$2" = off ] && set=0
    echo $set > "$STEAL_PARAM" || { fipc_fail "cannot set poll_steal_sleep=$set"; return 1; }
    if [ "$ph" = alone ]; then
        xl pause H || { fipc_fail "xl pause H failed"; return 1; }
    fi
    fipc_mailbox_put /dev/nullmbox "$ph" || return 1
    fipc_domu_wait_marker R "@@STEAL R $ph started" 120 || return 1
    sleep 2
    s0=$(sample)
    sleep "$WINDOW"
    s1=$(sample)
    fipc_domu_wait_marker R "@@STEAL R $ph done" $((SECS * 4 + 120)) || rc=1
    if [ "$ph" = alone ]; then
        xl unpause H || { fipc_fail "xl unpause H failed"; rc=1; }
    fi
    [ $rc = 0 ] || return 1
    line=$(grep -a "^@@STEAL R $ph done" "$con" | tail -n 1 | tr -d '\r')
    fipc_log "$ph ($2): $line"
    case $line in *" rc=0 "*) ;; *) fipc_fail "R: phase $ph: fio failed"; return 1 ;; esac
    fio=$(echo "$line" | sed -n 's/.* iops=\([0-9]*\) p50_us=\([0-9]*\) p99_us=\([0-9]*\) mean_us=\([0-9]*\).*/\1 \2 \3 \4/p')
    [ -n "$fio" ] || { fipc_fail "R: phase $ph: no fio figures in '$line'"; return 1; }
    row "$ph" "$2" "$s0" "$s1" "$fio"
}

# report: steal.json and steal.md from rows.txt.
report() {
    awk -v hz="$(clk_tck)" -v md_out="$FIPC_RESULTS/steal.md" -v js_out="$FIPC_RESULTS/steal.json" '
    function pct(x, t) { return t > 0 ? sprintf("%.0f", 100 * x / t) : "null" }
    function per(x, n, f) { return n > 0 ? sprintf(f, x / n) : "null" }
    function num(x) { return x == "-" ? "null" : x }
    BEGIN {
        md = "## A busy guest beside the backend poller (emulated)\n\n"
        md = md "| phase | config | busy guest CPU % | dom0 CPU % | dom0 stolen % | dom0 CPU us/read | backend threads CPU us/read | poller sleeps/read | steal sleeps | end answers/read | events to dom0/read | reads/s | reader IOPS | clat p50 us | clat p99 us | lat mean us |\n"
        md = md "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        js = "{\n  \"emulated\": true,\n  \"rows\": ["
    }
    {
        # $3 window s, $4 H s, $5 dom0 s, $6 stolen ticks, $7 sleeps,
        # $8 steal sleeps, $9 reads, $10 events, $11 backend ticks,
        # $12 end answers, $13-$16 fio.
        t = $3; r = $9
        us = per($5 * 1e6, r, "%.0f")
        bt = per($11 * 1e6 / hz, r, "%.0f")
        md = md sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
            $1, $2, pct($4, t), pct($5, t), pct($6 / hz, t), us, bt, per($7, r, "%.3f"), $8,
            per($12, r, "%.3f"), per($10, r, "%.3f"), per(r, t, "%.0f"), $13, $14, $15, $16)
        js = js sprintf("%s\n    {\"phase\": \"%s\", \"config\": \"%s\", \"window_s\": %s, \"busy_guest_cpu_pct\": %s, \"dom0_cpu_pct\": %s, \"dom0_stolen_pct\": %s, \"dom0_cpu_us_per_read\": %s, \"backend_threads_cpu_us_per_read\": %s, \"poller_sleeps_per_read\": %s, \"steal_sleeps\": %s, \"end_answers_per_read\": %s, \"events_to_dom0_per_read\": %s, \"reads_per_s\": %s, \"reader_iops\": %s, \"clat_p50_us\": %s, \"clat_p99_us\": %s, \"lat_mean_us\": %s}",
            NR > 1 ? "," : "", $1, $2, t, pct($4, t), pct($5, t), pct($6 / hz, t), us, bt,
            per($7, r, "%.3f"), $8, per($12, r, "%.3f"), per($10, r, "%.3f"),
            per(r, t, "%.0f"), num($13), num($14), num($15), num($16))
        if ($1 ~ /^r[0-9]+\./) {
            n[$2]++; cpu[$2] += 100 * $4 / t; p99[$2] += $15; mean[$2] += $16
            iops[$2] += $13; d0[$2] += r > 0 ? $5 * 1e6 / r : 0
        }
    }
    END {
        if (n["on"] && n["off"] && n["phy"])
            md = md sprintf("\nMeans over the rounds, phy1 with poll_steal_sleep on / off / classic phy: the busy guest got %.0f / %.0f / %.0f%% of its pCPU, dom0 took %.0f / %.0f / %.0f us of it per read; the reader %.0f / %.0f / %.0f IOPS, clat p99 %.0f / %.0f / %.0f us, mean latency %.0f / %.0f / %.0f us.\n",
                cpu["on"] / n["on"], cpu["off"] / n["off"], cpu["phy"] / n["phy"],
                d0["on"] / n["on"], d0["off"] / n["off"], d0["phy"] / n["phy"],
                iops["on"] / n["on"], iops["off"] / n["off"], iops["phy"] / n["phy"],
                p99["on"] / n["on"], p99["off"] / n["off"], p99["phy"] / n["phy"],
                mean["on"] / n["on"], mean["off"] / n["off"], mean["phy"] / n["phy"])
        printf "%s", md > md_out
        printf "%s\n  ]\n}\n", js > js_out
    }' "$FIPC_RESULTS/rows.txt"
    cat "$FIPC_RESULTS/steal.md"
}

# finish: R says bye, H is destroyed, the backend unloaded, dom0 checked.
finish() {
    local rc=0 hid
    hid=$(xl domid H 2>/dev/null)
    cp "$BACK_POLLERS" "$FIPC_RESULTS/dom0-pollers.txt"
    fipc_mailbox_put /dev/nullmbox bye || rc=1
    fipc_domu_wait R 300 || rc=1
    if [ -n "$hid" ]; then
        xl destroy H || { fipc_fail "xl destroy H failed"; rc=1; }
        fipc_blk_wait_gone "$hid"
    fi
    fipc_blk_wait_gone "$(cat "$FIPC_WORK/R.id")"
    echo 1 > "$STEAL_PARAM"
    rmmod xen-fipc-back || { fipc_fail "rmmod xen-fipc-back failed"; rc=1; }
    fipc_health final || rc=1
    return $rc
}

# round_step R CFG: one measurement of configuration CFG in round R.
round_step() {
    fipc_step "steal-r$1-$2" $((SECS * 4 + 300)) measure "r$1.$2" "$2"
}

fipc_opt_rounds rounds STEAL_ROUNDS 2
[ "$WINDOW" -ge 4 ] 2>/dev/null || fipc_die "STEAL_S must be 10 seconds or more (got '$SECS')"
fipc_step steal-start 900 start || exit 1
rc=0
fipc_step steal-idle 120 idle || rc=1
fipc_step steal-alone $((SECS * 4 + 300)) measure alone on || rc=1
fipc_rounds "$rounds" "on off phy" "phy off on" round_step || rc=1
fipc_step steal-report 60 report || rc=1
fipc_step steal-finish 600 finish || rc=1
exit $rc
