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
# forge (each forged flag closes the channel), and for noreap, prestamp
# and storm the honest guest's rounds go on meanwhile.  Modes that need
# dom0's view inside the backend (rebind, the grant budget; poller CPU,
# interrupts, memory) are fipc-hostile's.  Then the attacker, holding its
# responses, is destroyed: its backend directory goes.  The honest guest
# finishes: every round verified.  The driver domain stops: no backend
# device left, xen-fipc-back and fipc unload, its kernel log clean; under
# KASAN the host also judges its whole kernel log (no report, KASAN on).
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_parse_args "$@"
here=$(cd "$(dirname "$0")" && pwd)
common=$(cd "$here/../fipc-common" && pwd)
. "$common/fipc-lib.sh"
. "$common/checks.sh"
R=$FIPC_RESULTS/dom0
VDEV=51728
DD=drvdom
DD_TYPE=$(fipc_opt DD_TYPE pv)
# fa_bad_cases in tests/attack/fipc_attack.c
XSBAD_CASES=11
MODES=$(fipc_opt ATTACK_MODES "noreap prestamp storm xsbad cycle closebusy forge")
# -o ATTACK_TIME_SCALE: the attacker's waits for the backend and our time
# bounds, times this (a slow backend domain: the KASAN kernel).
TSCALE=$(fipc_opt ATTACK_TIME_SCALE 1)
export FIPC_OPT_ATTACK_MODES=$MODES FIPC_OPT_DD_NULLB=2
export here common R VDEV DD DD_TYPE XSBAD_CASES TSCALE

dd_id() { cat "$FIPC_WORK/$DD.id"; }
aid() { cat "$FIPC_WORK/attacker.id"; }
hid() { cat "$FIPC_WORK/honest.id"; }
# be_dir DOMID: the backend directory of DOMID's xvdb, in the driver domain.
be_dir() { echo "/local/domain/$(dd_id)/backend/fipcblk/$1/$VDEV"; }
be_state() { xenstore-read "$(be_dir "$1")/state" 2>/dev/null; }
fe_state() { xenstore-read "/local/domain/$1/device/fipcblk/$VDEV/state" 2>/dev/null; }
connected() { [ "$(be_state "$1")" = 4 ] && [ "$(fe_state "$1")" = 4 ]; }
initwait() { [ "$(be_state "$1")" = 2 ]; }

# amarker ERE TIMEOUT / aline ERE: the attacker's console, as in
# fipc-hostile (a guest that went away fails at once).
amarker() {
    local con=/var/log/xen/console/guest-attacker.log i=0 n=$(($2 * 5))
    while ! grep -Eq "^$1" "$con" 2>/dev/null; do
        i=$((i + 1))
        if [ $i -ge $n ] || ! xl domid attacker >/dev/null 2>&1; then
            fipc_fail "attacker: no '$1' on the console after $(($2)) s (or the guest went away)"
            fipc_domu_console_tail attacker
            return 1
        fi
        sleep 0.2
    done
}
aline() { tr -d '\r' < /var/log/xen/console/guest-attacker.log | grep -E "^$1" | tail -n 1; }
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

# go MODE: let the attacker's module, loaded with wait_go=1, start MODE.
go() {
    local fe
    fe=/local/domain/$(aid)/device/fipcblk/$VDEV
    xenstore-write "$fe/fipc-attack-go" "$1" &&
        xenstore-chmod "$fe/fipc-attack-go" "n$(aid)" r0
}

# mode_begin MODE: once the module waits, go; wait until it has started.
mode_begin() {
    amarker "@@FIPC-ATTACK-GUEST $1 loading" 300 || return 1
    amarker "@@FIPC-ATTACK $1 waiting" 300 || return 1
    honest_ios > "$FIPC_WORK/ios-$1"
    go "$1" || return 1
    amarker "@@FIPC-ATTACK $1 (start|failed)" 300 || return 1
    if [ -n "$(aline "@@FIPC-ATTACK $1 failed")" ]; then
        verdict "$1-connect" 0 "$(aline "@@FIPC-ATTACK $1 failed")"
        xenstore-ls -f "$(be_dir "$(aid)")" 2>&1 | head -n 30
        xenstore-ls -f "/local/domain/$(dd_id)/error" 2>&1 | head -n 10
        fipc_domu_console_tail "$DD" 30
        return 1
    fi
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
    local rc=0 id fe err cur="" c e i=0 line res key
    mode_begin xsbad || return 1
    id=$(aid)
    fe=/local/domain/$id/device/fipcblk/$VDEV
    err=/local/domain/$(dd_id)/error/backend/fipcblk/$id/$VDEV/error
    : > "$FIPC_WORK/xsbad.cases"
    # The attacker writes the case number and waits for our "case-N": we
    # record the case's error node (a slow backend domain may write it a
    # little after the attacker gave up: up to 30 s), remove it and answer.
    while :; do
        c=$(xenstore-read "$fe/fipc-attack-case" 2>/dev/null)
        if [ "$c" != "$cur" ]; then
            if [ -n "$cur" ]; then
                fipc_until 30 xenstore-exists "$err"
                e=$(xenstore-read "$err" 2>/dev/null)
                echo "$cur|$e" >> "$FIPC_WORK/xsbad.cases"
            fi
            xenstore-rm "$err" 2>/dev/null
            cur=$c
            [ "$c" = done ] && break
            go "case-$c"
        fi
        i=$((i + 1))
        [ $i -lt 6000 ] || { fipc_fail "xsbad: cases not done after 1200 s"; return 1; }
        sleep 0.2
    done
    amarker "@@FIPC-ATTACK xsbad done" 120 || rc=1
    for i in $(seq 0 $((XSBAD_CASES - 1))); do
        line=$(aline "@@FIPC-ATTACK xsbad case $i ")
        key=$(echo "$line" | awk '{ print $5 }')
        res=$(echo "$line" | awk '{ print $6 }')
        e=$(awk -F'|' -v c="$i" '$1 == c { print $2 }' "$FIPC_WORK/xsbad.cases")
        figure "xsbad.case$i" "${res:-none}"
        verdict "xsbad-case-$i" "$([ "$res" = refused ] && [ -n "$e" ] && echo 1)" \
            "${key:-?}: attacker saw ${res:-nothing}, error node in $DD: '$e'" || rc=1
    done
    mode_end xsbad || rc=1
    return $rc
}

cycle() {
    local rc=0 line n
    n=$(fipc_opt ATTACK_CYCLES 50)
    mode_begin cycle || return 1
    amarker "@@FIPC-ATTACK cycle done" $(((n * 10 + 300) * TSCALE)) || return 1
    line=$(aline "@@FIPC-ATTACK cycle done")
    fipc_log "$line"
    figure cycle.ms "$(field "$line" ms)"
    verdict cycle-all-connected "$([ "$(field "$line" ok)" = "$n" ] && [ "$(field "$line" failed)" = 0 ] && echo 1)" \
        "$(field "$line" ok) of $n cycles connected, $(field "$line" failed) failed, $(field "$line" ms) ms" || rc=1
    verdict cycle-grants-ended "$([ "$(field "$line" busy_grants)" = 0 ] && echo 1)" \
        "grants still mapped by the backend once it was Closed: $(field "$line" busy_grants)" || rc=1
    mode_end cycle || rc=1
    return $rc
}

closebusy() {
    local rc=0 line
    mode_begin closebusy || return 1
    amarker "@@FIPC-ATTACK closebusy done" 600 || return 1
    line=$(aline "@@FIPC-ATTACK closebusy done")
    fipc_log "$line"
    figure closebusy.closed_ms_max "$(field "$line" closed_ms_max)"
    verdict closebusy-closed "$([ "$(field "$line" failed)" = 0 ] && [ "$(field "$line" busy_grants)" = 0 ] &&
        [ "$(field "$line" closed_ms_max)" -lt $((5000 * TSCALE)) ] && echo 1)" \
        "$(field "$line" rounds) rounds, Closed after at most $(field "$line" closed_ms_max) ms (bound $((5000 * TSCALE))), $(field "$line" failed) failed, grants still mapped $(field "$line" busy_grants)" || rc=1
    mode_end closebusy || rc=1
    return $rc
}

forge() {
    local rc=0 line n c v
    mode_begin forge || return 1
    amarker "@@FIPC-ATTACK forge done" 900 || return 1
    line=$(aline "@@FIPC-ATTACK forge done")
    fipc_log "$line"
    n=$(field "$line" cases)
    verdict forge-cases "$([ "${n:-0}" -gt 0 ] && echo 1)" "forged flags sent: ${n:-none}" || rc=1
    for c in $(seq 0 $((${n:-0} - 1))); do
        v=$(aline "@@FIPC-ATTACK forge case $c ")
        figure "forge.case$c" "$(echo "$v" | awk '{ print $5, $6, $7 }')"
        verdict "forge-case-$c" "$(echo "$v" | grep -qE 'backend=(Closing|Closed) ' && echo 1)" \
            "${v:-no line for case $c}" || rc=1
    done
    verdict forge-grants-ended "$([ "$(field "$line" busy_grants)" = 0 ] && echo 1)" \
        "grants still mapped by the backend at the attacker's disconnects: $(field "$line" busy_grants)" || rc=1
    mode_end forge || rc=1
    return $rc
}

# The attacker, holding its responses again, destroyed: its backend
# directory in the driver domain must go, the honest guest's stay.
destroy() {
    local rc=0 id
    id=$(aid)
    amarker "@@FIPC-ATTACK-GUEST final waiting" 600 || { xl destroy attacker; return 1; }
    go "$(fipc_opt ATTACK_FINAL noreap)"
    amarker "@@FIPC-ATTACK-GUEST final running" 600 || { xl destroy attacker; return 1; }
    sleep 3
    xl destroy attacker || { fipc_fail "xl destroy attacker failed"; return 1; }
    mkdir -p "$FIPC_RESULTS/attacker"
    tr -d '\r' < /var/log/xen/console/guest-attacker.log > "$FIPC_RESULTS/attacker/console.log"
    [ -f "$FIPC_WORK/attacker/loop" ] && losetup -d "$(cat "$FIPC_WORK/attacker/loop")"
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

export -f dd_id aid hid be_dir be_state fe_state connected initwait amarker aline honest_ios \
    start ready go mode_begin mode_end mode_honest timed xsbad cycle closebusy forge destroy no_node \
    honest finish
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
    noreap|prestamp|storm) fipc_step "attack-$m" 900 timed "$m" || rc=1 ;;
    cycle) fipc_step attack-cycle $((($(fipc_opt ATTACK_CYCLES 50) * 10 + 900) * TSCALE)) cycle || rc=1 ;;
    xsbad|closebusy|forge) fipc_step "attack-$m" 1500 "$m" || rc=1 ;;
    *) fipc_fail "mode $m is fipc-hostile's (it looks inside dom0's backend)"; rc=1 ;;
    esac
done
fipc_step attacker-destroy 900 destroy || rc=1
fipc_step honest-finish 1500 honest || rc=1
fipc_step hostile-dd-finish 900 finish || rc=1
exit $rc
