#!/bin/sh
# storage-stacks, domU side.  The guest named "stack" verifies its xvdb
# (verify.fio: 512 B to 1 MiB, QD 1 and 32; -o SZ_SMALL, default 1m, and
# -o SZ_BIG, default 4m); "beside" is its neighbour: rounds of
# neighbour_round for -o BESIDE_S seconds (default 45).
. /fipc/lib.sh
fipc_wait_disk xvdb 120 || exit 1
# "gone" (grant) and "gone-ms" (memshare): 4 MiB of direct writes, then
# power off at once (storage-stacks' teardown: the pages the backend
# keeps mapped are still held below it).
case $FIPC_GUEST_NAME in
gone*)
	# Its data path, for dom0 (which may miss it on a loaded host: the
	# guest lives about a second).
	echo "@@FIPC-STACK gone data_path $(cat /sys/bus/xen/devices/fipcblk-51728/statistics/data_path)"
	fipc_fio gone-write --name=gone --filename=/dev/xvdb --ioengine=libaio \
		--direct=1 --rw=write --bs=64k --iodepth=8 --size=4m
	exit $?
	;;
esac
# neighbour_round NAME: 8 MiB of random 4 KiB writes at QD 16 on xvdb,
# each block once, then all of it read back and verified.
neighbour_round() {
	fipc_fio "$1" --name=neighbour --filename=/dev/xvdb --ioengine=libaio \
		--direct=1 --rw=randwrite --bs=4k --iodepth=16 --size=8m \
		--verify=crc32c --verify_fatal=1
}

# stack_verify NAME DISK PATH: verify.fio (-o STACK_SZ_SMALL, default
# 256k: five of them run at once, and the 512-byte jobs take most of the
# time; -o SZ_BIG as for "stack"), then -o FLUSH_SZ (1m) of verified
# 4 KiB writes with a flush every 4 writes, on DISK (stack NAME's phy1:
# disk on data path PATH).
stack_verify() {
	FIPC_DEV=/dev/$2 FIPC_BS_MIN=512 FIPC_SZ_SMALL=$(fipc_opt STACK_SZ_SMALL 256k) \
		FIPC_SZ_BIG=$(fipc_opt SZ_BIG 4m) \
		fipc_fio "$1-phy1-$3-verify" /fipc/scenario/verify.fio || return 1
	fipc_fio "$1-phy1-$3-flush" --name=flush --filename="/dev/$2" \
		--ioengine=libaio --direct=1 --rw=randwrite --bs=4k \
		--iodepth=4 --fsync=4 --offset=120m --size="$(fipc_opt FLUSH_SZ 1m)" \
		--verify=crc32c --verify_fatal=1
}

# stack_discard NAME DISK: where the stack takes discards (DISK's
# discard_max_bytes above 0), 1 MiB of new data at 124 MiB, a discard of
# the MiB on each side of it, and the data read back unchanged.  Says
# "discard NAME: ok", "none" or "FAILED" for dom0.
stack_discard() {
	max=$(cat "/sys/block/$2/queue/discard_max_bytes")
	if [ "$max" = 0 ]; then
		echo "@@FIPC-STACK discard $1: none (discard_max_bytes 0)"
		return 0
	fi
	if dd if=/dev/urandom of="/tmp/discard-$1" bs=1M count=1 2>/dev/null &&
		dd if="/tmp/discard-$1" of="/dev/$2" bs=1M seek=124 oflag=direct conv=notrunc 2>/dev/null &&
		blkdiscard -o $((123 << 20)) -l $((1 << 20)) "/dev/$2" &&
		blkdiscard -o $((125 << 20)) -l $((1 << 20)) "/dev/$2" &&
		dd if="/dev/$2" of="/tmp/discard-$1-back" bs=1M skip=124 count=1 iflag=direct 2>/dev/null &&
		cmp -s "/tmp/discard-$1" "/tmp/discard-$1-back"; then
		echo "@@FIPC-STACK discard $1: ok (discard_max_bytes $max)"
		return 0
	fi
	echo "@@FIPC-STACK discard $1: FAILED (discard_max_bytes $max)"
	return 1
}

# stack_nostaging NAME DISK: stack_verify on DISK, stack NAME's phy1:
# disk that dom0 attaches to the neighbour with grant_staging=N; says
# "nostaging NAME: ok" or "FAILED" for dom0.
stack_nostaging() {
	if fipc_wait_disk "$2" 180 && stack_verify "$1" "$2" nostaging; then
		echo "@@FIPC-STACK nostaging $1: ok"
		return 0
	fi
	echo "@@FIPC-STACK nostaging $1: FAILED"
	return 1
}

# "stacks": each storage stack's device as phy1: (grant), as phy: and as
# phy1: on memshare (-o STACK_DISKS, "NAME:PHY1DISK:PHYDISK:MSDISK ...";
# run.sh sets it).  First the figures, one stack and path at a time, each job
# between markers that dom0 reads its CPU time at: 4 KiB random
# writes at QD 32 and random reads at QD 1 for -o FIG_S (5) seconds each
# on the first 32 MiB.  Then, all stacks at once while the neighbour runs
# its I/O on the same backend poller, each stack's stack_verify on its
# grant disk, then on its memshare disk (the same regions, in turn), then
# its stack_discard.
if [ "$FIPC_GUEST_NAME" = stacks ]; then
	rc=0
	fig=$(fipc_opt FIG_S 5)
	for e in $(fipc_opt STACK_DISKS ""); do
		s=${e%%:*}
		d1=$(echo "$e" | cut -d: -f2) d0=$(echo "$e" | cut -d: -f3)
		for pd in "phy1:$d1" "phy:$d0"; do
			p=${pd%%:*} d=${pd#*:}
			fipc_wait_disk "$d" 120 || exit 1
			for j in w32 r1; do
				if [ $j = w32 ]; then a="--rw=randwrite --iodepth=32"; else a="--rw=randread --iodepth=1"; fi
				echo "@@FIPC-STACK start $s-$p-$j"
				# shellcheck disable=SC2086
				fipc_fio "$s-$p-$j" --name="$j" --filename="/dev/$d" \
					--ioengine=libaio --direct=1 --bs=4k $a --size=32m \
					--time_based=1 --runtime="$fig" || rc=1
				echo "@@FIPC-STACK end $s-$p-$j"
			done
		done
	done
	# The stacks verify at the same time, each in its own subshell.
	echo "@@FIPC-STACK verify"
	pids=''
	for e in $(fipc_opt STACK_DISKS ""); do
		s=${e%%:*}
		d1=$(echo "$e" | cut -d: -f2) dm=$(echo "$e" | cut -d: -f4)
		fipc_wait_disk "$dm" 120 || exit 1
		{
			stack_verify "$s" "$d1" grant && stack_verify "$s" "$dm" memshare &&
				stack_discard "$s" "$d1"
		} &
		pids="$pids $!"
	done
	for p in $pids; do wait "$p" || rc=1; done
	# dom0 reads the disks' counters (discards served) every 2 s while
	# this guest lives, and they go with it: stay long enough for a read
	# after the last discard.
	sleep 6
	exit $rc
fi
# "neighbour": rounds of neighbour_round while its mailbox says "go",
# until it says "stop"; from the first "go" on, beside them, the
# stack_nostaging of each stack's fourth disk (-o NOSTAGING_DISKS,
# "NAME:N ...": its N-th disk, xvdc on), all at once.
if [ "$FIPC_GUEST_NAME" = neighbour ]; then
	n=0 pids='' rc=0
	until fipc_mailbox_is /dev/xvdb stop; do
		if fipc_mailbox_is /dev/xvdb go; then
			if [ $n = 0 ]; then
				for e in $(fipc_opt NOSTAGING_DISKS ""); do
					d=xvd$(echo abcdefghijklmnop | cut -c$((${e##*:} + 1)))
					stack_nostaging "${e%%:*}" "$d" &
					pids="$pids $!"
				done
			fi
			n=$((n + 1))
			neighbour_round "neighbour-$n" || rc=1
			[ $rc = 0 ] || break
		else
			sleep 0.5
		fi
	done
	for p in $pids; do wait "$p" || rc=1; done
	[ $n -gt 0 ] || { echo "neighbour: told to stop before it ran"; exit 1; }
	exit $rc
fi
if [ "$FIPC_GUEST_NAME" = stack ]; then
	FIPC_DEV=/dev/xvdb FIPC_BS_MIN=512 FIPC_SZ_SMALL=$(fipc_opt SZ_SMALL 1m) \
		FIPC_SZ_BIG=$(fipc_opt SZ_BIG 4m) \
		fipc_fio stack-verify /fipc/scenario/verify.fio
	exit $?
fi
end=$(($(cut -d. -f1 /proc/uptime) + $(fipc_opt BESIDE_S 45)))
n=0
while [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; do
	n=$((n + 1))
	neighbour_round "beside-$n" || exit 1
done
