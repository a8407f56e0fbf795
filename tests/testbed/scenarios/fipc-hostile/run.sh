#!/bin/bash
# Scenario "fipc-hostile" (dom0 side): a hostile guest attacks the fipc
# backend while an honest guest runs verified I/O beside it (issue 12).
# -o BACKEND says where the backend runs:
#   dom0 (default)  dom0's own xen-fipc-back, checked from inside (its
#                   sysfs and debugfs, pollers, interrupts, memory)
#   dd              xen-fipc-back in a driver domain, whose kernel can be
#                   the KASAN kernel (-o DD_TYPE=pvh-kasan, make e2e-kasan:
#                   KASAN cannot run in a Xen PV domain on Linux 6.1, so
#                   that driver domain is PVH); dom0 sees it as a
#                   toolstack does: through xenstore and the consoles.
#
# BACKEND=dom0: two memory-backed null_blk devices, xen-fipc-back with one
# poller (both guests' channels on it).  Guest "honest" (xen-fipc-front,
# phy1 disk on /dev/nullb0, the grant path) runs rounds of fio verify
# (hostile-verify.fio: 4 KiB and 64 KiB random writes, crc32c) the whole
# time.  Guest "attacker" has fipc_attack.ko (tests/attack) instead of the
# frontend, a phy1 disk on /dev/nullb1, and runs each mode of -o
# ATTACK_MODES in turn (guest-hostile-attacker.sh); dom0 checks each with
# what the backend exposes (statistics of the attacker's device, the
# xenbus device's event counters, poller_cpus, /proc/interrupts, xenstore
# state and error nodes, /proc/vmallocinfo, dmesg):
#   noreap            the attacker fills its ring with requests and never
#                     takes a response: every request answered all the
#                     same, and the poller must go on sleeping: its loops
#                     in a 10 s window below -o CPU_MAX % (50) of a vCPU (a
#                     poller spinning on the channel takes ~100 %; its
#                     loops are printed: the honest guest's I/O adds to
#                     them), sleeps growing.  Over the
#                     window the idle window is fixed at poll_idle_us:
#                     a learnt one polls through the honest guest's
#                     steady gaps, CPU the check would blame on the
#                     attacker
#   storm             spurious_irqs (debugfs) grows and the dom0
#                     interrupts of the channel stay far below (< 10 %)
#                     the notifications the attacker sent
#   xsbad             each out-of-range or garbled key is refused: the
#                     backend never Connected, an error node per case
#                     (the retired protocol versions 1 and 2 among them);
#                     the attacker's disk allows memshare, and three cases
#                     offer a memshare table of their own (pfns 2^32, pfns
#                     beyond twice the guest's memory, a repeated reference);
#                     two give the grant path staging pages (1025 of them,
#                     past the most offered; 4 without their list page)
#   cycle             -o ATTACK_CYCLES (50) connects and disconnects: no ring
#                     mapping left (vmallocinfo), dom0 MemFree within
#                     8 MiB, every grant ended by the attacker at once
#   closebusy         Closing with a full request ring reaches Closed
#                     within 5 s
#   forge             5 forged request flags, each on a fresh connection
#                     (a response's kind, a request wanting no response,
#                     length 0, length past any message, a torn two-slot
#                     request): the backend closes each channel within
#                     10 s, statistics/proto_errors +1 each, and takes the
#                     attacker back every time; fipc diagnose (the admin
#                     command) names the broken protocol, the honest
#                     guest's disk healthy
#   rebind            dom0 unbinds and binds the attacker's backend device
#                     at random moments while it connects, fills its ring
#                     and closes: every unbind and bind works, it still
#                     connects, no grant mapped once the backend is Closed
#                     (InitWait proves nothing: a backend bound again maps
#                     the rings it finds), no ring mapping left, MemFree
#                     within 8 MiB
# Then the honest guest's grant budget (max_guest_grants) is lowered to
# -o BUDGET (64) for 15 s: its mapped grants stay within it, its channel
# waits (grant_waits) and its writes go on (its disk was offered no
# staging pages on the grant path, so its requests carry grants).
# After every mode the backend must be back in InitWait and dom0's kernel
# log clean.  Then the attacker, in noreap again, is destroyed: its
# domain and backend device must go and no ring mapping be left; the
# honest guest stops after its current round: every round verified, its
# backend counters without an error.
#
# BACKEND=dd:
#   drvdom    driver domain (-o DD_TYPE: pv, the stock kernel; or
#             pvh-kasan), 1024 MiB, xen-fipc-back over two memory-backed
#             null_blk devices, xl devd (fipc-common/guest-dd.sh)
#   honest    as above, its xvdb = drvdom's /dev/nullb0 on memshare ("done"
#             reaches it through the driver domain's mailbox relay)
#   attacker  as above, xvdb = drvdom's /dev/nullb1 (memshare offered)
# Each mode must run to its end ("done" from the attacker) and the backend
# must take the attacker back (its directory in the driver domain back in
# InitWait within 30 s once the attacker closed, the driver domain alive),
# with what the attacker itself measures checked as with dom0's backend:
# xsbad (every bad key refused, an error node under the driver domain's
# error/ directory), cycle (every connect made, every grant ended at once),
# closebusy (Closed within 5 s), forge (each forged flag closes the
# channel), and for noreap and storm the honest guest's rounds go on
# meanwhile (its completed reads and writes, printed every 2 s).  The
# honest guest's disk must connect on memshare.  Modes that need dom0's
# view inside the backend (rebind, the grant budget; poller CPU,
# interrupts, memory) are BACKEND=dom0's only.  Then the attacker, holding
# its responses, is destroyed: its backend directory goes, the honest
# guest's disk stays connected.  The honest guest finishes: every round
# verified.  The driver domain stops: no backend device left, xen-fipc-back
# and fipc unload, its kernel log clean; under KASAN the host also judges
# its whole kernel log (no report, KASAN on).  No domain is left.
#
# Every check prints its figure (results/dom0/checks.txt,
# results/dom0/hostile.json); any failed check fails the run.
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"
. "$here/attack-checks.sh"
. "$here/../bench/irqs.sh"
R=$FIPC_RESULTS/dom0
VDEV=51728
BACKEND=$(fipc_opt BACKEND dom0)
DD=drvdom
DD_TYPE=$(fipc_opt DD_TYPE pv)
CPU_MAX=$(fipc_opt CPU_MAX 50)
# fa_bad_cases in tests/attack/fipc_attack.c
XSBAD_CASES=15
# -o ATTACK_TIME_SCALE: the attacker's waits for the backend and our time
# bounds, times this (a slow backend domain: the KASAN kernel).
TSCALE=$(fipc_opt ATTACK_TIME_SCALE 1)
case $BACKEND in
dom0) MODES=$(fipc_opt ATTACK_MODES "noreap storm xsbad cycle closebusy forge rebind") ;;
dd)
    MODES=$(fipc_opt ATTACK_MODES "noreap storm xsbad cycle closebusy forge")
    export FIPC_OPT_DD_NULLB=2
    # The driver domain's backend: the tests' memshare budget, so that
    # the honest guest's memory fits its share (half of it;
    # docs/admin-guide.md section 6).
    export FIPC_OPT_BACK_PARAMS=${FIPC_OPT_BACK_PARAMS:-memshare_max_mib=1536}
    ;;
*) fipc_fail "-o BACKEND is dom0 or dd, not '$BACKEND'"; exit 1 ;;
esac
export FIPC_OPT_ATTACK_MODES=$MODES
export R VDEV BACKEND DD DD_TYPE CPU_MAX XSBAD_CASES TSCALE

# in_dd: the backend runs in the driver domain.  pick DOM0 DD: the value
# for where it runs (the driver domain's waits are longer: it shares the
# guests' pCPU).
in_dd() { [ "$BACKEND" = dd ]; }
pick() { if in_dd; then echo "$2"; else echo "$1"; fi; }

aid() { cat "$FIPC_WORK/attacker.id"; }
hid() { cat "$FIPC_WORK/honest.id"; }
# be_dom: the backend's domain id (0, or the driver domain's).
be_dom() {
    local d=0
    in_dd && read -r d < "$FIPC_WORK/$DD.id"
    echo "$d"
}
# be_dir DOMID: the backend directory of DOMID's xvdb.
be_dir() { echo "/local/domain/$(be_dom)/backend/fipcblk/$1/$VDEV"; }
be_state() { xenstore-read "$(be_dir "$1")/state" 2>/dev/null; }
fe_state() { xenstore-read "/local/domain/$1/device/fipcblk/$VDEV/state" 2>/dev/null; }
connected() { [ "$(be_state "$1")" = 4 ] && [ "$(fe_state "$1")" = 4 ]; }
initwait() { [ "$(be_state "$1")" = 2 ]; }
no_node() { ! xenstore-exists "$1"; }

# mailbox WORD: WORD into the mailbox of the honest guest's disk (dom0's
# /dev/nullb0, or the driver domain's, through its relay).
mailbox() {
    if in_dd; then
        fipc_dd_mailbox "$DD" nullb0 "$1"
    else
        fipc_mailbox_put /dev/nullb0 "$1"
    fi
}

# honest_ios: the honest guest's completed reads plus writes on xvdb, by
# its last progress line (guest-hostile-honest.sh, every 2 s).
honest_ios() {
    tr -d '\r' < "$FIPC_CONSOLE_DIR/guest-honest.log" |
        sed -n 's/^@@FIPC-HOSTILE honest io reads=\([0-9]*\) writes=\([0-9]*\).*/\1 \2/p' |
        tail -n 1 | awk '{ print $1 + $2 } END { if (!NR) print 0 }'
}

# ---- BACKEND=dom0: the backend seen from inside

# The helpers below that run while the attacker keeps dom0's only vCPU
# busy use shell builtins only: a fork costs up to a second then.

# meminfo KEY: a /proc/meminfo value (kB).
meminfo() {
    local k v u
    while read -r k v u; do
        [ "$k" = "$1:" ] && { echo "$v"; return; }
    done < /proc/meminfo
}
# pollers: "loops N sleeps N ..." summed over the pollers' lines of
# poller_cpus (each "poller ..." line is pairs of name and value).
pollers() {
    local -a f
    local -A sum=()
    local i k
    while read -r -a f; do
        [ "${f[0]}" = poller ] || continue
        for ((i = 2; i + 1 < ${#f[@]}; i += 2)); do
            case ${f[i + 1]} in ''|*[!0-9]*) continue ;; esac
            sum[${f[i]}]=$((${sum[${f[i]}]:-0} + f[i + 1]))
        done
    done < /sys/module/xen_fipc_back/parameters/poller_cpus
    for k in loops empty sleeps timed_sleeps wakeups irqs irqs_awake; do
        echo "p_$k ${sum[$k]:--1}"
    done
}

# irq_lines: "IRQ COUNT" of every xen-fipc-back line of /proc/interrupts.
irq_lines() {
    local -a f
    local i n
    while read -r -a f; do
        case " ${f[*]} " in *" xen-fipc-back "*) ;; *) continue ;; esac
        n=0
        for ((i = 1; i < ${#f[@]}; i++)); do
            case ${f[i]} in ''|*[!0-9]*) break ;; esac
            n=$((n + f[i]))
        done
        echo "${f[0]%:} $n"
    done < /proc/interrupts
}

# vmaps: xenbus ring mappings (grant-mapped areas) in /proc/vmallocinfo.
vmaps() {
    local l n=0
    while read -r l; do
        case $l in *xenbus_map_ring*) n=$((n + 1)) ;; esac
    done < /proc/vmallocinfo
    echo $n
}

# snap NAME: what the checks compare, to $FIPC_WORK/snap-NAME (a copy in
# results/dom0/snaps/): the statistics of the attacker's backend device
# and of its xenbus device (events, spurious_events,
# jiffies_eoi_delayed), the honest guest's reads and writes, the pollers, their CPU
# time, the xen-fipc-back interrupts, dom0 memory and ring mappings.
snap() {
    local id hd f v l n irqs=0
    id=$(aid)
    hd=$FIPC_BE_SYSFS/fipcblk-$(hid)-$VDEV/statistics
    mkdir -p "$R/snaps"
    irq_lines > "$FIPC_WORK/irqs-$1"
    {
        for f in "$FIPC_BE_SYSFS/fipcblk-$id-$VDEV"/statistics/*; do
            [ -f "$f" ] && read -r v < "$f" && echo "${f##*/} $v"
        done
        # The developer counters (debugfs: parked, spurious_irqs, ...).
        l=$(fipc_be_dbg "$id" "$VDEV")
        echo "$l"
        for f in parked spurious_irqs; do
            grep -q "^$f " <<< "$l" || echo "$f -1"
        done
        for f in events spurious_events jiffies_eoi_delayed; do
            v=-1
            [ -f "$FIPC_BE_SYSFS/fipcblk-$id-$VDEV/$f" ] && read -r v < "$FIPC_BE_SYSFS/fipcblk-$id-$VDEV/$f"
            echo "xb_$f $v"
        done
        v=-1
        [ -f "$hd/wr_req" ] && read -r v < "$hd/wr_req"
        echo "h_wr_req $v"
        v=-1
        [ -f "$hd/rd_req" ] && read -r v < "$hd/rd_req"
        echo "h_rd_req $v"
        pollers
        while read -r l n; do irqs=$((irqs + n)); done < "$FIPC_WORK/irqs-$1"
        echo "irqs $irqs"
        # -1 without a poller thread: the CPU check cannot pass then.
        v=$(poller_ticks xfb-poll)
        echo "ticks ${v:--1}"
        echo "memfree $(meminfo MemFree)"
        echo "sunreclaim $(meminfo SUnreclaim)"
        echo "vmap $(vmaps)"
    } > "$FIPC_WORK/snap-$1"
    cat "$FIPC_WORK/snap-$1" > "$R/snaps/$1.txt"
    cat /sys/module/xen_fipc_back/parameters/poller_cpus > "$R/snaps/$1.pollers"
}

# sv SNAP KEY: a value of a snapshot.  sd A B KEY: its growth from A to B.
sv() {
    local k v
    while read -r k v; do
        [ "$k" = "$2" ] && { echo "$v"; return; }
    done < "$FIPC_WORK/snap-$1"
    echo -1
}
sd() { echo $(($(sv "$2" "$3") - $(sv "$1" "$3"))); }

# counter_check NAME A B KEY: KEY grew from snapshot A to B (and exists).
counter_check() {
    local v
    if [ "$(sv "$3" "$4")" = -1 ]; then
        verdict "$1" 0 "the backend has no counter $4"
        return 1
    fi
    v=$(sd "$2" "$3" "$4")
    figure "$1" "$v"
    verdict "$1" $((v > 0)) "$4 +$v"
}

# ---- both backends

start() {
    local type=pv
    mkdir -p "$R"
    fipc_dmesg_mark
    if in_dd; then
        case $DD_TYPE in
        pv) ;;
        pvh-kasan) type=pvh; export FIPC_DOMU_FLAVOUR=kasan ;;
        *) fipc_fail "-o DD_TYPE is pv or pvh-kasan, not '$DD_TYPE'"; return 1 ;;
        esac
        FIPC_DOMU_MEMORY=1024 fipc_dd_start "$DD" "$here/dd-$type.cfg" || return 1
        unset FIPC_DOMU_FLAVOUR
    else
        fipc_null_blk 1 2 || return 1
        fipc_modules_load 0 || return 1
        # The honest guest's disk is offered no staging pages on the grant
        # path (read when its backend device is probed), so that its
        # requests carry grants of their own and the grant budget below has
        # something to hold back; the attacker's disk is offered them (its
        # xsbad cases include bad staging keys).
        echo N > /sys/module/xen_fipc_back/parameters/grant_staging
    fi
    FIPC_DOMU_LOAD="fipc xen-fipc-front" fipc_domu_start honest "$here/domU.cfg" \
        "$here/guest-hostile-honest.sh" BACKING=/dev/nullb0 \
        DISKOPTS="$(pick "" ",backend=$DD,memshare=on")" || return 1
    xl domid honest > "$FIPC_WORK/honest.id"
}

# The honest guest under I/O first (dom0's mappings without the attacker
# are the reference after its destroy), then the attacker.
ready() {
    local path
    fipc_domu_wait_marker honest '@@FIPC-HOSTILE honest running' "$(pick 300 600)" || return 1
    fipc_until "$(pick 60 120)" connected "$(hid)" ||
        { fipc_fail "honest xvdb not connected (back $(be_state "$(hid)"), front $(fe_state "$(hid)"))"; return 1; }
    if in_dd; then
        path=$(xenstore-read "/local/domain/$(hid)/device/fipcblk/$VDEV/fipc-data-path" 2>/dev/null)
        verdict honest-memshare "$([ "$path" = memshare ] && echo 1)" \
            "the honest guest's disk, served by $DD ($DD_TYPE), connected on the ${path:-unknown} data path" || return 1
    else
        echo Y > /sys/module/xen_fipc_back/parameters/grant_staging
        echo "vmap $(vmaps)" > "$FIPC_WORK/snap-honest-only"
    fi
    FIPC_DOMU_LOAD="fipc_attack" fipc_domu_start attacker "$here/domU.cfg" \
        "$here/guest-hostile-attacker.sh" BACKING=/dev/nullb1 \
        DISKOPTS="$(pick ",memshare=on" ",backend=$DD,memshare=on")" || return 1
    xl domid attacker > "$FIPC_WORK/attacker.id"
    fipc_log "backend in $(pick dom0 "$DD (domain $(be_dom), $DD_TYPE)"), honest is domain $(hid), attacker is domain $(aid)"
    amarker '@@FIPC-ATTACK-GUEST ready' "$(pick 300 600)" || return 1
    in_dd && return 0
    fipc_log "attacker's backend: state $(be_state "$(aid)")"
    snap baseline
    cat /sys/module/xen_fipc_back/parameters/poller_cpus
}

# mode_begin MODE: once the module waits, snapshot, go, wait until the
# attack has started.
mode_begin() {
    amarker "@@FIPC-ATTACK-GUEST $1 loading" 300 || return 1
    amarker "@@FIPC-ATTACK $1 waiting" "$(pick 120 300)" || return 1
    if in_dd; then
        honest_ios > "$FIPC_WORK/ios-$1"
    else
        snap "$1-before"
    fi
    go "$1" || return 1
    attack_started "$1" && return 0
    xenstore-ls -f "$(be_dir "$(aid)")" 2>&1 | head -n 30
    xenstore-ls -f "/local/domain/$(be_dom)/error" 2>&1 | head -n 10
    in_dd && fipc_domu_console_tail "$DD" 30
    return 1
}

# mode_end MODE: release the attacker (it unbinds, closing as a correct
# frontend does); then the backend must be in InitWait (in a driver
# domain: within 30 s), dom0 healthy (the driver domain alive).
mode_end() {
    local s rc=0
    go release || return 1
    amarker "@@FIPC-ATTACK $1 removed" "$(pick 240 300)" || return 1
    in_dd || snap "$1-removed"
    fipc_log "$(aline "@@FIPC-ATTACK $1 removed")"
    in_dd && fipc_until 30 initwait "$(aid)"
    s=$(be_state "$(aid)")
    verdict "$1-backend-initwait" "$([ "$s" = 2 ] && echo 1 || echo 0)" \
        "backend state$(pick "" " in $DD"): ${s:-none} once the attacker closed" || rc=1
    if in_dd; then
        xl domid "$DD" > /dev/null 2>&1 ||
            { verdict "$1-dd-alive" 0 "the driver domain is gone"; rc=1; }
    else
        fipc_health "$1" || rc=1
    fi
    return $rc
}

# ---- the attack modes: noreap, storm, rebind and the grant budget need
# dom0's backend (BACKEND=dd runs noreap and storm as timed); the others
# take either.

# noreap: responses never taken.
noreap() {
    local m=$1 rc=0 loops sleeps ticks pct hw hr line max
    mode_begin "$m" || return 1
    read -r max < /sys/module/xen_fipc_back/parameters/poll_idle_max_us
    cat /sys/module/xen_fipc_back/parameters/poll_idle_us > /sys/module/xen_fipc_back/parameters/poll_idle_max_us
    sleep 2
    snap "$m-w0"
    sleep 10
    snap "$m-w1"
    echo "$max" > /sys/module/xen_fipc_back/parameters/poll_idle_max_us
    loops=$(sd "$m-w0" "$m-w1" p_loops) sleeps=$(sd "$m-w0" "$m-w1" p_sleeps)
    ticks=$(sd "$m-w0" "$m-w1" ticks) hw=$(sd "$m-w0" "$m-w1" h_wr_req)
    hr=$(sd "$m-w0" "$m-w1" h_rd_req)
    pct=$((ticks * 100 / (10 * $(getconf CLK_TCK))))
    figure "$m.window_loops" "$loops"
    figure "$m.window_sleeps" "$sleeps"
    figure "$m.window_poller_cpu_pct" "$pct"
    figure "$m.window_honest_writes" "$hw"
    figure "$m.window_honest_reads" "$hr"
    amarker "@@FIPC-ATTACK $m done" 120 || rc=1
    line=$(aline "@@FIPC-ATTACK $m done")
    fipc_log "$line"
    snap "$m-done"
    [ "$(sv "$m-w0" ticks)" -ge 0 ] || pct=100
    verdict "$m-poller-cpu" $((pct < CPU_MAX)) \
        "poller CPU $pct % of a vCPU in 10 s (bound $CPU_MAX %), loops $loops, sleeps +$sleeps" || rc=1
    verdict "$m-poller-sleeps" $((sleeps > 0)) "poller sleeps in 10 s: +$sleeps" || rc=1
    # Each request is a one-slot call whose response goes over its own
    # position: the whole ring holds responses, taken or not.
    verdict "$m-answered" "$([ -n "$(field "$line" requests)" ] &&
        [ "$(field "$line" rsp_ready)" = "$(field "$line" requests)" ] && echo 1 || echo 0)" \
        "requests sent $(field "$line" requests), responses in the ring $(field "$line" rsp_ready), requests unanswered $(field "$line" req_waiting)" || rc=1
    # Reads too: a verify round writes, then reads back; on a slow
    # kernel (make e2e-debug) the 10 s can fall in its read phase.
    verdict "$m-honest-served" $((hw + hr > 0)) \
        "honest guest's requests served in the 10 s: $hw writes, $hr reads" || rc=1
    fipc_log "$m: requests sent $(field "$line" requests), response slots held $(field "$line" rsp_ready), oo_req +$(sd "$m-before" "$m-done" oo_req), proto_errors +$(sd "$m-before" "$m-done" proto_errors)"
    mode_end "$m" || rc=1
    return $rc
}

storm() {
    local rc=0 line sent ev irq n irqs xsp jd pi
    mode_begin storm || return 1
    amarker "@@FIPC-ATTACK storm done" 180 || return 1
    snap storm-done
    line=$(aline "@@FIPC-ATTACK storm done")
    fipc_log "$line"
    sent=$(field "$line" sent)
    [ -n "$sent" ] && [ "$sent" -gt 0 ] || { verdict storm-sent 0 "no notification count from the attacker"; return 1; }
    # The attacker's channel has the one xen-fipc-back irq that the
    # honest guest's channels did not have before the storm connected.
    irq=$(awk 'NR == FNR { old[$1] = 1; next } !($1 in old) { print $1 }' \
        "$FIPC_WORK/irqs-storm-before" "$FIPC_WORK/irqs-storm-done" | head -n 1)
    n=$(awk -v q="$irq" '$1 == q { print $2 }' "$FIPC_WORK/irqs-storm-done")
    ev=$(sd storm-before storm-done xb_events) irqs=$(sd storm-before storm-done irqs)
    xsp=$(sd storm-before storm-done xb_spurious_events)
    jd=$(sd storm-before storm-done xb_jiffies_eoi_delayed)
    pi=$(sd storm-before storm-done p_irqs)
    figure storm.sent "$sent"
    figure storm.per_s "$(field "$line" per_s)"
    figure storm.dom0_irq "${irq:-none}"
    figure storm.dom0_irq_count "${n:--1}"
    figure storm.dom0_events "$ev"
    figure storm.dom0_irqs_all_fipc "$irqs"
    figure storm.poller_irqs "$pi"
    figure storm.evtchn_spurious_events "$xsp"
    figure storm.evtchn_jiffies_eoi_delayed "$jd"
    if [ -z "$n" ]; then
        verdict storm-irqs-throttled 0 "no new xen-fipc-back irq in /proc/interrupts for the attacker's channel"
        rc=1
    else
        verdict storm-irqs-throttled $((n * 10 < sent)) \
            "dom0 irq $irq (the attacker's channel): $n interrupts for $sent notifications ($((n * 100 / sent)) %, bound 10 %); xenbus device events +$ev, poller irqs +$pi, event core: spurious +$xsp, EOI delayed $jd jiffies" || rc=1
    fi
    counter_check storm-spurious storm-before storm-done spurious_irqs || rc=1
    mode_end storm || rc=1
    return $rc
}

# timed MODE (BACKEND=dd's noreap and storm): a mode that runs for
# seconds= and reports "done"; the honest guest's I/O went on meanwhile.
timed() {
    local m=$1 rc=0 n
    mode_begin "$m" || return 1
    amarker "@@FIPC-ATTACK $m done" 600 || return 1
    fipc_log "$(aline "@@FIPC-ATTACK $m done")"
    sleep 3
    n=$(($(honest_ios) - $(cat "$FIPC_WORK/ios-$m")))
    figure "$m.honest_ios" "$n"
    verdict "$m-honest-served" "$([ "$n" -gt 0 ] && echo 1 || echo 0)" \
        "honest guest's reads and writes completed while $m ran: $n" || rc=1
    mode_end "$m" || rc=1
    return $rc
}

xsbad() {
    local rc=0
    mode_begin xsbad || return 1
    attack_xsbad_cases "/local/domain/$(be_dom)/error/backend/fipcblk/$(aid)/$VDEV/error" be_state ||
        return 1
    amarker "@@FIPC-ATTACK xsbad done" "$(pick 60 120)" || rc=1
    fipc_log "$(aline "@@FIPC-ATTACK xsbad done")"
    check_xsbad "$XSBAD_CASES" || rc=1
    mode_end xsbad || rc=1
    return $rc
}

# cycle: with dom0's backend, its memory and ring mappings checked too
# (once the mode ran to its removal).
cycle() {
    local rc=0 n
    n=$(fipc_opt ATTACK_CYCLES 50)
    checked_mode cycle "$(pick $((n * 5 + 120)) $(((n * 10 + 300) * TSCALE)))" "$n" || rc=1
    if ! in_dd && [ -f "$FIPC_WORK/snap-cycle-removed" ]; then
        leak_checks cycle || rc=1
    fi
    return $rc
}

# After a mode that made and removed many connections (snapshots
# MODE-before and MODE-removed): no xenbus ring mapping left (vmallocinfo)
# and dom0's MemFree within 8 MiB; figures MODE.vmap_delta,
# MODE.memfree_drop_kib and MODE.sunreclaim_growth_kib.
leak_checks() {
    local m=$1 rc=0 dv dm ds
    dv=$(sd "$m-before" "$m-removed" vmap)
    dm=$((($(sv "$m-before" memfree) - $(sv "$m-removed" memfree))))
    ds=$(sd "$m-before" "$m-removed" sunreclaim)
    figure "$m.vmap_delta" "$dv"
    figure "$m.memfree_drop_kib" "$dm"
    figure "$m.sunreclaim_growth_kib" "$ds"
    verdict "$m-no-ring-mapping-left" $((dv == 0)) \
        "xenbus ring mappings in dom0 (vmallocinfo): $(sv "$m-before" vmap) before, $(sv "$m-removed" vmap) after" || rc=1
    verdict "$m-memfree" $((dm < 8192)) \
        "dom0 MemFree $(sv "$m-before" memfree) kB before, $(sv "$m-removed" memfree) kB after (drop $dm kB, bound 8192); SUnreclaim +$ds kB" || rc=1
    return $rc
}

closebusy() { checked_mode closebusy "$(pick 180 600)" $((5000 * TSCALE)); }

# forge: each forged flag closes the channel; with dom0's backend the
# admin command names the attacker's fault, the honest guest's disk
# beside it healthy, and statistics/proto_errors counts every case.
forge() {
    local rc=0 line n v
    mode_begin forge || return 1
    amarker "@@FIPC-ATTACK forge done" "$(pick 300 900)" || return 1
    line=$(aline "@@FIPC-ATTACK forge done")
    fipc_log "$line"
    n=$(field "$line" cases)
    check_forge "$line" || rc=1
    if ! in_dd; then
        fipc_admin_expect hostile-closed 1 "verdict: error: the guest broke the ring protocol" \
            diagnose "attacker:$VDEV" || rc=1
        fipc_admin_expect honest-healthy 0 "verdict: connected, healthy" diagnose honest || rc=1
    fi
    mode_end forge || rc=1
    in_dd && return $rc
    v=$(sd forge-before forge-removed proto_errors)
    figure forge.proto_errors "$v"
    verdict forge-proto-errors "$([ "$v" = "$n" ] && echo 1 || echo 0)" \
        "statistics/proto_errors +$v for $n forged flags" || rc=1
    return $rc
}

# rebind: while the attacker connects, fills its ring and closes over and
# over (-o REBIND_SECONDS, 12), dom0 unbinds its backend device and binds it
# again at random moments (removal racing connect, drain and release):
# every unbind and bind succeeds, the attacker still connects between
# them, no grant is still mapped once the backend is Closed,
# no ring mapping is left, dom0 MemFree within 8 MiB, dom0 healthy (the
# mode's end checks the kernel log).
rebind() {
    local rc=0 line drv=/sys/bus/xen-backend/drivers/fipcblk dev n=0 bad=0 end secs
    dev=fipcblk-$(aid)-$VDEV
    secs=$(fipc_opt REBIND_SECONDS 12)
    mode_begin rebind || return 1
    end=$((SECONDS + secs - 2))
    while [ $SECONDS -lt $end ]; do
        sleep "0.$((RANDOM % 9 + 1))"
        echo "$dev" > "$drv/unbind" || bad=$((bad + 1))
        sleep "0.$((RANDOM % 5))"
        echo "$dev" > "$drv/bind" || bad=$((bad + 1))
        n=$((n + 1))
    done
    amarker "@@FIPC-ATTACK rebind done" 180 || rc=1
    line=$(aline "@@FIPC-ATTACK rebind done")
    fipc_log "$line; dom0: $n unbinds and binds, $bad failed"
    figure rebind.rebinds "$n"
    figure rebind.rounds "$(field "$line" rounds)"
    figure rebind.connected "$(field "$line" connected)"
    figure rebind.lost "$(field "$line" lost)"
    verdict rebind-bound $((n > 0 && bad == 0)) \
        "$n unbinds and binds of $dev, $bad failed; bound now: $([ -e "$drv/$dev" ] && echo yes || echo no)" || rc=1
    [ -e "$drv/$dev" ] || { echo "$dev" > "$drv/bind"; rc=1; }
    verdict rebind-connects "$([ "$(field "$line" connected)" -gt 0 ] 2>/dev/null && echo 1 || echo 0)" \
        "the attacker connected $(field "$line" connected) times in $(field "$line" rounds) rounds (lost $(field "$line" lost) to a removal)" || rc=1
    verdict rebind-grants-ended "$([ "$(field "$line" busy_grants)" = 0 ] && echo 1 || echo 0)" \
        "grants still mapped once the backend was Closed again: $(field "$line" busy_grants)" || rc=1
    mode_end rebind || rc=1
    leak_checks rebind || rc=1
    return $rc
}

# The per-guest grant budget (max_guest_grants) lowered to -o BUDGET (64)
# for 15 s under the honest guest's grant-path I/O (64 KiB writes take 16
# or 17 grants, 8 at once): the most grants it had mapped at once
# (statistics/guest_grants_peak, reset 1 s after the budget was lowered,
# when what was mapped before has ended) stays within the budget and is
# not 0, its channel waits (grant_waits grows) and its I/O goes on (reads
# and writes both count: fio verify alternates a write phase with a
# read-back phase, and the window may fall wholly in either).  A guest at
# its budget waits for its own completions.
budget() {
    local rc=0 id f b old max v w0 w1 r0 r1 g0 g1
    id=$(hid)
    f=$FIPC_BE_SYSFS/fipcblk-$id-$VDEV/statistics
    b=$(fipc_opt BUDGET 64)
    read -r old < /sys/module/xen_fipc_back/parameters/max_guest_grants
    read -r w0 < "$f/wr_req"
    read -r r0 < "$f/rd_req"
    read -r g0 < "$f/grant_waits"
    echo "$b" > /sys/module/xen_fipc_back/parameters/max_guest_grants
    sleep 1
    echo 0 > "$f/guest_grants_peak"
    sleep 15
    read -r max < "$f/guest_grants_peak"
    read -r v < "$f/guest_grants"
    echo "$old" > /sys/module/xen_fipc_back/parameters/max_guest_grants
    read -r w1 < "$f/wr_req"
    read -r r1 < "$f/rd_req"
    read -r g1 < "$f/grant_waits"
    figure budget.max_guest_grants "$b"
    figure budget.guest_grants_max_seen "$max"
    figure budget.grant_waits "$((g1 - g0))"
    figure budget.honest_writes "$((w1 - w0))"
    figure budget.honest_reads "$((r1 - r0))"
    verdict budget-held $((max > 0 && max <= b)) "honest guest's mapped grants at most $max at once in 15 s (statistics/guest_grants_peak; $v at the end), budget $b" || rc=1
    verdict budget-waits $((g1 > g0)) "grant_waits +$((g1 - g0)) under a budget of $b" || rc=1
    verdict budget-progress $((w1 + r1 > w0 + r0)) \
        "honest requests served meanwhile: $((w1 - w0)) writes, $((r1 - r0)) reads" || rc=1
    return $rc
}

# The attacker, holding its responses again, destroyed: its domain and
# backend go (dom0: its backend device and ring mappings too, dom0 healthy;
# a driver domain: its backend directory there), the honest guest's disk
# stays connected.
destroy() {
    local rc=0 id
    id=$(aid)
    attack_final "$(pick 300 600)" || return 1
    if ! in_dd; then
        snap final-held
        fipc_log "attacker holds its responses: inflight $(fipc_be_stat "$id" $VDEV inflight), parked $(sv final-held parked)"
    fi
    xl destroy attacker || { fipc_fail "xl destroy attacker failed"; return 1; }
    if in_dd; then
        attack_gone
        fipc_until 60 no_node "/local/domain/$(be_dom)/backend/fipcblk/$id"
        verdict destroy-backend-gone "$(no_node "/local/domain/$(be_dom)/backend/fipcblk/$id" && echo 1 || echo 0)" \
            "the attacker's backend directory in $DD after its destroy: $(no_node "/local/domain/$(be_dom)/backend/fipcblk/$id" && echo gone || echo left)" || rc=1
    else
        fipc_destroyed_wait destroy "$id" $VDEV || rc=1
        attack_gone
        echo "vmap $(vmaps)" > "$FIPC_WORK/snap-destroyed"
        verdict destroy-no-ring-mapping-left $(($(sv honest-only vmap) == $(sv destroyed vmap))) \
            "xenbus ring mappings in dom0 (vmallocinfo): $(sv honest-only vmap) before the attacker was created, $(sv destroyed vmap) after its destroy" || rc=1
        fipc_health after-destroy || rc=1
    fi
    verdict destroy-honest-connected "$(connected "$(hid)" && echo 1 || echo 0)" \
        "the honest guest's disk: back $(be_state "$(hid)"), front $(fe_state "$(hid)")" || rc=1
    return $rc
}

# The honest guest stops after its current round: every round verified;
# dom0's backend counters of its disk without an error.
honest() {
    local rc=0 id k v
    id=$(hid)
    mailbox done || rc=1
    fipc_domu_wait_marker honest '@@FIPC-HOSTILE honest finished' "$(pick 600 900)" || rc=1
    if ! in_dd; then
        fipc_be_stats_json "$id" $VDEV "$R/honest-backend.json"
        for k in proto_errors io_errors invalid_req grant_errors; do
            v=$(fipc_be_stat "$id" $VDEV $k)
            verdict "honest-$k" "$([ "$v" = 0 ] && echo 1 || echo 0)" "honest guest's backend statistics/$k: $v" || rc=1
        done
    fi
    mailbox bye || rc=1
    fipc_domu_wait honest "$(pick 300 600)" || rc=1
    honest_fio "$FIPC_RESULTS/honest" || rc=1
    return $rc
}

# dom0's backend unloads; a driver domain stops, its own checks (no
# backend device or directory left, the driver unloads, kernel log clean)
# deciding its exit status.  No domain is left, dom0's log clean.
finish() {
    local rc=0 st n
    dmesg > "$R/dmesg.txt"
    if in_dd; then
        fipc_until 60 no_node "/local/domain/$(be_dom)/backend/fipcblk/$(hid)" ||
            { fipc_fail "the honest guest's backend directory left in $DD"; rc=1; }
        fipc_dd_stop "$DD" 600
        st=$?
        # grep -c prints 0 and fails on no match: one word, or none
        # without the file (a second line would break checks.txt).
        n=$(grep -sc '^fipcblk-' "$FIPC_RESULTS/$DD/backend-devices.txt")
        verdict dd-clean "$([ $st = 0 ] && echo 1 || echo 0)" \
            "$DD ($DD_TYPE): backend devices left: ${n:-?}, exit status $(cat "$FIPC_RESULTS/$DD/guest.rc" 2>/dev/null || echo none)" || rc=1
    else
        fipc_back_unload || rc=1
    fi
    if xl list | awk 'NR > 1 { print $1 }' | grep -qv '^Domain-0$'; then
        verdict domains-gone 0 "domains left: $(xl list | awk 'NR > 2 { print $1 }' | xargs)"
        rc=1
    fi
    fipc_health final || rc=1
    checks_summary hostile
    return $rc
}

checks_begin
if ! fipc_step hostile-start "$(pick 300 1200)" start; then
    if in_dd; then
        fipc_domu_console_tail "$DD" 60
        xl destroy honest 2>/dev/null
        xl destroy "$DD" 2>/dev/null
        fipc_domu_collect "$DD"
    fi
    exit 1
fi
rc=0
fipc_step hostile-ready "$(pick 600 1200)" ready || rc=1
for m in $MODES; do
    case $BACKEND:$m in
    dom0:noreap) fipc_step "attack-$m" 300 noreap "$m" || rc=1 ;;
    dom0:cycle) fipc_step attack-cycle $(($(fipc_opt ATTACK_CYCLES 50) * 5 + 600)) cycle || rc=1 ;;
    dom0:*) fipc_step "attack-$m" 600 "$m" || rc=1 ;;
    dd:noreap|dd:storm) fipc_step "attack-$m" 900 timed "$m" || rc=1 ;;
    dd:cycle) fipc_step attack-cycle $((($(fipc_opt ATTACK_CYCLES 50) * 10 + 900) * TSCALE)) cycle || rc=1 ;;
    dd:xsbad|dd:closebusy|dd:forge) fipc_step "attack-$m" 1500 "$m" || rc=1 ;;
    *) fipc_fail "mode $m looks inside dom0's backend: -o BACKEND=dom0 only"; rc=1 ;;
    esac
done
in_dd || fipc_step grant-budget 120 budget || rc=1
fipc_step attacker-destroy "$(pick 400 900)" destroy || rc=1
fipc_step honest-finish "$(pick 700 1500)" honest || rc=1
fipc_step hostile-finish "$(pick 120 900)" finish || rc=1
exit $rc
