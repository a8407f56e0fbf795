#!/bin/bash
# Scenario "bench" (dom0 side): the fio harness of the Fip-see report's
# tables (bench/fio/run-fio.sh) on one boot, every configuration on the
# same null_blk device:
#   dom0            native, in dom0
#   phy             a domU over classic xen-blkback/xen-blkfront
#   phy1-grant      a domU over xen-fipc-back/front, grant data path
#   phy1-memshare   the same with memshare
# and with -o PVH=1 (make bench-pvh: the emulated CPU needs AMD-V with
# nested paging) phy-pvh, phy1-grant-pvh and phy1-memshare-pvh, phy,
# phy1-grant and phy1-memshare in a PVH guest (whose memory is shared
# writable: READs by pfn), for their per-I/O costs beside the PV guests'
# in one run.
# The phy1 configurations run only where our drivers are built (they are
# reported as skipped otherwise).  Each domU also verifies data (crc32c)
# on a memory-backed null_blk, separately from the timed jobs.
# Results: $FIPC_RESULTS/<config>/<job>.json and counters.json, turned into
# tables by bench/fio/report.py.  Runs the same on a real Xen dom0:
#   tests/testbed/scenarios/bench/run.sh --results /tmp/r \
#       --domu-ramdisk domU.cpio [--backing /dev/nvme0n1  # DESTROYS its data]
# The timed device (xvda in the domUs) is --backing DEV if given, else
# -o BACKING=: null_blk (default, /dev/nullb0), nvme (/dev/nvme0n1: the
# testbed's `fipc-testbed run bench --nvme MIB`, or a real host's first
# namespace) or a block device path; -o SLOW_MS=N makes null_blk answer
# each request N ms after it came (default 0: at once).
# $FIPC_RESULTS/backing.json says which one a run used.  Data
# verification stays on memory-backed null_blk.
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"
export FIPC_DOMU_LOAD=""

# The report's null_blk: fastest mode, one submit queue per CPU, plus a
# memory-backed device for verification, both through configfs so each
# gets its own settings.
bench_null_blk() {
	local cfs=/sys/kernel/config/nullb d
	if [ -d /sys/module/null_blk ]; then
		modprobe -r null_blk || { fipc_fail "null_blk busy"; return 1; }
	fi
	fipc_load_module null_blk nr_devices=0 || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	[ -d $cfs ] || { fipc_fail "null_blk has no configfs"; return 1; }
	for d in nullb0 nullb1; do
		mkdir -p $cfs/$d || return 1
		echo 2 > $cfs/$d/queue_mode
		echo 0 > $cfs/$d/irqmode
		echo 64 > $cfs/$d/hw_queue_depth
		nproc > $cfs/$d/submit_queues
		echo 512 > $cfs/$d/blocksize
	done
	echo "$(fipc_opt PERF_GB 4)" | awk '{ print $1 * 1024 }' > $cfs/nullb0/size
	# -o SLOW_MS=N: the timed device answers each request N ms after it
	# came (a timer), as a disk or network storage slower than the
	# pollers' idle window would.
	if [ "$SLOW_MS" -gt 0 ]; then
		echo 2 > $cfs/nullb0/irqmode
		echo $((SLOW_MS * 1000000)) > $cfs/nullb0/completion_nsec
	fi
	echo 1 > $cfs/nullb1/memory_backed
	echo "$(fipc_opt VERIFY_MB 64)" > $cfs/nullb1/size
	echo 1 > $cfs/nullb0/power && echo 1 > $cfs/nullb1/power || return 1
	fipc_wait_blockdev /dev/nullb0 && fipc_wait_blockdev /dev/nullb1 || return 1
	fipc_log "null_blk: nullb0 (timed, no backing store$([ "$SLOW_MS" -gt 0 ] && echo ", $SLOW_MS ms a request")), nullb1 (memory backed)"
}
# Exported: fipc_step runs the steps in a child bash.
export SLOW_MS=$(fipc_opt SLOW_MS 0)
case $SLOW_MS in
'' | *[!0-9]*) fipc_fail "SLOW_MS=$SLOW_MS: want a whole number of ms"; exit 1 ;;
esac

. "$here/irqs.sh"

# CPU seconds of a domain so far, from xl list.
dom_cpu() { xl list "$1" 2>/dev/null | awk 'NR == 2 { print $6 }'; }

# be_stats_json ID: the fipc backend's cost counters of domain ID's timed
# disk (xvda), as JSON members; nothing for classic disks.  With them, the
# backend pollers' sleeps, summed over the set: "poller_sleeps",
# "poller_contended_sleeps" (those begun before the idle window's end
# because another dom0 task wanted the CPU; none on a CPU of its own),
# "poller_steal_sleeps" (those begun because Xen kept dom0's vCPU
# waiting while another ran on its physical CPU) and
# "poller_short_sleeps" (gaps with a sleep that the guest ended within
# poll_idle_max_us: a window at its longest would have polled through)
# and "poller_wakeups" (sleeps a kick ended: thread wake-ups); and
# "end_answers", requests answered from their bio's completion while the
# poller slept, with no wake-up.
be_stats_json() {
	local d=/sys/bus/xen-backend/devices/fipcblk-$1-51712/statistics k sep=""
	local p=/sys/module/xen_fipc_back/parameters/poller_cpus
	[ -d "$d" ] || return 0
	for k in grant_ops hypercalls notify_sent; do
		printf '%s"%s": %s' "$sep" "$k" "$(cat "$d/$k")"
		sep=", "
	done
	# The developer counters (debugfs).
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	awk '$1 ~ /^(poll_loops|empty_polls|end_answers)$/ { printf ", \"%s\": %s", $1, $2 }' \
		"/sys/kernel/debug/xen-fipc-back/fipcblk-$1-51712/counters"
	[ -r "$p" ] && awk '$1 == "poller" {
		for (i = 2; i < NF; i++) {
			if ($i == "sleeps") s += $(i + 1)
			if ($i == "contended_sleeps") c += $(i + 1)
			if ($i == "steal_sleeps") v += $(i + 1)
			if ($i == "short_sleeps") t += $(i + 1)
			if ($i == "wakeups") w += $(i + 1)
		} }
		END { printf ", \"poller_sleeps\": %d, \"poller_contended_sleeps\": %d, \"poller_steal_sleeps\": %d, \"poller_short_sleeps\": %d, \"poller_wakeups\": %d", s, c, v, t, w }' "$p"
	return 0
}

# back_poller_ticks DISKTYPE: CPU ticks of xen-fipc-back's pollers so far,
# for a phy1 disk; nothing for a classic one.
back_poller_ticks() {
	[ "$1" = phy1 ] && poller_ticks xfb-poll
	return 0
}

# -o TRACE_SCHED=1: dom0's scheduler switches over a phy1 configuration's
# timed window (tracefs), and what ran each time the backend's poller
# left the CPU: $r/poller-switches.txt, "count state next-task" lines
# (state I or S: it went to sleep, R: it was preempted; next swapper/0:
# nothing else wanted the CPU).  For reading, not for the report.
sched_trace_start() {
	local tracefs=/sys/kernel/tracing
	[ "$(fipc_opt TRACE_SCHED 0)" = 1 ] && [ "$1" = phy1 ] || return 0
	mountpoint -q $tracefs || mount -t tracefs nodev $tracefs || return 0
	echo 0 > $tracefs/tracing_on
	echo 4096 > $tracefs/buffer_size_kb
	echo > $tracefs/trace
	echo 1 > $tracefs/events/sched/sched_switch/enable
	echo 1 > $tracefs/tracing_on
}
sched_trace_stop() {
	local tracefs=/sys/kernel/tracing
	[ "$(fipc_opt TRACE_SCHED 0)" = 1 ] && [ "$1" = phy1 ] || return 0
	[ -d $tracefs/events ] || return 0
	echo 0 > $tracefs/tracing_on
	echo 0 > $tracefs/events/sched/sched_switch/enable
	# prev_comm=xfb-poll/0 ... prev_state=S ==> next_comm=NAME ...
	grep 'prev_comm=xfb-poll' $tracefs/trace |
		sed -n 's/.*prev_state=\([^ ]*\) ==> next_comm=\([^ ]*\) .*/\1 \2/p' |
		sort | uniq -c | sort -rn > "$2/poller-switches.txt"
	grep -c 'sched_switch' $tracefs/trace > "$2/sched-switches.txt"
	echo > $tracefs/trace
}

# be_data_path ID: the data path of domain ID's timed fipc disk, if any.
be_data_path() {
	cat "/sys/bus/xen-backend/devices/fipcblk-$1-51712/statistics/data_path" 2>/dev/null
}

# bench_quiet_wait NAME WATCHER DEADLINE: wait until WATCHER (bench_domu's
# marker follower) has seen its last marker and ended, the guest is gone,
# crashed or shut down, or bash's $SECONDS reaches DEADLINE, running
# almost nothing in dom0 meanwhile; fipc_domu_wait then judges how the
# guest ended.  Under TCG each command takes milliseconds of dom0's only
# vCPU, and the backend's poller sleeps (and costs the guest a
# notification) whenever another task wants that CPU: with
# fipc_domu_wait looking at the guest every 2 s through the timed jobs,
# xl, bash, date, awk and sleep were what ran in 3 of 4 of the poller's
# sleeps (-o TRACE_SCHED=1, 2026-11-27).  Here the watcher's end ends the
# wait at once (wait -n), and xl looks at the guest only when xenstored
# reports a domain shut down, crashed or gone (@releaseDomain, whose
# first event is the watch's own registration, hence -n 2), or after
# 120 s without one: a look every 20 s still cost the QD 1 jobs most of
# the poller's remaining sleeps (runs AR and AS, 2026-11-27, 090a5c9:
# docs/benchmarks.md, "Driver and poller decisions").
# Without xenstore-watch, or once it fails, xl looks every 20 s.
bench_quiet_wait() {
	local name=$1 watcher=$2 deadline=$3 nap state rc
	local look=(sleep 20)
	command -v xenstore-watch >/dev/null 2>&1 &&
		look=(timeout 120 xenstore-watch -n 2 @releaseDomain)
	while kill -0 "$watcher" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do
		"${look[@]}" >/dev/null 2>&1 &
		nap=$!
		wait -n "$watcher" "$nap" 2>/dev/null
		kill "$nap" 2>/dev/null
		wait "$nap" 2>/dev/null
		rc=$?
		# 0: an event, 124: timed out, 143: ended here; else it failed.
		case $rc in 0 | 124 | 143) ;; *) look=(sleep 20) ;; esac
		state=$(fipc_domu_state "$name")
		case $state in
		'' | *c* | *s*) return 0 ;;
		esac
	done
	return 0
}

# bench_domu CONFIG DISKTYPE BACKEND_IRQ FRONT_IRQ: one domU configuration.
# dom0 follows the guest's console for the markers around its timed jobs,
# so its own counters cover the same window as the guest's.
bench_domu() {
	local cfg=$1 disktype=$2 back_irq=$3 front_irq=$4 con r watcher
	r=$FIPC_RESULTS/$cfg
	mkdir -p "$r"
	con=$FIPC_CONSOLE_DIR/guest-$cfg.log
	rm -f "$con"
	export FIPC_OPT_IRQ_PATTERN=$front_irq
	fipc_domu_start "$cfg" "$here/domU.cfg" \
		"$here/guest.sh" TYPE="${GUEST_TYPE:-pv}" DISKTYPE="$disktype" PERFDEV="$PERFDEV" \
		VERIFYDEV=/dev/nullb1 DISKOPTS="${DISKOPTS:-}" || return 1
	(
		state=wait
		id=$(xl domid "$cfg")
		# The console is followed (tail -F, woken by inotify), not
		# polled: under TCG each command a polling loop runs takes
		# milliseconds of dom0's only vCPU, and the backend poller
		# sleeps whenever another task wants it (-o TRACE_SCHED=1:
		# xl, grep, bash and sleep of this loop were what ran when
		# it slept).  Commands run only at the markers.  The loop
		# ends with its last marker or when bench_domu kills it.
		tail -n +1 -F "$con" 2>/dev/null | while IFS= read -r line; do
			if [ $state = wait ] && [[ $line == *'@@FIPC-BENCH timed-start'* ]]; then
				b0=$(irq_sum "$back_irq"); d0=$(dom_cpu Domain-0); g0=$(dom_cpu "$cfg")
				s0=$(be_stats_json "$id"); p0=$(back_poller_ticks "$disktype")
				be_data_path "$id" > "$FIPC_WORK/$cfg-data-path"
				sched_trace_start "$disktype"
				state=run
			elif [ $state = run ] && [[ $line == *'@@FIPC-BENCH timed-done'* ]]; then
				b1=$(irq_sum "$back_irq"); d1=$(dom_cpu Domain-0); g1=$(dom_cpu "$cfg")
				s1=$(be_stats_json "$id"); p1=$(back_poller_ticks "$disktype")
				sched_trace_stop "$disktype" "$r"
				# The pollers' own counters (sleeps, wake-ups, learnt
				# gap and window), for reading, not for the report.
				[ "$disktype" = phy1 ] &&
					cat /sys/module/xen_fipc_back/parameters/poller_cpus \
						> "$r/back-pollers.txt" 2>/dev/null
				awk -v b=$((b1 - b0)) -v d0="$d0" -v d1="$d1" -v g0="$g0" -v g1="$g1" \
					-v s0="$s0" -v s1="$s1" -v p0="$p0" -v p1="$p1" -v hz="$(clk_tck)" '
					function members(s, a,   n, i, kv, m) {
						n = split(s, kv, ", ")
						for (i = 1; i <= n; i++) {
							split(kv[i], m, ": ")
							a[m[1]] = m[2]
						}
						return n
					}
					BEGIN {
						printf "{\"evtchn_to_back\": %d, \"dom0_cpu_seconds\": %.1f, \"domU_cpu_seconds\": %.1f", b, d1 - d0, g1 - g0
						# The fipc backend: its counters over the window,
						# "back_" + name (grant_ops, hypercalls, ...).
						if (s1 != "" && members(s0, a0) && members(s1, a1))
							for (k in a1)
								printf ", \"back_%s\": %d", substr(k, 2, length(k) - 2), a1[k] - a0[k]
						# Its pollers (xfb-poll/N); none for classic.
						if (p0 != "" && p1 != "")
							printf ", \"back_poller_cpu_seconds\": %.2f", (p1 - p0) / hz
						printf "}\n"
					}' > "$FIPC_WORK/$cfg-back-counters.json"
				state=idle
			elif [ $state = idle ] && [[ $line == *'@@FIPC-BENCH idle-start'* ]]; then
				b0=$(irq_sum "$back_irq"); p0=$(back_poller_ticks "$disktype")
				state=idling
			elif [ $state = idling ] && [[ $line == *'@@FIPC-BENCH idle-done'* ]]; then
				b1=$(irq_sum "$back_irq"); p1=$(back_poller_ticks "$disktype")
				awk -v b=$((b1 - b0)) -v p0="$p0" -v p1="$p1" -v hz="$(clk_tck)" 'BEGIN {
					printf "{\"evtchn_to_back\": %d", b
					if (p0 != "" && p1 != "")
						printf ", \"back_poller_cpu_seconds\": %.2f", (p1 - p0) / hz
					printf "}\n" }' > "$FIPC_WORK/$cfg-idle-back.json"
				break
			fi
		done
	) &
	watcher=$!
	local deadline left
	deadline=$((SECONDS + $(fipc_scaled "$(fipc_opt DOMU_TIMEOUT 900)")))
	bench_quiet_wait "$cfg" "$watcher" "$deadline"
	left=$((deadline - SECONDS))
	[ "$left" -gt 0 ] || left=1
	FIPC_DOMU_WAIT_POLL_S=2 FIPC_TIMEOUT_SCALE=1 fipc_domu_wait "$cfg" "$left"
	local rc=$?
	# The watcher and its tail.
	pkill -P $watcher 2>/dev/null
	kill $watcher 2>/dev/null
	wait $watcher 2>/dev/null
	# counters.json: both ends' counts over the timed window (one-line
	# JSON objects, merged without needing python in dom0).
	local front back
	front=$(cat "$r/front-counters.json" 2>/dev/null) ||
		{ fipc_fail "$cfg: guest wrote no counters"; rc=1; }
	back=$(cat "$FIPC_WORK/$cfg-back-counters.json" 2>/dev/null) ||
		{ fipc_fail "$cfg: dom0 saw no timed-start/timed-done markers"; rc=1; }
	# A memshare configuration that fell back to grants is not one.
	if [ -n "${WANT_DATA_PATH:-}" ] &&
	   [ "$(cat "$FIPC_WORK/$cfg-data-path" 2>/dev/null)" != "$WANT_DATA_PATH" ]; then
		fipc_fail "$cfg: the backend's data path was '$(cat "$FIPC_WORK/$cfg-data-path" 2>/dev/null)', want $WANT_DATA_PATH"
		rc=1
	fi
	if [ $rc -eq 0 ]; then
		local nf nb
		nf=$(echo "$front" | sed -n 's/.*"evtchn_to_front": \([0-9]*\).*/\1/p')
		nb=$(echo "$back" | sed -n 's/.*"evtchn_to_back": \([0-9]*\).*/\1/p')
		echo "{${front#\{}" | sed "s/}\$/, ${back#\{}/" |
			sed "s/}\$/, \"evtchn_notifications\": $((nf + nb))}/" > "$r/counters.json"
	fi
	# idle.json: both ends over the idle window after the jobs.
	front=$(cat "$r/idle-front.json" 2>/dev/null) ||
		{ fipc_fail "$cfg: guest wrote no idle counters"; rc=1; }
	back=$(cat "$FIPC_WORK/$cfg-idle-back.json" 2>/dev/null) ||
		{ fipc_fail "$cfg: dom0 saw no idle-start/idle-done markers"; rc=1; }
	[ $rc -eq 0 ] && echo "{${front#\{}" | sed "s/}\$/, ${back#\{}/" > "$r/idle.json"
	# Interrupt lines only go away with the guest's disks: a count that
	# went down was read after the window.
	case $back in
	*'"evtchn_to_back": -'*) fipc_fail "$cfg: dom0 read its idle counters after the guest left"; rc=1 ;;
	esac
	return $rc
}

dom0_native() {
	mkdir -p "$FIPC_RESULTS/dom0"
	FIO_RUNTIME=$(fipc_opt FIO_RUNTIME 5) FIO_RAMP=$(fipc_opt FIO_RAMP 1) \
		FIO_NUMJOBS=$(fipc_opt DOM0_NUMJOBS "$FIPC_DOMU_VCPUS") \
		FIO_JOBS=$(fipc_opt FIO_JOBS "") \
		"$here/run-fio.sh" "$PERFDEV" "$FIPC_RESULTS/dom0"
}

# bench_backing: the timed device, ready, in $FIPC_WORK/perfdev, and
# described in $FIPC_RESULTS/backing.json.
bench_backing() {
	local want dev kind model="" i=0 limit
	want=${FIPC_BACKING:-$(fipc_opt BACKING null_blk)}
	case $want in
	null_blk)
		dev=/dev/nullb0 kind=null_blk
		[ "$SLOW_MS" -gt 0 ] && model="$SLOW_MS ms a request" ;;
	nvme) dev=/dev/nvme0n1 kind=nvme ;;
	/dev/*) dev=$want kind=path ;;
	*) fipc_fail "BACKING=$want: want null_blk, nvme or a /dev path"; return 1 ;;
	esac
	if [ $kind = nvme ]; then
		[ -d /sys/module/nvme ] || fipc_load_module nvme || return 1
		limit=$(fipc_scaled 300)
		while [ ! -b $dev ]; do
			i=$((i + 1))
			[ $i -lt "$limit" ] || { fipc_fail "no $dev after $((limit / 10)) s (testbed: run with --nvme MIB)"; return 1; }
			sleep 0.1
		done
	fi
	[ -b "$dev" ] || { fipc_fail "backing device $dev is not a block device"; return 1; }
	[ -r "/sys/block/${dev#/dev/}/device/model" ] &&
		model=$(sed 's/ *$//' "/sys/block/${dev#/dev/}/device/model")
	printf '{"device": "%s", "kind": "%s", "model": "%s", "size_bytes": %s}\n' \
		"$dev" $kind "$model" "$(blockdev --getsize64 "$dev")" > "$FIPC_RESULTS/backing.json"
	echo "$dev" > "$FIPC_WORK/perfdev"
	fipc_log "timed device: $dev ($kind${model:+, $model}, $(blockdev --getsize64 "$dev") bytes)"
}

fipc_step null-blk 60 bench_null_blk || exit 1
fipc_step backing 60 bench_backing || exit 1
PERFDEV=$(cat "$FIPC_WORK/perfdev")
export PERFDEV here
[ -n "$(fipc_opt FIO_JOBS '')" ] || unset FIPC_OPT_FIO_JOBS

rc=0
fipc_step bench-dom0 600 dom0_native || rc=1
modprobe xen-blkback
fipc_step bench-phy 1200 bench_domu phy phy 'blkif-backend' 'blkif' || rc=1

# -o PVH=1: PVH guests too, where Xen offers HVM guests (the testbed:
# --cpu-model qemu64,+svm,+npt).
pvh=$(fipc_opt PVH 0)
if [ "$pvh" = 1 ] && ! xl info | grep -q '^virt_caps.*hvm'; then
	fipc_fail "-o PVH=1: this Xen cannot run PVH guests (xl info: $(xl info | grep '^virt_caps')); the testbed needs --cpu-model qemu64,+svm,+npt (make bench-pvh)"
	pvh=0 rc=1
fi
[ "$pvh" = 1 ] &&
	{ GUEST_TYPE=pvh fipc_step bench-phy-pvh 1200 bench_domu phy-pvh phy 'blkif-backend' 'blkif' || rc=1; }

# The fipc drivers: the disks are phy1: disks of the domU's xl config
# (xl with tools/libxl-phy1/), served by xen-fipc-back's pollers.
phy1_modules() {
	fipc_load_module fipc &&
		fipc_load_module xen-fipc-back poll_idle_us="$(fipc_opt POLL_IDLE_US 200)" \
			poll_idle_max_us="$(fipc_opt POLL_IDLE_MAX_US 2000)" \
			pollers="$(fipc_opt POLLERS 1)" memshare_max_mib=1536
}
have_fipc() { [ -n "$FIPC_MODULES" ] && find "$FIPC_MODULES" -name 'xen-fipc-back.ko' | grep -q .; }
if ! xl -N block-attach 0 phy1:/dev/nullb0,xvdx,w >/dev/null 2>&1; then
	echo "phy1-grant skipped: this dom0's xl has no phy1 disk type (tools/libxl-phy1/)" >> "$FIPC_RESULTS/skipped.txt"
	echo "phy1-memshare skipped: this dom0's xl has no phy1 disk type" >> "$FIPC_RESULTS/skipped.txt"
elif have_fipc && [ "$(fipc_opt PHY1 1)" = 1 ]; then
	export FIPC_DOMU_LOAD="fipc xen-fipc-front"
	fipc_step phy1-modules 60 phy1_modules || rc=1
	fipc_step bench-phy1-grant 1200 bench_domu phy1-grant phy1 \
		'xen-fipc-back' 'xen-fipc-front' || rc=1
	if modinfo -F parm "$(find "$FIPC_MODULES" -name xen-fipc-back.ko | head -n 1)" | grep -q '^memshare:'; then
		DISKOPTS=,memshare=on WANT_DATA_PATH=memshare fipc_step bench-phy1-memshare 1200 \
			bench_domu phy1-memshare phy1 'xen-fipc-back' 'xen-fipc-front' || rc=1
	else
		echo "phy1-memshare skipped: this xen-fipc-back has no memshare data path" >> "$FIPC_RESULTS/skipped.txt"
	fi
	[ "$pvh" = 1 ] &&
		{ GUEST_TYPE=pvh fipc_step bench-phy1-grant-pvh 1200 \
			bench_domu phy1-grant-pvh phy1 'xen-fipc-back' 'xen-fipc-front' || rc=1; }
	[ "$pvh" = 1 ] &&
		{ GUEST_TYPE=pvh DISKOPTS=,memshare=on WANT_DATA_PATH=memshare \
			fipc_step bench-phy1-memshare-pvh 1200 bench_domu phy1-memshare-pvh \
			phy1 'xen-fipc-back' 'xen-fipc-front' || rc=1; }
else
	echo "phy1-grant skipped: xen-fipc-back.ko not built" >> "$FIPC_RESULTS/skipped.txt"
	echo "phy1-memshare skipped: xen-fipc-back.ko not built" >> "$FIPC_RESULTS/skipped.txt"
fi
exit $rc
