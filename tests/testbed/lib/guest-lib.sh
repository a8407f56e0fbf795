# The testbed library, guest side (busybox sh): in a domU as /fipc/lib.sh,
# with lib/both-sides.sh appended.  The one library every guest script
# sources.  Results written to /fipc/out come back to dom0 as
# $FIPC_RESULTS/<domU name>/.

# fipc_fio JOB [FIO ARGS...]: run fio with JSON output to /fipc/out/JOB.json
# and its exit status in /fipc/out/JOB.rc.
fipc_fio() {
    local job=$1 rc   # local: callers keep their own $rc
    shift
    echo "@@FIPC-GUEST fio $job start uptime=$(cut -d' ' -f1 /proc/uptime)"
    fio --output-format=json --output="/fipc/out/$job.json" "$@"
    rc=$?
    echo $rc > "/fipc/out/$job.rc"
    echo "@@FIPC-GUEST fio $job rc=$rc uptime=$(cut -d' ' -f1 /proc/uptime)"
    return $rc
}

# fipc_opt KEY DEFAULT: value of scenario option -o KEY=..., else DEFAULT.
fipc_opt() { eval "echo \"\${FIPC_OPT_$1:-$2}\""; }

# fipc_wait_disk NAME SECONDS: wait for /sys/block/NAME, create /dev/NAME.
fipc_wait_disk() {
    if ! fipc_until "$2" [ -e "/sys/block/$1" ]; then
        echo "no disk $1 after $2 s"
        return 1
    fi
    if [ ! -b "/dev/$1" ]; then
        mm=$(cat "/sys/block/$1/dev")
        mknod "/dev/$1" b "${mm%%:*}" "${mm##*:}"
    fi
}

# fipc_front_stats DEVID FILE: the frontend's counters as JSON.
fipc_front_stats() {
    {
        fipc_counters_json "/sys/bus/xen/devices/fipcblk-$1/statistics" \
            "/sys/kernel/debug/xen-fipc-front/fipcblk-$1"
        printf '}\n'
    } > "$2"
}

# fipc_front_dbg DEVID: the frontend's developer counters, "name value"
# lines (debugfs, mounted here if it is not).
fipc_front_dbg() {
    [ -d /sys/kernel/debug/xen-fipc-front ] ||
        mount -t debugfs none /sys/kernel/debug 2>/dev/null
    cat "/sys/kernel/debug/xen-fipc-front/fipcblk-$1/counters" 2>/dev/null
}

# fipc_front_stat DEVID NAME: one counter, from sysfs or debugfs (-1:
# neither has it).
fipc_front_stat() {
    cat "/sys/bus/xen/devices/fipcblk-$1/statistics/$2" 2>/dev/null ||
        fipc_front_dbg "$1" |
        awk -v k="$2" '$1 == k { v = $2 } END { print (v == "" ? -1 : v) }'
}

# fipc_mailbox_is DEV WORD: does the mailbox (the last 4 KiB of DEV, read
# with O_DIRECT through the disk's driver) hold WORD?  dom0 writes it with
# fipc_mailbox_put (lib/fipc-drivers.sh) on the device behind DEV.
fipc_mailbox_is() {
	[ "$(fipc_mailbox_word "$1")" = "$2" ]
}

# fipc_mailbox_word DEV: the word in DEV's mailbox (one O_DIRECT read).
fipc_mailbox_word() {
	s=$(cat "/sys/block/${1##*/}/size")
	dd if="$1" bs=4096 skip=$((s / 8 - 1)) count=1 iflag=direct 2>/dev/null |
		head -c 16 | tr -d ' \000'
}

# fipc_mailbox_next DEV: wait (looking every 0.5 s) until DEV's mailbox
# holds a word it did not hold at an earlier call, other than "none";
# set $phase to it.  dom0 posts each phase once, under a new name.
fipc_mailbox_next() {
	while :; do
		phase=$(fipc_mailbox_word "$1")
		case "${fipc_mailbox_taken:- } $phase" in
		*" $phase "* | *" none" | *" ") sleep 0.5 ;;
		*)
			fipc_mailbox_taken="${fipc_mailbox_taken:- }$phase "
			return 0
			;;
		esac
	done
}

# fipc_exec_serve DEV: the guest's end of dom0's fipc-exec-disk (the
# testbed's stand-in for ssh, for fipc bench's --exec).  When DEV's
# mailbox holds "x<N>" not served yet: run the script of request N (its
# header "FIPCEXEC N LEN" in sector 0, the script from sector 1), put
# its stdout after "FIPCOUT N LEN RC" at sector 16384 (8 MiB), then
# "r<N>" in the mailbox.  The script's stderr goes to the console.
# Returns 1 when there was nothing to serve.
fipc_exec_serve() {
	w=$(fipc_mailbox_word "$1")
	case $w in x[0-9]*) ;; *) return 1 ;; esac
	[ "$w" != "${fipc_exec_served:-}" ] || return 1
	fipc_exec_served=$w
	set -- "$1" "${w#x}" $(dd if="$1" bs=512 count=1 iflag=direct 2>/dev/null | head -n 1)
	if [ "${3:-}" = FIPCEXEC ] && [ "${4:-}" = "$2" ]; then
		dd if="$1" bs=512 skip=1 count=$((($5 + 511) / 512)) iflag=direct 2>/dev/null |
			head -c "$5" > /tmp/fipc-exec.sh
		sh /tmp/fipc-exec.sh > /tmp/fipc-exec.out
		rc=$?
	else
		echo "fipc_exec_serve: request $2 has no header ($*)"
		: > /tmp/fipc-exec.out
		rc=125
	fi
	printf 'FIPCOUT %s %s %s\n' "$2" "$(wc -c < /tmp/fipc-exec.out)" "$rc" |
		dd of=/tmp/fipc-exec.resp bs=512 conv=sync 2>/dev/null
	cat /tmp/fipc-exec.out >> /tmp/fipc-exec.resp
	dd if=/tmp/fipc-exec.resp of="$1" bs=512 seek=16384 conv=sync,notrunc \
		oflag=direct 2>/dev/null
	s=$(cat "/sys/block/${1##*/}/size")
	printf '%-16s' "r$2" | dd of="$1" bs=4096 seek=$((s / 8 - 1)) count=1 \
		conv=sync oflag=direct 2>/dev/null
	echo "fipc_exec_serve: request $2 ran, exit $rc"
}
