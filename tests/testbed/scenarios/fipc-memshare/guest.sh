#!/bin/sh
# fipc-memshare, domU side: xvdb (one channel per vCPU) and xvdc (one
# channel), both phy1: disks with memshare=on on the same null_blk.
#   1. both disks must be on the memshare data path, with staging pages;
#   2. fio verify (crc32c) 512 B/4 KiB/1 MiB, QD 1/32 on both;
#   3. a timed run of 4 KiB random reads and writes on xvdb (WRITEs by
#      pfn; READs through the staging pages in a PV guest, whose memory
#      is shared read-only, by pfn in a PVH guest, whose memory is shared
#      writable) between two mailbox words, dom0 taking the backend's
#      counters before it says "go" and after "@@FIPC-MS timed-done"
#      ("@@FIPC-MS timed-ready" -> dom0 "go", "@@FIPC-MS timed-done" ->
#      dom0 "ack");
#   4. hostile requests, memshare and staging kinds included (a READ by
#      pfn is refused in a PV guest, served in a PVH guest);
#   5. balloon down and back up (new frames behind those pfns), then
#      buffered writes through the page cache, which reuses those pages:
#      their WRITEs cannot go by pfn (memshare_fallbacks must grow: in a
#      PVH guest only if the gfns given back were seen going) and
#      go through staging pages; the data is read back O_DIRECT and
#      checked, then fio verify once more;
#   6. reconnect cycles: both frontend devices unbound and bound again,
#      -o CYCLES (3) times as fast as the guest can, each connect mapping
#      the guest's memory anew in dom0 (dom0 checks that its backend
#      paced them and that xenwatch stayed free); both disks come back on
#      memshare and 1 MiB written at 900 MiB reads back the same;
#   7. "@@FIPC-MS counters": dom0 takes the final counters, posts "done".
. /fipc/lib.sh
export FIPC_SZ_SMALL=$(fipc_opt SZ_SMALL 1m) FIPC_SZ_BIG=$(fipc_opt SZ_BIG 4m)
timed=$(fipc_opt TIMED_RUNTIME 10)
rc=0
# A PV guest shares its memory read-only (READs staged, a READ by pfn
# refused); a PVH guest writable (READs by pfn, served).
if [ "$(cat /sys/hypervisor/guest_type 2>/dev/null)" = PVH ]; then
	access=writable ms_read=0
else
	access=read-only ms_read=-1
fi
echo "fipc-memshare: $(cat /sys/hypervisor/guest_type 2>/dev/null) guest, memory to be shared $access"
st=/sys/bus/xen/devices/fipcblk-51728/statistics
# -o EXTRA_VERIFY=0: no verify of xvdc before the timed run, none of xvdb
# after the balloon step (the page-cache data is still checked).
extra=$(fipc_opt EXTRA_VERIFY 1)

# wait_word WORD SECONDS: wait for dom0's word in the mailbox of xvdb.
wait_word() {
	i=0
	while ! fipc_mailbox_is /dev/xvdb "$1"; do
		i=$((i + 1))
		[ $i -lt $(($2 * 5)) ] || { echo "fipc-memshare: no '$1' from dom0 in $2 s"; return 1; }
		sleep 0.2
	done
}

fipc_wait_disk xvdb 120 || exit 1
fipc_wait_disk xvdc 120 || exit 1
for d in 51728 51744; do
	s=/sys/bus/xen/devices/fipcblk-$d/statistics
	p=$(cat $s/data_path)
	echo "fipc-memshare: fipcblk-$d $(cat $s/queues) queue(s), $p data path, $(cat $s/staging_pages) staging pages"
	[ "$p" = memshare ] || { echo "fipc-memshare: fipcblk-$d is on the $p path"; rc=1; }
	[ "$(cat $s/staging_pages)" -gt 0 ] || { echo "fipc-memshare: fipcblk-$d has no staging pages"; rc=1; }
done
dmesg | grep -i memshare
dmesg | grep -q "memshare: .* granted $access to domain" ||
	{ echo "fipc-memshare: the memory was not granted $access"; rc=1; }
FIPC_DEV=/dev/xvdb FIPC_BS_MIN=512 fipc_fio verify-xvdb /fipc/scenario/verify.fio || rc=1
[ "$extra" = 0 ] ||
	FIPC_DEV=/dev/xvdc FIPC_BS_MIN=512 fipc_fio verify-xvdc /fipc/scenario/verify.fio || rc=1
fipc_front_stats 51728 /fipc/out/front-after-verify.json

# dom0 takes the counters before its "go" and after "timed-done": the
# window holds the job and the reads of the mailbox (on xvdb) that wait
# for those words, READs like the job's, however late dom0 answers.
echo "@@FIPC-MS timed-ready"
if wait_word go 300; then
	echo "@@FIPC-MS timed-start"
	rp0=$(fipc_front_stat 51728 memshare_read_pfns)
	fipc_fio timed-xvdb --name=timed --filename=/dev/xvdb --ioengine=libaio \
		--direct=1 --rw=randrw --bs=4k --iodepth=32 --offset=128m \
		--size=64m --time_based=1 --runtime="$timed" || rc=1
	rp1=$(fipc_front_stat 51728 memshare_read_pfns)
	echo "@@FIPC-MS timed-done"
	# READs by pfn exactly where the memory is shared writable.
	echo "fipc-memshare: xvdb memshare_read_pfns $rp0 -> $rp1 over the timed run"
	if [ $access = writable ]; then
		[ "$rp1" -gt "$rp0" ] || { echo "fipc-memshare: no READ by pfn in the timed run"; rc=1; }
	else
		[ "$rp1" = 0 ] || { echo "fipc-memshare: $rp1 READs by pfn on read-only shared memory"; rc=1; }
	fi
	wait_word ack 300 || rc=1
else
	rc=1
fi

fipc_hostile fipcblk-51728 good_read=0 bad_op=-2 bad_flags=-1 zero_len=-1 \
    too_big=-1 bad_len=-1 bad_offset=-1 offset_page=-1 beyond_end=-1 \
    straddle_end=-1 overflow=-1 misaligned=0 slots_short=-1 slots_long=-1 \
    bad_gref=-1 unowned_gref=-1 ro_grant_read=-1 flush_data=-1 \
    discard_offset=-2 discard_secure=-2 ms_write=0 ms_read=$ms_read \
    ms_bad_pfn=-1 ms_unshared_pfn=-1 st_bad_index=-1 st_both_flags=-1 \
    > /fipc/out/hostile.txt 2>&1 || rc=1
cat /fipc/out/hostile.txt

# Balloon: give back some memory (-o BALLOON_MB, default 96 MiB), take it
# again (new frames behind those pfns), then verify once more.
b=/sys/devices/system/xen_memory/xen_memory0
if [ -w $b/target_kb ]; then
	t=$(cat $b/target_kb)
	echo $((t - $(fipc_opt BALLOON_MB 96) * 1024)) > $b/target_kb
	sleep 5
	down=$(cat $b/info/current_kb)
	echo $t > $b/target_kb
	# The balloon driver retries with growing delays: give it 60 s.
	i=0
	while [ "$(cat $b/info/current_kb)" -lt "$t" ] && [ $i -lt 60 ]; do
		sleep 1
		i=$((i + 1))
	done
	up=$(cat $b/info/current_kb)
	echo "fipc-memshare: balloon target $t kB: down to $down kB, back to $up kB"
	echo "{\"target_kb\": $t, \"down_kb\": $down, \"up_kb\": $up}" > /fipc/out/balloon.json
else
	echo "fipc-memshare: no balloon driver ($b/target_kb)"
	rc=1
fi
# The page cache takes the pages the balloon gave back (freed last, used
# first): buffered writes of -o PAGECACHE_MB (default 256 MiB) on xvdc,
# synced, then read back O_DIRECT and checked (crc32c headers).
fb0=$(cat /sys/bus/xen/devices/fipcblk-51744/statistics/memshare_fallbacks)
pc="--filename=/dev/xvdc --bs=64k --offset=256m --size=$(fipc_opt PAGECACHE_MB 256)m --verify=crc32c"
fipc_fio pagecache-write --name=pagecache $pc --rw=write --direct=0 \
	--do_verify=0 --end_fsync=1 || rc=1
fipc_fio pagecache-check --name=pagecache $pc --rw=read --direct=1 \
	--verify_only=1 || rc=1
fb1=$(cat /sys/bus/xen/devices/fipcblk-51744/statistics/memshare_fallbacks)
echo "fipc-memshare: xvdc memshare_fallbacks $fb0 -> $fb1 over the page-cache writes"
echo "{\"fallbacks_before\": $fb0, \"fallbacks_after\": $fb1}" > /fipc/out/pagecache.json
[ "$fb1" -gt "$fb0" ] || { echo "fipc-memshare: no WRITE fell back after the balloon step (pages with new frames never written?)"; rc=1; }
[ "$extra" = 0 ] ||
	FIPC_DEV=/dev/xvdb FIPC_BS_MIN=512 fipc_fio verify-xvdb-balloon /fipc/scenario/verify.fio || rc=1
fipc_front_stats 51728 /fipc/out/front-final.json
fipc_front_stats 51744 /fipc/out/front-xvdc-final.json
cat /fipc/out/front-final.json
echo "fipc-memshare: memshare_fallbacks xvdb $(cat /sys/bus/xen/devices/fipcblk-51728/statistics/memshare_fallbacks) xvdc $fb1 after the balloon step"
dmesg | grep -i -E 'memshare|grant' | tail -n 20

drv=/sys/bus/xen/drivers/fipcblk
cycles=$(fipc_opt CYCLES 3)
n=0
while [ $n -lt "$cycles" ]; do
	n=$((n + 1))
	for d in 51728 51744; do
		echo fipcblk-$d > $drv/unbind ||
			{ echo "fipc-memshare: cycle $n: unbinding fipcblk-$d failed"; rc=1; }
	done
	for d in 51728 51744; do
		echo fipcblk-$d > $drv/bind ||
			{ echo "fipc-memshare: cycle $n: binding fipcblk-$d failed"; rc=1; }
	done
done
t0=$(date +%s)
if fipc_wait_disk xvdb 120 && fipc_wait_disk xvdc 120; then
	echo "fipc-memshare: $cycles reconnect cycles, both disks back $(($(date +%s) - t0)) s after the last bind"
	for d in 51728 51744; do
		p=$(cat /sys/bus/xen/devices/fipcblk-$d/statistics/data_path)
		[ "$p" = memshare ] || { echo "fipc-memshare: fipcblk-$d is on the $p path after the reconnect cycles"; rc=1; }
	done
	dd if=/dev/urandom of=/tmp/cycled bs=64k count=16 2>/dev/null
	dd if=/tmp/cycled of=/dev/xvdc bs=64k seek=14400 oflag=direct conv=notrunc 2>/dev/null &&
		dd if=/dev/xvdc bs=64k skip=14400 count=16 iflag=direct 2>/dev/null | cmp -s - /tmp/cycled ||
		{ echo "fipc-memshare: 1 MiB written to xvdc after the reconnect cycles did not read back the same"; rc=1; }
else
	echo "fipc-memshare: the disks did not come back after $cycles reconnect cycles"
	rc=1
fi

echo "@@FIPC-MS counters"
wait_word done 120 || rc=1
exit $rc
