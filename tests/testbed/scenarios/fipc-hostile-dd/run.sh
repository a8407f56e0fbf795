#!/bin/bash
# Scenario "fipc-hostile-dd" (dom0 side): a hostile guest attacks
# xen-fipc-back running in a driver domain while an honest guest verifies
# its data on the same backend (issue 12).  fipc-hostile attacks dom0's
# backend and checks it from inside (its sysfs, pollers, interrupts,
# memory); here the backend is another domain, whose kernel can be the
# KASAN kernel (-o DD_TYPE=pvh-kasan, make e2e-kasan: KASAN cannot run in
# a Xen PV domain on Linux 6.1, so that driver domain is PVH), and dom0
# sees it as a toolstack does: through xenstore and the domains' consoles.
#
#   drvdom    driver domain (-o DD_TYPE: pv, the stock kernel; or
#             pvh-kasan), 1024 MiB, xen-fipc-back over two memory-backed
#             null_blk devices, xl devd (fipc-common/guest-dd.sh)
#   honest    PV guest, xen-fipc-front, xvdb = drvdom's /dev/nullb0 on
#             memshare, rounds of fio verify the whole time
#             (guest-hostile-honest.sh; "done" reaches it through the
#             driver domain's mailbox relay)
#   attacker  PV guest, tests/attack/fipc_attack.ko instead of the
#             frontend, xvdb = drvdom's /dev/nullb1 (memshare offered),
#             each mode of -o ATTACK_MODES in turn
#             (guest-hostile-attacker.sh)
#
# Each mode must run to its end ("done" from the attacker) and the backend
# must take the attacker back (its directory in the driver domain back in
# InitWait once the attacker closed), with what the attacker itself
# measures checked as in fipc-hostile: xsbad (every bad key refused, an
# error node under the driver domain's error/ directory), cycle (every
# connect made, every grant ended at once), closebusy (Closed within 5 s),
# forge (each forged flag closes the channel), and for noreap and storm
# the honest guest's rounds go on meanwhile.  Modes that need
# dom0's view inside the backend (rebind, the grant budget; poller CPU,
# interrupts, memory) are fipc-hostile's.  Then the attacker, holding its
# responses, is destroyed: its backend directory goes.  The honest guest
# finishes: every round verified.  The driver domain stops: no backend
# device left, xen-fipc-back and fipc unload, its kernel log clean; under
# KASAN the host also judges its whole kernel log (no report, KASAN on).
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"
. "$common/attack-checks.sh"
R=$FIPC_RESULTS/dom0
VDEV=51728
DD=drvdom
DD_TYPE=$(fipc_opt DD_TYPE pv)
# fa_bad_cases in tests/attack/fipc_attack.c
XSBAD_CASES=15
MODES=$(fipc_opt ATTACK_MODES "noreap storm xsbad cycle closebusy forge")
# -o ATTACK_TIME_SCALE: the attacker's waits for the backend and our time
# bounds, times this (a slow backend domain: the KASAN kernel).
TSCALE=$(fipc_opt ATTACK_TIME_SCALE 1)
export FIPC_OPT_ATTACK_MODES=$MODES FIPC_OPT_DD_NULLB=2
# The driver domain's backend: the tests' memshare budget, so that the
# honest guest's memory fits its share (half of it; docs/admin-guide.md
# section 6).
export FIPC_OPT_BACK_PARAMS=${FIPC_OPT_BACK_PARAMS:-memshare_max_mib=1536}
export R VDEV DD DD_TYPE XSBAD_CASES TSCALE

dd_id() { cat "$FIPC_WORK/$DD.id"; }
aid() { cat "$FIPC_WORK/attacker.id"; }
hid() { cat "$FIPC_WORK/honest.id"; }
# be_dir DOMID: the backend directory of DOMID's xvdb, in the driver domain.
be_dir() { echo "/local/domain/$(dd_id)/backend/fipcblk/$1/$VDEV"; }
be_state() { xenstore-read "$(be_dir "$1")/state" 2>/dev/null; }
fe_state() { xenstore-read "/local/domain/$1/device/fipcblk/$VDEV/state" 2>/dev/null; }
connected() { [ "$(be_state "$1")" = 4 ] && [ "$(fe_state "$1")" = 4 ]; }
initwait() { [ "$(be_state "$1")" = 2 ]; }

# honest_ios: the honest guest's completed reads plus writes on xvdb, by
# its last progress line (guest-hostile-honest.sh, every 2 s).
honest_ios() {
    tr -d '\r' < /var/log/xen/console/guest-honest.log |
        sed -n 's/^@@FIPC-HOSTILE honest io reads=\([0-9]*\) writes=\([0-9]*\).*/\1 \2/p' |
        tail -n 1 | awk '{ print $1 + $2 } END { if (!NR) print 0 }'
}

start() {
    local type=pv
    mkdir -p "$R"
    fipc_dmesg_mark
    case $DD_TYPE in
    pv) ;;
    pvh-kasan) type=pvh; export FIPC_DOMU_FLAVOUR=kasan ;;
    *) fipc_fail "-o DD_TYPE is pv or pvh-kasan, not '$DD_TYPE'"; return 1 ;;
    esac
    FIPC_DOMU_MEMORY=1024 fipc_dd_start "$DD" "$here/dd-$type.cfg" || return 1
    unset FIPC_DOMU_FLAVOUR
    FIPC_DOMU_LOAD="fipc xen-fipc-front" fipc_domu_start honest "$here/domU.cfg" \
        "$common/guest-hostile-honest.sh" BACKING=/dev/nullb0 DD="$DD" || return 1
    xl domid honest > "$FIPC_WORK/honest.id"
}

ready() {
    local path
    fipc_domu_wait_marker honest '@@FIPC-HOSTILE honest running' 600 || return 1
    fipc_until 120 connected "$(hid)" ||
        { fipc_fail "honest xvdb not connected (back $(be_state "$(hid)"), front $(fe_state "$(hid)"))"; return 1; }
    path=$(xenstore-read "/local/domain/$(hid)/device/fipcblk/$VDEV/fipc-data-path" 2>/dev/null)
    verdict honest-memshare "$([ "$path" = memshare ] && echo 1)" \
        "the honest guest's disk, served by $DD ($DD_TYPE), connected on the ${path:-unknown} data path" || return 1
    FIPC_DOMU_LOAD="fipc_attack" fipc_domu_start attacker "$here/domU.cfg" \
        "$common/guest-hostile-attacker.sh" BACKING=/dev/nullb1 DD="$DD" || return 1
    xl domid attacker > "$FIPC_WORK/attacker.id"
    fipc_log "$DD is domain $(dd_id) ($DD_TYPE), honest $(hid), attacker $(aid)"
    amarker '@@FIPC-ATTACK-GUEST ready' 600
}

# mode_begin MODE: once the module waits, go; wait until it has started.
mode_begin() {
    amarker "@@FIPC-ATTACK-GUEST $1 loading" 300 || return 1
    amarker "@@FIPC-ATTACK $1 waiting" 300 || return 1
    honest_ios > "$FIPC_WORK/ios-$1"
    go "$1" || return 1
    attack_started "$1" && return 0
    xenstore-ls -f "$(be_dir "$(aid)")" 2>&1 | head -n 30
    xenstore-ls -f "/local/domain/$(dd_id)/error" 2>&1 | head -n 10
    fipc_domu_console_tail "$DD" 30
    return 1
}

# mode_end MODE: release the attacker (it closes as a correct frontend
# does); the backend must be back in InitWait.
mode_end() {
    local s
    go release || return 1
    amarker "@@FIPC-ATTACK $1 removed" 300 || return 1
    fipc_log "$(aline "@@FIPC-ATTACK $1 removed")"
    fipc_until 30 initwait "$(aid)"
    s=$(be_state "$(aid)")
    verdict "$1-backend-initwait" "$([ "$s" = 2 ] && echo 1)" \
        "backend state in $DD: ${s:-none} once the attacker closed" || return 1
    xl domid "$DD" > /dev/null 2>&1 ||
        { verdict "$1-dd-alive" 0 "the driver domain is gone"; return 1; }
}

# mode_honest MODE: the honest guest's I/O went on while MODE ran.
mode_honest() {
    local n
    sleep 3
    n=$(($(honest_ios) - $(cat "$FIPC_WORK/ios-$1")))
    figure "$1.honest_ios" "$n"
    verdict "$1-honest-served" "$([ "$n" -gt 0 ] && echo 1)" \
        "honest guest's reads and writes completed while $1 ran: $n"
}

# A mode that runs for seconds= and reports "done".
timed() {
    local m=$1 rc=0
    mode_begin "$m" || return 1
    amarker "@@FIPC-ATTACK $m done" 600 || return 1
    fipc_log "$(aline "@@FIPC-ATTACK $m done")"
    mode_honest "$m" || rc=1
    mode_end "$m" || rc=1
    return $rc
}

xsbad() {
    local rc=0
    mode_begin xsbad || return 1
    attack_xsbad_cases "/local/domain/$(dd_id)/error/backend/fipcblk/$(aid)/$VDEV/error" be_state ||
        return 1
    amarker "@@FIPC-ATTACK xsbad done" 120 || rc=1
    check_xsbad "$XSBAD_CASES" || rc=1
    mode_end xsbad || rc=1
    return $rc
}

cycle() {
    local n
    n=$(fipc_opt ATTACK_CYCLES 50)
    checked_mode cycle $(((n * 10 + 300) * TSCALE)) "$n"
}

closebusy() { checked_mode closebusy 600 $((5000 * TSCALE)); }

forge() { checked_mode forge 900; }

# The attacker, holding its responses again, destroyed: its backend
# directory in the driver domain must go, the honest guest's stay.
destroy() {
    local rc=0 id
    id=$(aid)
    attack_final 600 || return 1
    xl destroy attacker || { fipc_fail "xl destroy attacker failed"; return 1; }
    attack_gone
    fipc_until 60 no_node "/local/domain/$(dd_id)/backend/fipcblk/$id"
    verdict destroy-backend-gone "$(no_node "/local/domain/$(dd_id)/backend/fipcblk/$id" && echo 1)" \
        "the attacker's backend directory in $DD after its destroy: $(no_node "/local/domain/$(dd_id)/backend/fipcblk/$id" && echo gone || echo left)" || rc=1
    verdict destroy-honest-connected "$(connected "$(hid)" && echo 1)" \
        "the honest guest's disk: back $(be_state "$(hid)"), front $(fe_state "$(hid)")" || rc=1
    return $rc
}
no_node() { ! xenstore-exists "$1"; }

honest() {
    local rc=0
    fipc_dd_mailbox "$DD" nullb0 done || rc=1
    fipc_domu_wait_marker honest '@@FIPC-HOSTILE honest finished' 900 || rc=1
    fipc_dd_mailbox "$DD" nullb0 bye || rc=1
    fipc_domu_wait honest 600 || rc=1
    honest_fio "$FIPC_RESULTS/honest" || rc=1
    return $rc
}

# The driver domain stops: its own checks (no backend device or directory
# left, the driver unloads, kernel log clean) decide its exit status.
finish() {
    local rc=0 st
    fipc_until 60 no_node "/local/domain/$(dd_id)/backend/fipcblk/$(hid)" ||
        { fipc_fail "the honest guest's backend directory left in $DD"; rc=1; }
    fipc_dd_stop "$DD" 600
    st=$?
    verdict dd-clean "$([ $st = 0 ] && echo 1)" \
        "$DD ($DD_TYPE): backend devices left: $(grep -c '^fipcblk-' "$FIPC_RESULTS/$DD/backend-devices.txt" 2>/dev/null || echo '?'), exit status $(cat "$FIPC_RESULTS/$DD/guest.rc" 2>/dev/null || echo none)" || rc=1
    if xl list | awk 'NR > 1 { print $1 }' | grep -qv '^Domain-0$'; then
        verdict domains-gone 0 "domains left: $(xl list | awk 'NR > 2 { print $1 }' | xargs)"
        rc=1
    fi
    fipc_health final || rc=1
    checks_summary hostile-dd
    return $rc
}

checks_begin
if ! fipc_step hostile-dd-start 1200 start; then
    fipc_domu_console_tail "$DD" 60
    xl destroy honest 2>/dev/null
    xl destroy "$DD" 2>/dev/null
    fipc_domu_collect "$DD"
    exit 1
fi
rc=0
fipc_step hostile-dd-ready 1200 ready || rc=1
for m in $MODES; do
    case $m in
    noreap|storm) fipc_step "attack-$m" 900 timed "$m" || rc=1 ;;
    cycle) fipc_step attack-cycle $((($(fipc_opt ATTACK_CYCLES 50) * 10 + 900) * TSCALE)) cycle || rc=1 ;;
    xsbad|closebusy|forge) fipc_step "attack-$m" 1500 "$m" || rc=1 ;;
    *) fipc_fail "mode $m is fipc-hostile's (it looks inside dom0's backend)"; rc=1 ;;
    esac
done
fipc_step attacker-destroy 900 destroy || rc=1
fipc_step honest-finish 1500 honest || rc=1
fipc_step hostile-dd-finish 900 finish || rc=1
exit $rc
