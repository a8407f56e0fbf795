# Shared by run.sh (dom0, bash), guest.sh and counters.sh (domU, busybox sh).
# irq_sum PATTERN: sum of the interrupt counts, over all CPUs, of every
# /proc/interrupts line matching PATTERN (an awk regular expression).
irq_sum() {
	awk -v pat="$1" '$0 ~ pat {
		for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' \
		/proc/interrupts
}

# thread_ticks PATTERN...: "TICKS COUNT": the CPU time (utime + stime, in
# clock ticks) of the threads whose name (/proc/PID/comm) matches one of
# the shell PATTERNs, and how many of them there are.
thread_ticks() {
	local f c p m n=0 s=0 t
	for f in /proc/[0-9]*/comm; do
		read -r c 2>/dev/null < "$f" || continue
		m=
		for p; do
			case $c in $p) m=1 && break ;; esac
		done
		[ -n "$m" ] || continue
		t=$(awk '{ print $14 + $15 }' "${f%comm}stat" 2>/dev/null) || continue
		[ -n "$t" ] || continue
		s=$((s + t))
		n=$((n + 1))
	done
	echo "$s $n"
}

# poller_ticks NAME: CPU time (utime + stime, in clock ticks) of the fipc
# poller kthreads NAME/0, NAME/1, ... (lib/fipc/poller/fipc_poller_set.c
# names them after their set: xfb-poll in dom0, xff-poll in the guest);
# prints nothing when there is none (classic disks, module not loaded).
poller_ticks() {
	local t
	t=$(thread_ticks "$1/[0-9]*")
	[ "${t#* }" -gt 0 ] && echo "${t% *}"
	return 0
}

# clk_tck: the clock ticks per second of /proc/PID/stat (USER_HZ).
clk_tck() { getconf CLK_TCK 2>/dev/null || echo 100; }

# front_copies DEVID: requests whose data the fipc frontend of disk DEVID
# copied (through staging pages, memshare or grant, or bounce pages);
# prints nothing for a disk that is not fipc's.  blkfront copies too,
# through its persistent grants, but counts nothing we can read.
front_copies() {
	local d=/sys/bus/xen/devices/fipcblk-$1/statistics
	[ -d "$d" ] || return 0
	echo $(($(cat "$d/memshare_staged") + $(cat "$d/grant_staged") + $(cat "$d/bounced")))
}
