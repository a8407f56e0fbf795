# fipc-hostile-backend, guest side, the duplex round (issue 45, finding
# 11): sourced by guest.sh (check, figure, now, $out).
# xvde is served by dom0's fipc_attack_back.ko on the duplex ring
# (protocol 3, as every disk), its attacks armed there (dx_vdevs).  For each
# attack of -o DX_ATTACKS (NAME:OP, OP as io() in guest.sh)
# we write the block "FIPC-ATTACKB-DX NAME", which the attacker answers
# honestly, then one O_DIRECT dd of OP, which it attacks
# (tests/attack/fab_duplex.c).  It runs beside the keepmap ops on xvdb,
# which mostly wait.  A forged reply must be caught (our log
# says "backend protocol error" for xvde), must not complete the request
# (a READ the attacker filled with its pattern comes back all zeros,
# sent again once reconnected, or fails: never with the pattern), and
# the disk reconnects and works (a 4 KiB read).  A
# withheld reply (withhold) is sent again once the attacker closed; the
# event storm (the storm block, as on xvdb) is throttled.  The last,
# silent, never answers: we say "@@FIPC-HBACK dx-silent", dom0 detaches
# the disk (xl block-detach), and the read must fail, the disk gone.

dxdev=/dev/xvde
dxst=/sys/bus/xen/devices/fipcblk-51776/statistics

dxval() { cat "$dxst/$1" 2>/dev/null || echo -1; }

# The frontend's protocol errors on xvde so far (its kernel log).
dx_perr() { dmesg | grep -c 'fipcblk-51776: queue [0-9]*: backend protocol error'; }

# dx_dd OP BLOCK FILE SECONDS: one O_DIRECT dd of OP on xvde at 4 KiB
# block BLOCK, a READ's data into FILE; killed after SECONDS.  Its exit
# status, 124 if killed; its messages in $out/dx-dd.log.
dx_dd() {
	case $1 in
	*64k) bs=65536 ;;
	*) bs=4096 ;;
	esac
	at=$(($2 * 4096 / bs))
	: > "$3"
	case $1 in
	read*) dd if=$dxdev of="$3" bs=$bs count=1 skip=$at iflag=direct ;;
	*) dd if=/dev/zero of=$dxdev bs=$bs count=1 seek=$at oflag=direct conv=notrunc ;;
	esac >> $out/dx-dd.log 2>&1 &
	dpid=$!
	i=0
	while kill -0 $dpid 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt $(($4 * 10)) ]; then
			kill $dpid
			wait $dpid
			return 124
		fi
		sleep 0.1
	done
	wait $dpid
}

# dx_data FILE: "bytes nonzero leaked" of a READ's data: its size, its
# bytes that are not zero, 1 if the attacker's pattern is among them.
dx_data() {
	nz=$(tr -d '\000' < "$1" | wc -c)
	lk=$(tr -d '\000' < "$1" | grep -c 'ATTACKB-DX-LEAK')
	echo "$(wc -c < "$1") $nz $lk"
}

# dx_arm NAME: the block that arms attack NAME (answered honestly).
dx_arm() {
	printf 'FIPC-ATTACKB-DX %s\n' "$1" |
		dd of=$dxdev bs=4096 count=1 seek=$((dxsize / 8 - 3)) conv=sync,notrunc \
		oflag=direct >> $out/dx-dd.log 2>&1
}

# dx_after: is the disk connected again, and does it work?  Sets $after
# (1 if so) and $aftertext.
dx_after() {
	dx_dd read4k 3000 /tmp/dx-after.bin 60
	ar=$?
	set -- $(dx_data /tmp/dx-after.bin)
	m=$(cat $dxst/data_path 2>/dev/null)
	after=$([ $ar = 0 ] && [ "$1" = 4096 ] && [ "$2" = 0 ] && [ "$m" = grant ] && echo 1)
	aftertext="then a 4 KiB read rc=$ar, $1 bytes, $2 not zero, data path $m"
}

# dx_attack NAME OP BLOCK: one attack (check() sets $name: not ours).
# Before lap and lap-next, 70 honest reads take the ring (64 slots) into
# its second lap, where the slot holds the reply of one lap back.
dx_attack() {
	dxn=$1 op=$2
	case $dxn in
	lap*) dd if=$dxdev of=/dev/null bs=4096 count=70 skip=2500 iflag=direct \
		>> $out/dx-dd.log 2>&1 ;;
	esac
	dx_arm "$dxn"
	ra=$?
	p0=$(dx_perr)
	b0=$(dxval bad_responses)
	q0=$(dxval requeued)
	t0=$(now)
	dx_dd "$op" "$3" /tmp/dx.bin 60
	r=$?
	el=$(($(now) - t0))
	# A second reply comes after the first: wait a little for its catch.
	i=0
	while [ "$dxn" = twice ] && [ "$(dx_perr)" = "$p0" ] && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	pe=$(($(dx_perr) - p0))
	b=$(($(dxval bad_responses) - b0))
	q=$(($(dxval requeued) - q0))
	why=none
	[ $pe = 0 ] || why=$(dmesg | grep 'fipcblk-51776: queue [0-9]*: backend protocol error' |
		tail -n 1 | sed -n 's/.*backend protocol error: \(.*\); disconnecting.*/\1/p')
	set -- $(dx_data /tmp/dx.bin)
	figure "dx.$dxn.rc" "$r"
	figure "dx.$dxn.elapsed_cs" "$el"
	figure "dx.$dxn.protocol_errors" "$pe"
	figure "dx.$dxn.requeued" "$q"
	figure "dx.$dxn.leaked_bytes" "$2"
	echo "@@FIPC-HBACK dx $dxn $op rc=$r elapsed_cs=$el protocol_errors=$pe bad_responses=$b requeued=$q bytes=$1 nonzero=$2 pattern=$3 ($why)"
	# No byte of a READ from the attacker: all zeros (sent again) or
	# nothing (failed).
	case $op in
	read*) clean=$([ "$3" = 0 ] && { { [ $r = 0 ] && [ "$2" = 0 ] && [ "$1" -gt 0 ]; } ||
		{ [ $r != 0 ] && [ "$1" = 0 ]; }; } && echo 1) ;;
	*) clean=1 ;;
	esac
	case $dxn in
	withhold)
		# Not a violation: sent again once the attacker closed.
		ok=$([ $ra = 0 ] && [ $r = 0 ] && [ "$clean" = 1 ] && [ $q -ge 1 ] && [ $pe = 0 ] &&
			[ $el -ge 250 ] && echo 1)
		text="no reply for $((el / 100)).$((el % 100 / 10)) s, then the attacker closed: requeued $q, dd rc=$r" ;;
	id-*)
		ok=$([ $ra = 0 ] && [ "$clean" = 1 ] && [ $pe -ge 1 ] && [ $b -ge 1 ] && echo 1)
		text="caught: $pe protocol error(s) ($why), bad_responses +$b, requeued $q, dd rc=$r" ;;
	*)
		ok=$([ $ra = 0 ] && [ "$clean" = 1 ] && [ $pe -ge 1 ] && echo 1)
		text="caught: $pe protocol error(s) ($why), requeued $q, dd rc=$r" ;;
	esac
	case $op in
	read*) text="$text; read $1 bytes, $2 not zero, attacker's pattern seen: $3" ;;
	esac
	dx_after
	check "dx-$dxn" "$([ "$ok" = 1 ] && [ "$after" = 1 ] && echo 1)" "$text; $aftertext"
}

# dx_storm: the storm block on xvde; at most STORM_MAX handled.
dx_storm() {
	e0=$(dxval notify_recv)
	f0=$(dxval notify_spurious)
	printf 'FIPC-ATTACKB-STORM' |
		dd of=$dxdev bs=4096 count=1 seek=$((dxsize / 8 - 2)) conv=sync,notrunc oflag=direct \
		>> $out/dx-dd.log 2>&1
	r=$?
	sleep $((storm_ms / 1000 + 2))
	e=$(($(dxval notify_recv) - e0))
	f=$(($(dxval notify_spurious) - f0))
	figure dx.storm_handled "$e"
	figure dx.storm_spurious "$f"
	dx_after
	check dx-storm-throttled "$([ $r = 0 ] && [ $e -le "$storm_max" ] && [ $f -gt 0 ] && [ "$after" = 1 ] && echo 1)" \
		"storm block written rc=$r; $e notifications handled during the storm, $f flagged spurious (at most $storm_max wanted); $aftertext"
}

# dx_silent: no reply, ever; dom0 detaches the disk.
dx_silent() {
	dx_arm silent
	ra=$?
	t0=$(now)
	(dx_dd read4k 4000 /tmp/dx.bin 90; echo $? > /tmp/dx-silent.rc) &
	spid=$!
	sleep 2
	echo "@@FIPC-HBACK dx-silent"
	wait $spid
	r=$(cat /tmp/dx-silent.rc)
	el=$(($(now) - t0))
	i=0
	while [ -e /sys/block/xvde ] && [ $i -lt 300 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	gone=$([ -e /sys/block/xvde ] && echo 0 || echo 1)
	set -- $(dx_data /tmp/dx.bin)
	figure dx.silent.rc "$r"
	figure dx.silent.elapsed_cs "$el"
	echo "@@FIPC-HBACK dx silent read4k rc=$r elapsed_cs=$el bytes=$1 nonzero=$2 pattern=$3 gone=$gone"
	check dx-silent "$([ $ra = 0 ] && [ $r != 0 ] && [ $r != 124 ] && [ "$1" = 0 ] && [ "$gone" = 1 ] && echo 1)" \
		"never answered; dom0 detached the disk: dd rc=$r after $((el / 100)).$((el % 100 / 10)) s, read $1 bytes, disk gone: $gone"
}

# The round.
duplex() {
	if ! fipc_wait_disk xvde 120; then
		check dx-disk 0 "no xvde"
		# dom0 waits for the silent attack's word: no need to now.
		echo "@@FIPC-HBACK dx-silent (no disk)"
		return 1
	fi
	dxsize=$(cat /sys/block/xvde/size)
	m=$(cat $dxst/data_path 2>/dev/null)
	check dx-connected "$([ "$m" = grant ] && echo 1)" "xvde is connected on the $m data path (grant wanted)"
	storm_ms=$(fipc_opt STORM_MS 3000)
	storm_max=$(fipc_opt STORM_MAX $((storm_ms * 500 / 1000)))
	blk=2000
	for a in $(fipc_opt DX_ATTACKS "kind:read4k kind-call:write4k lap:read4k lap-next:read64k span0:read4k span-over:read64k ack-reserved:read64k id-gen:read4k id-tag:write64k twice:read4k withhold:read4k"); do
		blk=$((blk + 32))
		dx_attack "${a%%:*}" "${a#*:}" $blk
	done
	dx_storm
	dx_silent
	dmesg | grep 'fipcblk-51776' | tail -n 5
}
