#!/bin/bash
# Scenario "fipc-loopback" (dom0 only): the fipc block drivers with dom0 as
# both frontend and backend, so that everything but the guest boundary is
# checked quickly:
#   xvdb  null_blk (memory backed, 512 B blocks), read-write
#   xvdc  loop device with 4 KiB blocks on tmpfs (discard, resize)
#   xvdd  null_blk again, read-only
# Steps: fio verify on xvdb and xvdc; flush and discard counters and data;
# read-only refusal; resize; each malformed request kind (frontend test
# mode) against the backend's answers and counters; a ring protocol error
# and reconnection; poller weights (xvdc's fipc-weight 512, xvdb's set
# through sysfs, out-of-range values refused, kept across the backend
# reload); backend module reload under verified I/O; 20 detach /
# re-attach cycles; unload of all modules; dom0 health after each part.
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"
export FIPC_SZ_SMALL=$(fipc_opt SZ_SMALL 2m) FIPC_SZ_BIG=$(fipc_opt SZ_BIG 16m)
export FIPC_SZ_RELOAD=$(fipc_opt SZ_RELOAD 16m) FIPC_PERF_RUNTIME=$(fipc_opt PERF_RUNTIME 5)
export LOOPFILE=/run/fipc/loop4k.img

setup() {
    fipc_dmesg_mark
    fipc_null_blk 1 || return 1
    mkdir -p /run/fipc
    truncate -s 256M "$LOOPFILE" || return 1
    losetup --sector-size 4096 -f --show "$LOOPFILE" > /run/fipc/loop4k || return 1
    fipc_modules_load 1 || return 1
    fipc_blk_attach 0 51728 /dev/nullb0 w || return 1
    fipc_blk_attach 0 51744 "$(cat /run/fipc/loop4k)" w fipc-max-queues=1 fipc-weight=512 || return 1
    fipc_blk_attach 0 51760 /dev/nullb0 r || return 1
    fipc_blk_wait_connected 0 51728 60 && fipc_blk_wait_connected 0 51744 60 &&
        fipc_blk_wait_connected 0 51760 60 || return 1
    for d in xvdb xvdc xvdd; do
        [ -b /dev/$d ] || { udevadm settle 2>/dev/null; sleep 1; }
        [ -b /dev/$d ] || mknod_disk $d || return 1
    done
    lsblk -o NAME,MAJ:MIN,SIZE,RO,LOG-SEC,DISC-GRAN /dev/xvdb /dev/xvdc /dev/xvdd
    cat /sys/module/xen_fipc_back/parameters/poller_cpus
}

# No udev in the testbed's dom0: create the node from sysfs.
mknod_disk() {
    local mm
    mm=$(cat "/sys/block/$1/dev" 2>/dev/null) || { fipc_fail "no /sys/block/$1"; return 1; }
    mknod "/dev/$1" b "${mm%%:*}" "${mm##*:}"
}

verify() {
    local rc=0
    FIPC_DEV=/dev/xvdb FIPC_BS_MIN=512 fipc_fio verify-xvdb "$common/verify.fio" || rc=1
    FIPC_DEV=/dev/xvdc FIPC_BS_MIN=4096 fipc_fio verify-xvdc "$common/verify.fio" || rc=1
    FIPC_DEV=/dev/xvdb fipc_fio perf-fipc "$common/perf.fio" || rc=1
    FIPC_DEV=/dev/nullb0 fipc_fio perf-native "$common/perf.fio" || rc=1
    fipc_be_stats_json 0 51728 "$FIPC_RESULTS/dom0/stats-xvdb-after-verify.json"
    return $rc
}

flush_discard() {
    local f0 d0 rc=0
    f0=$(fipc_be_stat 0 51728 f_req)
    blockdev --flushbufs /dev/xvdb
    dd if=/dev/zero of=/dev/xvdb bs=4k count=1 seek=100000 oflag=direct,sync 2>/dev/null
    [ "$(fipc_be_stat 0 51728 f_req)" -gt "$f0" ] ||
        { fipc_fail "flush: f_req did not move ($f0)"; rc=1; }
    # Discard on the 4 KiB loop disk: data reads back as zeroes.
    d0=$(fipc_be_stat 0 51744 ds_req)
    dd if=/dev/urandom of=/dev/xvdc bs=1M count=4 seek=200 oflag=direct 2>/dev/null
    blkdiscard -o $((200 << 20)) -l $((4 << 20)) /dev/xvdc ||
        { fipc_fail "blkdiscard failed"; rc=1; }
    [ "$(fipc_be_stat 0 51744 ds_req)" -gt "$d0" ] ||
        { fipc_fail "discard: ds_req did not move"; rc=1; }
    dd if=/dev/xvdc of=/run/fipc/discarded bs=1M count=4 skip=200 iflag=direct 2>/dev/null
    cmp -n $((4 << 20)) /run/fipc/discarded /dev/zero ||
        { fipc_fail "discard: range does not read back as zeroes"; rc=1; }
    rm -f /run/fipc/discarded
    # Read-only disk: writes fail, reads work.
    dd if=/dev/xvdd of=/dev/null bs=4k count=16 iflag=direct 2>/dev/null ||
        { fipc_fail "read-only disk: read failed"; rc=1; }
    if dd if=/dev/zero of=/dev/xvdd bs=4k count=1 oflag=direct 2>/dev/null; then
        fipc_fail "read-only disk: write succeeded"; rc=1
    fi
    # Resize: grow the loop file, the guest disk follows.
    truncate -s 320M "$LOOPFILE" && losetup -c "$(cat /run/fipc/loop4k)"
    local i=0
    while [ "$(cat /sys/block/xvdc/size)" != $((320 << 11)) ]; do
        i=$((i + 1)); [ $i -ge 50 ] && { fipc_fail "resize: xvdc has $(cat /sys/block/xvdc/size) sectors"; rc=1; break; }
        fipc_nap 0.2
    done
    return $rc
}

hostile() {
    local rc=0 inv0 ge0 p0 inv1 ge1
    inv0=$(fipc_be_stat 0 51728 invalid_req)
    ge0=$(fipc_be_stat 0 51728 grant_errors)
    fipc_hostile fipcblk-51728 good_read=0 bad_op=-2 bad_flags=-1 zero_len=-1 \
        too_big=-1 bad_len=-1 bad_offset=-1 offset_page=-1 beyond_end=-1 \
        straddle_end=-1 overflow=-1 misaligned=0 slots_short=-1 slots_long=-1 \
        bad_gref=-1 unowned_gref=-1 ro_grant_read=-1 flush_data=-1 \
        discard_offset=-2 discard_secure=-2 || rc=1
    inv1=$(fipc_be_stat 0 51728 invalid_req)
    ge1=$(fipc_be_stat 0 51728 grant_errors)
    [ $((inv1 - inv0)) -eq 15 ] || { fipc_fail "hostile: invalid_req moved by $((inv1 - inv0)), want 15"; rc=1; }
    [ $((ge1 - ge0)) -eq 3 ] || { fipc_fail "hostile: grant_errors moved by $((ge1 - ge0)), want 3"; rc=1; }
    fipc_hostile fipcblk-51744 misaligned=-1 discard_offset=-1 discard_secure=-2 \
        straddle_end=-1 || rc=1
    fipc_hostile fipcblk-51760 write_ro=-1 good_read=0 || rc=1
    # Ring corruption: the backend shuts the channel down, the disk comes back.
    p0=$(fipc_be_stat 0 51728 proto_errors)
    fipc_hostile fipcblk-51728 proto=x >/dev/null
    sleep 2
    fipc_blk_wait_connected 0 51728 60 || rc=1
    [ "$(fipc_be_stat 0 51728 proto_errors)" -gt "$p0" ] ||
        { fipc_fail "proto: backend counted no protocol error"; rc=1; }
    dd if=/dev/xvdb of=/dev/null bs=1M count=8 iflag=direct 2>/dev/null ||
        { fipc_fail "proto: disk unusable after reconnecting"; rc=1; }
    return $rc
}

# Poller weights: the toolstack's fipc-weight (xvdc, 512) is read at
# connect, the default is 256 (xvdb); statistics/weight sets it live and
# in xenstore, and refuses 0, 65536 and words.
weights() {
    local rc=0 f=$FIPC_BE_SYSFS/fipcblk-0-51728/statistics/weight v bad=0
    v=$(fipc_be_stat 0 51744 weight)
    [ "$v" = 512 ] || { fipc_fail "weights: xvdc's weight is $v, want 512 (fipc-weight)"; rc=1; }
    dmesg | grep -q "fipcblk-0-51744: connected: .* weight 512" ||
        { fipc_fail "weights: no 'connected: ... weight 512' line for xvdc"; rc=1; }
    v=$(fipc_be_stat 0 51728 weight)
    [ "$v" = 256 ] || { fipc_fail "weights: xvdb's weight is $v, want the default 256"; rc=1; }
    echo 1024 > "$f" || { fipc_fail "weights: cannot write 1024 to $f"; rc=1; }
    for v in 0 65536 two; do
        (echo "$v" > "$f") 2>/dev/null && { fipc_fail "weights: $f took '$v'"; bad=1; }
    done
    v=$(fipc_be_stat 0 51728 weight)
    [ "$v" = 1024 ] && [ $bad = 0 ] || { fipc_fail "weights: xvdb's weight is $v after writing 1024 then bad values, want 1024"; rc=1; }
    v=$(xenstore-read /local/domain/0/backend/fipcblk/0/51728/fipc-weight 2>/dev/null)
    [ "$v" = 1024 ] || { fipc_fail "weights: xvdb's fipc-weight in xenstore is '$v', want 1024"; rc=1; }
    fipc_log "weights: xvdc 512 from fipc-weight, xvdb 256 then 1024 through sysfs (in xenstore too), 0, 65536 and 'two' refused"
    return $rc
}

# The backend reloaded under verified I/O: the frontend reconnects on a
# new duplex ring, its requests put back and sent again on it.
reload() {
    local pid rc=0 i=0 pe0
    pe0=$(dmesg | grep -c 'protocol error')
    local w0
    w0=$(fipc_be_stat 0 51728 wr_req)
    FIPC_DEV=/dev/xvdb fipc_fio reload "$here/reload.fio" &
    pid=$!
    # Unplug in the middle of the writes, not before they start.
    while [ "$(fipc_be_stat 0 51728 wr_req)" -lt $((w0 + 300)) ] && [ $i -lt 600 ]; do
        fipc_nap 0.1; i=$((i + 1))
    done
    fipc_log "unbinding the backend devices and rmmod xen-fipc-back under I/O (wr_req $(fipc_be_stat 0 51728 wr_req))"
    # Each bound xenbus device holds a module reference (as with blkback):
    # unbind them first; the new module binds them again.
    for d in /sys/bus/xen-backend/drivers/fipcblk/fipcblk-*; do
        [ -e "$d" ] && basename "$d" > /sys/bus/xen-backend/drivers/fipcblk/unbind
    done
    rmmod xen-fipc-back || { fipc_fail "rmmod xen-fipc-back failed"; rc=1; }
    sleep 1
    fipc_load_module xen-fipc-back poll_idle_us="$(fipc_opt POLL_IDLE_US 100)" || rc=1
    fipc_blk_wait_connected 0 51728 60 || rc=1
    wait $pid || { fipc_fail "verified I/O across the backend reload failed"; rc=1; }
    fipc_log "requeued by the frontend: $(cat /sys/bus/xen/devices/fipcblk-51728/statistics/requeued)"
    [ "$(dmesg | grep -c 'protocol error')" = "$pe0" ] ||
        { fipc_fail "reload: a protocol error was reported"; rc=1; }
    # The weight set through sysfs before (weights) is in xenstore.
    [ "$(fipc_be_stat 0 51728 weight)" = 1024 ] ||
        { fipc_fail "reload: xvdb's weight is $(fipc_be_stat 0 51728 weight) after the reload, want 1024 (fipc-weight)"; rc=1; }
    return $rc
}

cycles() {
    local n rc=0
    for n in $(seq 1 "$(fipc_opt CYCLES 20)"); do
        fipc_blk_detach 0 51728 || { rc=1; break; }
        i=0
        while [ -e /sys/block/xvdb ]; do
            i=$((i + 1)); [ $i -ge 100 ] && { fipc_fail "cycle $n: xvdb still there"; return 1; }
            fipc_nap 0.1
        done
        fipc_blk_attach 0 51728 /dev/nullb0 w || { rc=1; break; }
        fipc_blk_wait_connected 0 51728 30 || { rc=1; break; }
        [ -b /dev/xvdb ] || mknod_disk xvdb
        dd if=/dev/xvdb of=/dev/null bs=64k count=16 iflag=direct 2>/dev/null ||
            { fipc_fail "cycle $n: read failed"; rc=1; break; }
    done
    fipc_log "$((n)) detach/attach cycles"
    return $rc
}

teardown() {
    local rc=0 d
    fipc_be_stats_json 0 51728 "$FIPC_RESULTS/dom0/stats-xvdb-final.json"
    cat /sys/module/xen_fipc_back/parameters/poller_cpus
    cat /sys/module/xen_fipc_front/parameters/poller_cpus
    for d in 51728 51744 51760; do fipc_blk_detach 0 $d || rc=1; done
    rmmod xen-fipc-front || { fipc_fail "rmmod xen-fipc-front failed"; rc=1; }
    rmmod xen-fipc-back || { fipc_fail "rmmod xen-fipc-back failed"; rc=1; }
    rmmod fipc || { fipc_fail "rmmod fipc failed"; rc=1; }
    losetup -d "$(cat /run/fipc/loop4k)"
    fipc_health final || rc=1
    return $rc
}

mkdir -p "$FIPC_RESULTS/dom0"
fipc_step fipc-setup 180 setup || exit 1
fipc_steps fipc-verify:900:verify fipc-flush-discard:120:flush_discard \
    "health-1:30:fipc_health after-io" fipc-hostile:300:hostile \
    fipc-weights:60:weights fipc-reload:300:reload fipc-cycles:600:cycles \
    fipc-teardown:120:teardown
