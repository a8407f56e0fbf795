#!/bin/bash
# Scenario "boot-autostart" (dom0 side): a host's boot with fipc's
# packages installed (dom0 installed fipc-modules and fipc-xen-tools with
# dpkg at its start), run as the host's own boot would run it, then dom0
# rebooted and its next boot.  The testbed's dom0 has no init system (its
# PID 1 is the testbed's boot.sh), so the scenario runs the boot chain's
# two steps itself, in their order:
#   1. nothing of fipc is loaded; fipc-xen-tools' modules-load.d entry is
#      in place; a guest config with two phy1: disks is in /etc/xen/auto;
#   2. the modules-load step: systemd-modules-load, what
#      systemd-modules-load.service runs before sysinit.target (Debian
#      13), or Debian 12's /etc/init.d/kmod start where no systemd is
#      installed: xen-fipc-back must be loaded, from the package;
#   3. xendomains' start (/etc/init.d/xendomains start, the ExecStart of
#      xendomains.service): the guest starts and both disks connect
#      with no other step; the guest verifies xvdb;
#   4. fipc status and fipc diagnose (the admin command): both disks
#      connected and healthy; then the guest lets go of xvdc and fipc
#      diagnose names it closed;
#   5. fipc bench (the admin command's benchmark, from the package) in
#      auto1 through lib/fipc-exec-disk (the testbed's stand-in for ssh,
#      over xvdb's mailbox): a device attached to a guest is refused, so
#      is one that holds a filesystem, a partition table or an LVM
#      physical volume, and nothing is attached; with
#      --destroy-data it runs dom0, phy, phy1-grant and phy1-memshare on
#      that scratch device (short jobs, one of each family: make demo's
#      and the desktop's) and leaves auto1's disks as they were;
#   6. the guest ends, libxl removes its disks; dom0 reboots: the machine
#      resets, with dom0's root kept on its disk (scenario.conf REBOOT=1,
#      fipc_reboot_request);
# and at the second boot (FIPC_SCENARIO_BOOT=2), nothing installed again:
#   7. the packages are still installed, the guest's config still in
#      /etc/xen/auto, nothing of fipc is loaded; the storage the guest's
#      disks sit on (null_blk, memory) and its exchange disk (a loop
#      device, the one its config names) are made again, as the host's
#      disks would be there at its boot;
#   8. the boot chain's two steps as in 2 and 3: xen-fipc-back loaded from
#      the package's entry, the guest autostarted, both disks connected,
#      xvdb verified; fipc status and fipc diagnose as in 4;
#   9. the guest ends, libxl removes its disks, the modules unload, dom0
#      is healthy.
# The host's /etc/modprobe.d/fipc.conf raises memshare_max_mib (as
# admin-guide section 6 tells an admin to) and the guest's grant table
# holds its 512 MiB, so that phy1-memshare gets memshare.
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"
export FIPC_DOMU_LOAD="fipc xen-fipc-front"
# Phases run in a child bash: only exported variables reach them.
BOOT=${FIPC_SCENARIO_BOOT:-1}
R=$FIPC_RESULTS/dom0
[ "$BOOT" = 1 ] || R=$FIPC_RESULTS/dom0-boot$BOOT
export AUTO=/etc/xen/auto R MODPROBE_CONF=/etc/modprobe.d/fipc.conf FIPC_ADMIN_OUT=$R
export BENCH_IMG=/tmp/bench.img DM_DISABLE_UDEV=1 LVM_SUPPRESS_FD_WARNINGS=1
export BENCH_EXEC="$FIPC_LIB/fipc-exec-disk /dev/nullb0 900"
mkdir -p "$R"

# nothing_loaded: before the boot chain, nothing of fipc is loaded and the
# package's modules-load.d entry is there.
nothing_loaded() {
    local f=/usr/lib/modules-load.d/fipc-xen-tools.conf
    fipc_dmesg_mark
    [ ! -d /sys/module/xen_fipc_back ] ||
        { fipc_fail "xen-fipc-back is loaded before the boot chain ran"; return 1; }
    grep -qx xen-fipc-back "$f" 2>/dev/null ||
        { fipc_fail "no xen-fipc-back line in $f (package fipc-xen-tools)"; return 1; }
    fipc_log "$f: $(dpkg -S "$f" 2>/dev/null | cut -d: -f1) asks for xen-fipc-back; modprobe finds $(modinfo -n xen-fipc-back 2>&1)"
}

prepare() {
    nothing_loaded || return 1
    echo "options xen-fipc-back memshare_max_mib=1536" > "$MODPROBE_CONF"
    fipc_null_blk 1 2 || return 1
    fipc_domu_config auto1 "$here/domU.cfg" "$here/guest.sh" || return 1
    mkdir -p "$AUTO"
    rm -f "${AUTO:?}"/*.cfg
    cp "$FIPC_WORK/auto1/auto1.cfg" "$AUTO/auto1.cfg"
}

# prepare_again: the second boot.  What the first installed and wrote is
# on the root disk; the null_blk disks and the exchange disk's loop device
# (the one auto1.cfg names) are made again, and auto1's config as the
# testbed would write it now must be the one kept in /etc/xen/auto.
prepare_again() {
    local p loop
    for p in fipc-xen-tools "fipc-modules-$(uname -r)"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
            { fipc_fail "$p is not installed after the reboot"; return 1; }
        fipc_log "after the reboot: $(dpkg-query -W -f='${Package} ${Version}' "$p") installed (at the first boot)"
    done
    [ -f "$AUTO/auto1.cfg" ] || { fipc_fail "$AUTO/auto1.cfg is gone after the reboot"; return 1; }
    nothing_loaded || return 1
    fipc_null_blk 1 2 || return 1
    loop=$(grep -o 'phy:/dev/loop[0-9]*,xvdz' "$AUTO/auto1.cfg" | sed 's/^phy:\(.*\),xvdz$/\1/')
    [ -n "$loop" ] || { fipc_fail "no exchange disk in $AUTO/auto1.cfg"; return 1; }
    FIPC_XCHG_LOOP=$loop fipc_domu_config auto1 "$here/domU.cfg" "$here/guest.sh" ||
        return 1
    cmp -s "$FIPC_WORK/auto1/auto1.cfg" "$AUTO/auto1.cfg" ||
        { fipc_fail "$AUTO/auto1.cfg after the reboot: $(diff "$AUTO/auto1.cfg" "$FIPC_WORK/auto1/auto1.cfg" | tr '\n' '|')"; return 1; }
    fipc_log "after the reboot: $AUTO/auto1.cfg as written at the first boot (exchange disk $loop)"
}

# modules_load: the boot chain's module step, as the host has it.
modules_load() {
    local how
    if [ -x /usr/lib/systemd/systemd-modules-load ]; then
        how=/usr/lib/systemd/systemd-modules-load
    elif [ -x /etc/init.d/kmod ]; then
        how="/etc/init.d/kmod start"
    else
        fipc_fail "neither systemd-modules-load nor /etc/init.d/kmod in dom0"
        return 1
    fi
    $how > "$R/modules-load.txt" 2>&1 ||
        { fipc_fail "$how failed: $(tail -n 3 "$R/modules-load.txt" | tr '\n' '|')"; return 1; }
    [ -d /sys/module/xen_fipc_back ] ||
        { fipc_fail "$how did not load xen-fipc-back: $(tail -n 3 "$R/modules-load.txt" | tr '\n' '|')"; return 1; }
    fipc_log "$how: xen-fipc-back $(cat /sys/module/xen_fipc_back/version) loaded"
}

autostart() {
    local id
    /etc/init.d/xendomains start > "$R/xendomains.txt" 2>&1 ||
        { fipc_fail "xendomains start failed: $(tail -n 3 "$R/xendomains.txt" | tr '\n' '|')"; return 1; }
    id=$(xl domid auto1 2>/dev/null) ||
        { fipc_fail "xendomains did not start auto1: $(tr '\n' '|' < "$R/xendomains.txt")"; return 1; }
    echo "$id" > "$FIPC_WORK/auto1.id"
    fipc_log "xendomains start: $(tr -s '\n' ' ' < "$R/xendomains.txt")"
    fipc_blk_wait_connected "$id" 51728 300 || return 1
    fipc_blk_wait_connected "$id" 51744 60 || return 1
    fipc_domu_wait_marker auto1 '@@FIPC-AUTOSTART verified rc=0' 600 || return 1
    fipc_log "auto1 (domain $id): xvdb and xvdc connected, xvdb verified by the guest"
}

# closed ID: the backend saw the frontend of xvdc let go.
closed() {
    [ "$(fipc_blk_state "$1" 51744 front)" = 6 ] || [ "$(fipc_blk_state "$1" 51744 front)" = 5 ]
}

admin() {
    local id
    id=$(cat "$FIPC_WORK/auto1.id")
    fipc_admin_expect status 0 "^auto1 \\($id\\) +xvdb +/dev/nullb0 +connected " status || return 1
    fipc_admin_expect healthy 0 "verdict: connected, healthy" diagnose auto1 || return 1
    fipc_mailbox_put /dev/nullb0 drop || return 1
    fipc_domu_wait_marker auto1 '@@FIPC-AUTOSTART dropped xvdc' 60 || return 1
    fipc_until 30 closed "$id" ||
        { fipc_fail "xvdc's frontend state $(fipc_blk_state "$id" 51744 front) 30 s after the guest let go"; return 1; }
    fipc_admin_expect dropped 1 "verdict: error: the guest closed its end of the disk" diagnose auto1:xvdc || return 1
    fipc_admin_expect status-dropped 0 "^auto1 \\($id\\) xvdc: error: the guest closed its end" status || return 1
}

disks_of() { xl block-list "$1" | awk 'NR > 1 { print $1 }' | sort | tr '\n' ' '; }

bench() {
    local id before loop rc=0 lvm='activation { udev_sync = 0 udev_rules = 0 monitoring = 0 }'
    id=$(cat "$FIPC_WORK/auto1.id")
    before=$(disks_of auto1)
    fipc_admin_expect bench-in-use 2 "refusing /dev/nullb1: it is in use \\(attached as domain $id's disk" \
        bench --guest auto1 --device /dev/nullb1 --destroy-data --exec "$BENCH_EXEC" || return 1
    truncate -s 128M "$BENCH_IMG" && loop=$(losetup -f --show "$BENCH_IMG") || return 1
    echo "$loop" > "$FIPC_WORK/bench.loop"
    # A filesystem, a partition table, an LVM physical volume: each
    # refused (busybox's mke2fs and fdisk: trixie's dom0 has neither
    # e2fsprogs nor fdisk).
    busybox mke2fs "$loop" > "$R/bench-mke2fs.txt" 2>&1 ||
        { fipc_fail "mke2fs $loop: $(tail -n 2 "$R/bench-mke2fs.txt" | tr '\n' '|')"; return 1; }
    fipc_admin_expect bench-fs 2 "refusing $loop: it holds data \\(TYPE=ext2\\)" \
        bench --guest auto1 --device "$loop" --exec "$BENCH_EXEC" || return 1
    dd if=/dev/zero of="$loop" bs=1M count=1 conv=notrunc status=none || return 1
    printf 'o\nn\np\n1\n\n\nw\n' | busybox fdisk "$loop" > "$R/bench-fdisk.txt" 2>&1
    fipc_admin_expect bench-ptable 2 "refusing $loop: it holds data \\(PTTYPE=dos\\)" \
        bench --guest auto1 --device "$loop" --exec "$BENCH_EXEC" || return 1
    dd if=/dev/zero of="$loop" bs=1M count=1 conv=notrunc status=none || return 1
    lvm pvcreate -q "$loop" --config "$lvm" > "$R/bench-pvcreate.txt" 2>&1 ||
        { fipc_fail "pvcreate $loop: $(tail -n 2 "$R/bench-pvcreate.txt" | tr '\n' '|')"; return 1; }
    fipc_admin_expect bench-lvm 2 "refusing $loop: it holds data \\(TYPE=LVM2_member\\)" \
        bench --guest auto1 --device "$loop" --exec "$BENCH_EXEC" || return 1
    [ "$(disks_of auto1)" = "$before" ] ||
        { fipc_fail "auto1's disks after the refusals: $(disks_of auto1), before: $before"; return 1; }
    fipc_admin_expect bench-run 0 "results in $R/bench " bench --guest auto1 --device "$loop" \
        --destroy-data --exec "$BENCH_EXEC" --out "$R/bench" --runtime 2 --ramp 0 --emulated \
        --jobs iops-4k-read,desk-rand4k-q1-write || rc=1
    [ "$(disks_of auto1)" = "$before" ] ||
        { fipc_fail "auto1's disks after fipc bench: $(disks_of auto1), before: $before"; rc=1; }
    python3 - "$R/bench" <<'PY' || rc=1
import json, sys
d = sys.argv[1]
fio = json.load(open(d + "/report/fio.json"))
meta = json.load(open(d + "/bench.json"))
jobs = ("iops-4k-read", "desk-rand4k-q1-write")
bad = []
for c in ("dom0", "phy", "phy1-grant", "phy1-memshare"):
    got = fio.get("results", fio).get(c, {}).get("jobs", {})
    for j in jobs:
        if not (got.get(j) or {}).get("iops", 0) > 0:
            bad.append("%s %s: %s" % (c, j, got.get(j)))
for c, want in (("phy1-grant", "grant"), ("phy1-memshare", "memshare")):
    if meta["configs"][c].get("data_path") != want:
        bad.append("%s got data path %s" % (c, meta["configs"][c]))
for b in bad:
    print("FAIL fipc bench: " + b)
print("fipc bench: %d configurations x %d jobs, data paths %s" % (
    len(meta["configs"]), len(jobs),
    {c: v.get("data_path") for c, v in meta["configs"].items() if c.startswith("phy1")}))
sys.exit(1 if bad else 0)
PY
    [ $rc = 0 ] || fipc_fail "fipc bench's results (see $R/bench, fipc-admin-bench-run.txt)"
    return $rc
}

# bench_and_disks_gone: fipc bench's scratch device let go, and the
# ended guest's disks gone from the backend.
bench_and_disks_gone() {
    local rc=0
    [ ! -s "$FIPC_WORK/bench.loop" ] || losetup -d "$(cat "$FIPC_WORK/bench.loop")" || rc=1
    rm -f "$BENCH_IMG"
    fipc_blk_wait_gone "$(cat "$FIPC_WORK/auto1.id")" || rc=1
    return $rc
}

# reboot_prepare: the first boot's end; dom0 reboots with the guest's
# config and the packages in place.
reboot_prepare() {
    local rc=0
    bench_and_disks_gone || rc=1
    fipc_health before-reboot || rc=1
    [ $rc != 0 ] || fipc_reboot_request || rc=1
    [ $rc != 0 ] || fipc_log "dom0 reboots now"
    return $rc
}

finish() {
    local rc=0
    rm -f "${AUTO:?}/auto1.cfg" "$MODPROBE_CONF"
    bench_and_disks_gone || rc=1
    fipc_back_unload || rc=1
    fipc_health final || rc=1
    return $rc
}

rc=0
if [ "$BOOT" = 1 ]; then
    fipc_step boot-prepare 120 prepare || exit 1
else
    fipc_step boot2-prepare 120 prepare_again || exit 1
fi
fipc_step boot-modules-load 60 modules_load || exit 1
fipc_step boot-xendomains 700 autostart || { xl destroy auto1; exit 1; }
fipc_step "$([ "$BOOT" = 1 ] && echo boot || echo boot2)-admin" 120 admin || rc=1
[ $rc != 0 ] || [ "$BOOT" != 1 ] || fipc_step boot-bench 900 bench || rc=1
fipc_mailbox_put /dev/nullb0 done
fipc_step domU-finish 300 fipc_domu_wait auto1 240 || rc=1
if [ "$BOOT" = 1 ] && [ $rc = 0 ]; then
    fipc_step boot-reboot 120 reboot_prepare || rc=1
else
    fipc_step boot-finish 120 finish || rc=1
fi
exit $rc
