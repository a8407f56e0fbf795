#!/bin/sh
# Scenario "scaling", guest side (busybox sh).  dom0 writes each phase
# into the mailbox xvdm; the guest runs it and prints
# "@@SCALING <phase> done rc=<rc> ios=<reads> front_notify=<notifications>
# front_ups=<n> front_downs=<n> front_rebalances=<n> front_at_work=<n>
# front_load=<pct>" (reads and notifications summed over the disks the
# phase used; then the scale events of xen-fipc-front's pollers over the
# phase, the most of them at work and their highest load, sampled each
# second):
#   <mode>-<n>   random reads of -o SCALE_BS (4k) at QD -o SCALE_QD (16) on
#                the first n of xvdb..xvdi, one fio job each, -o SCALE_S
#                (8) seconds
#   share        the same on xvdb and xvdc at QD -o SHARE_QD (32), blocks
#                of -o SHARE_BS (1m: the grant maps and unmaps of 256
#                pages a request load the backend's poller to 95-100%)
#   [front-]verify-8
#                heavy, light, heavy: 16 KiB random writes at QD 16 on all
#                eight disks, then one 4 KiB write per disk every 100 ms,
#                then heavy again; every block read back and checked
#                (crc32c, verify_fatal) right after its job's writes, so
#                the backend's pollers spread, gather and spread again
#                while the data is in flight (mode "moves" of run.sh;
#                with "front-", the guest's own pollers, mode "front")
#   bye          exit
. /fipc/lib.sh
. /fipc/scenario/poller-fields.sh
DISKS="xvdb xvdc xvdd xvde xvdf xvdg xvdh xvdi"
# xen-fipc-front's pollers (poller-fields.sh reads them).
FRONT_POLLERS=/sys/module/xen_fipc_front/parameters/poller_cpus
for d in $DISKS xvdm; do
	fipc_wait_disk $d 120 || exit 1
done
echo "scaling: xen-fipc-front's pollers: $(tr '\n' ';' < "$FRONT_POLLERS")"
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

# sample_at_work FILE: while FILE exists, keep in FILE.max the most of
# the frontend's pollers at work and their highest load, looking each
# second.
sample_at_work() {
	m=0
	lm=0
	while [ -f "$1" ]; do
		w=$(poller_autoscale "$FRONT_POLLERS" pollers_at_work)
		[ "$w" -gt $m ] && m=$w
		l=$(poller_load_max "$FRONT_POLLERS")
		[ "$l" -gt $lm ] && lm=$l
		echo "$m $lm" > "$1.max"
		sleep 1
	done
}

# measure PHASE DISKS JOB: run fio JOB and print PHASE's line, with the
# completions and notifications of DISKS and the frontend's scale events
# over it.
measure() {
	n0=$(front_sum "$2" notify_sent)
	c0=$(front_sum "$2" completions)
	u0=$(poller_autoscale "$FRONT_POLLERS" scale_ups)
	d0=$(poller_autoscale "$FRONT_POLLERS" scale_downs)
	b0=$(poller_autoscale "$FRONT_POLLERS" rebalances)
	: > /tmp/sampling
	echo "0 0" > /tmp/sampling.max
	sample_at_work /tmp/sampling &
	fipc_fio "$1" "$3"
	r=$?
	rm -f /tmp/sampling
	wait
	n1=$(front_sum "$2" notify_sent)
	c1=$(front_sum "$2" completions)
	echo "scaling: $1 front pollers: $(tr '\n' ';' < "$FRONT_POLLERS")"
	echo "@@SCALING $1 done rc=$r ios=$((c1 - c0)) front_notify=$((n1 - n0))" \
		"front_ups=$(($(poller_autoscale "$FRONT_POLLERS" scale_ups) - u0))" \
		"front_downs=$(($(poller_autoscale "$FRONT_POLLERS" scale_downs) - d0))" \
		"front_rebalances=$(($(poller_autoscale "$FRONT_POLLERS" rebalances) - b0))" \
		"front_at_work=$(cut -d' ' -f1 /tmp/sampling.max)" \
		"front_load=$(cut -d' ' -f2 /tmp/sampling.max)"
	return $r
}

# run_phase PHASE QD DISKS [BS]: one fio job per disk, all at once, random
# reads of BS (4k) blocks.
run_phase() {
	job=/tmp/$1.fio
	{
		echo "[global]"
		echo "ioengine=libaio"
		echo "direct=1"
		echo "rw=randread"
		echo "bs=${4:-4k}"
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
	measure "$1" "$3" "$job"
}

# verify_phase PHASE: the three stonewalled groups of verify-8.
verify_phase() {
	job=/tmp/$1.fio
	{
		echo "[global]"
		echo "ioengine=libaio"
		echo "direct=1"
		echo "rw=randwrite"
		echo "verify=crc32c"
		echo "verify_fatal=1"
		echo "do_verify=1"
		echo "group_reporting=1"
		for g in heavy1 light heavy2; do
			for d in $DISKS; do
				echo "[$g-$d]"
				echo "filename=/dev/$d"
				# each group starts once the one before it is done
				if [ $g != heavy1 ] && [ $d = xvdb ]; then
					echo "stonewall"
				fi
				case $g in
				light)
					echo "bs=4k"
					echo "size=128k"
					echo "offset=8m"
					echo "iodepth=1"
					echo "thinktime=100000"
					;;
				*)
					echo "bs=16k"
					echo "size=$(fipc_opt VERIFY_MB 4)m"
					[ $g = heavy2 ] && echo "offset=16m"
					echo "iodepth=16"
					;;
				esac
			done
		done
	} > "$job"
	measure "$1" "$DISKS" "$job"
}

rc=0
while :; do
	fipc_mailbox_next /dev/xvdm
	case $phase in
	bye) break ;;
	verify-8 | front-verify-8) verify_phase "$phase" || rc=1 ;;
	share)
		run_phase share "$(fipc_opt SHARE_QD 32)" "xvdb xvdc" \
			"$(fipc_opt SHARE_BS 1m)" || rc=1
		;;
	*-[1-8])
		n=${phase##*-}
		run_phase "$phase" "$(fipc_opt SCALE_QD 16)" \
			"$(echo $DISKS | cut -d' ' -f1-"$n")" \
			"$(fipc_opt SCALE_BS 4k)" || rc=1
		;;
	*) echo "scaling: unknown phase '$phase'"; rc=1 ;;
	esac
done
echo "@@SCALING bye rc=$rc"
exit $rc
