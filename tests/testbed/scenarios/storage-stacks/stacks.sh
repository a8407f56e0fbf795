# shellcheck shell=bash
# storage-stacks, dom0 side: the storage stacks users put under their
# disks, each on sparse files in a tmpfs of dom0 (only written blocks
# take memory), built and torn down with the distribution's own tools.
# No udev runs in the testbed's dom0: LVM and device-mapper create their
# device nodes themselves (DM_DISABLE_UDEV), the kernel's devtmpfs the
# rest.
#
#   stack_up NAME      build stack NAME, print its block device
#   stack_down NAME    take it down again (non-zero if anything stays)
#
# Stacks (each -o STACK_MIB, default 160, MiB):
#   thin   an LVM thin volume in a thin pool (lvm2, thin-provisioning-tools)
#   crypt  dm-crypt, aes-xts-plain64 with a random key, over a loop device
#          (allow_discards: discards go down to the loop file)
#   md     md RAID1 of two loop devices (mdadm; --assume-clean: no resync)
#   nbd    NBD from nbd-server over loopback TCP (nbd-client; the export
#          with trim, so that it takes discards)
#   iscsi  an iSCSI LUN: the kernel's LIO target (a fileio backstore, set
#          up through configfs) logged into by open-iscsi over loopback:
#          iscsi_tcp sends the pages of a write from the socket, so it
#          holds page references after the write ends (issue 45); the
#          backstore with emulate_tpu and emulate_tpws, so that the LUN
#          takes discards

STACK_DIR=/tmp/stacks
STACK_LVM='activation { udev_sync = 0 udev_rules = 0 monitoring = 0 }'
STACK_IQN=iqn.2026-11.org.fipc:stacks
# Exported: each phase (fipc_step) runs in a shell of its own.
export STACK_DIR STACK_LVM STACK_IQN DM_DISABLE_UDEV=1 LVM_SUPPRESS_FD_WARNINGS=1

stack_mib() { fipc_opt STACK_MIB 160; }

# stack_loop NAME: a loop device on a sparse file of stack_mib MiB.
stack_loop() {
	truncate -s "$(stack_mib)M" "$STACK_DIR/$1.img" || return 1
	losetup -f --show "$STACK_DIR/$1.img"
}

stack_lvm() { lvm "$@" --config "$STACK_LVM"; }

stack_up() {
	local mib l a b t
	mib=$(stack_mib)
	if ! mountpoint -q "$STACK_DIR"; then
		mkdir -p "$STACK_DIR"
		mount -t tmpfs -o size=1500m stacks "$STACK_DIR" || return 1
	fi
	case $1 in
	thin)
		l=$(stack_loop thin) || return 1
		echo "$l" > "$STACK_DIR/thin.loop"
		stack_lvm pvcreate -q "$l" >&2 &&
			stack_lvm vgcreate -q fipcvg "$l" >&2 &&
			stack_lvm lvcreate -q -L $((mib - 24))M -T fipcvg/pool >&2 &&
			stack_lvm lvcreate -q -V $((mib - 32))M -T fipcvg/pool -n thin >&2 ||
			return 1
		echo /dev/mapper/fipcvg-thin
		;;
	crypt)
		l=$(stack_loop crypt) || return 1
		echo "$l" > "$STACK_DIR/crypt.loop"
		dmsetup create fipc-crypt --table "0 $((mib * 2048)) crypt aes-xts-plain64 $(od -An -N64 -tx1 /dev/urandom | tr -d ' \n') 0 $l 0 1 allow_discards" >&2 ||
			return 1
		echo /dev/mapper/fipc-crypt
		;;
	md)
		a=$(stack_loop md-a) && b=$(stack_loop md-b) || return 1
		echo "$a $b" > "$STACK_DIR/md.loop"
		mdadm --create /dev/md/fipc --run --quiet --assume-clean \
			--level=1 --raid-devices=2 --metadata=1.2 "$a" "$b" >&2 || return 1
		readlink -f /dev/md/fipc
		;;
	nbd)
		truncate -s "${mib}M" "$STACK_DIR/nbd.img" || return 1
		printf '[generic]\nuser = root\ngroup = root\nlistenaddr = 127.0.0.1\nport = 10809\n[fipc]\nexportname = %s\ntrim = true\n' \
			"$STACK_DIR/nbd.img" > "$STACK_DIR/nbd.conf"
		ip link set lo up
		nbd-server -C "$STACK_DIR/nbd.conf" >&2 || return 1
		modprobe nbd nbds_max=2 || return 1
		fipc_until 10 nbd-client -N fipc 127.0.0.1 10809 /dev/nbd0 >&2 || return 1
		echo /dev/nbd0
		;;
	iscsi)
		truncate -s "${mib}M" "$STACK_DIR/iscsi.img" || return 1
		ip link set lo up
		modprobe -a target_core_mod target_core_file iscsi_target_mod \
			iscsi_tcp sd_mod || return 1
		mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
		t=/sys/kernel/config/target
		mkdir -p $t/core/fileio_0/fipc || return 1
		echo "fd_dev_name=$STACK_DIR/iscsi.img,fd_dev_size=$((mib << 20))" \
			> $t/core/fileio_0/fipc/control || return 1
		echo 1 > $t/core/fileio_0/fipc/enable || return 1
		# UNMAP and WRITE SAME with UNMAP (the file's holes punched):
		# the LUN takes discards, which the initiator's sd sends as the
		# latter (its WRITE SAME refused, 2026-11-29: "critical target
		# error" with emulate_tpu alone).
		echo 1 > $t/core/fileio_0/fipc/attrib/emulate_tpu || return 1
		echo 1 > $t/core/fileio_0/fipc/attrib/emulate_tpws || return 1
		t=$t/iscsi/$STACK_IQN/tpgt_1
		mkdir -p $t/lun/lun_0 "$t/np/127.0.0.1:3260" || return 1
		ln -s /sys/kernel/config/target/core/fileio_0/fipc $t/lun/lun_0/fipc || return 1
		# Demo mode: any initiator, no CHAP (loopback only).
		echo 0 > $t/attrib/authentication
		echo 1 > $t/attrib/generate_node_acls
		echo 0 > $t/attrib/demo_mode_write_protect
		echo 1 > $t/enable || return 1
		mkdir -p /etc/iscsi /run/lock/iscsi
		echo "InitiatorName=iqn.2026-11.org.fipc:dom0" > /etc/iscsi/initiatorname.iscsi
		iscsid >&2 || return 1
		fipc_until 10 iscsiadm -m discovery -t st -p 127.0.0.1 >&2 || return 1
		iscsiadm -m node -T $STACK_IQN -p 127.0.0.1 --login >&2 || return 1
		fipc_until 20 stack_iscsi_disk >/dev/null || return 1
		echo "/dev/$(stack_iscsi_disk)"
		;;
	*)
		fipc_fail "no storage stack '$1'"
		return 1
		;;
	esac
}

# stack_iscsi_disk: the SCSI disk the iSCSI session brought (sdX).
stack_iscsi_disk() {
	local d
	for d in /sys/class/iscsi_session/session*/device/target*/*/block/*; do
		[ -e "$d" ] && [ -b "/dev/${d##*/}" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

stack_down() {
	local l rc=0
	case $1 in
	thin)
		stack_lvm vgchange -q -an fipcvg >&2 || rc=1
		losetup -d "$(cat "$STACK_DIR/thin.loop")" || rc=1
		;;
	crypt)
		dmsetup remove fipc-crypt || rc=1
		losetup -d "$(cat "$STACK_DIR/crypt.loop")" || rc=1
		;;
	md)
		mdadm --stop --quiet /dev/md/fipc || rc=1
		for l in $(cat "$STACK_DIR/md.loop"); do losetup -d "$l" || rc=1; done
		;;
	nbd)
		nbd-client -d /dev/nbd0 >&2 || rc=1
		pkill -x nbd-server
		;;
	iscsi)
		iscsiadm -m node -T $STACK_IQN -p 127.0.0.1 --logout >&2 || rc=1
		iscsiadm -k 0 >&2
		l=/sys/kernel/config/target
		echo 0 > $l/iscsi/$STACK_IQN/tpgt_1/enable
		rm $l/iscsi/$STACK_IQN/tpgt_1/lun/lun_0/fipc
		rmdir $l/iscsi/$STACK_IQN/tpgt_1/lun/lun_0 \
			"$l/iscsi/$STACK_IQN/tpgt_1/np/127.0.0.1:3260" \
			$l/iscsi/$STACK_IQN/tpgt_1 $l/iscsi/$STACK_IQN \
			$l/core/fileio_0/fipc $l/core/fileio_0 || rc=1
		;;
	esac
	[ $rc = 0 ] || fipc_fail "storage stack $1 did not come down cleanly"
	return $rc
}
