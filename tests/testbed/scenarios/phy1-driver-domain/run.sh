#!/bin/bash
# Scenario "phy1-driver-domain" (dom0 side): a phy1: disk whose backend is
# a driver domain, set up through xl only (the patched xl of make
# dom0-overlay, tools/libxl-phy1/):
#   1. xl create of the driver domain "drvdom" (xl config driver_domain = 1)
#      from the ordinary domU image; dom0 ships it, over the exchange disk,
#      the patched xl and its libraries, xenstore-* and block-fipc, all
#      from dom0's own root (fipc_dd_pack).  It loads fipc + xen-fipc-back
#      and its image's Xen device modules, makes its own memory-backed
#      /dev/nullb0 and runs "xl devd" (fipc-common/guest-dd.sh);
#   2. xl create of the client domU1 with
#      'phy1:/dev/nullb0,xvdb,w,backend=drvdom': the backend directory is
#      under /local/domain/<drvdom>/backend/fipcblk, the driver domain's
#      xl devd runs block-fipc there (physical-device, hotplug-status);
#      the client verifies xvdb with fio (guest.sh);
#   3. -o CYCLES=N (2) x xl block-detach xvdb (the driver domain's xl devd
#      must remove the backend directory) / xl block-attach
#      'phy1:...,backend=drvdom' to the running client (-o ATTACH_PAUSE=1
#      pauses it until the driver domain's block-fipc has run); the
#      client sees the disk go and come back with its data; then verifies
#      it again and powers off;
#   4. no fipcblk node of the client may be left under the driver domain;
#      dom0 tells the driver domain to stop (data/fipc-stop), which checks
#      that no backend device is left, unloads the driver and powers off;
#   5. dom0's health: kernel log, no domain or xenstore node left.
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"
export DD=drvdom

dd_id() { cat "$FIPC_WORK/$DD.id"; }
cl_id() { cat "$FIPC_WORK/domU1.id"; }
# be_dir [VDEV]: the driver domain's backend directory of domU1's fipc disks.
be_dir() { echo "/local/domain/$(dd_id)/backend/fipcblk/$(cl_id)${1:+/$1}"; }
fe_dir() { echo "/local/domain/$(cl_id)/device/fipcblk${1:+/$1}"; }

start_dd() {
    fipc_dmesg_mark
    fipc_dd_start "$DD" "$here/dd.cfg"
}

# be_wait_connected TIMEOUT: domU1's xvdb connected on both ends, and the
# driver domain's block-fipc (run by its xl devd) wrote its nodes.
be_wait_connected() {
    local i=0 n=$(($1 * 10)) b f h
    while true; do
        b=$(xenstore-read "$(be_dir 51728)/state" 2>/dev/null)
        f=$(xenstore-read "$(fe_dir 51728)/state" 2>/dev/null)
        h=$(xenstore-read "$(be_dir 51728)/hotplug-status" 2>/dev/null)
        [ "$b" = 4 ] && [ "$f" = 4 ] && [ "$h" = connected ] && break
        i=$((i + 1))
        if [ $i -ge $n ]; then
            fipc_fail "xvdb via $DD not connected after $1 s (back ${b:-none}, front ${f:-none}, hotplug-status ${h:-none})"
            xenstore-ls -f "$(be_dir 51728)" 2>&1 | head -n 30
            return 1
        fi
        fipc_nap 0.1
    done
    xenstore-read "$(be_dir 51728)/physical-device" | grep -qE '^[0-9a-f]+:[0-9a-f]+$' ||
        { fipc_fail "no physical-device (hex major:minor) from the driver domain's block-fipc"; return 1; }
    [ "$(xenstore-read "$(be_dir 51728)/params")" = /dev/nullb0 ] ||
        { fipc_fail "backend params is not /dev/nullb0"; return 1; }
}

start_client() {
    local id
    FIPC_DOMU_LOAD="fipc xen-fipc-front" \
        fipc_domu_start domU1 "$here/domU.cfg" "$here/guest.sh" DD="$DD" || return 1
    id=$(xl domid domU1) || return 1
    echo "$id" > "$FIPC_WORK/domU1.id"
    xl block-list domU1 | tee "$FIPC_RESULTS/dom0/block-list.txt"
    grep -q "/local/domain/$(dd_id)/backend/fipcblk/$id/51728" "$FIPC_RESULTS/dom0/block-list.txt" ||
        { fipc_fail "xl block-list does not show xvdb with its backend in $DD"; return 1; }
    be_wait_connected 120 || return 1
    xenstore-ls -f "$(be_dir 51728)" > "$FIPC_RESULTS/dom0/backend-xvdb.txt"
}

# gone_wait: xvdb's backend directory (removed by the driver domain's xl
# devd) and frontend directory (removed by dom0's libxl) disappear.
gone_wait() {
    fipc_until 30 gone && return 0
    fipc_fail "$1: xvdb's backend (in $DD) or frontend directory left 30 s after xl block-detach"
    xenstore-ls -f "$(be_dir 51728)" 2>&1 | head -n 20
    return 1
}
gone() { no_node "$(be_dir 51728)" && no_node "$(fe_dir 51728)"; }
no_node() { ! xenstore-exists "$1"; }

# hp_wait WHAT TIMEOUT: the driver domain's block-fipc (run by its xl devd)
# reported hotplug-status = connected for xvdb.
hp_wait() {
    fipc_until "$2" hp_connected && return 0
    fipc_fail "$1: no hotplug-status = connected from $DD's xl devd after $2 s ($(xenstore-read "$(be_dir 51728)/hotplug-status" 2>/dev/null || echo none))"
    return 1
}
hp_connected() { [ "$(xenstore-read "$(be_dir 51728)/hotplug-status" 2>/dev/null)" = connected ]; }

cycles() {
    local n i out pause
    n=$(fipc_opt CYCLES 2)
    pause=$(fipc_opt ATTACH_PAUSE 0)
    fipc_domu_wait_marker domU1 '@@FIPC-DD client-verified' 900 || return 1
    for i in $(seq 1 "$n"); do
        out=$(xl block-detach domU1 xvdb 2>&1) ||
            { fipc_fail "cycle $i: xl block-detach failed: $out"; return 1; }
        gone_wait "cycle $i" || return 1
        xl block-list domU1 | grep -q fipcblk &&
            { fipc_fail "cycle $i: xl block-list still shows a fipc disk"; return 1; }
        fipc_domu_wait_marker domU1 "@@FIPC-DD gone $i end" 120 || return 1
        # Attach to the running client: xen-fipc-back must wait in
        # InitWait for the driver domain's block-fipc (physical-device),
        # or xl devd misses InitWait and tears the disk down (the race of
        # docs/xl-phy1.md).  ATTACH_PAUSE=1 keeps the client paused until
        # the hotplug script has run instead.
        [ "$pause" = 1 ] && xl pause domU1
        if ! out=$(xl block-attach domU1 "phy1:/dev/nullb0,xvdb,w,backend=$DD" 2>&1); then
            [ "$pause" = 1 ] && xl unpause domU1
            fipc_fail "cycle $i: xl block-attach backend=$DD failed: $out"
            return 1
        fi
        if [ "$pause" = 1 ]; then
            hp_wait "cycle $i" 60 || { xl unpause domU1; return 1; }
            xl unpause domU1 || return 1
        fi
        be_wait_connected 60 || return 1
        fipc_domu_wait_marker domU1 "@@FIPC-DD back $i end" 120 || return 1
        fipc_log "cycle $i: xl block-detach / block-attach backend=$DD: ok"
    done
}

# After the client is gone: nothing of it under the driver domain or
# anywhere else; then stop the driver domain.
check_dd() {
    local cid did
    cid=$(cl_id) did=$(dd_id)
    if ! fipc_until 30 no_node "/local/domain/$did/backend/fipcblk/$cid"; then
        fipc_fail "backend nodes of domU1 left under /local/domain/$did/backend/fipcblk 30 s after it went away"
        xenstore-ls -f "/local/domain/$did/backend/fipcblk" 2>&1 | head -n 20
        return 1
    fi
    xenstore-ls -f "/local/domain/$did/backend" > "$FIPC_RESULTS/dom0/dd-backend-after.txt" 2>&1
    if grep -q "fipcblk/" "$FIPC_RESULTS/dom0/dd-backend-after.txt"; then
        fipc_fail "fipcblk nodes left under /local/domain/$did/backend"
        return 1
    fi
    if xenstore-exists "/local/domain/$cid" || xenstore-exists "/libxl/$cid"; then
        fipc_fail "xenstore nodes of domU1 ($cid) left"
        return 1
    fi
    fipc_log "no fipcblk node of domU1 left under $DD"
}

stop_dd() { fipc_dd_stop "$DD" 300; }

check() {
    local rc=0 n want
    n=$(grep -c 'connected /dev/nullb0' "$FIPC_RESULTS/$DD/xen-hotplug.log" 2>/dev/null)
    want=$(($(fipc_opt CYCLES 2) + 1))
    [ "${n:-0}" = "$want" ] ||
        { fipc_fail "the driver domain's block-fipc connected ${n:-0} times, want $want"; rc=1; }
    if xl list | awk 'NR > 1 { print $1 }' | grep -qv '^Domain-0$'; then
        fipc_fail "domains left: $(xl list | awk 'NR > 2 { print $1 }' | xargs)"
        rc=1
    fi
    fipc_health final || rc=1
    return $rc
}

mkdir -p "$FIPC_RESULTS/dom0"
rc=0
if ! fipc_step dd-create 900 start_dd; then
    fipc_domu_console_tail "$DD" 60
    xl destroy "$DD" 2>/dev/null
    fipc_domu_collect "$DD"
    exit 1
fi
if fipc_step client-create 300 start_client; then
    fipc_step dd-cycles 900 cycles || rc=1
    fipc_step client-finish 900 fipc_domu_wait domU1 840 || rc=1
    fipc_step dd-cleanup 120 check_dd || rc=1
else
    rc=1
    xl destroy domU1 2>/dev/null
fi
fipc_step dd-shutdown 400 stop_dd || rc=1
fipc_step dd-check 120 check || rc=1
exit $rc
