#!/bin/bash
# Scenario "boot-autostart" (dom0 side): a host's boot with fipc's
# packages installed (dom0 installed fipc-modules and fipc-xen-tools with
# dpkg at its start), run as the host's own boot would run it.  The
# testbed's dom0 is not rebooted (its root is an initramfs and its PID 1
# the testbed's init), so the scenario runs the boot chain's two steps
# itself, in their order:
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
#   5. the guest ends, libxl removes its disks, the modules unload, dom0
#      is healthy.
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"
. "$common/fipc-lib.sh"
export FIPC_DOMU_LOAD="fipc xen-fipc-front"
# Phases run in a child bash: only exported variables reach them.
export AUTO=/etc/xen/auto R=$FIPC_RESULTS/dom0
mkdir -p "$R"

prepare() {
    local f=/usr/lib/modules-load.d/fipc-xen-tools.conf
    fipc_dmesg_mark
    [ ! -d /sys/module/xen_fipc_back ] ||
        { fipc_fail "xen-fipc-back is loaded before the boot chain ran"; return 1; }
    grep -qx xen-fipc-back "$f" 2>/dev/null ||
        { fipc_fail "no xen-fipc-back line in $f (package fipc-xen-tools)"; return 1; }
    fipc_log "$f: $(dpkg -S "$f" 2>/dev/null | cut -d: -f1) asks for xen-fipc-back; modprobe finds $(modinfo -n xen-fipc-back 2>&1)"
    fipc_null_blk 1 2 || return 1
    fipc_domu_config auto1 "$here/domU.cfg" "$common/guest-autostart.sh" || return 1
    mkdir -p "$AUTO"
    rm -f "${AUTO:?}"/*.cfg
    cp "$FIPC_WORK/auto1/auto1.cfg" "$AUTO/auto1.cfg"
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
    fipc_mailbox_put /dev/nullb0 done
}

finish() {
    local rc=0 id
    id=$(cat "$FIPC_WORK/auto1.id")
    rm -f "${AUTO:?}/auto1.cfg"
    fipc_blk_wait_gone "$id" || rc=1
    rmmod xen-fipc-back || { fipc_fail "rmmod xen-fipc-back failed"; rc=1; }
    rmmod fipc || rc=1
    fipc_health final || rc=1
    return $rc
}

rc=0
fipc_step boot-prepare 120 prepare || exit 1
fipc_step boot-modules-load 60 modules_load || exit 1
fipc_step boot-xendomains 700 autostart || { xl destroy auto1; exit 1; }
fipc_step boot-admin 120 admin || { rc=1; fipc_mailbox_put /dev/nullb0 done; }
fipc_step domU-finish 300 fipc_domu_wait auto1 240 || rc=1
fipc_step boot-finish 120 finish || rc=1
exit $rc
