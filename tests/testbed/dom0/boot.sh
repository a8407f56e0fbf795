#!/bin/bash
# dom0 boot script of the EMULATED testbed (PID 1, exec'd by the dom0 image's
# /init once the 9p shares are mounted):
#   /fipc/stage   (ro)  this repo's testbed scripts, our modules, params.env
#   /fipc/results (rw)  build/testbed/results/<scenario>/ on the host
#   /fipc/cache   (ro)  the artifact cache (domU kernel and ramdisk)
# It does what systemd and Debian's xen init scripts do on a real host
# (mount /run, load the Xen modules, start xenstored/xenconsoled), then runs
# the scenario (or a shell) and powers the machine off.  The host runner
# (fipc-testbed) follows the @@FIPC markers on the serial console.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${TERM:-vt100}
S=/fipc/stage
R=/fipc/results
# The toolstack's own directory: xen-4.17 on bookworm, xen-4.20 on trixie.
XENBIN=$(ls -d /usr/lib/xen-4.*/bin 2>/dev/null | sort -V | tail -n 1)
export S R XENBIN
# shellcheck source=/dev/null
. "$S/params.env"
export FIPC_RESULTS=$R FIPC_TIMEOUT_SCALE
# The debug kernel (fipc-testbed --kernel debug): the guests' extra command
# line, and kernel_checks after the scenario; fipc_health leaves the
# kernel's reports to the host then.
export FIPC_DOMU_CMDLINE_EXTRA=${FIPC_DOMU_CMDLINE_EXTRA:-} FIPC_KERNEL_CHECKS=${FIPC_KERNEL_CHECKS:-0}
. "$S/testbed/lib/fipc-scenario.sh"

# What a scenario's reboot of dom0 keeps on the persistent root (below).
TB_STATE=/var/lib/fipc-testbed

# persist_root: scenario.conf REBOOT=1 gave the machine a disk (virtio,
# /dev/vda, ext4, made by the runner) that holds what dom0 writes, so
# that its next boot finds its packages and /etc as a host's root disk
# would keep them.  The image's initramfs is the lower layer of an
# overlay, the disk its upper layer; boot.sh goes on (PID 1 still) in a
# chroot of the overlay.  The kernel's own helpers keep the initramfs.
persist_root() {
    local m i=0
    modprobe -a virtio_blk ext4 overlay || return 1
    until [ -b /dev/vda ]; do
        i=$((i + 1)); [ $i -lt 300 ] || { echo "no /dev/vda after 30 s"; return 1; }
        sleep 0.1
    done
    mkdir -p /persist /newroot
    mount -t ext4 /dev/vda /persist || return 1
    mkdir -p /persist/upper /persist/work
    mount -t overlay overlay -o lowerdir=/,upperdir=/persist/upper,workdir=/persist/work \
        /newroot || return 1
    for m in /proc /sys /dev /fipc/stage /fipc/results /fipc/cache /persist; do
        mkdir -p "/newroot$m"
        mount --move "$m" "/newroot$m" || return 1
    done
}

power_off() {
    sync
    umount /fipc/results 2>/dev/null
    echo o > /proc/sysrq-trigger
    sleep 30
}

tb_setup() {
    local t0
    set -e
    # /var/run is a symlink to /run: the tmpfs must be there before libxl's
    # lock and pid files are created.
    mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /run
    mkdir -p /run/xen /run/lock /run/fipc /var/log/xen/console /var/lib/xen /dev/pts /dev/shm
    mount -t devpts devpts /dev/pts
    mount -t tmpfs tmpfs /dev/shm
    hostname fipc-dom0
    modprobe -a xen-evtchn xen-gntdev xen-gntalloc xen-privcmd xenfs xen-blkback loop
    mount -t xenfs xenfs /proc/xen
    # fipc-testbed --nvme: QEMU's NVMe controller (no udev here to load its
    # driver); the namespace shows up as /dev/nvme0n1.
    if [ "${FIPC_NVME_MIB:-0}" -gt 0 ]; then
        modprobe nvme
        local i=0
        until [ -b /dev/nvme0n1 ]; do
            i=$((i + 1)); [ $i -lt 300 ] || { echo "no /dev/nvme0n1 after 30 s"; return 1; }
            sleep 0.1
        done
        echo "nvme: /dev/nvme0n1 $(blockdev --getsize64 /dev/nvme0n1) bytes"
    fi
    # Packages from build/dom0-packages/ (make dom0-overlay: fipc-xen-tools,
    # the patched toolstack), installed with dpkg as on a real host.
    if [ "$BOOT_N" -gt 1 ]; then
        # Installed at the first boot: on the root disk since.
        echo "packages installed at an earlier boot: $(dpkg-query -W \
            -f='${db:Status-Abbrev} ${Package} ${Version}\n' 'fipc-*' | awk '/^ii/ { printf "%s %s  ", $2, $3 }')"
    elif ls "$S"/packages/*.deb >/dev/null 2>&1; then
        t0=$SECONDS
        dpkg -i "$S"/packages/*.deb > /tmp/fipc-dpkg.log 2>&1 ||
            { cat /tmp/fipc-dpkg.log; echo "dpkg -i of $(ls "$S"/packages) failed"; return 1; }
        for d in "$S"/packages/*.deb; do
            echo "package installed: $(dpkg-query -W -f='${Package} ${Version}' "$(dpkg-deb -f "$d" Package)")"
        done
        echo "packages installed in $((SECONDS - t0)) s"
    fi
    # Files from build/dom0-overlay/, if any, replace the image's.
    if [ -d "$S/overlay" ] && [ "$BOOT_N" = 1 ]; then cp -a "$S/overlay/." /; ldconfig; fi
    # libxl kills hotplug scripts after 10 s; Debian's block script is too
    # slow under TCG.  Testbed only: see lib/block-fipc.
    install -m 0755 "$S/testbed/lib/block-fipc" /etc/xen/scripts/block
    # dom0 memory is fixed by dom0_mem=; no ballooning.
    sed -i 's/^#\?autoballoon=.*/autoballoon="off"/' /etc/xen/xl.conf
    grep -q '^autoballoon=' /etc/xen/xl.conf || echo 'autoballoon="off"' >> /etc/xen/xl.conf
    # libxc mmaps the domU kernel and ramdisk; page faults over 9p are one
    # small round trip each (minutes for 150 MB under TCG), a plain copy
    # into tmpfs takes a second.
    mkdir -p /run/fipc/boot
    t0=$SECONDS
    cp "$FIPC_DOMU_KERNEL" /run/fipc/boot/vmlinux
    cp "$FIPC_DOMU_RAMDISK" /run/fipc/boot/domU.cpio
    echo "domU kernel and ramdisk copied in $((SECONDS - t0)) s ($(du -cm /run/fipc/boot | tail -n 1 | cut -f1) MiB)"
    # --kasan: the KASAN kernel and its domU image, for PVH domUs started
    # with FIPC_DOMU_FLAVOUR=kasan (lib/fipc-scenario.sh).
    if [ -n "${FIPC_KASAN_KERNEL:-}" ]; then
        cp "$FIPC_KASAN_KERNEL" /run/fipc/boot/vmlinux-kasan
        cp "$FIPC_KASAN_RAMDISK" /run/fipc/boot/domU-kasan.cpio
    fi
    # The scenario library and tools for interactive use.
    ln -sf "$S/testbed/dom0/fipc-scenario" /usr/local/bin/fipc-scenario
    # Guest consoles (xenconsoled --log=guest) straight into the results
    # share: the host can follow them live and keeps them.
    mkdir -p "$R/consoles"
    rm -rf /var/log/xen/console
    ln -s "$R/consoles" /var/log/xen/console
}

tb_daemons() {
    set -e
    "$XENBIN/xenstored" --pid-file /run/xen/xenstored.pid
    local i=0
    until xenstore-read / >/dev/null 2>&1 || xenstore-ls / >/dev/null 2>&1; do
        i=$((i + 1)); [ $i -lt 200 ] || { echo "xenstored did not come up"; return 1; }
        sleep 0.1
    done
    "$XENBIN/xen-init-dom0"
    "$XENBIN/xenconsoled" --pid-file=/run/xen/xenconsoled.pid --log=guest \
        --log-dir=/var/log/xen/console
    xl info | grep -E '^(xen_version|nr_cpus|total_memory|free_memory|xen_commandline)'
    xl list
}

# run_one NAME RESULTS LIMIT PHASE [ARG...]: scenario NAME's run.sh, its
# results in RESULTS, at most LIMIT seconds, timed as phase PHASE; ARGs
# after the run's own.  An option of the run "-o SCENARIO:KEY=VALUE"
# reaches only that scenario, as "-o KEY=VALUE".
run_one() {
    local name=$1 res=$2 limit=$3 phase=$4 rc args=() i log=scenario.log
    shift 4
    local script=$S/testbed/scenarios/$name/run.sh
    [ -x "$script" ] || { fipc_fail "scenario $name has no executable run.sh"; return 1; }
    for ((i = 0; i < ${#FIPC_SCENARIO_ARGS[@]}; i++)); do
        local arg=${FIPC_SCENARIO_ARGS[i]} next=${FIPC_SCENARIO_ARGS[i + 1]:-}
        if [ "$arg" = -o ] && [[ ${next%%=*} == *:* ]]; then
            [ "${next%%:*}" != "$name" ] || args+=(-o "${next#*:}")
            i=$((i + 1))
        else
            args+=("$arg")
        fi
    done
    mkdir -p "$res"
    # The part of a scenario that runs after its reboot of dom0.
    if [ "$FIPC_SCENARIO_BOOT" != 1 ]; then
        log=scenario-boot$FIPC_SCENARIO_BOOT.log phase=$phase-boot$FIPC_SCENARIO_BOOT
    fi
    echo "@@FIPC-PHASE start $phase $limit"
    set -o pipefail
    timeout -k 10 "$limit" "$script" --results "$res" "${args[@]}" \
        --domu-kernel /run/fipc/boot/vmlinux --domu-ramdisk /run/fipc/boot/domU.cpio "$@" \
        </dev/null 2>&1 | tee "$res/$log"
    rc=$?
    set +o pipefail
    [ $rc -eq 124 ] && fipc_fail "scenario $name timed out after ${limit}s"
    # After a reboot: failed if either part failed.
    [ "$FIPC_SCENARIO_BOOT" = 1 ] || [ $rc != 0 ] || rc=$(cat "$res/scenario.rc" 2>/dev/null || echo 1)
    echo $rc > "$res/scenario.rc"
    echo "@@FIPC-PHASE end $phase $rc"
    return $rc
}

# between_scenarios PREV: in a shared boot, what scenario PREV left behind
# is taken away before the next one starts as on a fresh dom0: guests
# still running, its kernel log (kept in its results: the next scenario
# reads the log from its own start), our modules and null_blk (a module
# already loaded keeps its parameters), loop devices, /run/fipc.
between_scenarios() {
    local d m
    for d in $(xl list | awk 'NR > 2 { print $2 }'); do
        echo "between scenarios: domain $d left by $1: destroyed"
        xl destroy "$d" || return 1
    done
    dmesg > "$R/$1/dom0-kernel-log.txt"
    dmesg -C
    for m in fipc_attack_back fipc_attack xen_fipc_back xen_fipc_front fipc null_blk; do
        [ -d "/sys/module/$m" ] || continue
        [ $m != null_blk ] || rmdir /sys/kernel/config/nullb/* 2>/dev/null
        rmmod "$m" || { fipc_fail "$m, left loaded by $1, does not unload"; return 1; }
    done
    losetup -D
    find /run/fipc -mindepth 1 -maxdepth 1 ! -name boot -exec rm -rf {} +
}

# run_scenarios: the scenario, its results in the share's root; or several
# one after the other in this boot (fipc-testbed run A+B), each with its
# results in a directory of its name, its own time limit, vCPUs a guest
# and number of guests (FIPC_SCENARIO_OWN: VCPUS:DOMUS each).  A scenario
# may ask for a reboot of dom0 (fipc_reboot_request, scenario.conf
# REBOOT=1): once it returns, dom0 reboots (REBOOT=1 here) and at its next
# boot runs it again (FIPC_SCENARIO_BOOT=2), then the scenarios after it.
run_scenarios() {
    # shellcheck disable=SC2086
    set -- $FIPC_SCENARIO
    local limits=($FIPC_SCENARIO_TIMEOUTS) own=($FIPC_SCENARIO_OWN) i=0 rc=0 b prev= name
    local from=0 resumed=0
    if [ -f "$TB_STATE/resume" ]; then
        read -r from rc < "$TB_STATE/resume"
        rm -f "$TB_STATE/resume"
        resumed=1
    fi
    [ $# = 1 ] || echo "@@FIPC-PHASE start scenario $FIPC_SCENARIO_TIMEOUT"
    for name; do
        if [ $i -lt "$from" ]; then
            i=$((i + 1))
            continue
        fi
        if [ -n "$prev" ]; then
            echo "@@FIPC-PHASE start between-scenarios 120"
            between_scenarios "$prev"
            b=$?
            [ $b = 0 ] || rc=1
            echo "@@FIPC-PHASE end between-scenarios $b"
        fi
        FIPC_SCENARIO_BOOT=1
        [ $resumed = 0 ] || [ $i != "$from" ] || FIPC_SCENARIO_BOOT=2
        if [ $# = 1 ]; then
            run_one "$name" "$R" "$FIPC_SCENARIO_TIMEOUT" scenario || rc=1
        else
            run_one "$name" "$R/$name" "${limits[$i]}" "$name" \
                --domu-vcpus "${own[$i]%%:*}" --domus "${own[$i]#*:}" || rc=1
        fi
        if [ -f "$TB_STATE/reboot-request" ]; then
            rm -f "$TB_STATE/reboot-request"
            if [ "$FIPC_SCENARIO_BOOT" = 1 ]; then
                echo "$i $rc" > "$TB_STATE/resume"
                REBOOT=1
                break
            fi
            fipc_fail "$name asked for a second reboot: one a run"
            rc=1
        fi
        prev=$name
        i=$((i + 1))
    done
    [ $# = 1 ] || echo $rc > "$R/scenario.rc"
    [ $# = 1 ] || echo "@@FIPC-PHASE end scenario $rc"
    return $rc
}

# kernel_checks: with the debug kernel, dom0's whole kernel log goes to
# the results (kernel-log.txt), beside the guests' consoles; the host
# judges the reports in them (lib/kernel_reports.py).
kernel_checks() {
    dmesg > "$R/kernel-log.txt" || return 1
    echo "debug kernel $(uname -r): kernel log saved, $(wc -l < "$R/kernel-log.txt") lines"
}

interactive_shell() {
    cat <<EOF

==== fipc testbed: dom0 shell ====
  Xen daemons are running.  Useful: xl list, xl dmesg, xl console <dom>
  Run a scenario:   fipc-scenario ${FIPC_SCENARIO:-classic}      (results -> /fipc/results)
  Scenarios/lib:    $S/testbed/scenarios, $S/testbed/lib
  Our modules:      $S/modules      domU kernel/ramdisk: \$FIPC_DOMU_KERNEL, \$FIPC_DOMU_RAMDISK
  Leave with "exit" (powers off).  QEMU: Ctrl-] x quits at once.
  Xen console: Ctrl-a three times switches input between Xen and dom0.
EOF
    export FIPC_DOMU_KERNEL FIPC_DOMU_RAMDISK FIPC_SCENARIO
    # A real controlling tty (hvc0) so that job control and Ctrl-C work.
    setsid -c -w bash -l </dev/hvc0 >/dev/hvc0 2>&1
}

if [ "${FIPC_PERSIST_ROOT:-0}" = 1 ] && [ -z "${FIPC_IN_PERSIST:-}" ]; then
    if persist_root; then
        FIPC_IN_PERSIST=1 exec chroot /newroot "$S/testbed/dom0/boot.sh"
    fi
    echo "@@FIPC-FATAL boot.sh: cannot lay dom0's root over its disk /dev/vda"
    power_off
fi
# The boot of this machine: 1, or 2 once a scenario rebooted dom0.
mkdir -p "$TB_STATE"
BOOT_N=$(($(cat "$TB_STATE/boots" 2>/dev/null || echo 0) + 1))
echo "$BOOT_N" > "$TB_STATE/boots"
[ "${FIPC_PERSIST_ROOT:-0}" != 1 ] || echo "dom0 boot $BOOT_N, root on an overlay of /dev/vda"
export FIPC_DOMU_KERNEL FIPC_DOMU_RAMDISK FIPC_NVME_MIB FIPC_PERSIST_ROOT TB_STATE BOOT_N
export FIPC_SCENARIO_BOOT=1
REBOOT=0
[ -z "${FIPC_KASAN_KERNEL:-}" ] ||
    export FIPC_KASAN_KERNEL FIPC_KASAN_RAMDISK FIPC_KASAN_MODULES FIPC_KASAN_CMDLINE
rc=0
if ! fipc_step dom0-setup 60 tb_setup; then
    rc=1
elif ! fipc_step xen-daemons 90 tb_daemons; then
    rc=1
elif [ "$FIPC_MODE" = shell ]; then
    interactive_shell
else
    # The scenario boots the copies tb_setup made in tmpfs.
    [ -z "${FIPC_KASAN_KERNEL:-}" ] ||
        export FIPC_KASAN_KERNEL=/run/fipc/boot/vmlinux-kasan \
            FIPC_KASAN_RAMDISK=/run/fipc/boot/domU-kasan.cpio
    run_scenarios
    rc=$?
    if [ "$REBOOT" = 1 ]; then
        # As a host's reboot: the disk synced, then the machine resets
        # (QEMU exits, -no-reboot; the runner boots it again).
        sync
        echo "@@FIPC-REBOOT rc=$rc"
        sync
        echo b > /proc/sysrq-trigger
        sleep 30
    fi
    if [ "$FIPC_KERNEL_CHECKS" = 1 ] && ! fipc_step kernel-checks 120 kernel_checks; then
        rc=1
    fi
    if [ "${FIPC_SHELL_AFTER:-0}" = 1 ]; then
        interactive_shell
    fi
fi
sync
echo "@@FIPC-DONE rc=$rc"
power_off
