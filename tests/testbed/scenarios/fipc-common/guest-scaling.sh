#!/bin/sh
# Scenario "scaling", guest side (busybox sh).  dom0 writes each phase
# into the mailbox xvdm; the guest runs it and prints
# "@@SCALING <phase> done rc=<rc> ios=<reads> front_notify=<notifications>"
# (both summed over the disks the phase used):
#   <mode>-<n>   4 KiB random reads at QD -o SCALE_QD (16) on the first n
#                of xvdb..xvdi, one fio job each, -o SCALE_S (8) seconds
#   share        the same on xvdb and xvdc at QD -o SHARE_QD (32)
#   bye          exit
. /fipc/lib.sh
. /fipc/scenario/guest-lib.sh
DISKS="xvdb xvdc xvdd xvde xvdf xvdg xvdh xvdi"
for d in $DISKS xvdm; do
	fipc_wait_disk $d 120 || exit 1
done
echo "@@SCALING ready"

# vdev DISK: the xenbus device number of xvdb..xvdi (202 << 8 | n << 4).
vdev() {
	n=$(echo "bcdefghi" | awk -v c="${1#xvd}" '{ print index($0, c) }')
	echo $((51712 + n * 16))
}

# front_sum DISKS COUNTER: a frontend counter summed over DISKS.
front_sum() {
	s=0
	for d in $1; do
		v=$(cat "/sys/bus/xen/devices/fipcblk-$(vdev "$d")/statistics/$2" 2>/dev/null)
		s=$((s + ${v:-0}))
	done
	echo $s
}

# run_phase PHASE QD DISKS: one fio job per disk, all at once.
run_phase() {
	job=/tmp/$1.fio
	{
		echo "[global]"
		echo "ioengine=libaio"
		echo "direct=1"
		echo "rw=randread"
		echo "bs=4k"
		echo "iodepth=$2"
		echo "size=256m"
		echo "time_based=1"
		echo "runtime=$(fipc_opt SCALE_S 8)"
		echo "group_reporting=1"
		for d in $3; do
			echo "[$d]"
			echo "filename=/dev/$d"
		done
	} > "$job"
	n0=$(front_sum "$3" notify_sent)
	c0=$(front_sum "$3" completions)
	fipc_fio "$1" "$job"
	r=$?
	n1=$(front_sum "$3" notify_sent)
	c1=$(front_sum "$3" completions)
	echo "@@SCALING $1 done rc=$r ios=$((c1 - c0)) front_notify=$((n1 - n0))"
	return $r
}

rc=0
last=none
while :; do
	phase=$(fipc_mailbox_word /dev/xvdm)
	if [ "$phase" = "$last" ] || [ "$phase" = none ] || [ -z "$phase" ]; then
		sleep 0.3
		continue
	fi
	last=$phase
	case $phase in
	bye) break ;;
	share) run_phase share "$(fipc_opt SHARE_QD 32)" "xvdb xvdc" || rc=1 ;;
	*-[1-8])
		n=${phase##*-}
		run_phase "$phase" "$(fipc_opt SCALE_QD 16)" \
			"$(echo $DISKS | cut -d' ' -f1-"$n")" || rc=1
		;;
	*) echo "scaling: unknown phase '$phase'"; rc=1 ;;
	esac
done
echo "@@SCALING bye rc=$rc"
exit $rc
