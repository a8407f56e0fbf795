#!/bin/sh
# /fipc/init inside a testbed domU (busybox sh, PID 1), exec'd by the domU
# image's /init after it unpacked the exchange disk /dev/xvdz to /fipc.
# Loads the requested modules, runs /fipc/guest.sh, writes /fipc/out (with
# guest.rc and guest.log) as a tar back over /dev/xvdz and powers off.
# dom0 (lib/fipc-scenario.sh: fipc_domu_wait) unpacks it.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
cd /fipc
set -a; . /fipc/params; set +a
export FIPC_GUEST_NAME
mkdir -p /fipc/out

run() {
    echo "@@FIPC-GUEST $FIPC_GUEST_NAME start uptime=$(cut -d' ' -f1 /proc/uptime)"
    for m in $(cat /fipc/modules/order); do
        if [ -f "/fipc/modules/$m.ko" ]; then
            deps=$(modinfo -F depends "/fipc/modules/$m.ko" 2>/dev/null | tr ',' ' ')
            for d in $deps; do [ -f "/fipc/modules/$d.ko" ] || modprobe "$d"; done
            # -o FRONT_PARAMS="...": the frontend's parameters;
            # -o BACK_PARAMS: a driver domain's backend's.
            p=
            [ "$m" = xen-fipc-front ] && p=${FIPC_OPT_FRONT_PARAMS:-}
            [ "$m" = xen-fipc-back ] && p=${FIPC_OPT_BACK_PARAMS:-}
            echo "insmod /fipc/modules/$m.ko $p"
            # shellcheck disable=SC2086 # $p: several parameters
            insmod "/fipc/modules/$m.ko" $p || { echo "@@FIPC-GUEST insmod $m failed"; return 1; }
        else
            echo "modprobe $m"
            modprobe "$m" || { echo "@@FIPC-GUEST modprobe $m failed"; return 1; }
        fi
    done
    sh /fipc/guest.sh
}
# Output goes both to the console (dom0 keeps it via xenconsoled) and to
# guest.log in the results.
( run; echo $? > /fipc/out/guest.rc ) 2>&1 | tee /fipc/out/guest.log
echo "@@FIPC-GUEST $FIPC_GUEST_NAME done rc=$(cat /fipc/out/guest.rc) uptime=$(cut -d' ' -f1 /proc/uptime)"
# The whole kernel log, for the host's judgement of checking kernels
# (fipc-testbed --kasan: reports in it fail the run).
dmesg > /fipc/out/kernel-log.txt
touch /fipc/out/.fipc-guest-results
if ! tar cf /dev/xvdz -C /fipc/out .; then
    echo "@@FIPC-GUEST could not write results to /dev/xvdz (too large?)"
fi
sync
poweroff -f
