#!/bin/bash
# Scenario "phy1-xl" (dom0 side): fipc disks through the toolstack only,
# with the patched xl the testbed installs in dom0 (make dom0-overlay,
# tools/libxl-phy1/).  No xenstore-write anywhere:
#   1. xl create with 'phy1:/dev/nullb0,xvdb,w': the guest verifies xvdb;
#   2. 20 x (xl block-attach phy1:/dev/nullb1,xvdc / xl block-list /
#      xl block-detach xvdc); the guest reads xvdc each time it appears;
#   3. xl's error cases (bad mode, missing and non-block target, vdev clash,
#      backend driver missing) fail with their message and leave no
#      xenstore node behind;
#   4. a last attach of xvdc with weight=512 (xl writes fipc-weight, the
#      backend's channels take it; the guest's service totals count both
#      disks and the cycles' devices) that the guest verifies, and that
#      the admin command (fipc status, fipc diagnose) shows connected and
#      healthy; then the guest powers
#      off and libxl must remove every fipcblk node and backend device;
#   5. the modules unload, dom0's health is checked.
# Between 1 and 2, xentop (libxenstat with tools/xenstat-fipcblk.patch)
# must show xvdb as a FipcBlk VBD with the backend's request counts; then
# dom0's packages are upgraded to their next versions under the running
# guest (step 2 runs the new xl on the old modules), and after 5 a
# loopback disk connects on the upgraded modules.
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"
export FIPC_DOMU_LOAD="fipc xen-fipc-front"

# be_dir ID [VDEV]: the backend directory of domain ID's fipc disks.
be_dir() { echo "/local/domain/0/backend/fipcblk/$1${2:+/$2}"; }
fe_dir() { echo "/local/domain/$1/device/fipcblk${2:+/$2}"; }

start() {
    fipc_dmesg_mark
    fipc_null_blk 1 2 || return 1
    fipc_modules_load 0 || return 1
    xl info | grep -q . || return 1
    fipc_domu_start domU1 "$here/domU.cfg" "$here/guest.sh" || return 1
    xl domid domU1 > "$FIPC_WORK/domU1.id" || return 1
    xl block-list domU1 | tee "$FIPC_RESULTS/dom0/block-list.txt"
    grep -q "backend/fipcblk/$(cat "$FIPC_WORK/domU1.id")/51728" \
        "$FIPC_RESULTS/dom0/block-list.txt" ||
        { fipc_fail "xl block-list does not show the phy1 disk xvdb"; return 1; }
}

# attach_cycle N ID: one xl block-attach / block-detach of xvdc.
attach_cycle() {
    local n=$1 id=$2 out
    out=$(xl block-attach domU1 phy1:/dev/nullb1,xvdc,w 2>&1) ||
        { fipc_fail "cycle $n: xl block-attach failed: $out"; return 1; }
    fipc_blk_wait_connected "$id" 51744 30 || return 1
    xl block-list domU1 | grep -q "fipcblk/$id/51744" ||
        { fipc_fail "cycle $n: xl block-list does not show xvdc"; return 1; }
    out=$(xl block-detach domU1 xvdc 2>&1) ||
        { fipc_fail "cycle $n: xl block-detach failed: $out"; return 1; }
    if xenstore-exists "$(be_dir "$id" 51744)" || xenstore-exists "$(fe_dir "$id" 51744)" ||
       [ -e "$FIPC_BE_SYSFS/fipcblk-$id-51744" ]; then
        fipc_fail "cycle $n: xvdc still in xenstore or sysfs after xl block-detach"
        return 1
    fi
}

cycles() {
    local id n i
    id=$(cat "$FIPC_WORK/domU1.id")
    fipc_domu_wait_marker domU1 '@@FIPC-PHY1 cycles-start' 900 || return 1
    n=$(fipc_opt CYCLES 20)
    for i in $(seq 1 "$n"); do
        attach_cycle "$i" "$id" || return 1
        # Give the guest time to see the disk go (it polls every 50 ms).
        fipc_nap 0.5
    done
    fipc_log "$n attach/detach cycles through xl: ok"
}

# expect_error WHAT PATTERN CMD...: CMD fails, says PATTERN, leaves no
# fipcblk node of domU1 for xvdc behind.
expect_error() {
    local what=$1 pat=$2 out id
    shift 2
    id=$(cat "$FIPC_WORK/domU1.id")
    if out=$("$@" 2>&1); then
        fipc_fail "$what: '$*' succeeded"
        xl block-detach domU1 xvdc >/dev/null 2>&1
        return 1
    fi
    printf "%s:\n%s\n" "$what" "$out" >> "$FIPC_RESULTS/dom0/xl-errors.txt"
    echo "$out" | grep -q -- "$pat" ||
        { fipc_fail "$what: message does not say '$pat': $(echo "$out" | tail -n 2 | tr '\n' '|')"; return 1; }
    if xenstore-exists "$(be_dir "$id" 51744)" || xenstore-exists "$(fe_dir "$id" 51744)"; then
        fipc_fail "$what: xenstore nodes left behind"
        return 1
    fi
    fipc_log "error case $what: ok"
}

# extended_vdev: xl refuses an extended vdev (xvdq) of a guest whose
# domid has two digits (fipc_xl_refuses_extended); xvdp attaches.  Paused
# PV domains without disks are made until one gets a two-digit domid.
extended_vdev() {
    local d= i cfg=$FIPC_WORK/dummy.cfg rc=0 out
    printf 'name = "dummy"\ntype = "pv"\nkernel = "%s"\nmemory = 128\nvcpus = 1\n' \
        "$FIPC_DOMU_KERNEL" > "$cfg"
    for i in $(seq 1 16); do
        out=$(xl create -p "$cfg" 2>&1) ||
            { fipc_fail "extended-vdev: xl create -p of a dummy domain failed: $(tail -n 3 <<< "$out" | tr '\n' '|')"; return 1; }
        d=$(xl domid dummy) || return 1
        [ "$d" -lt 10 ] || break
        xl destroy dummy || return 1
    done
    [ "$d" -ge 10 ] || { fipc_fail "extended-vdev: domid still $d after $i domains"; xl destroy dummy; return 1; }
    if out=$(fipc_xl_refuses_extended dummy "$d" /dev/nullb1); then
        printf "extended-vdev:\n%s\n" "$out" >> "$FIPC_RESULTS/dom0/xl-errors.txt"
        fipc_log "error case extended-vdev (domain $d): ok"
    else
        rc=1
    fi
    out=$(xl block-attach dummy phy1:/dev/nullb1,xvdp,w 2>&1) ||
        { fipc_fail "extended-vdev: xvdp (fipcblk-$d-51952) refused: $(tr '\n' '|' <<< "$out")"; rc=1; }
    xl destroy dummy || rc=1
    return $rc
}

errors() {
    local rc=0
    : > "$FIPC_RESULTS/dom0/xl-errors.txt"
    expect_error bad-mode "unknown value for access" \
        xl block-attach domU1 phy1:/dev/nullb1,xvdc,x || rc=1
    expect_error missing-target "failed to stat" \
        xl block-attach domU1 phy1:/dev/nope,xvdc,w || rc=1
    expect_error not-block "needs a block device" \
        xl block-attach domU1 phy1:/etc/hostname,xvdc,w || rc=1
    expect_error vdev-clash "clashes with an existing vbd" \
        xl block-attach domU1 phy1:/dev/nullb1,xvdz,w || rc=1
    expect_error no-driver "backend driver is not loaded" \
        env LIBXL_FIPCBLK_BACKEND_DRIVER=/sys/bus/xen-backend/drivers/none \
        xl block-attach domU1 phy1:/dev/nullb1,xvdc,w || rc=1
    expect_error queues-range "bad value for queues" \
        xl block-attach domU1 phy1:/dev/nullb1,xvdc,w,queues=0 || rc=1
    expect_error weight-range "bad value for weight" \
        xl block-attach domU1 phy1:/dev/nullb1,xvdc,w,weight=65536 || rc=1
    extended_vdev || rc=1
    return $rc
}

# dev_reqs ID: requests of every kind of domain ID's xvdb and xvdc.
dev_reqs() {
    local v k n=0
    for v in 51728 51744; do
        for k in rd_req wr_req f_req ds_req; do
            n=$((n + $(fipc_be_stat "$1" $v $k)))
        done
    done
    echo $n
}

# guest_service ID: the guest's service totals (statistics/guest_*, the
# same in each of its devices) count its two disks now and the 20 xvdc
# devices of the cycles, each gone after at least one read.
guest_service() {
    local id=$1 d=$FIPC_BE_SYSFS/fipcblk-$1 s0 s1 g gc nd n sect cur
    n=$(fipc_opt CYCLES 20)
    s0=$(dev_reqs "$id")
    g=$(cat "$d-51728/statistics/guest_requests")
    gc=$(cat "$d-51744/statistics/guest_requests")
    s1=$(dev_reqs "$id")
    nd=$(cat "$d-51744/statistics/guest_devices")
    sect=$(cat "$d-51728/statistics/guest_sectors")
    cur=$(( $(fipc_be_stat "$id" 51728 rd_sect) + $(fipc_be_stat "$id" 51728 wr_sect) ))
    fipc_log "guest service: guest_requests $g (xvdb's file) and $gc (xvdc's), its 2 disks now $s0..$s1 requests, so $((g - s1)) or more by the $n xvdc devices gone; guest_devices $nd; guest_sectors $sect"
    [ "$nd" = 2 ] && [ "$gc" -ge "$g" ] && [ "$g" -ge $((s0 + n)) ] && [ "$sect" -ge "$cur" ] ||
        { fipc_fail "guest service totals: guest_devices $nd (want 2), guest_requests $g then $gc (want >= $s0 + $n, not falling), guest_sectors $sect (want >= xvdb's $cur)"; return 1; }
}

last_attach() {
    local id out w ws
    id=$(cat "$FIPC_WORK/domU1.id")
    out=$(xl block-attach domU1 phy1:/dev/nullb1,xvdc,w,weight=512 2>&1) ||
        { fipc_fail "xl block-attach failed: $out"; return 1; }
    fipc_blk_wait_connected "$id" 51744 30 || return 1
    # weight=512: xl writes fipc-weight, the backend's channels take it.
    w=$(xenstore-read "$(be_dir "$id" 51744)/fipc-weight" 2>/dev/null)
    ws=$(cat "$FIPC_BE_SYSFS/fipcblk-$id-51744/statistics/weight")
    [ "$w" = 512 ] && [ "$ws" = 512 ] ||
        { fipc_fail "xl weight=512: fipc-weight '$w', backend statistics/weight '$ws' (want 512, 512)"; return 1; }
    fipc_log "xl weight=512: fipc-weight 512 in xenstore, the backend's channels weigh 512"
    guest_service "$id" || return 1
    admin_check "$id" || return 1
    fipc_mailbox_put /dev/nullb0 done
}

# admin_check ID: the admin command (fipc status, fipc diagnose) sees
# domain ID's two disks connected and healthy, xvdc weighing 512.
admin_check() {
    local out
    fipc_admin_expect status 0 "^domU1 \($1\) +xvdc +/dev/nullb1 +connected " status || return 1
    fipc_admin_expect diagnose-healthy 0 "verdict: connected, healthy" diagnose domU1:xvdc || return 1
    out=$(fipc status --json | python3 -c '
import json, sys
d = [x for x in json.load(sys.stdin)["disks"] if x["domid"] == int(sys.argv[1])]
ok = sorted(x["disk"] for x in d if x["state"] == "connected" and not x["problems"]) == ["xvdb", "xvdc"]
w = [x["statistics"]["weight"] for x in d if x["disk"] == "xvdc"]
print("ok" if ok and w == [512] else "bad %s" % json.dumps(d)[:600])' "$1")
    [ "$out" = ok ] || { fipc_fail "fipc status --json: $out"; return 1; }
    fipc_log "fipc status --json: xvdb and xvdc of domain $1 connected, no problem, xvdc weight 512"
}

check() {
    local id rc=0 seen n
    id=$(cat "$FIPC_WORK/domU1.id")
    n=$(fipc_opt CYCLES 20)
    seen=$(fipc_json_value "$FIPC_RESULTS/domU1/cycles.json" xvdc_seen)
    # The guest polls every 50 ms, the disk stays for seconds per cycle.
    [ "${seen:-0}" -ge "$n" ] ||
        { fipc_fail "the guest saw xvdc appear ${seen:-0} times, want $n"; rc=1; }
    # libxl removes the devices of a domain that is gone.
    fipc_blk_wait_gone "$id" || rc=1
    fipc_back_unload || rc=1
    fipc_health final || rc=1
    return $rc
}

# xentop -b -x: xvdb's line, its RD and WR between the backend's rd_req
# and wr_req read just before and just after (the guest still reads its
# mailbox on xvdb), and some writes (the guest verified xvdb).
xentop_vbd() {
    local id d rd0 wr0 rd1 wr1 out line rd wr
    id=$(cat "$FIPC_WORK/domU1.id")
    fipc_domu_wait_marker domU1 '@@FIPC-PHY1 cycles-start' 900 || return 1
    d=$FIPC_BE_SYSFS/fipcblk-$id-51728/statistics
    rd0=$(cat "$d/rd_req") wr0=$(cat "$d/wr_req")
    out=$(xentop -b -x -i 1 2>&1) || { fipc_fail "xentop -b -x failed: $out"; return 1; }
    rd1=$(cat "$d/rd_req") wr1=$(cat "$d/wr_req")
    echo "$out" > "$FIPC_RESULTS/dom0/xentop.txt"
    line=$(echo "$out" | grep -E "VBD +FipcBlk +51728 ")
    [ -n "$line" ] || { fipc_fail "xentop shows no FipcBlk VBD 51728 (xvdb): $(echo "$out" | grep VBD | tr '\n' '|')"; return 1; }
    rd=$(echo "$line" | sed -n 's/.* RD: *\([0-9]*\) .*/\1/p')
    wr=$(echo "$line" | sed -n 's/.* WR: *\([0-9]*\) .*/\1/p')
    fipc_log "xentop: $(echo "$line" | tr -s ' '); backend rd_req $rd0..$rd1, wr_req $wr0..$wr1"
    [ -n "$rd" ] && [ -n "$wr" ] && [ "$rd" -ge "$rd0" ] && [ "$rd" -le "$rd1" ] &&
        [ "$wr" -ge "$wr0" ] && [ "$wr" -le "$wr1" ] && [ "$wr" -gt 0 ] ||
        { fipc_fail "xentop: xvdb RD '$rd' WR '$wr', the backend counted rd_req $rd0..$rd1, wr_req $wr0..$wr1 (want within, and writes)"; return 1; }
}

# upgrade: the next versions of dom0's packages (fipc-modules-<kernel>
# and fipc-xen-tools <N>+next, packages-next/ from UPGRADE_PACKAGES=1)
# installed with dpkg while domU1 runs on xvdb.  The loaded modules stay
# version N and xvdb keeps serving the guest; the cycles that follow run
# the new xl against them.
upgrade() {
    local nxt=/fipc/stage/packages-next pkg n m id rd0 i
    pkg=fipc-modules-$(uname -r)
    id=$(cat "$FIPC_WORK/domU1.id")
    n=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) ||
        { fipc_fail "$pkg is not installed in dom0"; return 1; }
    for m in fipc xen_fipc_back; do
        [ "$(cat /sys/module/$m/version)" = "$n" ] ||
            { fipc_fail "the loaded $m is version $(cat /sys/module/$m/version), $pkg is $n"; return 1; }
    done
    ls "$nxt"/fipc-modules-*.deb "$nxt"/fipc-xen-tools_*.deb >/dev/null ||
        { fipc_fail "no next versions to install in $nxt"; return 1; }
    rd0=$(fipc_be_stat "$id" 51728 rd_req)
    dpkg -i "$nxt"/*.deb > "$FIPC_RESULTS/dom0/dpkg-upgrade.log" 2>&1 ||
        { fipc_fail "dpkg -i of the next versions failed: $(tail -n 3 "$FIPC_RESULTS/dom0/dpkg-upgrade.log" | tr '\n' '|')"; return 1; }
    [ "$(dpkg-query -W -f='${Version}' "$pkg")" = "$n+next" ] ||
        { fipc_fail "$pkg is $(dpkg-query -W -f='${Version}' "$pkg") after the upgrade, want $n+next"; return 1; }
    case $(dpkg-query -W -f='${Version}' fipc-xen-tools) in
    *+next) ;;
    *) fipc_fail "fipc-xen-tools was not upgraded"; return 1 ;;
    esac
    [ "$(modinfo -F version xen-fipc-back)" = "$n+next" ] ||
        { fipc_fail "modprobe would load xen-fipc-back $(modinfo -F version xen-fipc-back), want $n+next"; return 1; }
    for m in fipc xen_fipc_back; do
        [ "$(cat /sys/module/$m/version)" = "$n" ] ||
            { fipc_fail "the loaded $m changed with the package: $(cat /sys/module/$m/version)"; return 1; }
    done
    # The guest reads its mailbox on xvdb every 50 ms.
    for i in $(seq 50); do
        [ "$(fipc_be_stat "$id" 51728 rd_req)" -gt "$rd0" ] && break
        fipc_nap 0.2
    done
    [ "$(fipc_blk_state "$id" 51728 back)" = 4 ] && [ "$(fipc_be_stat "$id" 51728 rd_req)" -gt "$rd0" ] ||
        { fipc_fail "xvdb after the upgrade: state $(fipc_blk_state "$id" 51728 back), rd_req $rd0 -> $(fipc_be_stat "$id" 51728 rd_req)"; return 1; }
    echo "$n+next" > "$FIPC_WORK/next.version"
    fipc_log "upgraded $pkg and fipc-xen-tools to $n+next with domU1 running: modules $n stay loaded, xvdb Connected and serving (rd_req $rd0 -> $(fipc_be_stat "$id" 51728 rd_req))"
}

# reconnect: after every disk is gone and the old modules are unloaded
# (check), the next connection runs the upgraded modules: dom0's own
# frontend (loopback) on nullb1, 4 MiB written and read back.
reconnect() {
    local want m f=/run/fipc/upgrade.dat mm
    want=$(cat "$FIPC_WORK/next.version") || { fipc_fail "no upgrade was done"; return 1; }
    fipc_modules_load 1 || return 1
    for m in fipc xen_fipc_back xen_fipc_front; do
        [ "$(cat /sys/module/$m/version)" = "$want" ] ||
            { fipc_fail "$m loaded as $(cat /sys/module/$m/version), want the upgrade's $want"; return 1; }
    done
    fipc_blk_attach 0 51728 /dev/nullb1 w || return 1
    fipc_blk_wait_connected 0 51728 60 || return 1
    if [ ! -b /dev/xvdb ]; then
        mm=$(cat /sys/block/xvdb/dev) || { fipc_fail "no /sys/block/xvdb"; return 1; }
        mknod /dev/xvdb b "${mm%%:*}" "${mm##*:}"
    fi
    mkdir -p /run/fipc
    head -c $((4 << 20)) /dev/urandom > $f
    dd if=$f of=/dev/xvdb bs=1M oflag=direct status=none &&
        cmp -n $((4 << 20)) $f /dev/xvdb ||
        { fipc_fail "loopback disk on the upgraded modules: data does not read back"; return 1; }
    fipc_blk_detach 0 51728 || return 1
    rm -f $f /dev/xvdb
    rmmod xen-fipc-front && rmmod xen-fipc-back && rmmod fipc ||
        { fipc_fail "the upgraded modules do not unload"; return 1; }
    fipc_log "reconnect on the upgraded modules ($want): 4 MiB written and read back"
    fipc_health upgraded
}

mkdir -p "$FIPC_RESULTS/dom0"
fipc_step phy1-create 300 start || exit 1
rc=0
fipc_step phy1-xentop 960 xentop_vbd || rc=1
fipc_step phy1-upgrade 120 upgrade || rc=1
if fipc_step phy1-cycles 900 cycles && fipc_step phy1-errors 300 errors; then
    fipc_step phy1-last-attach 120 last_attach || rc=1
else
    rc=1
    fipc_mailbox_put /dev/nullb0 done
fi
fipc_step domU-finish 900 fipc_domu_wait domU1 840 || rc=1
fipc_step phy1-check 120 check || rc=1
[ -f "$FIPC_WORK/next.version" ] && { fipc_step phy1-reconnect 180 reconnect || rc=1; }
exit $rc
