#!/bin/bash
# Scenario "scaling" (dom0 side): the poller scaling benchmark of issue 13
# (make bench-scaling).  One guest with eight phy1 disks of one channel
# each (xvdb..xvdi on /dev/nullb0..7).  For each backend mode:
#   fixed   xen-fipc-back pollers=2 poll_autoscale=0: the channels are
#           dealt to the two pollers round robin at connect
#   nosteal as fixed, with poll_steal_sleep=0: the pollers poll through
#           their window even while the guest's vCPU waits for their
#           pCPU (dom0's vCPUs are unpinned here)
#   auto    pollers=2 poll_autoscale=1 (the default): they start on one
#           poller and spread only while it stays busy
#   moves   as auto, with poll_scale_up_pct -o MOVES_UP_PCT (5) and
#           poll_scale_down_pct -o MOVES_DOWN_PCT (3): under TCG the one
#           guest vCPU cannot load a poller to the default 80%, so these
#           loads make the moves happen; after its four phases the guest
#           writes and verifies all eight disks in bursts (phase
#           verify-8), and dom0 requires at least one scale-up and one
#           scale-down during it, with every block read back as written
#   front   the guest's own pollers: a guest of -o FRONT_VCPUS (2) vCPUs
#           with a xen-fipc-front poller per vCPU, auto-scaling at the
#           default loads (-o FRONT_UP_PCT, -o FRONT_DOWN_PCT) and
#           polling 5 ms after work (-o FRONT_IDLE_US) even on stolen
#           time (poll_steal_sleep=0, -o FRONT_STEAL_SLEEP), the
#           backend's two pollers fixed; after the four phases, front-verify-8 as
#           verify-8, where dom0 requires the guest's pollers to have
#           moved both ways
# the guest reads (4 KiB random, QD -o SCALE_QD) on 1, 2, 4 and 8 disks at
# once; dom0 counts per I/O the backend pollers' CPU time, the backend's
# notifications and hypercalls, the guest's notifications, the most
# pollers at work (sampled each second) and the scale events, the guest
# its own pollers' scale events, most at work and highest load (-o SCALE_BS
# 1m: reads of 1 MiB, whose grant maps load a poller past the default
# 80%).  Then "share": one poller, poll_budget=1, xvdb at weight 512 and
# xvdc at 256, both read at QD -o SHARE_QD in blocks of -o SHARE_BS (1m),
# with a busy loop on the poller's CPU (-o SHARE_HOG, 1; 0: none): with
# requests queued at the poller, xvdb should get about twice xvdc's
# reads.  Rows in $FIPC_RESULTS/scaling.json, tables in
# scaling.md (also printed).  Emulated timings: compare only inside one
# run.  Runs the same on a real Xen dom0 (the disks' null_blk devices are
# created here).
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"
. "$here/../bench/irqs.sh"
. "$here/poller-fields.sh"
export FIPC_DOMU_LOAD="fipc xen-fipc-front"
export DISKS="51728 51744 51760 51776 51792 51808 51824 51840"

start() {
    fipc_dmesg_mark
    fipc_null_blk 1 8 || return 1
    fipc_mailbox_new || return 1
    fipc_load_module fipc || return 1
    : > "$FIPC_RESULTS/rows.txt"
}

# boot NAME PARAM...: xen-fipc-back (re)loaded with PARAMs, guest NAME up.
boot() {
    local name=$1
    shift
    if [ -d /sys/module/xen_fipc_back ]; then
        rmmod xen-fipc-back || { fipc_fail "rmmod xen-fipc-back failed"; return 1; }
    fi
    fipc_load_module xen-fipc-back "$@" || return 1
    fipc_mailbox_put /dev/nullmbox none || return 1
    fipc_domu_start "$name" "$here/domU.cfg" "$here/guest.sh" || return 1
    fipc_domu_wait_marker "$name" "@@SCALING ready" 600 || return 1
    xl domid "$name" > "$FIPC_WORK/$name.id"
}

# be_sum ID N COUNTER: a backend counter summed over the first N disks.
be_sum() {
    local d s=0 v
    for d in $(echo $DISKS | cut -d' ' -f1-"$2"); do
        v=$(fipc_be_stat "$1" "$d" "$3")
        [ "$v" -ge 0 ] 2>/dev/null && s=$((s + v))
    done
    echo $s
}

# The backend's pollers (poller-fields.sh reads them; exported: fipc_step
# runs the phases in a child bash).
export BACK_POLLERS=/sys/module/xen_fipc_back/parameters/poller_cpus

# phase_counters ID N: what phase() counts before and after a phase, on
# one line, each a number: the backend's notify_sent and hypercalls over
# disks 1 to N of domain ID, the backend pollers' scale_ups, scale_downs
# and rebalances.
phase_counters() {
    echo "$(be_sum "$1" "$2" notify_sent) $(be_sum "$1" "$2" hypercalls)" \
        "$(poller_autoscale "$BACK_POLLERS" scale_ups)" \
        "$(poller_autoscale "$BACK_POLLERS" scale_downs)" \
        "$(poller_autoscale "$BACK_POLLERS" rebalances)"
}

# phase GUEST PHASE N: run PHASE in the guest (its first N disks) and add
# a row of per-I/O figures to rows.txt.
phase() {
    local g=$1 ph=$2 n=$3 id t0 t1 nb0 nb1 hc0 hc1 su0 su1 sd0 sd1 rb0 rb1 w max=0 line con i=0 l lmax=0 front
    id=$(cat "$FIPC_WORK/$g.id")
    con=$FIPC_CONSOLE_DIR/guest-$g.log
    t0=$(poller_ticks xfb-poll)
    read -r nb0 hc0 su0 sd0 rb0 <<< "$(phase_counters "$id" "$n")"
    fipc_mailbox_put /dev/nullmbox "$ph" || return 1
    until line=$(grep -a "^@@SCALING $ph done" "$con" 2>/dev/null); do
        w=$(poller_autoscale "$BACK_POLLERS" pollers_at_work)
        [ "${w:-0}" -gt $max ] && max=$w
        l=$(poller_load_max "$BACK_POLLERS")
        [ "${l:-0}" -gt $lmax ] && lmax=$l
        i=$((i + 1))
        [ $i -lt 600 ] || { fipc_fail "$g: phase $ph not done in 600 s"; return 1; }
        sleep 1
    done
    t1=$(poller_ticks xfb-poll)
    read -r nb1 hc1 su1 sd1 rb1 <<< "$(phase_counters "$id" "$n")"
    fipc_log "$ph: $line"
    case $line in *" rc=0 "*) ;; *) fipc_fail "$g: phase $ph: fio failed"; return 1 ;; esac
    front=$(echo "$line" | sed -n 's/.* front_ups=\([0-9]*\) front_downs=\([0-9]*\) front_rebalances=\([0-9]*\) front_at_work=\([0-9]*\) front_load=\([0-9]*\).*/\1 \2 \3 \4 \5/p')
    echo "$ph $n $(echo "$line" | sed -n 's/.* ios=\([0-9]*\) front_notify=\([0-9]*\).*/\1 \2/p') $((t1 - t0)) $((nb1 - nb0)) $((hc1 - hc0)) $max $((su1 - su0)) $((sd1 - sd0)) $lmax $((${rb1:-0} - ${rb0:-0})) ${front:-0 0 0 0 0}" \
        >> "$FIPC_RESULTS/rows.txt"
    cat /sys/module/xen_fipc_back/parameters/poller_cpus > "$FIPC_RESULTS/pollers-$ph.txt"
    grep -a "^scaling: $ph front pollers: " "$con" | tail -n 1 | tr -d '\r' |
        sed 's/.* front pollers: //' | tr ';' '\n' > "$FIPC_RESULTS/front-pollers-$ph.txt"
}

# mode NAME PARAM...: one guest, phases NAME-1, -2, -4, -8 (and for
# "moves", verify-8, for "front", front-verify-8: data checked across the
# moves they cause).
mode() {
    local m=$1 n
    shift
    boot "s-$m" "$@" || return 1
    for n in 1 2 4 8; do
        phase "s-$m" "$m-$n" $n || return 1
    done
    if [ "$m" = moves ]; then
        phase "s-$m" verify-8 8 || return 1
        moves_check verify-8 9 10 "dom0's" "$FIPC_RESULTS/pollers-verify-8.txt" ||
            return 1
    fi
    if [ "$m" = front ]; then
        phase "s-$m" front-verify-8 8 || return 1
        moves_check front-verify-8 13 14 "the guest's" \
            "$FIPC_RESULTS/front-pollers-front-verify-8.txt" || return 1
    fi
    fipc_mailbox_put /dev/nullmbox bye || return 1
    fipc_domu_wait "s-$m" 300 || return 1
    fipc_blk_wait_gone "$(cat "$FIPC_WORK/s-$m.id")"
}

# moves_check PHASE UPS DOWNS WHOSE FILE: PHASE's row (columns UPS and
# DOWNS: the scale events of WHOSE pollers) saw channels spread and
# gather, and the guest read every block back as written (its rc,
# checked by phase; fio's verify_fatal).  FILE: those pollers' state,
# shown on failure.
moves_check() {
    local ups downs
    read -r ups downs <<< "$(awk -v p="$1" -v u="$2" -v d="$3" '$1 == p { print $u, $d }' "$FIPC_RESULTS/rows.txt")"
    fipc_log "$1: $4 pollers: scale_ups $ups scale_downs $downs, data verified"
    [ "${ups:-0}" -ge 1 ] && [ "${downs:-0}" -ge 1 ] || {
        fipc_fail "$1: $4 pollers made no move in both directions (scale_ups ${ups:-?}, scale_downs ${downs:-?}); poller_cpus: $(tr '\n' ';' < "$5" 2>/dev/null)"
        return 1
    }
}

# front: mode "front" in a guest of -o FRONT_VCPUS (2) vCPUs whose
# xen-fipc-front has a poller per vCPU, auto-scaling at the module's
# default loads (80% / 30%; -o FRONT_UP_PCT and -o FRONT_DOWN_PCT set
# others) and polling -o FRONT_IDLE_US (5000) after its last work; the
# backend's two pollers fixed, so that only the guest's pollers move.
# With the default poll_idle_us (200) the emulated guest takes nearly
# every answer in its event handler while its poller sleeps (load at
# most 10%, no move even at 5%: a period that spans a sleep counts as
# cold); polling, the poller takes them, at 89-95% load.  The guest's
# two vCPUs share the two emulated CPUs with dom0's, so with
# poll_steal_sleep (default on; at once since fipc 0.368) its pollers
# sleep on stolen time after every round without work, and their load
# stays at 30% or less: nothing moves.  So the mode polls through
# stolen time (-o FRONT_STEAL_SLEEP=1 to keep the rule).
front() {
    local v p up down
    v=$(fipc_opt FRONT_VCPUS 2)
    up=$(fipc_opt FRONT_UP_PCT "")
    down=$(fipc_opt FRONT_DOWN_PCT "")
    p="pollers=$v poll_autoscale=1 poll_idle_us=$(fipc_opt FRONT_IDLE_US 5000)"
    p="$p poll_steal_sleep=$(fipc_opt FRONT_STEAL_SLEEP 0)"
    [ -z "$up" ] || p="$p poll_scale_up_pct=$up"
    [ -z "$down" ] || p="$p poll_scale_down_pct=$down"
    export FIPC_DOMU_VCPUS=$v
    export FIPC_OPT_FRONT_PARAMS="$p ${FIPC_OPT_FRONT_PARAMS:-}"
    mode front pollers=2 poll_autoscale=0
}

# share: one saturated poller, two disks of weights 512 and 256.  With
# -o SHARE_HOG=1 (the default) a busy loop shares the poller's CPU while
# they read 1 MiB blocks, so that requests queue up at the poller: alone
# on its CPU, even at 100% load, it mostly finds the rings empty (under
# TCG the one guest vCPU cannot outrun it) and each disk gets what it
# asks, whatever the weights.
share() {
    local id r0b r0c r1b r1c cpu hog= rc=0
    local use_hog bs
    use_hog=$(fipc_opt SHARE_HOG 1)
    bs=$(fipc_opt SHARE_BS 1m)
    boot s-share pollers=1 poll_budget=1 poll_autoscale=0 || return 1
    id=$(cat "$FIPC_WORK/s-share.id")
    echo 512 > "$FIPC_BE_SYSFS/fipcblk-$id-51728/statistics/weight" ||
        { fipc_fail "cannot set xvdb's weight"; return 1; }
    if [ "$use_hog" = 1 ]; then
        cpu=$(sed -n 's/^poller 0 cpu \([0-9]*\) .*/\1/p' \
            /sys/module/xen_fipc_back/parameters/poller_cpus)
        taskset -c "${cpu:?}" bash -c 'while :; do :; done' &
        hog=$!
        fipc_log "share: a busy loop (pid $hog) shares the poller's CPU $cpu"
    fi
    r0b=$(fipc_be_stat "$id" 51728 rd_req)
    r0c=$(fipc_be_stat "$id" 51744 rd_req)
    phase s-share share 2 || rc=1
    [ -z "$hog" ] || kill "$hog"
    [ $rc = 0 ] || return 1
    r1b=$(fipc_be_stat "$id" 51728 rd_req)
    r1c=$(fipc_be_stat "$id" 51744 rd_req)
    echo "$((r1b - r0b)) $((r1c - r0c)) $use_hog $bs" > "$FIPC_RESULTS/share.txt"
    fipc_mailbox_put /dev/nullmbox bye || return 1
    fipc_domu_wait s-share 300 || return 1
    fipc_blk_wait_gone "$id"
}

# report: scaling.json and scaling.md from rows.txt and share.txt.
report() {
    local hz
    hz=$(clk_tck)
    awk -v hz="$hz" -v share="$(cat "$FIPC_RESULTS/share.txt" 2>/dev/null)" '
    function per(x, n) { return n ? sprintf("%.3f", x / n) : "null" }
    BEGIN {
        md = "## Poller scaling (emulated)\n\n"
        md = md "| mode | disks | reads | poller CPU us/IO | back notify/IO | back hypercalls/IO | front notify/IO | pollers at work (max) | poller load % (max) | scale ups | scale downs | rebalances | guest pollers at work (max) | guest poller load % (max) | guest ups / downs / rebalances |\n"
        md = md "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        js = "{\n  \"emulated\": true,\n  \"rows\": ["
        sep = ""
    }
    $1 == "share" { share_load = $11 }
    $1 != "share" {
        split($1, a, "-")
        if (a[1] == "verify") a[1] = "moves (verify)"
        if (a[2] == "verify") a[1] = a[1] " (verify)"
        us = $3 ? sprintf("%.1f", $5 * 1e6 / hz / $3) : "null"
        md = md sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s / %s |\n",
            a[1], $2, $3, us, per($6, $3), per($7, $3), per($4, $3), $8, $11, $9, $10, $12 + 0,
            $16 + 0, $17 + 0, $13 + 0, $14 + 0, $15 + 0)
        js = js sep sprintf("\n    {\"mode\": \"%s\", \"disks\": %s, \"reads\": %s, \"poller_cpu_us_per_io\": %s, \"back_notify_per_io\": %s, \"back_hypercalls_per_io\": %s, \"front_notify_per_io\": %s, \"pollers_at_work_max\": %s, \"poller_load_pct_max\": %s, \"scale_ups\": %s, \"scale_downs\": %s, \"rebalances\": %s, \"front_pollers_at_work_max\": %s, \"front_poller_load_pct_max\": %s, \"front_scale_ups\": %s, \"front_scale_downs\": %s, \"front_rebalances\": %s}",
            a[1], $2, $3, us, per($6, $3), per($7, $3), per($4, $3), $8, $11, $9, $10, $12 + 0,
            $16 + 0, $17 + 0, $13 + 0, $14 + 0, $15 + 0)
        sep = ","
    }
    END {
        split(share, s, " ")
        md = md "\n## Share of one saturated poller (emulated)\n\n"
        md = md "| disk | weight | reads |\n|---|---|---|\n"
        md = md sprintf("| xvdb | 512 | %s |\n| xvdc | 256 | %s |\n", s[1], s[2])
        md = md sprintf("\nxvdb / xvdc: %s (reads of %s, %s); the weights ask for 2 once requests queue at the poller (its load peaked at %s%%; while a visit rarely finds more than one request waiting, each disk gets what it asks)\n", s[2] ? sprintf("%.2f", s[1] / s[2]) : "n/a", s[4], s[3] == 1 ? "a busy loop on the poller'"'"'s CPU" : "the poller'"'"'s CPU its own", share_load + 0)
        js = js sprintf("\n  ],\n  \"share\": {\"weight_512_reads\": %s, \"weight_256_reads\": %s, \"poller_load_pct_max\": %s, \"hog\": %s, \"bs\": \"%s\"}\n}\n", s[1] + 0, s[2] + 0, share_load + 0, s[3] == 1 ? "true" : "false", s[4])
        printf "%s", md > "'"$FIPC_RESULTS"'/scaling.md"
        printf "%s", js > "'"$FIPC_RESULTS"'/scaling.json"
    }' "$FIPC_RESULTS/rows.txt"
    cat "$FIPC_RESULTS/scaling.md"
}

# finish: unload the backend and check dom0.  A guest still running here
# (one that a failed mode left) is a failure of its own; it is destroyed
# and its devices waited for first, so that the unload and the health
# check test the driver and not the failure before them.
finish() {
    local rc=0 name id
    # xl list: a header line, Domain-0, then one line per guest (name, ID).
    while read -r name id; do
        fipc_fail "$name still running at the end; destroyed"
        xl destroy "$name"
        fipc_blk_wait_gone "$id"
        rc=1
    done < <(xl list 2>/dev/null | awk 'NR > 2 { print $1, $2 }')
    rmmod xen-fipc-back || { fipc_fail "rmmod xen-fipc-back failed"; rc=1; }
    fipc_health final || rc=1
    return $rc
}

fipc_step scaling-start 120 start || exit 1
rc=0
# -o MODES: which of the modes and the share phase run (all by default).
# "nosteal" is "fixed" with poll_steal_sleep=0: dom0's vCPUs share the
# pCPUs with the guest's here, so the pair shows what sleeping on stolen
# time changes.
modes=" $(fipc_opt MODES "fixed nosteal auto moves front share") "
if [[ $modes == *" fixed "* ]]; then
    fipc_step scaling-fixed 900 mode fixed pollers=2 poll_autoscale=0 || rc=1
fi
if [[ $modes == *" nosteal "* ]]; then
    fipc_step scaling-nosteal 900 mode nosteal pollers=2 poll_autoscale=0 \
        poll_steal_sleep=0 || rc=1
fi
if [[ $modes == *" auto "* ]]; then
    fipc_step scaling-auto 900 mode auto pollers=2 poll_autoscale=1 || rc=1
fi
if [[ $modes == *" moves "* ]]; then
    fipc_step scaling-moves 900 mode moves pollers=2 poll_autoscale=1 \
        poll_scale_up_pct="$(fipc_opt MOVES_UP_PCT 5)" \
        poll_scale_down_pct="$(fipc_opt MOVES_DOWN_PCT 3)" || rc=1
fi
if [[ $modes == *" front "* ]]; then
    fipc_step scaling-front 1200 front || rc=1
fi
if [[ $modes == *" share "* ]]; then
    fipc_step scaling-share 600 share || rc=1
fi
fipc_step scaling-report 60 report || rc=1
fipc_step scaling-finish 120 finish || rc=1
exit $rc
