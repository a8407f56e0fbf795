#!/bin/sh
# Scenario "io-limits", guest side (busybox sh; guest.sh).  Two
# guests: "capped", whose disk dom0 limits, and "neighbour", served by
# the same backend poller.  dom0 writes each phase into the mailbox xvdm; a guest runs
# its part and prints "@@LIMITS <guest> <phase> done rc=N":
#   alone1, alone2   neighbour: QD 1 4 KiB random reads (capped: nothing)
#   riops, rbps, wiops, wbps
#                    capped: 4 KiB random reads at QD 32, 64 KiB random
#                    reads at QD 16, 4 KiB or 64 KiB random writes
#                    (saturating; deep queues, so that a backend poller
#                    that wakes late still finds work to admit: at QD 4
#                    and 500 64 KiB reads a second, 8 ms late lost rate);
#                    <kind>-free: the same job, dom0 sets no cap; the
#                    neighbour reads at QD 1 beside riops
#   live, slow       capped: riops's job, for dom0's timed windows
#   riops2           capped: riops's job again (dom0 caps it again); the
#                    neighbour reads at QD 1 beside it
#   paced-<N>, paced2-<N>
#                    capped: riops's job paced by fio to N a second; the
#                    neighbour reads at QD 1 beside it (both "paced",
#                    then "paced2")
#   g<KIND>          capped: KIND's job on xvdb and xvdc at once (one fio,
#                    two jobs), under the guest's total
#   bye              everybody: exit
# Jobs run -o LIMIT_S (5) seconds, live -o LIVE_S (16), the free ones and
# slow 8; fio's JSON is <phase>.json.
. /fipc/lib.sh
me=$FIPC_GUEST_NAME
t=$(fipc_opt LIMIT_S 5)
disks="xvdb xvdm"
[ "$me" != capped ] || disks="$disks xvdc"
for d in $disks; do
	fipc_wait_disk $d 120 || exit 1
done

# job PHASE RW BS QD SECONDS [FIO ARGS...]: on xvdb, or as the FIO ARGS
# name (their --name and --filename make the jobs).
job() {
	p=$1 rw=$2 bs=$3 qd=$4 s=$5
	shift 5
	[ $# -gt 0 ] || set -- --name="$p" --filename=/dev/xvdb
	fipc_fio "$p" --ioengine=libaio --direct=1 --rw="$rw" --bs="$bs" \
		--iodepth="$qd" --size=256m --time_based=1 --runtime="$s" "$@"
}

# kind KIND PHASE SECONDS [FIO ARGS...]: capped's job of KIND (riops
# rbps wiops wbps).
kind() {
	k=$1 p=$2 s=$3
	shift 3
	case $k in
	riops) job "$p" randread 4k 32 "$s" "$@" ;;
	rbps) job "$p" randread 64k 16 "$s" "$@" ;;
	wiops) job "$p" randwrite 4k 32 "$s" "$@" ;;
	wbps) job "$p" randwrite 64k 16 "$s" "$@" ;;
	esac
}

echo "@@LIMITS $me ready"
rc=0
while :; do
	fipc_mailbox_next /dev/xvdm
	r=0
	case $me:$phase in
	*:bye) break ;;
	neighbour:alone[12] | neighbour:riops | neighbour:riops2)
		job "$phase" randread 4k 1 "$t" || r=1 ;;
	neighbour:paced-* | neighbour:paced2-*)
		job "${phase%%-*}" randread 4k 1 "$t" || r=1 ;;
	capped:riops | capped:rbps | capped:wiops | capped:wbps)
		kind "$phase" "$phase" "$t" || r=1 ;;
	capped:riops2) kind riops riops2 "$t" || r=1 ;;
	capped:paced-* | capped:paced2-*)
		kind riops "${phase%%-*}" "$t" --name="${phase%%-*}" \
			--filename=/dev/xvdb --rate_iops="${phase#*-}" || r=1 ;;
	capped:griops | capped:grbps | capped:gwiops | capped:gwbps)
		kind "${phase#g}" "$phase" "$t" --name=b --filename=/dev/xvdb \
			--name=c --filename=/dev/xvdc || r=1 ;;
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
