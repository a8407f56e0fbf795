#!/bin/sh
# fipc-hostile, attacker guest: fipc_attack.ko (tests/attack) is loaded
# by the testbed in mode "none" (binds nothing) instead of xen-fipc-front.
# For each mode of -o ATTACK_MODES: load it with that mode and wait_go=1
# (it starts when dom0, having taken its counters, writes the mode's name
# in fipc-attack-go), relay its "@@FIPC-ATTACK" kernel log lines to the
# console (dom0 waits on them), wait for "<mode> done" and "<mode>
# released" (dom0 has its counters), unbind the device (the module closes
# it as a correct frontend would and prints "<mode> removed"), unload it.
# Then load -o ATTACK_FINAL (noreap) once more and stay: dom0 destroys us.
. /fipc/lib.sh
modes=$(fipc_opt ATTACK_MODES "noreap storm xsbad cycle closebusy forge rebind")
secs=$(fipc_opt ATTACK_SECONDS 20)
cyc=$(fipc_opt ATTACK_CYCLES 50)
final=$(fipc_opt ATTACK_FINAL noreap)
ko=/fipc/modules/fipc_attack.ko
dev=fipcblk-51728
seen=0

# relay: print the @@FIPC-ATTACK lines of the kernel log not printed yet.
relay() {
	dmesg | sed -n 's/.*\(@@FIPC-ATTACK .*\)/\1/p' > /tmp/attack.lines
	n=$(wc -l < /tmp/attack.lines)
	if [ "$n" -gt "$seen" ]; then
		tail -n +$((seen + 1)) /tmp/attack.lines
		seen=$n
	fi
}

# wait_line ERE SECONDS: relay until a line matches ERE.
wait_line() {
	i=0
	while :; do
		relay
		grep -Eq "$1" /tmp/attack.lines && return 0
		i=$((i + 1))
		if [ $i -ge $(($2 * 5)) ]; then
			echo "@@FIPC-ATTACK-GUEST timeout waiting for '$1'"
			return 1
		fi
		sleep 0.2
	done
}

rc=0
[ -e "/sys/bus/xen/devices/$dev" ] || { echo "attacker: no $dev"; exit 1; }
rmmod fipc_attack
echo "@@FIPC-ATTACK-GUEST ready"
for m in $modes; do
	sleep 1
	echo "@@FIPC-ATTACK-GUEST $m loading"
	# insmod waits (at most 30 s) for the device to be Connected.
	s=$secs
	[ "$m" = rebind ] && s=$(fipc_opt REBIND_SECONDS 12)
	insmod "$ko" mode="$m" seconds="$s" cycles="$cyc" wait_go=1 \
		time_scale="$(fipc_opt ATTACK_TIME_SCALE 1)" &
	wait_line "^@@FIPC-ATTACK $m (done|failed)" 900 || rc=1
	wait_line "^@@FIPC-ATTACK $m released" 900 || rc=1
	echo "$dev" > "/sys/bus/xen/devices/$dev/driver/unbind"
	wait_line "^@@FIPC-ATTACK $m removed" 120 || rc=1
	wait
	rmmod fipc_attack || rc=1
	echo "@@FIPC-ATTACK-GUEST $m unloaded"
done
relay
sleep 5
echo "@@FIPC-ATTACK-GUEST final $final loading rc=$rc"
seen=0
dmesg -c > /dev/null
insmod "$ko" mode="$final" seconds=100000 wait_go=1 &
wait_line "^@@FIPC-ATTACK $final waiting" 120 && echo "@@FIPC-ATTACK-GUEST final waiting"
wait_line "^@@FIPC-ATTACK $final start" 600 && echo "@@FIPC-ATTACK-GUEST final running"
while :; do
	sleep 5
	relay
done
