#!/bin/bash
# Scenario "fipc-hostile-backend" (dom0 side): a hostile backend against
# xen-fipc-front (issue 12, finding 8: the frontend must never complete a
# request whose pages the backend still maps).
#
# dom0 loads fipc.ko and tests/attack/fipc_attack_back.ko instead of
# xen-fipc-back (mode keepmap, hold_s=-o HOLD_S (20), hold_count = the
# number of -o OPS).  The guest (xen-fipc-front, one phy1 disk xvdb; xl
# needs a block device behind it for the hotplug script, /dev/nullb0,
# which nobody reads) runs guest.sh: honest
# I/O first, then it arms the backend, which from then on answers each
# READ/WRITE OKAY at once and keeps its grants mapped for HOLD_S
# seconds.  Each O_DIRECT dd of -o OPS must fail with an I/O error, not
# before the backend let go (stuck_requests, stuck_waiting in sysfs);
# afterwards the disk reconnects and works again (the backend is honest
# once it held its hold_count requests).
#
# The storm round (issue 45, finding 7): the guest writes the storm
# block; the attacker notifies it for 3 s with nothing behind the
# notifications (at least 2000 wanted); the guest handles at most 500 a
# second of them (flagged spurious, the rest held back by Linux's late
# EOI) and its disk works after.
#
# The exposure round (finding 10): the attacker counts, on every page it
# maps, the non-zero bytes outside the request's data.  The guest writes
# 512-byte O_DIRECT blocks from fio buffers that share pages, to xvdd
# (untrusted: bounce pages) and to xvdb (trusted, the control): xvdd must
# expose nothing, xvdb shows that the count sees what is there.
#
# The duplex round (issue 45, finding 11; -o DUPLEX=0 leaves it out):
# xvde is where the guest may arm the duplex ring's attacks (the
# attacker's dx_vdevs; every disk is on protocol 3).  Each attack of -o DX_ATTACKS (NAME:OP) is armed by the guest
# and hits its next dd (tests/attack/fab_duplex.c): forged flag kinds,
# lap-ago and lap-ahead stamps, spans of 0 and past what is outstanding,
# an acknowledgment taking the waiting call's position, replies for
# requests never sent (ids, a second reply), a withheld reply (the
# attacker closes 3 s later), the storm; for a READ the attacker first
# fills its data with a pattern.  The attacker's account (results/dom0/
# dx.log): each forged reply caught (the frontend closed, in how many
# ms), none missed, a reconnect on protocol 3 after each; the guest's:
# each caught in its log, the pattern never read, the disk working
# after each.  The last attack, silent, never answers: on the guest's
# "@@FIPC-HBACK dx-silent" dom0 detaches xvde (xl block-detach) and the
# guest's read fails instead of hanging.
#
# -o GUEST_TYPE=pvh-kasan (make e2e-kasan): the guest is PVH and boots the
# KASAN kernel (fipc-testbed --kasan), so xen-fipc-front runs under KASAN;
# it needs -o LINGER=0.
#
# The linger round (front_linger.c; -o LINGER=0 leaves it out): the
# guest's second disk, xvdc, has memshare=on; the attacker
# (linger_sector = -o LINGER_SECTOR, 1000000) maps some of the guest
# pages the memshare table grants, serves honestly until it answered the
# guest's READ of that sector, closes with them still mapped and lets go
# HOLD_S later.  The guest must keep those grant references at its
# teardown and end them only after the unmap (its checks), then
# reconnect on memshare.  A second guest, domU2 (PVH, domU-pvh-linger.cfg,
# guest.sh with ROUNDS=linger), runs the same
# round at the same time on memory shared writable (issue 45, finding 5):
# its READ of the sector comes by pfn, and the attacker keeps its pages
# mapped writable, never answers it, closes, and writes them just before
# it lets go HOLD_S later.  The frontend must hold those pages (a
# reference of its own, memshare_held) until their grants end, send the
# READ again once reconnected, and let the pages go after the unmap.
#
# dom0 checks the attacker's own account ("@@FIPC-ATTACKB" lines in its
# kernel log, results/dom0/attackb.log): armed, every op answered with
# its grants mapped and unmapped only HOLD_S later, a reconnect after
# each, nothing mapped at removal; the guest's checks
# (results/domU1/checks.txt); no BUG/WARNING/Oops on the guest's console;
# the backend device gone after the guest powered off; dom0's kernel log
# clean.  Every check prints its figure (results/dom0/checks.txt,
# results/dom0/hostile-backend.json); any failed check fails the run.
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"
R=$FIPC_RESULTS/dom0
# The guest reads the same options (fipc_domu_start passes FIPC_OPT_*).
export FIPC_OPT_HOLD_S=$(fipc_opt HOLD_S 20)
export FIPC_OPT_OPS=$(fipc_opt OPS "read4k write4k read64k write64k")
export FIPC_OPT_LINGER_SECTOR=$(fipc_opt LINGER_SECTOR 1000000)
export FIPC_OPT_LINGER=$(fipc_opt LINGER 1)
GUEST_TYPE=$(fipc_opt GUEST_TYPE pv)
# The duplex round, on the PV guest's xvde (domU.cfg).
DUPLEX=$(fipc_opt DUPLEX 1)
[ "$GUEST_TYPE" = pv ] || DUPLEX=0
export FIPC_OPT_DUPLEX=$DUPLEX
export FIPC_OPT_DX_ATTACKS=$(fipc_opt DX_ATTACKS "kind:read4k kind-call:write4k lap:read4k lap-next:read64k span0:read4k span-over:read64k ack-reserved:read64k id-gen:read4k id-tag:write64k twice:read4k withhold:read4k")
NOPS=$(echo $FIPC_OPT_OPS | wc -w)
export R NOPS GUEST_TYPE DUPLEX

did() { cat "$FIPC_WORK/domU1.id"; }
did2() { cat "$FIPC_WORK/domU2.id"; }
# The PVH guest of the writable linger round (not with pvh-kasan, whose
# only guest is PVH without memshare).
pvh_linger() { [ "$FIPC_OPT_LINGER" != 0 ] && [ "$GUEST_TYPE" = pv ]; }

# attackb: the attacker's lines about our guest, from dom0's kernel log;
# attackb.log for xvdb (keepmap, "ms=0" or no ms field), linger.log for
# xvdc (memshare, "ms=1" and the ms-* events), dx.log for xvde ("dx=1",
# and the dx-* events).
attackb() {
    local dxre=' dx=1( |$)|^@@FIPC-ATTACKB dx-'
    dmesg | sed -n 's/.*\(@@FIPC-ATTACKB .*\)/\1/p' | grep " dom=$(did) " > "$R/attackb-all.log"
    grep -E "$dxre" "$R/attackb-all.log" > "$R/dx.log"
    grep -v -E ' ms=1 |^@@FIPC-ATTACKB ms-' "$R/attackb-all.log" | grep -v -E "$dxre" > "$R/attackb.log"
    grep -E ' ms=1 |^@@FIPC-ATTACKB ms-' "$R/attackb-all.log" > "$R/linger.log"
    if pvh_linger; then
        dmesg | sed -n 's/.*\(@@FIPC-ATTACKB .*\)/\1/p' | grep " dom=$(did2) " > "$R/linger-pvh.log"
    fi
}

start() {
    local cfg
    mkdir -p "$R"
    fipc_dmesg_mark
    # Only for the hotplug script of the phy1 disk: nothing reads it.
    fipc_null_blk 1 || return 1
    if [ -d /sys/module/xen_fipc_back ]; then
        fipc_fail "xen-fipc-back is loaded: it would serve the disk"
        return 1
    fi
    fipc_load_module fipc || return 1
    fipc_load_module fipc_attack_back mode=keepmap hold_s="$FIPC_OPT_HOLD_S" \
        hold_count="$NOPS" linger_sector="$FIPC_OPT_LINGER_SECTOR" \
        dx_vdevs="$([ "$DUPLEX" = 1 ] && echo 51776)" || return 1
    case $GUEST_TYPE in
    pv) cfg=$here/domU.cfg ;;
    pvh-kasan)
        [ "$FIPC_OPT_LINGER" = 0 ] ||
            { fipc_fail "-o GUEST_TYPE=pvh-kasan needs -o LINGER=0 (memshare is for PV guests)"; return 1; }
        cfg=$here/domU-pvh.cfg
        export FIPC_DOMU_FLAVOUR=kasan FIPC_DOMU_MEMORY=1024
        ;;
    *) fipc_fail "-o GUEST_TYPE is pv or pvh-kasan, not '$GUEST_TYPE'"; return 1 ;;
    esac
    FIPC_DOMU_LOAD="fipc xen-fipc-front" fipc_domu_start domU1 "$cfg" \
        "$here/guest.sh" || return 1
    xl domid domU1 > "$FIPC_WORK/domU1.id"
    fipc_log "guest is domain $(did); hold_s $FIPC_OPT_HOLD_S, ops: $FIPC_OPT_OPS"
    if pvh_linger; then
        FIPC_OPT_ROUNDS=linger FIPC_DOMU_LOAD="fipc xen-fipc-front" \
            fipc_domu_start domU2 "$here/domU-pvh-linger.cfg" \
            "$here/guest.sh" || return 1
        xl domid domU2 > "$FIPC_WORK/domU2.id"
        fipc_log "PVH guest (linger round, memory shared writable) is domain $(did2)"
    fi
}

# The guest runs its checks and powers off; libxl removes the disk.
guest() {
    local rc=0
    fipc_domu_wait_marker domU1 '@@FIPC-HBACK armed' 600 || rc=1
    if [ "$DUPLEX" = 1 ]; then
        # The silent attack: the guest's read waits for an answer that
        # never comes; the toolstack takes the disk away.
        if fipc_domu_wait_marker domU1 '@@FIPC-HBACK dx-silent' 600; then
            fipc_log "xl block-detach domU1 xvde (the silent attack)"
            xl block-detach domU1 xvde || { fipc_fail "xl block-detach domU1 xvde failed"; rc=1; }
        else
            rc=1
        fi
    fi
    fipc_domu_wait domU1 $((700 + (NOPS + 1) * (FIPC_OPT_HOLD_S + 60))) || rc=1
    fipc_blk_wait_gone "$(did)" || rc=1
    if pvh_linger; then
        fipc_domu_wait domU2 $((600 + FIPC_OPT_HOLD_S + 60)) || rc=1
        fipc_blk_wait_gone "$(did2)" || rc=1
    fi
    return $rc
}

check() {
    local rc=0 line n u c min ms name text v kc
    attackb
    cat "$R/attackb.log"
    n=$(grep -c '^@@FIPC-ATTACKB answered ' "$R/attackb.log")
    u=$(grep -c '^@@FIPC-ATTACKB unmapped ' "$R/attackb.log")
    c=$(grep -c '^@@FIPC-ATTACKB connected ' "$R/attackb.log")
    min=-1
    for ms in $(sed -n 's/^@@FIPC-ATTACKB unmapped .* held_ms=\([0-9]*\).*/\1/p' "$R/attackb.log"); do
        [ "$min" = -1 ] || [ "$ms" -lt "$min" ] && min=$ms
    done
    figure answered_mapped "$n"
    figure unmapped "$u"
    figure held_ms_min "$min"
    figure connects "$c"
    verdict backend-armed "$(grep -q '^@@FIPC-ATTACKB armed ' "$R/attackb.log" && echo 1)" \
        "$(grep '^@@FIPC-ATTACKB armed ' "$R/attackb.log" | head -n 1)" || rc=1
    verdict backend-answered-mapped "$([ "$n" = "$NOPS" ] && echo 1)" \
        "$n requests answered OKAY with their grants mapped, for $NOPS ops" || rc=1
    verdict backend-held "$([ "$u" = "$n" ] && [ "$min" -ge $((FIPC_OPT_HOLD_S * 1000)) ] && echo 1)" \
        "$u unmapped, each at least $min ms after its answer (hold $FIPC_OPT_HOLD_S s)" || rc=1
    verdict frontend-reconnected "$([ "$c" -gt "$NOPS" ] && echo 1)" \
        "the frontend connected $c times (once, then after each of $NOPS disconnects)" || rc=1
    line=$(grep '^@@FIPC-ATTACKB removed .* vdev=51728 ' "$R/attackb.log" | tail -n 1)
    verdict backend-removed-clean "$([ -n "$line" ] && [ "$(field "$line" held_left)" = 0 ] &&
        [ "$(field "$line" unmapped_early)" = 0 ] && [ "$(field "$line" map_errors)" = 0 ] &&
        [ "$(field "$line" refused)" = 0 ] && echo 1)" \
        "at removal: held_left $(field "$line" held_left), unmapped_early $(field "$line" unmapped_early), map_errors $(field "$line" map_errors), refused $(field "$line" refused), honest $(field "$line" honest), grants_max $(field "$line" grants_max)" || rc=1
    # The exposure round: xvdd (untrusted) against xvdb (trusted).
    line=$(grep '^@@FIPC-ATTACKB removed .* vdev=51760 ' "$R/attackb.log" | tail -n 1)
    figure untrusted_checked_pages "$(field "$line" checked_pages)"
    figure untrusted_exposed_bytes "$(field "$line" exposed_bytes)"
    verdict expose-untrusted-none "$([ -n "$line" ] && [ "$(field "$line" checked_pages)" -gt 0 ] &&
        [ "$(field "$line" exposed_pages)" = 0 ] && echo 1)" \
        "xvdd (untrusted): $(field "$line" exposed_pages) of $(field "$line" checked_pages) mapped pages showed guest bytes beyond the I/O ($(field "$line" exposed_bytes) bytes)" || rc=1
    line=$(grep '^@@FIPC-ATTACKB removed .* vdev=51728 ' "$R/attackb.log" | tail -n 1)
    figure trusted_exposed_pages "$(field "$line" exposed_pages)"
    figure trusted_exposed_bytes "$(field "$line" exposed_bytes)"
    verdict expose-trusted-control "$([ -n "$line" ] && [ "$(field "$line" exposed_pages)" -gt 0 ] && echo 1)" \
        "xvdb (trusted, control): $(field "$line" exposed_pages) of $(field "$line" checked_pages) mapped pages showed guest bytes beyond the I/O ($(field "$line" exposed_bytes) bytes)" || rc=1
    # The storm round (finding 7): the attacker's side.
    line=$(grep '^@@FIPC-ATTACKB storm ' "$R/attackb.log" | head -n 1)
    figure storm_sent "$(field "$line" sent)"
    verdict storm-sent "$([ -n "$line" ] && [ "$(field "$line" sent)" -ge 2000 ] && echo 1)" \
        "the attacker sent $(field "$line" sent) notifications in $(field "$line" ms) ms with nothing behind them (at least 2000 wanted, for the guest's bound to mean something)" || rc=1
    [ "$DUPLEX" = 0 ] || dx_checks "$R/dx.log" || rc=1
    [ "$FIPC_OPT_LINGER" = 0 ] || linger_checks "$R/linger.log" linger || rc=1
    pvh_linger && { linger_checks "$R/linger-pvh.log" pvh-linger || rc=1; }
    guest_checks domU1 guest || rc=1
    pvh_linger && { guest_checks domU2 pvh-guest || rc=1; }
    return $rc
}

# guest_checks DOMU PREFIX: the guest's own checks, each with its figure,
# and its console clean.
guest_checks() {
    local rc=0 v name text kc
    if [ ! -s "$FIPC_RESULTS/$1/checks.txt" ]; then
        verdict "$2-checks" 0 "no checks.txt from $1"
        rc=1
    fi
    while read -r v name text; do
        verdict "$2-${name%:}" "$([ "$v" = pass ] && echo 1)" "$text" || rc=1
    done < "$FIPC_RESULTS/$1/checks.txt"
    fipc_domu_kernel_clean "$1" "$1 console"
    kc=$?
    verdict "$2-console-clean" "$([ $kc = 0 ] && echo 1)" "no BUG/WARNING/Oops on $1's console" || rc=1
    return $rc
}

# dx_checks LOG: the duplex round, the attacker's side.  Each attack's
# outcome is the next dx-caught, dx-uncaught, dx-withheld or
# dx-silent-end line after its dx-attack line.
dx_checks() {
    local rc=0 log=$1 line kind op pos slots held flag leak ev ms online fe out n=0 nc c want v
    line=$(grep '^@@FIPC-ATTACKB bound .*/51776 ' "$log" | head -n 1)
    verdict dx-offered "$([ "$(field "$line" dx)" = 1 ] && echo 1)" \
        "xvde bound with the duplex ring's attacks (dx=$(field "$line" dx))" || rc=1
    # One line per attack: kind op pos slots held flag leak, then its
    # outcome: event ms online frontend ("-" where none).
    awk '
        function f(k,   i) { for (i = 3; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "-" }
        $2 == "dx-attack" { if (a != "") print a, "none - - -"; a = f("kind") " " f("op") " " f("pos") " " f("slots") " " f("held") " " f("flag") " " f("leak_pages") }
        $2 ~ /^dx-(caught|uncaught|withheld|silent-end)$/ && a != "" { print a, $2, f("ms"), f("online"), f("frontend"); a = "" }
        END { if (a != "") print a, "none - - -" }' "$log" > "$R/dx-outcomes.txt"
    while read -r kind op pos slots held flag leak ev ms online fe; do
        n=$((n + 1))
        figure "dx_${kind//-/_}_ms" "$ms"
        case $kind:$ev in
        withhold:dx-withheld) v=1 out="no reply; the attacker closed after $ms ms" ;;
        silent:dx-silent-end) v=$([ "$online" = 0 ] && echo 1)
            out="no reply; the toolstack took the disk away after $ms ms (online $online)" ;;
        withhold:*|silent:*) v=0 out="$ev after $ms ms" ;;
        lap*:dx-caught) v=$([ "$pos" -ge 64 ] && echo 1)
            out="the frontend closed $ms ms after the forged reply (it is $fe), at position $pos (64 wanted at least: the ring's second lap)" ;;
        *:dx-caught) v=1 out="the frontend closed $ms ms after the forged reply (it is $fe)" ;;
        *) v=0 out="$ev: the frontend did not close (after $ms ms)" ;;
        esac
        verdict "dx-$kind-attacker" "$v" "$op, $slots slot(s), $held held, flag $flag, $leak page(s) of pattern: $out" || rc=1
    done < "$R/dx-outcomes.txt"
    want=$(($(echo $FIPC_OPT_DX_ATTACKS | wc -w) + 1))
    nc=$(grep -c '^@@FIPC-ATTACKB dx-caught ' "$log")
    c=$(grep -c '^@@FIPC-ATTACKB connected .* dx=1' "$log")
    figure dx_attacks "$n"
    figure dx_connects "$c"
    verdict dx-attacks "$([ "$n" = "$want" ] && echo 1)" "$n attacks made, $want wanted" || rc=1
    verdict dx-reconnected "$([ "$c" -ge "$nc" ] && [ "$c" -gt 1 ] && echo 1)" \
        "the frontend connected on protocol 3 $c times ($nc closes after an attack)" || rc=1
    line=$(grep '^@@FIPC-ATTACKB storm .* dx=1' "$log" | head -n 1)
    figure dx_storm_sent "$(field "$line" sent)"
    verdict dx-storm-sent "$([ -n "$line" ] && [ "$(field "$line" sent)" -ge 2000 ] && echo 1)" \
        "the attacker sent $(field "$line" sent) notifications in $(field "$line" ms) ms on the duplex ring" || rc=1
    line=$(grep '^@@FIPC-ATTACKB removed .* vdev=51776 ' "$log" | tail -n 1)
    figure dx_leak_pages "$(field "$line" dx_leak_pages)"
    verdict dx-removed-clean "$([ -n "$line" ] && [ "$(field "$line" held_left)" = 0 ] &&
        [ "$(field "$line" map_errors)" = 0 ] && [ "$(field "$line" refused)" = 0 ] &&
        [ "$(field "$line" dx_uncaught)" = 0 ] && [ "$(field "$line" dx_attacks)" = "$want" ] &&
        [ "$(field "$line" dx_leak_pages)" -gt 0 ] && echo 1)" \
        "xvde at removal: dx_attacks $(field "$line" dx_attacks), dx_caught $(field "$line" dx_caught), dx_uncaught $(field "$line" dx_uncaught), pattern pages $(field "$line" dx_leak_pages), held_left $(field "$line" held_left), map_errors $(field "$line" map_errors), refused $(field "$line" refused), honest $(field "$line" honest)" || rc=1
    return $rc
}

# linger_checks LOG NAME: a linger round, the attacker's side (NAME
# pvh-linger: the PVH guest's, on memory shared writable).
linger_checks() {
    local rc=0 line c log=$1 n=$2 w=0
    [ "$n" = pvh-linger ] && w=1
    line=$(grep '^@@FIPC-ATTACKB ms-mapped ' "$log" | head -n 1)
    figure "${n}_mapped" "$(field "$line" refs)"
    verdict "$n-mapped" "$([ -n "$line" ] && [ "$(field "$line" err)" = 0 ] &&
        [ "$(field "$line" refs)" -gt 0 ] && [ "$(field "$line" writable)" = $w ] && echo 1)" \
        "xvdc connected on memshare (writable $(field "$line" writable), want $w); the attacker mapped $(field "$line" refs) of its table's pages (err $(field "$line" err))" || rc=1
    if [ $w = 1 ]; then
        line=$(grep '^@@FIPC-ATTACKB ms-read-kept ' "$log" | head -n 1)
        figure "${n}_read_refs" "$(field "$line" refs)"
        verdict "$n-read-kept" "$([ -n "$line" ] && [ "$(field "$line" refs)" -gt 0 ] && echo 1)" \
            "the guest's READ of sector $(field "$line" sector) came by pfn; the attacker mapped its $(field "$line" refs) page(s) writable and never answered it" || rc=1
    fi
    line=$(grep '^@@FIPC-ATTACKB closed ' "$log" | head -n 1)
    verdict "$n-closed-mapped" "$([ -n "$line" ] && [ "$(field "$line" ms_mapped)" -gt 0 ] &&
        { [ $w = 0 ] || [ "$(field "$line" ms_read_mapped)" -gt 0 ]; } && echo 1)" \
        "it wrote Closed with $(field "$line" ms_mapped) of them still mapped, and $(field "$line" ms_read_mapped) page(s) of the unanswered READ" || rc=1
    line=$(grep '^@@FIPC-ATTACKB ms-unmapped ' "$log" | head -n 1)
    figure "${n}_held_ms" "$(field "$line" held_ms)"
    verdict "$n-unmapped-late" "$([ -n "$line" ] && [ "$(field "$line" early)" = 0 ] &&
        [ "$(field "$line" held_ms)" -ge $((FIPC_OPT_HOLD_S * 1000)) ] &&
        [ "$(field "$line" late_write)" = $w ] && echo 1)" \
        "let go $(field "$line" held_ms) ms after closing (hold $FIPC_OPT_HOLD_S s), early $(field "$line" early), having written the READ's pages first: $(field "$line" late_write) (want $w)" || rc=1
    c=$(grep -c '^@@FIPC-ATTACKB connected .* path=memshare ' "$log")
    verdict "$n-reconnected" "$([ "$c" -ge 2 ] && echo 1)" \
        "xvdc connected on memshare $c times" || rc=1
    return $rc
}

finish() {
    local rc=0
    dmesg > "$R/dmesg.txt"
    rmmod fipc_attack_back || { fipc_fail "rmmod fipc_attack_back failed"; rc=1; }
    rmmod fipc || rc=1
    fipc_health final || rc=1
    checks_summary hostile-backend
    return $rc
}

checks_begin
fipc_step hbackend-start 180 start || exit 1
rc=0
fipc_step hbackend-guest $((800 + (NOPS + 1) * (FIPC_OPT_HOLD_S + 60))) guest || rc=1
fipc_step hbackend-check 60 check || rc=1
fipc_step hbackend-finish 120 finish || rc=1
exit $rc
