#!/bin/sh
# fipc-migrate, domU side: on xvdb (grant), xvdc (memshare) and xvdf
# (grant, slow; fio) a loop that reads back each write at once (raw_check,
# below), and rounds of verified random writes on four fipc disks at once
# (xvdb: grant, xvdc: memshare, xvdd: memshare on a disk that takes 1.5 s
# a request, xvdf: grant on such a disk, both kept busy by background
# reads, so that requests are in flight whenever the guest is suspended)
# while dom0 saves, restores and migrates the guest.  On the slow disks
# only asynchronous I/O (fio on io_uring), which a
# suspend can find in flight (see raw_check_fio).  Each round writes new data
# (randrepeat=0) and reads all of it back.  When dom0 puts "stop" in
# xvdb's mailbox, one more round, then the end; every round must pass.
# Each round starts with a flush and a discard on xvde (a dom0 loop
# device that discards): 1 MiB of new data written and flushed (fsync),
# then discarded, must read back as zeroes, so both work on every
# connection the guest has had, the ones made again after a resume
# included.
. /fipc/lib.sh
for d in xvdb xvdc xvdd xvde xvdf; do
    fipc_wait_disk $d 120 || exit 1
done
echo "@@FIPC-MIGRATE xvde: write cache '$(cat /sys/block/xvde/queue/write_cache)', discard_max_bytes $(cat /sys/block/xvde/queue/discard_max_bytes)"
dd if=/dev/zero of=/tmp/zero-1m bs=1M count=1 2>/dev/null
# Reads that never stop on another region of xvdd and of xvdf (1.5 s
# each, 6 at a time on each): requests are in flight on both at every
# suspend.  A request must outlast the window between the freezing of
# user space (fio stops sending) and the suspend: with 600 ms and 4 at a
# time a PVH guest's live migration once found only 1 left.
# fio stops at the trigger file, with its results.
rm -f /tmp/stop-background
fio --output-format=json --output=/fipc/out/background.json \
    --trigger-file=/tmp/stop-background \
    --rw=randread --bs=4k --iodepth=6 --ioengine=io_uring --direct=1 \
    --time_based --runtime=100000 --offset=32m --size=16m \
    --name=xvdd-background --filename=/dev/xvdd \
    --name=xvdf-background --filename=/dev/xvdf \
    > /dev/null 2>&1 &
bgpid=$!
# raw_check DISK VDEV MIB: read after write until /tmp/stop-raw, on 64
# blocks of 4 KiB at MIB MiB of DISK: each write new (the disk and a
# sequence number), read back at once, both O_DIRECT.  Every read must
# return what was just written, never an older write of the same block
# (a stale READ: issue 45, finding 2): across each suspend, the write
# before it is read after the resume.  The loop notes each resume of the
# disk it sees (statistics/resumes) and ends with "WRITES MISMATCHES
# RESUMES_SEEN" in /fipc/out/raw-DISK.
raw_check() {
    d=$1 st=/sys/bus/xen/devices/fipcblk-$2/statistics/resumes
    base=$(($3 * 256)) seq=0 bad=0 seen=0 r0=$(cat "$st")
    while [ ! -e /tmp/stop-raw ]; do
        seq=$((seq + 1))
        b=$((base + seq % 64))
        printf 'fipc-raw %s %010d\n' "$d" "$seq" |
            dd of=/tmp/raw-$d-w bs=4096 conv=sync 2>/dev/null
        if dd if=/tmp/raw-$d-w of=/dev/$d bs=4096 seek=$b oflag=direct conv=notrunc 2>/dev/null &&
            dd if=/dev/$d of=/tmp/raw-$d-r bs=4096 skip=$b count=1 iflag=direct 2>/dev/null; then
            if ! cmp -s /tmp/raw-$d-w /tmp/raw-$d-r; then
                bad=$((bad + 1))
                echo "@@FIPC-MIGRATE raw $d: write $seq read back as '$(head -c 32 /tmp/raw-$d-r | tr -d '\0\n')'"
            fi
        else
            bad=$((bad + 1))
            echo "@@FIPC-MIGRATE raw $d: I/O error at write $seq"
            sleep 1
        fi
        r=$(cat "$st")
        if [ "$r" != "$r0" ]; then
            seen=$((seen + r - r0))
            r0=$r
            echo "@@FIPC-MIGRATE raw $d: resume seen at write $seq"
        fi
    done
    echo "$seq $bad $seen" > /fipc/out/raw-$d
}
# raw_check_fio DISK VDEV MIB: the same with one fio (io_uring) that runs
# until /tmp/stop-raw-aio: random writes of new data on the 64 blocks,
# 8 at a time, each 8 read back and checked (verify_backlog; the header
# names the write, so an older write of the block does not pass).
# Asynchronous, so that fio freezes at once with its requests in flight;
# a dd waits for its I/O in a sleep the freezer waits for: a suspend never
# finds a dd's request in flight, and on a slow disk a dd holds the
# suspend back for as long as its request takes, while the other disks'
# requests end.  Its mismatches: 0, or 1 if fio failed.
raw_check_fio() {
    d=$1 st=/sys/bus/xen/devices/fipcblk-$2/statistics/resumes
    r0=$(cat "$st") bad=0
    fio --name=raw --filename=/dev/$d --offset=$3m --size=256k --bs=4k \
        --rw=randwrite --randrepeat=0 --ioengine=io_uring --direct=1 \
        --iodepth=8 --verify=crc32c --verify_backlog=8 --verify_fatal=1 \
        --time_based --runtime=100000 --trigger-file=/tmp/stop-raw-aio \
        --output-format=json --output=/tmp/raw-$d.json \
        2> /fipc/out/raw-$d.err > /dev/null || bad=1
    [ $bad = 0 ] || echo "@@FIPC-MIGRATE raw $d: $(head -n 2 /fipc/out/raw-$d.err | tr '\n' ' ')"
    # Not in /fipc/out: the host would take it for a verify job, whose
    # reads must cover its writes (the last ones here are never read).
    w=$(grep -o '"total_ios" : [0-9]*' /tmp/raw-$d.json | sed -n '2s/.* //p')
    echo "${w:-0} $bad $(($(cat "$st") - r0))" > /fipc/out/raw-$d
}
# disk_state TAG DISK VDEV WHY: the state of a disk on the console, each
# line "@@FIPC-MIGRATE TAG DISK: ...": its frontend's counters and xenbus
# state, the block layer's (blk-mq debugfs: requeue list, each hardware
# queue's state, dispatch list, busy requests, runs and tags: a request
# put off for want of grant references is run again every few ms) and
# the pollers'.
disk_state() {
    t=$1
    shift
    echo "@@FIPC-MIGRATE $t $1: $3"
    {
        echo "inflight $(cat /sys/block/$1/inflight) xenbus state $(cat /sys/bus/xen/devices/fipcblk-$2/state 2>/dev/null)"
        grep -H . /sys/bus/xen/devices/fipcblk-$2/statistics/* | sed 's|.*/||' | tr '\n' ' '
        echo
        cat /sys/kernel/debug/xen-fipc-front/fipcblk-$2/counters | tr '\n' ' '
        echo
        cd /sys/kernel/debug/block/$1 &&
            grep -H . state requeue_list hctx*/state hctx*/flags \
                hctx*/dispatch hctx*/busy hctx*/run hctx*/tags \
                hctx*/cpu*/*_rq_list 2>/dev/null
        cd /
        cat /sys/module/xen_fipc_front/parameters/poller_cpus
    } 2>&1 | sed "s/^/@@FIPC-MIGRATE $t $1: /"
}
# procs_state TAG: each fio process's and thread's state and where it
# waits (wchan, syscall, kernel stack): a round with none of its requests
# in flight waits on something else.
procs_state() {
    for p in /proc/[0-9]*; do
        [ "$(cat $p/comm 2>/dev/null)" = fio ] || continue
        echo "@@FIPC-MIGRATE $1 fio ${p#/proc/}: $(tr '\0' ' ' < $p/cmdline | cut -c1-100)"
        echo "@@FIPC-MIGRATE $1 fio ${p#/proc/} disks: $(ls -l $p/fd 2>/dev/null | grep -o '/dev/xvd.' | sort -u | tr '\n' ' ')io: $(tr '\n' ' ' < $p/io 2>/dev/null)"
        for t in $p/task/*; do
            echo "@@FIPC-MIGRATE $1 fio ${p#/proc/} thread ${t##*/}: state $(cut -d' ' -f3 $t/stat) wchan $(cat $t/wchan 2>/dev/null) syscall $(cut -d' ' -f1-3 $t/syscall 2>/dev/null)"
            sed "s/^/@@FIPC-MIGRATE $1 fio ${p#/proc/} thread ${t##*/}: /" $t/stack 2>/dev/null
        done
    done
}
# stall_watch: every 5 s, each fipc disk's completions (/sys/block/X/stat)
# and requests in flight; a disk with requests in flight and no
# completion for 60 s of the guest's running time (12 looks; a suspend
# does not count) has its state printed (disk_state), again each minute
# while it lasts.  Requests the driver has not been given (a queue that
# does not run, tags all taken) are not in flight: the kernel's hung task
# report (60 s here, with the blocked task's stack) has every blocked
# task's stack (sysrq w) and every disk's state printed once ("hung"
# lines; a "stall" line fails the run); so has a round that runs for
# over 240 s, once ("stall"), with each fio's state (procs_state) and
# the slow disks' again 10 s later ("stall-again").
stall_watch() {
    [ -d /sys/kernel/debug/block ] || mount -t debugfs none /sys/kernel/debug
    echo 60 > /proc/sys/kernel/hung_task_timeout_secs
    hung=0 slow=0
    while true; do
        for v in 51728 51744 51760 51776 51792; do
            x=xvd$(echo bcdef | cut -c$(((v - 51712) / 16)))
            set -- $(cat /sys/block/$x/stat)
            done_now=$(($1 + $5 + ${12:-0} + ${16:-0}))
            eval "last=\${wd_done_$x:-x} n=\${wd_n_$x:-0}"
            if [ "$9" -gt 0 ] && [ "$done_now" = "$last" ]; then
                n=$((n + 1))
            else
                n=0
            fi
            eval "wd_done_$x=$done_now wd_n_$x=$n"
            [ $n -ge 12 ] && [ $((n % 12)) = 0 ] &&
                disk_state stall $x $v "$9 request(s) in flight, no completion for $((n * 5)) s"
        done
        # A round that has run 240 s of the guest's running time (48
        # looks; one takes 40 to 150 s, a resume in it included): a
        # request of it never answered while the others go on (fio waits
        # for it in an interruptible sleep).
        r=$(cat /tmp/round-n 2>/dev/null)
        if [ "$r" != "${round_last:-}" ]; then
            round_last=$r round_looks=0
        fi
        round_looks=$((round_looks + 1))
        if [ $slow = 0 ] && [ $round_looks -gt 48 ]; then
            slow=1
            echo w > /proc/sysrq-trigger
            for v in 51728 51744 51760 51776 51792; do
                disk_state stall xvd$(echo bcdef | cut -c$(((v - 51712) / 16))) $v "round $r running for over 240 s"
            done
            procs_state stall
            # The slow disks' busy requests again: those in both looks
            # have waited 10 s or more (a request takes 1.5 s).
            sleep 10
            disk_state stall-again xvdd 51760 "10 s later"
            disk_state stall-again xvdf 51792 "10 s later"
        fi
        if [ $hung = 0 ] && dmesg | grep -q 'blocked for more than'; then
            hung=1
            # Every blocked task's stack, kernel threads' too.
            echo w > /proc/sysrq-trigger
            for v in 51728 51744 51760 51776 51792; do
                disk_state hung xvd$(echo bcdef | cut -c$(((v - 51712) / 16))) $v "a task hung (its stack above)"
            done
        fi
        sleep 5
    done
}
stall_watch &
watch=$!
rm -f /tmp/stop-raw /tmp/stop-raw-aio
raw_check xvdb 51728 512 &
rawb=$!
raw_check xvdc 51744 640 &
rawc=$!
raw_check_fio xvdf 51792 48 &
rawf=$!
echo "@@FIPC-MIGRATE running"
n=0
bad=0
# A PVH guest does I/O several times slower than a PV one under TCG:
# smaller rounds, so that it still goes through several.
mb=2
[ "$(cat /sys/hypervisor/guest_type 2>/dev/null)" = PVH ] && mb=1
echo "@@FIPC-MIGRATE $(cat /sys/hypervisor/guest_type 2>/dev/null) guest, rounds of ${mb} MiB"
# flush_discard: on xvde, at a MiB that moves each round, new data is
# written and flushed, then discarded; it must read back as zeroes.
flush_discard() {
    off=$((n % 32))
    dd if=/dev/urandom of=/dev/xvde bs=1M count=1 seek=$off conv=fsync 2>/dev/null ||
        { echo "@@FIPC-MIGRATE round $n: write + flush on xvde failed"; return 1; }
    blkdiscard -o $((off << 20)) -l $((1 << 20)) /dev/xvde ||
        { echo "@@FIPC-MIGRATE round $n: discard on xvde failed"; return 1; }
    # Drop what the page cache still holds of it: read from the disk.
    blockdev --flushbufs /dev/xvde
    dd if=/dev/xvde of=/tmp/discarded bs=1M count=1 skip=$off 2>/dev/null &&
        cmp /tmp/discarded /tmp/zero-1m >/dev/null ||
        { echo "@@FIPC-MIGRATE round $n: xvde does not read back zeroes after the discard"; return 1; }
}

# round: a flush and a discard on xvde, then one fio run on the four
# other disks, each writing new data (randrepeat=0) and reading it all
# back.  With io_uring, not libaio: fio 3.33's libaio engine (Debian
# 12's) calls io_getevents() again with the same minimum after one that
# a signal cut short, so a job whose last reap (min_nr = all it has in
# flight) the suspend's freezer interrupts waits forever for events
# already taken: the round then hangs with none of its requests in
# flight (issue 45's stall: io_getevents(min_nr 7) in the stall watch's
# stacks, 2026-11-30; fio fixed it in 3.35, upstream pull request 1556).
# fio's io_uring engine counts what it took.  So do the background and
# read-after-write jobs: a reap that a suspend cut short loses its
# events whenever it comes, and the job then waits for them at its end
# (the raw job on xvdf, in its verify state, 300 s after the trigger,
# then a forced exit and a double free in fio; after a PV checkpoint,
# CI of 9937501, 2026-11-30).
round() {
    n=$((n + 1))
    echo $n > /tmp/round-n
    flush_discard || bad=$((bad + 1))
    fio --output-format=json --output=/fipc/out/round.json \
        --ioengine=io_uring --direct=1 --rw=randwrite --bs=4k \
        --randrepeat=0 --verify=crc32c --do_verify=1 --verify_fatal=1 \
        --name=xvdb --filename=/dev/xvdb --offset=0 --size=${mb}m --iodepth=16 \
        --name=xvdc --filename=/dev/xvdc --offset=256m --size=${mb}m --iodepth=16 \
        --name=xvdd --filename=/dev/xvdd --offset=0 --size=128k --iodepth=8 \
        --name=xvdf --filename=/dev/xvdf --offset=0 --size=128k --iodepth=8
    rc=$?
    echo $rc > /fipc/out/round.rc
    echo "@@FIPC-MIGRATE round $n rc=$rc uptime=$(cut -d' ' -f1 /proc/uptime)"
    if [ $rc -ne 0 ]; then
        bad=$((bad + 1))
        cp /fipc/out/round.json "/fipc/out/failed-round-$n.json"
        cp /fipc/out/round.rc "/fipc/out/failed-round-$n.rc"
    fi
}
while ! fipc_mailbox_is /dev/xvdb stop; do
    round
done
# dom0 says stop once it has saved, restored and migrated us: one more
# whole round on the connections we have now.
round
touch /tmp/stop-raw /tmp/stop-raw-aio
wait $rawb $rawc $rawf
for d in xvdb xvdc xvdf; do
    echo "@@FIPC-MIGRATE raw $d: $(cat /fipc/out/raw-$d 2>/dev/null) (writes, mismatches, resumes seen)"
done
kill $watch
touch /tmp/stop-background
wait $bgpid
bgrc=$?
echo $bgrc > /fipc/out/background.rc
echo "@@FIPC-MIGRATE background reads rc=$bgrc"
[ $bgrc -eq 0 ] || bad=$((bad + 1))
echo "$n $bad" > /fipc/out/rounds
for v in 51728 51744 51760 51776 51792; do
    fipc_front_stats $v "/fipc/out/front-$v.json"
done
# The frontend's pollers, each frozen once per suspend (freezes).
cp /sys/module/xen_fipc_front/parameters/poller_cpus /fipc/out/front-pollers.txt
dmesg | grep -E 'fipcblk|xen-fipc' > /fipc/out/dmesg.txt
echo "@@FIPC-MIGRATE done: $n rounds, $bad failed"
# Hostile requests on xvdc's memshare connection as the last resume left
# it (after the statistics above, which dom0 checks to the request): a
# READ by pfn served in a PVH guest (memory shared writable), refused in
# a PV guest (read-only); pfns past the table or not shared and bad
# staging indices refused.  In a subshell: fipc_hostile has its own $bad.
if [ "$(cat /sys/hypervisor/guest_type 2>/dev/null)" = PVH ]; then
    ms_read=0
else
    ms_read=-1
fi
(fipc_hostile fipcblk-51744 good_read=0 bad_op=-2 bad_len=-1 \
    beyond_end=-1 bad_gref=-1 ms_write=0 ms_read=$ms_read ms_bad_pfn=-1 \
    ms_unshared_pfn=-1 st_bad_index=-1 st_both_flags=-1) \
    > /fipc/out/hostile.txt 2>&1
hrc=$?
echo $hrc > /fipc/out/hostile-mismatches
cat /fipc/out/hostile.txt
echo "@@FIPC-MIGRATE hostile requests on xvdc: $hrc mismatch(es)"
[ $bad -eq 0 ] && [ $n -gt 0 ] && [ $hrc -eq 0 ]
