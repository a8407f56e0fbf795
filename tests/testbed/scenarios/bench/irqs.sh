# Shared by run.sh (dom0, bash) and guest.sh (domU, busybox sh).
# irq_sum PATTERN: sum of the interrupt counts, over all CPUs, of every
# /proc/interrupts line matching PATTERN (an awk regular expression).
irq_sum() {
	awk -v pat="$1" '$0 ~ pat {
		for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' \
		/proc/interrupts
}
