# shellcheck shell=bash
# The testbed library, dom0 side: the fipc drivers' part (modules, disks,
# counters, driver domains).  Sourced by lib/fipc-scenario.sh, the one
# library every scenario's run.sh sources.  Disks can be made here with
# xenstore-write, with the keys and permissions libxl writes
# (xen/include/public/io/fipcblk.h, docs/drivers.md).

export FIPC_BE_SYSFS=/sys/bus/xen-backend/devices

# fipc_modules_load [FRONT]: load fipc.ko and the backend (and the frontend
# if FRONT=1, for dom0 loopback disks) from --modules.  Poller parameters
# come from scenario options (-o POLL_IDLE_US=..., -o POLLERS=...).  The
# memshare budget is the tests' (memshare_max_mib=1536, docs/admin-guide.md
# section 6), so that a 512 MiB guest fits its share (half of it).
fipc_modules_load() {
    local idle pollers fifo
    idle=$(fipc_opt POLL_IDLE_US 100)
    pollers=$(fipc_opt POLLERS 1)
    fifo=$(fipc_opt POLL_FIFO N)
    local fcpus= bcpus=
    # Both sides in one domain: keep the two FIFO pollers off each
    # other's CPU (same priority, they would not preempt each other),
    # placed by poller_cpus at load (the frontend's default would be the
    # highest CPU, as the backend's).
    if [ "${1:-0}" = 1 ] && [ "$(nproc)" -gt 1 ]; then
        fcpus="poller_cpus=0" bcpus="poller_cpus=$(($(nproc) - 1))"
    fi
    fipc_load_module fipc || return 1
    fipc_load_module xen-fipc-back poll_idle_us="$idle" pollers="$pollers" poll_fifo="$fifo" \
        memshare_max_mib=1536 $bcpus || return 1
    if [ "${1:-0}" = 1 ]; then
        # shellcheck disable=SC2086 # FIPC_FRONT_PARAMS: more parameters
        fipc_load_module xen-fipc-front poll_idle_us="$idle" pollers="$pollers" poll_fifo="$fifo" $fcpus ${FIPC_FRONT_PARAMS:-} || return 1
        if [ -n "$fcpus" ] &&
           ! grep -q '^poller 0 cpu 0 ' /sys/module/xen_fipc_front/parameters/poller_cpus; then
            fipc_fail "xen-fipc-front loaded with $fcpus: $(head -n 1 /sys/module/xen_fipc_front/parameters/poller_cpus)"
            return 1
        fi
    fi
}

# fipc_blk_attach FRONT_DOMID VDEV DEVICE MODE [KEY=VALUE...]
#   Create a fipcblk disk: backend in dom0 serving DEVICE, frontend in
#   FRONT_DOMID as virtual-device VDEV (51728 = xvdb).  MODE is w or r.
#   Extra KEY=VALUE pairs go to the backend directory (fipc-max-queues...).
#   physical-device is written as the hotplug script would.
fipc_blk_attach() {
    local fd=$1 vdev=$2 dev=$3 mode=$4 be fe mm kv
    shift 4
    be=/local/domain/0/backend/fipcblk/$fd/$vdev
    fe=/local/domain/$fd/device/fipcblk/$vdev
    mm=$(stat -L -c '%t:%T' "$dev") || { fipc_fail "cannot stat $dev"; return 1; }
    xenstore-rm "$be" 2>/dev/null
    xenstore-rm "$fe" 2>/dev/null
    xenstore-write "$be/frontend" "$fe" "$be/frontend-id" "$fd" \
        "$be/online" 1 "$be/removable" 0 "$be/bootable" 1 "$be/dev" "$vdev" \
        "$be/type" phy "$be/mode" "$mode" "$be/params" "$dev" \
        "$be/device-type" disk "$be/fipc-memshare-allowed" 0 || return 1
    for kv in "$@"; do
        xenstore-write "$be/${kv%%=*}" "${kv#*=}" || return 1
    done
    xenstore-write "$fe/backend" "$be" "$fe/backend-id" 0 \
        "$fe/virtual-device" "$vdev" "$fe/device-type" disk \
        "$fe/fipc-memshare" 0 || return 1
    # libxl's permissions: backend owned by dom0, readable by the guest;
    # frontend owned by the guest, readable by dom0.
    xenstore-chmod -r "/local/domain/0/backend/fipcblk/$fd" n0 "r$fd"
    xenstore-chmod "/local/domain/$fd/device/fipcblk" "n$fd" r0
    xenstore-chmod -r "$fe" "n$fd" r0
    # State last: the xenbus buses probe a device when it is Initialising.
    xenstore-write "$be/state" 1 "$fe/state" 1 || return 1
    xenstore-write "$be/physical-device" "$mm" "$be/hotplug-status" connected
}

# fipc_blk_state FRONT_DOMID VDEV back|front: the xenbus state (number).
fipc_blk_state() {
    if [ "$3" = back ]; then
        xenstore-read "/local/domain/0/backend/fipcblk/$1/$2/state" 2>/dev/null
    else
        xenstore-read "/local/domain/$1/device/fipcblk/$2/state" 2>/dev/null
    fi
}

# fipc_blk_wait_connected FRONT_DOMID VDEV TIMEOUT: both ends Connected.
fipc_blk_wait_connected() {
    local i=0 n=$(($3 * 10))
    while [ "$(fipc_blk_state "$1" "$2" back)" != 4 ] ||
          [ "$(fipc_blk_state "$1" "$2" front)" != 4 ]; do
        i=$((i + 1))
        if [ $i -ge $n ]; then
            fipc_fail "fipcblk $1/$2 not connected after $3 s (back $(fipc_blk_state "$1" "$2" back), front $(fipc_blk_state "$1" "$2" front))"
            xenstore-ls -f "/local/domain/0/backend/fipcblk/$1/$2" 2>&1 | grep -E 'error|state' | head
            return 1
        fi
        fipc_nap 0.1
    done
}

# fipc_blk_detach FRONT_DOMID VDEV: as libxl does: online=0, Closing, wait
# for the backend to be Closed (10 s), then remove both directories.
fipc_blk_detach() {
    local fd=$1 vdev=$2 be fe i=0 s
    be=/local/domain/0/backend/fipcblk/$fd/$vdev
    fe=/local/domain/$fd/device/fipcblk/$vdev
    xenstore-write "$be/online" 0 "$be/state" 5
    while s=$(xenstore-read "$be/state" 2>/dev/null) && [ "$s" != 6 ]; do
        i=$((i + 1))
        if [ $i -ge 100 ]; then
            fipc_fail "fipcblk $fd/$vdev: backend not Closed 10 s after detach (state $s)"
            break
        fi
        fipc_nap 0.1
    done
    xenstore-rm "$fe" 2>/dev/null
    xenstore-rm "$be" 2>/dev/null
    [ "$s" = 6 ] || [ -z "$s" ]
}

# fipc_file_is FILE VALUE: FILE's first line is VALUE (read again at each
# call, so that fipc_until can wait for it).
fipc_file_is() {
    local v
    read -r v 2>/dev/null < "$1" && [ "$v" = "$2" ]
}

# fipc_be_stat FRONT_DOMID VDEV NAME: a backend statistics counter.
# Read by the shell (polling loops call it often; see fipc_log).
fipc_be_stat() {
    local v
    if read -r v 2>/dev/null < "$FIPC_BE_SYSFS/fipcblk-$1-$2/statistics/$3"; then
        echo "$v"
        return 0
    fi
    fipc_be_dbg "$1" "$2" |
        awk -v k="$3" '$1 == k { v = $2 } END { print (v == "" ? -1 : v) }'
}

# fipc_be_dbg FRONT_DOMID VDEV: the backend's developer counters, "name
# value" lines (debugfs, mounted here if it is not).
fipc_be_dbg() {
    mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null
    cat "/sys/kernel/debug/xen-fipc-back/fipcblk-$1-$2/counters" 2>/dev/null
}

# fipc_be_stats_json FRONT_DOMID VDEV FILE: all backend counters as JSON.
fipc_be_stats_json() {
    local d="$FIPC_BE_SYSFS/fipcblk-$1-$2" f
    {
        fipc_counters_json "$d/statistics" \
            "/sys/kernel/debug/xen-fipc-back/fipcblk-$1-$2"
        # The event core's view of the backend's port (lateeoi): events
        # flagged spurious and the jiffies their EOI was held back.
        for f in events spurious_events jiffies_eoi_delayed; do
            [ -f "$d/$f" ] || continue
            printf ', "xenbus_%s": %s' "$f" "$(cat "$d/$f")"
        done
        printf '}\n'
    } > "$3"
}

# fipc_dmesg_mark: remember where the kernel log is now.
fipc_dmesg_mark() { dmesg | wc -l > "$FIPC_WORK/dmesg.mark"; }

# fipc_back_unload: unload the backend and fipc.ko, as the scenarios end
# (what fipc_modules_load loaded without FRONT); the backend's rmmod
# failing is a failed check.  1 if either rmmod failed.
fipc_back_unload() {
    local rc=0
    rmmod xen-fipc-back || { fipc_fail "rmmod xen-fipc-back failed"; rc=1; }
    rmmod fipc || rc=1
    return $rc
}

# fipc_dmesg_since_mark: the kernel log since fipc_dmesg_mark (all of it
# if there was none).
fipc_dmesg_since_mark() {
    local from
    from=$(cat "$FIPC_WORK/dmesg.mark" 2>/dev/null || echo 0)
    dmesg | tail -n +"$((from + 1))"
}

# fipc_health NAME: dom0 health check: no oops/WARN/BUG/grant leak in the
# kernel log since fipc_dmesg_mark (less the emulated CPU's artefacts,
# fipc_klog_unexplained), no poller threads left once the modules
# are gone.  Writes $FIPC_RESULTS/health-NAME.txt.
fipc_health() {
    local name=$1 bad left out=$FIPC_RESULTS/health-$1.txt
    fipc_dmesg_since_mark > "$out"
    if [ "${FIPC_KERNEL_CHECKS:-0}" = 1 ]; then
        # The debug kernel: its reports (the stock kernel's known ones
        # too) are judged on the host after the run (lib/kernel_reports.py).
        bad=$(grep -E 'still in use|leaking' "$out")
    else
        left=$(fipc_klog_unexplained "$out")
        bad=$(echo "$left" |
            grep -E 'Oops|BUG[: ]|WARNING:|Call Trace|general protection|still in use|leaking|lockdep|hung_task|soft lockup|RCU stall')
    fi
    if [ -n "$bad" ]; then
        # With the task and the place, so that a failure read from CI's
        # summary alone says who hit it.
        fipc_fail "dom0 health ($name): kernel log has: $(echo "$bad" | head -n 3 | tr '\n' '|')" \
            "$(echo "$left" | grep -m 2 -E ' Comm: |RIP: ' | tr '\n' '|')"
        return 1
    fi
    if [ ! -d /sys/module/xen_fipc_back ] && [ ! -d /sys/module/xen_fipc_front ] &&
       ps -e -o comm= | grep -qE '^xf[bf]-poll'; then
        fipc_fail "dom0 health ($name): poller threads left after unload"
        return 1
    fi
    # Every grant mapping xen-fipc-back counts (back_maptrack.c) ends with
    # its device: none is left once no device is bound (a drain handed
    # off at removal may still be unmapping: it gets 60 s).
    local gm=/sys/module/xen_fipc_back/parameters/grant_mappings
    if [ -r "$gm" ] && ! ls /sys/bus/xen-backend/drivers/fipcblk 2>/dev/null | grep -q '^fipcblk-' &&
       ! fipc_until 60 fipc_file_is "$gm" 0; then
        fipc_fail "dom0 health ($name): xen-fipc-back still counts $(cat "$gm") grant mappings with no device bound"
        return 1
    fi
    fipc_log "dom0 health ($name): ok"
}

# fipc_mailbox_put DEV WORD: write WORD (at most 16 characters) into the
# last 4 KiB of DEV, where a guest's fipc_mailbox_is reads it.
fipc_mailbox_put() {
    local s
    s=$(blockdev --getsz "$1") || return 1
    printf '%-16s' "$2" | dd of="$1" bs=4096 seek=$((s / 8 - 1)) count=1 \
        conv=sync oflag=direct status=none
}

# fipc_mailbox_new: /dev/nullmbox, the mailbox disk that dom0 posts
# phases in and its guests read (phy:, read-only): a null_blk of 16 MiB,
# memory backed, without delay, holding "none".
fipc_mailbox_new() {
    fipc_null_blk_slow nullmbox 0 4 16 2 1 &&
        fipc_mailbox_put /dev/nullmbox none
}

# fipc_domu_wait_marker NAME MARKER TIMEOUT: wait for a line starting
# with MARKER (a plain string) on the guest's console (xenconsoled's log).
# The log is followed (tail -F, woken by inotify), not polled, and the
# domain is looked at every $FIPC_MARKER_LOOK_S seconds (default 2): under
# TCG every command a polling loop runs takes milliseconds of dom0's only
# vCPU, and the backend poller sleeps whenever another task wants it
# (runs R, 2026-11-26, and AG, 2026-11-27: docs/benchmarks.md, "Driver
# and poller decisions"; timed phases look every 20 s).  A kernel panic
# on the console ends the wait at once: the guests keep a crashed domain
# (on_crash = "preserve"), which would otherwise wait out the timeout.
fipc_domu_wait_marker() {
    local con=$FIPC_CONSOLE_DIR/guest-$1.log
    local deadline=$((SECONDS + $3)) every=${FIPC_MARKER_LOOK_S:-2}
    local look=$((SECONDS + every)) line part='' fd tailpid found=0 rc fifo gone=0
    # A FIFO, not a process substitution: dom0 has no /dev/fd.
    fifo=$(mktemp -u "${FIPC_WORK:-/tmp}/marker.XXXXXX")
    mkfifo "$fifo" || return 1
    tail -n +1 -F "$con" 2>/dev/null > "$fifo" &
    tailpid=$!
    # A step that fipc_step's timeout ends takes its tail with it.
    trap 'kill "$tailpid" 2>/dev/null; exit 143' TERM
    exec {fd}< "$fifo"
    rm -f "$fifo"
    while [ $SECONDS -lt $deadline ]; do
        if IFS= read -r -t 2 -u "$fd" line; then
            line=$part$line
            part=''
            if [[ $line == "$2"* ]]; then
                found=1
                break
            fi
            if [[ $line == *"Kernel panic - not syncing"* ]]; then
                gone=panic
                break
            fi
        else
            rc=$?
            # Timed out: keep a partial line for the next read.
            if [ $rc -gt 128 ]; then
                part=$part$line
            else
                sleep 1
            fi
        fi
        if [ $SECONDS -ge $look ]; then
            xl domid "$1" >/dev/null 2>&1 || { gone=1; break; }
            look=$((SECONDS + every))
        fi
    done
    kill "$tailpid" 2>/dev/null
    trap - TERM
    exec {fd}<&-
    [ $found = 1 ] && return 0
    if [ $gone = panic ]; then
        fipc_fail "$1: its kernel panicked before '$2' showed on its console"
    elif [ $gone = 1 ]; then
        fipc_fail "$1: gone before '$2' showed on its console"
    else
        fipc_fail "$1: no '$2' on the console after $3 s"
    fi
    fipc_domu_console_tail "$1"
    return 1
}

# fipc_domu_kernel_clean NAME WHAT: the guest's console shows no kernel
# BUG, Oops or WARNING (a page freed twice shows as "BUG: Bad page state").
fipc_domu_kernel_clean() {
    local con=$FIPC_CONSOLE_DIR/guest-$1.log n
    n=$(tr -d '\r' < "$con" | fipc_klog_unexplained | grep -cE '(BUG|WARNING|Oops)[: ]')
    [ "$n" = 0 ] && return 0
    fipc_fail "$2: $n kernel BUG/WARNING/Oops line(s) on $1's console"
    tr -d '\r' < "$con" | fipc_klog_unexplained 2>/dev/null | grep -E -m 5 '(BUG|WARNING|Oops)[: ]'
    return 1
}

# fipc_blk_wait_gone DOMID: libxl removes the fipc disks of a domain that
# went away: wait up to 30 s until neither their xenstore directory nor a
# backend device is left.  libxl itself gives a backend 10 s to go Closed
# before it removes the nodes by force, and a slow emulated dom0 (the
# CI run of 2026-11-26) can take longer than that to see the removal, so
# 10 s here was too short; the time taken is logged when over 5 s.
fipc_blk_wait_gone() {
    local t0=$SECONDS
    if fipc_until 30 fipc_blk_gone "$1"; then
        [ $((SECONDS - t0)) -le 5 ] ||
            fipc_log "fipcblk nodes and backend devices of domain $1 gone after $((SECONDS - t0)) s"
        return 0
    fi
    fipc_fail "fipcblk nodes or backend devices of domain $1 left $((SECONDS - t0)) s after it went away"
    xenstore-ls -f "/local/domain/0/backend/fipcblk/$1" 2>&1 | head -20
    ls "$FIPC_BE_SYSFS" 2>&1 | grep "^fipcblk-$1-"
    xl list 2>&1
    dmesg | tail -15
    return 1
}

# fipc_blk_gone DOMID: domain DOMID has no fipcblk xenstore node or backend
# device in dom0.
fipc_blk_gone() {
    ! xenstore-exists "/local/domain/0/backend/fipcblk/$1" &&
        ! ls "$FIPC_BE_SYSFS" | grep -q "^fipcblk-$1-"
}

# fipc_destroyed_wait WHAT DOMID VDEV: after xl destroy, wait up to 30 s
# until the backend device of disk VDEV, the domain's fipcblk xenstore
# directory and the domain itself are gone (a domain that lingers as a
# zombie still has pages mapped by the backend).
fipc_destroyed_wait() {
    fipc_until 30 fipc_destroyed "$2" "$3" && return 0
    fipc_fail "$1: backend device, its xenstore nodes or domain $2 still there 30 s after destroy"
    xl list
    return 1
}

# fipc_destroyed DOMID VDEV: disk VDEV's backend device, the domain's
# fipcblk xenstore directory and the domain itself are all gone.
fipc_destroyed() {
    [ ! -e "$FIPC_BE_SYSFS/fipcblk-$1-$2" ] &&
        ! xenstore-exists "/local/domain/0/backend/fipcblk/$1" &&
        ! xl list 2>/dev/null | awk 'NR > 1 { print $2 }' | grep -qx "$1"
}

# ---- driver domains (fipc-common/guest-dd.sh)

# fipc_dd_pack DIR: the driver domain's guest directory: guest-dd.sh and
# ddroot.tar, the files it takes from dom0's root (the patched xl and its
# libraries, xenstore, xl.conf, block-fipc; symlinks followed).  Its Xen
# device modules come from its own domU image (they must match its kernel).
fipc_dd_pack() {
    local d=$1 xl=${XENBIN:-/usr/lib/xen-4.17/bin}/xl files libs
    rm -rf "$d"
    mkdir -p "$d"
    cp "${common:?the scenario exports common: the path of fipc-common}/guest-dd.sh" "$d/" || return 1
    [ -x "$xl" ] && [ -f /etc/xen/scripts/block-fipc ] ||
        { fipc_fail "no patched xl or block-fipc in dom0 (make dom0-overlay)"; return 1; }
    libs=$(ldd "$xl" /usr/bin/xenstore | awk '/=>/ { print $3 } /^\t\/lib/ { print $1 }' | sort -u)
    [ -n "$libs" ] || { fipc_fail "cannot list xl's libraries"; return 1; }
    files="$xl /usr/bin/xenstore /etc/xen/xl.conf /etc/xen/scripts/block-fipc $libs"
    # shellcheck disable=SC2086
    tar chf "$d/ddroot.tar" -C / $(for f in $files; do echo "${f#/}"; done) ||
        { fipc_fail "cannot pack the driver domain's files"; return 1; }
    fipc_log "driver domain files: $(tar tf "$d/ddroot.tar" | wc -l) files, $(stat -c %s "$d/ddroot.tar") bytes"
    mkdir -p "$FIPC_RESULTS/dom0"
    tar tf "$d/ddroot.tar" > "$FIPC_RESULTS/dom0/ddroot-files.txt"
}

# fipc_dd_start NAME CFG [KEY=VALUE...]: pack and start driver domain NAME
# (CFG says driver_domain = 1) running xen-fipc-back, wait until it
# serves; its domain id goes to $FIPC_WORK/NAME.id.  The caller's
# FIPC_DOMU_FLAVOUR and FIPC_DOMU_MEMORY apply to it.
fipc_dd_start() {
    local name=$1 cfg=$2 id
    shift 2
    fipc_dd_pack "$FIPC_WORK/$name-pack" || return 1
    FIPC_DOMU_LOAD="fipc xen-fipc-back" \
        fipc_domu_start "$name" "$cfg" "$FIPC_WORK/$name-pack/guest-dd.sh" "$@" || return 1
    id=$(xl domid "$name") || return 1
    echo "$id" > "$FIPC_WORK/$name.id"
    xenstore-exists "/local/domain/$id/libxl" ||
        { fipc_fail "driver_domain = 1 did not give $name a libxl/ directory in xenstore"; return 1; }
    fipc_domu_wait_marker "$name" '@@FIPC-DD ready' 600 || return 1
    fipc_log "driver domain $name (domid $id) serves"
}

# fipc_dd_mailbox NAME DEV WORD: WORD into the mailbox of the driver
# domain's /dev/DEV (guest-dd.sh writes it; a guest reads it with
# fipc_mailbox_is), as fipc_mailbox_put does for dom0's devices.
fipc_dd_mailbox() {
    xenstore-write "/local/domain/$(cat "$FIPC_WORK/$1.id")/data/fipc-mailbox" "$2 $3" &&
        fipc_domu_wait_marker "$1" "@@FIPC-DD mailbox $2 $3" 60
}

# fipc_dd_stop NAME TIMEOUT: tell the driver domain to stop (it checks that
# no backend device is left and unloads the driver) and collect its results.
fipc_dd_stop() {
    xenstore-write "/local/domain/$(cat "$FIPC_WORK/$1.id")/data/fipc-stop" 1 || return 1
    fipc_domu_wait "$1" "$2"
}


# fipc_xl_refuses_extended NAME ID TARGET: Linux names a backend device
# fipcblk-<domid>-<devid> in at most 19 characters and never makes one
# whose name is longer, so an extended vdev (xvdq on) of a guest whose
# domid has two digits would never connect.  xl must refuse xvdq on
# TARGET for guest NAME (domain ID >= 10) at once (< 5 s: no wait for a
# backend), saying why, and leave no backend node.  xl's words on
# stdout, failures (@@FIPC-FAIL) on stderr.
fipc_xl_refuses_extended() {
    local out t0 ms
    t0=$(date +%s%N)
    if out=$(xl block-attach "$1" "phy1:$3,xvdq,w" 2>&1); then
        fipc_fail "xl attached xvdq (devid 268439552) to domain $2 as phy1:; Linux cannot name its backend device" >&2
        xl block-detach "$1" xvdq >/dev/null 2>&1
        return 1
    fi
    ms=$((($(date +%s%N) - t0) / 1000000))
    grep -q "Linux cannot name its backend device fipcblk-$2-268439552" <<< "$out" ||
        { fipc_fail "xl's refusal of xvdq on domain $2 does not say why: $(tr '\n' '|' <<< "$out")" >&2; return 1; }
    [ "$ms" -lt 5000 ] ||
        { fipc_fail "xl took $ms ms to refuse xvdq on domain $2 (want < 5000: no wait for a backend)" >&2; return 1; }
    ! xenstore-exists "/local/domain/0/backend/fipcblk/$2/268439552" ||
        { fipc_fail "the refused xvdq of domain $2 left backend nodes" >&2; return 1; }
    fipc_log "xl refused xvdq on domain $2 in $ms ms" >&2
    echo "$out"
}

# fipc_admin_expect WHAT RC PATTERN ARGS...: the admin command (fipc,
# /usr/sbin/fipc of the fipc-xen-tools package dom0 installed) run with
# ARGS exits RC and its output matches PATTERN (grep -E); the output is
# kept in results/dom0/fipc-admin-WHAT.txt (or $FIPC_ADMIN_OUT).
fipc_admin_expect() {
    local what=$1 want=$2 pat=$3 out rc=0
    shift 3
    command -v fipc >/dev/null || { fipc_fail "$what: no fipc command in dom0 (package fipc-xen-tools)"; return 1; }
    out=$(fipc "$@" 2>&1) || rc=$?
    mkdir -p "${FIPC_ADMIN_OUT:=$FIPC_RESULTS/dom0}"
    printf '$ fipc %s  (exit %s)\n%s\n' "$*" "$rc" "$out" > "$FIPC_ADMIN_OUT/fipc-admin-$what.txt"
    if [ "$rc" != "$want" ] || ! grep -q -E -- "$pat" <<< "$out"; then
        fipc_fail "$what: 'fipc $*' exited $rc (want $want), want '$pat' in: $(tail -n 6 <<< "$out" | tr '\n' '|')"
        return 1
    fi
    fipc_log "$what: 'fipc $*' exited $rc: $(grep -m 1 -E -- "$pat" <<< "$out")"
}
