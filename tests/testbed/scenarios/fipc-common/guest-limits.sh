#!/bin/sh
# Scenario "io-limits", guest side (busybox sh; guest-limits.sh).  Two
# guests: "capped", whose disk dom0 limits, and "neighbour", served by
# the same backend poller.  dom0 writes each phase into the mailbox xvdm; a guest runs
# its part and prints "@@LIMITS <guest> <phase> done rc=N":
#   alone1, alone2   neighbour: QD 1 4 KiB random reads (capped: nothing)
#   riops, rbps, wiops, wbps
#                    capped: 4 KiB random reads at QD 8, 64 KiB random
#                    reads at QD 4, 4 KiB or 64 KiB random writes
#                    (saturating); <kind>-free: the same job, dom0 sets no
#                    cap; the neighbour reads at QD 1 beside riops
#   live, slow       capped: riops's job, for dom0's timed windows
#   bye              everybody: exit
# Jobs run -o LIMIT_S (5) seconds, live -o LIVE_S (16), the free ones and
# slow 8; fio's JSON is <phase>.json.
. /fipc/lib.sh
. /fipc/scenario/guest-lib.sh
me=$FIPC_GUEST_NAME
t=$(fipc_opt LIMIT_S 5)
for d in xvdb xvdm; do
	fipc_wait_disk $d 120 || exit 1
done

# job PHASE RW BS QD SECONDS
job() {
	fipc_fio "$1" --name="$1" --filename=/dev/xvdb --ioengine=libaio \
		--direct=1 --rw="$2" --bs="$3" --iodepth="$4" --size=256m \
		--time_based=1 --runtime="$5"
}

# kind KIND PHASE SECONDS: capped's job of KIND (riops rbps wiops wbps).
kind() {
	case $1 in
	riops) job "$2" randread 4k 8 "$3" ;;
	rbps) job "$2" randread 64k 4 "$3" ;;
	wiops) job "$2" randwrite 4k 8 "$3" ;;
	wbps) job "$2" randwrite 64k 4 "$3" ;;
	esac
}

echo "@@LIMITS $me ready"
rc=0
while :; do
	fipc_mailbox_next /dev/xvdm
	r=0
	case $me:$phase in
	*:bye) break ;;
	neighbour:alone[12] | neighbour:riops) job "$phase" randread 4k 1 "$t" || r=1 ;;
	capped:riops | capped:rbps | capped:wiops | capped:wbps)
		kind "$phase" "$phase" "$t" || r=1 ;;
	capped:*-free) kind "${phase%-free}" "$phase" 8 || r=1 ;;
	capped:live) kind riops live "$(fipc_opt LIVE_S 16)" || r=1 ;;
	capped:slow) kind riops slow 8 || r=1 ;;
	*) ;;
	esac
	[ $r -eq 0 ] || rc=1
	echo "@@LIMITS $me $phase done rc=$r"
done
echo "@@LIMITS $me bye rc=$rc"
exit $rc
