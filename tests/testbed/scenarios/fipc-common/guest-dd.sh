#!/bin/sh
# A driver domain (busybox sh; scenarios phy1-driver-domain and
# fipc-hostile -o BACKEND=dd, started by lib/fipc-drivers.sh's fipc_dd_start).  dom0
# (fipc_dd_pack) ships, next to this script, ddroot.tar: the patched xl
# with its libraries, xenstore-* and /etc/xen (xl.conf, scripts/block-fipc),
# taken from dom0's own root.  fipc and xen-fipc-back are already loaded
# (FIPC_DOMU_LOAD).  Here: install those files, load the Xen device
# modules of this domain's own kernel (the domU image has them), make
# -o DD_NULLB (1) memory-backed null_blk devices, start "xl devd" (it runs
# block-fipc for the backends dom0's libxl creates under
# /local/domain/<us>/backend/fipcblk), report "@@FIPC-DD ready" and serve
# until dom0 writes data/fipc-stop = 1; then check that no fipc backend
# device is left and unload the driver.  While serving, a "DEV WORD" that
# dom0 writes to data/fipc-mailbox goes into the mailbox of /dev/DEV (its
# last 4 KiB), where a guest of this backend reads it (guest-lib.sh's
# fipc_mailbox_is), as dom0's fipc_mailbox_put does for its own devices.
. /fipc/lib.sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
fail() { echo "@@FIPC-DD-FAIL $*"; echo "driver domain: $*"; }
rc=0
# The backend's warnings (refusals, protocol errors) on the console too,
# where dom0 sees them as they happen.
dmesg -n 5

# 1. The toolstack files, without replacing what the image already has
#    (its C library is the same one, and in use).
mkdir -p /tmp/ddroot
tar xf /fipc/scenario/ddroot.tar -C /tmp/ddroot || { fail "cannot unpack ddroot.tar"; exit 1; }
(cd /tmp/ddroot && find . ! -type d) | while read -r f; do
	f=${f#./}
	[ -e "/$f" ] && continue
	mkdir -p "/${f%/*}"
	mv "/tmp/ddroot/$f" "/$f"
done
rm -rf /tmp/ddroot
for n in read write ls exists rm list chmod watch; do
	ln -sf xenstore "/usr/bin/xenstore-$n"
done
# dom0's toolstack directory (xen-4.17 or xen-4.20), as unpacked.
xl=$(ls -d /usr/lib/xen-4.*/bin/xl 2>/dev/null | sort -V | tail -n 1)
[ -n "$xl" ] && [ -x "$xl" ] || { fail "no xl after unpacking"; exit 1; }

# 2. Xen devices: evtchn, gntdev, privcmd (libxl opens them), xenfs.
for m in xen-evtchn xen-gntdev xen-privcmd xenfs; do
	modprobe "$m" || { fail "modprobe $m failed"; exit 1; }
done
mkdir -p /proc/xen 2>/dev/null
mount -t xenfs xenfs /proc/xen 2>/dev/null
[ -d /var ] || mkdir /var
[ -e /var/run ] || ln -s /run /var/run
mkdir -p /run/xen /run/lock /var/log/xen /var/lib/xen
ls -l /dev/xen/
xenstore-read domid || { fail "xenstore is not reachable (xenstore-read domid)"; exit 1; }

# 3. The disks this domain serves: memory-backed null_blk, as dom0's
#    fipc_null_blk makes them.
nullb=$(fipc_opt DD_NULLB 1)
modprobe null_blk nr_devices="$nullb" gb=1 memory_backed=1 bs=512 queue_mode=2 irqmode=0 ||
	{ fail "modprobe null_blk failed"; exit 1; }
i=0
while [ ! -b /dev/nullb$((nullb - 1)) ]; do
	i=$((i + 1))
	[ $i -ge 100 ] && { fail "/dev/nullb$((nullb - 1)) did not appear"; exit 1; }
	sleep 0.1
done
[ -e /sys/bus/xen-backend/drivers/fipcblk ] ||
	{ fail "the fipcblk backend driver is not registered"; exit 1; }

# 4. xl devd: watches our backend directory and runs the hotplug scripts.
"$xl" -vvv devd -F > /fipc/out/devd.log 2>&1 &
devd=$!
sleep 2
if ! kill -0 $devd 2>/dev/null; then
	fail "xl devd exited at once"
	tail -n 20 /fipc/out/devd.log
	exit 1
fi
echo "@@FIPC-DD ready domid=$(xenstore-read domid)"

# mailbox: the "DEV WORD" of data/fipc-mailbox into /dev/DEV's mailbox.
mailbox=
mailbox() {
	mb=$(xenstore-read data/fipc-mailbox 2>/dev/null)
	[ -n "$mb" ] && [ "$mb" != "$mailbox" ] || return 0
	mailbox=$mb
	d=/dev/${mb%% *}
	s=$(cat "/sys/block/${d##*/}/size") || { fail "mailbox: no $d"; return 1; }
	printf '%-16s' "${mb#* }" | dd of="$d" bs=4096 seek=$((s / 8 - 1)) count=1 \
		conv=sync,fsync 2>/dev/null || { fail "mailbox: cannot write $d"; return 1; }
	echo "@@FIPC-DD mailbox $mb"
}

# 5. Serve until dom0 says stop.
while [ "$(xenstore-read data/fipc-stop 2>/dev/null)" != 1 ]; do
	if ! kill -0 $devd 2>/dev/null; then
		fail "xl devd died while serving"
		tail -n 20 /fipc/out/devd.log
		rc=1
		break
	fi
	mailbox || rc=1
	sleep 0.5
done
echo "@@FIPC-DD stopping"

# 6. Nothing may be left: no backend device, no backend directory.
ls /sys/bus/xen-backend/devices/ > /fipc/out/backend-devices.txt 2>&1
if grep -q '^fipcblk-' /fipc/out/backend-devices.txt; then
	fail "fipc backend devices left: $(grep '^fipcblk-' /fipc/out/backend-devices.txt | xargs)"
	rc=1
fi
if xenstore-ls backend/fipcblk > /fipc/out/backend-xenstore.txt 2>&1 &&
   grep -q . /fipc/out/backend-xenstore.txt; then
	fail "xenstore backend/fipcblk not empty: $(head -n 3 /fipc/out/backend-xenstore.txt | xargs)"
	rc=1
fi
kill $devd 2>/dev/null
wait $devd 2>/dev/null
cp /var/log/xen/xen-hotplug.log /fipc/out/ 2>/dev/null
rmmod xen-fipc-back || { fail "rmmod xen-fipc-back failed"; rc=1; }
rmmod fipc || { fail "rmmod fipc failed"; rc=1; }
dmesg > /fipc/out/dmesg.txt
bad=$(fipc_klog_unexplained /fipc/out/dmesg.txt |
	grep -E 'Oops|BUG[: ]|WARNING:|Call Trace|general protection|still in use|leaking|hung_task|soft lockup|RCU stall')
if [ -n "$bad" ]; then
	fail "kernel log has: $(echo "$bad" | head -n 3 | tr '\n' '|')"
	rc=1
fi
if ps -o comm 2>/dev/null | grep -qE '^xf[bf]-poll'; then
	fail "poller threads left after unload"
	rc=1
fi
exit $rc
