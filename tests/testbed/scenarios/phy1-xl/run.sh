#!/bin/bash
# Scenario "phy1-xl" (dom0 side): fipc disks through the toolstack only,
# with the patched xl the testbed installs in dom0 (make dom0-overlay,
# tools/libxl-phy1.patch).  No xenstore-write anywhere:
#   1. xl create with 'phy1:/dev/nullb0,xvdb,w': the guest verifies xvdb;
#   2. 20 x (xl block-attach phy1:/dev/nullb1,xvdc / xl block-list /
#      xl block-detach xvdc); the guest reads xvdc each time it appears;
#   3. xl's error cases (bad mode, missing and non-block target, vdev clash,
#      backend driver missing) fail with their message and leave no
#      xenstore node behind;
#   4. a last attach of xvdc that the guest verifies, then the guest powers
#      off and libxl must remove every fipcblk node and backend device;
#   5. the modules unload, dom0's health is checked.
# Between 1 and 2, xentop (libxenstat with tools/xenstat-fipcblk.patch)
# must show xvdb as a FipcBlk VBD with the backend's request counts.
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_parse_args "$@"
here=$(cd "$(dirname "$0")" && pwd)
common=$(cd "$here/../fipc-common" && pwd)
. "$common/fipc-lib.sh"
export here common
export FIPC_DOMU_LOAD="fipc xen-fipc-front"

# be_dir ID [VDEV]: the backend directory of domain ID's fipc disks.
be_dir() { echo "/local/domain/0/backend/fipcblk/$1${2:+/$2}"; }
fe_dir() { echo "/local/domain/$1/device/fipcblk${2:+/$2}"; }

start() {
    fipc_dmesg_mark
    fipc_null_blk 1 2 || return 1
    fipc_modules_load 0 || return 1
    xl info | grep -q . || return 1
    fipc_domu_start domU1 "$here/domU.cfg" "$common/guest-phy1.sh" || return 1
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
        sleep 0.5
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
    return $rc
}

last_attach() {
    local id out
    id=$(cat "$FIPC_WORK/domU1.id")
    out=$(xl block-attach domU1 phy1:/dev/nullb1,xvdc,w 2>&1) ||
        { fipc_fail "xl block-attach failed: $out"; return 1; }
    fipc_blk_wait_connected "$id" 51744 30 || return 1
    fipc_mailbox_put /dev/nullb0 done
}

check() {
    local id rc=0 seen n
    id=$(cat "$FIPC_WORK/domU1.id")
    n=$(fipc_opt CYCLES 20)
    seen=$(sed -n 's/.*"xvdc_seen": \([0-9]*\).*/\1/p' "$FIPC_RESULTS/domU1/cycles.json" 2>/dev/null)
    # The guest polls every 50 ms, the disk stays for seconds per cycle.
    [ "${seen:-0}" -ge "$n" ] ||
        { fipc_fail "the guest saw xvdc appear ${seen:-0} times, want $n"; rc=1; }
    # libxl removes the devices of a domain that is gone.
    fipc_blk_wait_gone "$id" || rc=1
    rmmod xen-fipc-back || { fipc_fail "rmmod xen-fipc-back failed"; rc=1; }
    rmmod fipc || rc=1
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

export -f be_dir fe_dir start attach_cycle cycles expect_error errors last_attach check xentop_vbd
mkdir -p "$FIPC_RESULTS/dom0"
fipc_step phy1-create 300 start || exit 1
rc=0
fipc_step phy1-xentop 960 xentop_vbd || rc=1
if fipc_step phy1-cycles 900 cycles && fipc_step phy1-errors 300 errors; then
    fipc_step phy1-last-attach 120 last_attach || rc=1
else
    rc=1
    fipc_mailbox_put /dev/nullb0 done
fi
fipc_step domU-finish 900 fipc_domu_wait domU1 840 || rc=1
fipc_step phy1-check 120 check || rc=1
exit $rc
