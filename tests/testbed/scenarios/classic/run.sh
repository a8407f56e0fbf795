#!/bin/bash
# Scenario "classic" (dom0 side): the baseline that fipc is compared against.
#   null_blk (memory backed) in dom0 -> classic xen-blkback -> xen-blkfront in
#   one PV domU; in the domU fio verify jobs (verify.fio) and a short
#   performance job (perf.fio); then the same performance job dom0-native on
#   the same device.
# Runs on the emulated testbed and on a real Xen dom0 alike, e.g.
#   tests/testbed/scenarios/classic/run.sh --results /tmp/r \
#       --domu-ramdisk domU.cpio [--backing /dev/sdX  # DESTROYS its data]
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"
export FIPC_DOMU_LOAD=""     # stock xen-blkfront is part of the domU image
cfg=$here/domU.cfg
boot_s=120 fio_s=900 wait_s=840
# Scenario "hvm" runs this one with FIPC_CLASSIC_HVM set to its own
# directory: its domU.cfg (an HVM guest, the disk as phy1:), our modules
# on both sides, the compressed kernel (qemu's direct kernel boot wants a
# bzImage, not the ELF vmlinux of PV and PVH guests) and the time an HVM
# guest's firmware takes under TCG (about 5 minutes).
if [ -n "${FIPC_CLASSIC_HVM:-}" ]; then
    cfg=$FIPC_CLASSIC_HVM/domU.cfg
    boot_s=600 fio_s=1600 wait_s=1500
    export FIPC_DOMU_LOAD="fipc xen-fipc-front"
    for k in /fipc/cache/kernel-*/vmlinuz; do
        [ -f "$k" ] && cp "$k" /run/fipc/boot/vmlinuz && break
    done
    [ -f /run/fipc/boot/vmlinuz ] || fipc_die "hvm: no vmlinuz in /fipc/cache"
    export FIPC_DOMU_KERNEL=/run/fipc/boot/vmlinuz
    fipc_step fipc-modules 60 fipc_load_module fipc || exit 1
    fipc_step fipc-back 60 fipc_load_module xen-fipc-back memshare_max_mib=1536 || exit 1
fi

# One backing device per domU (--domus N: several domUs at once, each with
# its own null_blk device; --backing DEV: exactly one domU on DEV).
n=$FIPC_DOMUS
[ "$n" -ge 1 ] || fipc_die "classic needs at least one domU"
if [ -z "$FIPC_BACKING" ]; then
    fipc_step null-blk 60 fipc_null_blk 1 "$n" || exit 1
    FIPC_BACKING=/dev/nullb0
elif [ "$n" -ne 1 ]; then
    fipc_die "--backing takes exactly one domU"
fi
export FIPC_BACKING here n cfg wait_s

backing_of() { [ "$n" -eq 1 ] && echo "$FIPC_BACKING" || echo "/dev/nullb$(($1 - 1))"; }
create_all() {
    local i
    for i in $(seq 1 "$n"); do
        fipc_domu_start "domU$i" "$cfg" "$here/guest.sh" \
            BACKING="$(backing_of "$i")" || return 1
    done
}
wait_all() {   # all domUs run at the same time; collect every one of them
    local i rc=0
    for i in $(seq 1 "$n"); do
        fipc_domu_wait "domU$i" "$wait_s" || rc=1
    done
    return $rc
}
fipc_step domU-create $((boot_s * n)) create_all || exit 1
# hvm: the disk really is a phy1: disk, served by xen-fipc-back.
hvm_disk_is_fipc() {
    ls -d /sys/bus/xen-backend/devices/fipcblk-*-51712 >/dev/null 2>&1 && return 0
    fipc_fail "hvm: xvda has no fipcblk backend in dom0"
    return 1
}
# hvm: once the guest has read 100 times, its disk is on the memshare
# path with the memory mapped writable, and no READ went through staging
# pages: READs by pfn.
hvm_reads() { [ "$(fipc_be_stat "$(xl domid domU1)" 51712 rd_req)" -ge 100 ] 2>/dev/null; }
hvm_disk_memshare() {
    local id p s
    id=$(xl domid domU1) || return 1
    fipc_until 1200 hvm_reads || { fipc_fail "hvm: xvda served $(fipc_be_stat "$id" 51712 rd_req) READs in 1200 s, want 100"; return 1; }
    p=$(fipc_be_stat "$id" 51712 data_path) s=$(fipc_be_stat "$id" 51712 staged_req)
    fipc_log "hvm: xvda on the $p path, rd_req $(fipc_be_stat "$id" 51712 rd_req), staged_req $s, grant_ops $(fipc_be_stat "$id" 51712 grant_ops)"
    dmesg | grep 'memshare: mapped' | tail -n 1
    [ "$p" = memshare ] && [ "$s" = 0 ] && dmesg | grep -q 'memshare: mapped .* pfns writable' && return 0
    fipc_fail "hvm: xvda is on the $p path with $s staged requests (want memshare, its memory mapped writable, 0 staged)"
    return 1
}
if [ -n "${FIPC_CLASSIC_HVM:-}" ]; then
    fipc_step hvm-fipc-disk 30 hvm_disk_is_fipc || exit 1
    fipc_step hvm-memshare 1260 hvm_disk_memshare || exit 1
fi
# Boot + verify + perf inside the guest(s), then collect their results.
fipc_step domU-fio "$fio_s" wait_all || exit 1

export FIPC_DEV=$FIPC_BACKING
export FIPC_PERF_RUNTIME=$(fipc_opt PERF_RUNTIME 5)
fipc_step dom0-perf 120 fipc_fio perf "$here/perf.fio" || exit 1
