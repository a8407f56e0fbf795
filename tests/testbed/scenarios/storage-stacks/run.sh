#!/bin/bash
# Scenario "storage-stacks" (dom0 side): phy1: disks on storage that, as
# iscsi_tcp, NBD or DRBD over TCP can, keeps references to a request's
# pages after ending it (issue 45).  A page the backend unmapped and put
# back in its cache while such a reference is held gets the next
# request's grant mapped in, maybe another guest's: what the lower layer
# sends from it then is someone else's data.
#
# holdref: the guest "stack" runs fio verify on a disk on fipc_holdref
# (tests/attack/fipc_holdref.c: a RAM disk that holds each written page
# -o HOLD_MS (default 20) ms after ending the write, then checks its bytes
# unchanged and readable), on the grant path without staging pages
# (grant_staging=N: every request maps and unmaps its own grants), while
# the guest "beside" runs verified random I/O on null_blk through the same
# backend poller.  Wanted: both fios clean, pages held (held > 0), none of
# them changed or unreadable when the hold ended, the backend's
# recycled_held 0 (no page put back in its cache while held) and its
# held_unmaps above 0 (requests that waited for their pages).  Before the
# backend waited (2026-11-28, emulated): 18454 pages recycled while held,
# 2893 held pages changed and 15448 unreadable.
#
# teardown, teardown-memshare: a guest powers off while pages the
# backend keeps mapped for its connection are held below (staging pages;
# on memshare, its memory).  stacks: five real stacks, each as phy1: on
# both data paths and as phy:, with figures, verify and discards, and as
# phy1: attached while grant_staging=N (every request maps its own
# grants, as in holdref, but under iscsi_tcp and NBD themselves).
# -o PHASES ("holdref teardown stacks") picks phases.
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"
. "$here/stacks.sh"
export FIPC_DOMU_LOAD="fipc xen-fipc-front"

prepare() {
	fipc_dmesg_mark
	fipc_null_blk 1 || return 1
	fipc_load_module fipc_holdref size_mib=128 hold_ms="$(fipc_opt HOLD_MS 20)" ||
		return 1
	fipc_wait_blockdev /dev/fipc_holdref || return 1
	fipc_modules_load 0 || return 1
	echo N > /sys/module/xen_fipc_back/parameters/grant_staging
	# Room for a 512 MiB guest's memory on memshare (its table and
	# staging pages), with another guest's beside.
	echo 1536 > /sys/module/xen_fipc_back/parameters/memshare_max_mib
}

# holdref_param NAME: a counter of fipc_holdref.
holdref_param() { cat "/sys/module/fipc_holdref/parameters/$1"; }

holdref() {
	local id v max=0 waited=0 rc=0 held changed faulted
	fipc_domu_start stack "$here/domU.cfg" "$here/guest.sh" \
		BACKING=/dev/fipc_holdref || return 1
	fipc_domu_start beside "$here/domU.cfg" "$here/guest.sh" \
		BACKING=/dev/nullb0 || { xl destroy stack; return 1; }
	id=$(xl domid stack) || return 1
	# The backend device goes with the guest: its counter is read while
	# the guest runs.
	while [ -n "$(fipc_domu_state stack)" ]; do
		v=$(fipc_be_stat "$id" 51728 recycled_held)
		[ "$v" -gt "$max" ] && max=$v
		v=$(fipc_be_stat "$id" 51728 held_unmaps)
		[ "$v" -gt "$waited" ] && waited=$v
		sleep 1
	done
	fipc_domu_wait stack 60 || rc=1
	fipc_domu_wait beside 300 || rc=1
	held=$(holdref_param held) changed=$(holdref_param changed)
	faulted=$(holdref_param faulted)
	fipc_log "holdref: pages held $held (unheld $(holdref_param unheld)), changed $changed, unreadable $faulted; backend recycled_held $max, held_unmaps $waited"
	echo "{\"held\": $held, \"changed\": $changed, \"faulted\": $faulted, \"recycled_held\": $max, \"held_unmaps\": $waited}" \
		> "$FIPC_RESULTS/holdref.json"
	[ "$held" -gt 0 ] || { fipc_fail "holdref: fipc_holdref held no page: the check saw nothing"; rc=1; }
	[ "$max" = 0 ] ||
		{ fipc_fail "holdref: the backend put $max pages back in its cache while fipc_holdref still held them"; rc=1; }
	[ "$waited" -gt 0 ] ||
		{ fipc_fail "holdref: no request waited for its pages (held_unmaps 0) though fipc_holdref held $held"; rc=1; }
	[ "$changed" = 0 ] && [ "$faulted" = 0 ] ||
		{ fipc_fail "holdref: $changed held pages changed and $faulted became unreadable before their hold ended"; rc=1; }
	return $rc
}

# teardown PATH CFG NAME: pages mapped for the connection still held below
# the backend when the guest goes away: on the grant path its staging
# pages (grant_staging=Y, the default), on memshare the guest's memory
# the backend keeps mapped (the writes name its pages) and its staging
# pages.  The guest NAME (xl config CFG) writes 4 MiB on fipc_holdref,
# holding each page -o TEARDOWN_HOLD_MS (3000) ms, and powers off at
# once: the backend's teardown must wait for the holds before it unmaps
# those pages.  Wanted: pages held, none unreadable when its hold ended,
# and the disk on the data path PATH.  ("changed" may grow here: the
# guest itself reuses its pages once a write is answered, as with
# blkback's persistent grants.)
teardown() {
	local path=$1 name=$3 hold f0 h0 c0 f h c id p='' rc=0
	hold=$(fipc_opt TEARDOWN_HOLD_MS 3000)
	echo Y > /sys/module/xen_fipc_back/parameters/grant_staging
	echo "$hold" > /sys/module/fipc_holdref/parameters/hold_ms
	f0=$(holdref_param faulted) h0=$(holdref_param held) c0=$(holdref_param changed)
	fipc_domu_start "$name" "$here/$2" "$here/guest.sh" \
		BACKING=/dev/fipc_holdref || return 1
	id=$(xl domid "$name") || return 1
	# Its data path, read while it is connected.
	while [ -n "$(fipc_domu_state "$name")" ] && [ -z "$p" ]; do
		p=$(cat "$FIPC_BE_SYSFS/fipcblk-$id-51728/statistics/data_path" 2>/dev/null)
		[ "$p" = none ] && p=''
		fipc_nap 0.2
	done
	fipc_domu_wait "$name" 300 || rc=1
	# Missed while it ran (a loaded host): the guest's own word.
	[ -n "$p" ] || p=$(sed -n 's/.*@@FIPC-STACK gone data_path \([a-z]*\).*/\1/p' \
		"$FIPC_CONSOLE_DIR/guest-$name.log" 2>/dev/null | tail -n 1)
	# Every hold ends within hold_ms of the guest's last write.
	sleep $((hold / 1000 + 2))
	f=$(($(holdref_param faulted) - f0)) h=$(($(holdref_param held) - h0))
	c=$(($(holdref_param changed) - c0))
	fipc_log "teardown ($path): disk on ${p:-no} data path, pages held $h, unreadable $f, changed $c (hold $hold ms)"
	echo "{\"path\": \"$path\", \"data_path\": \"$p\", \"held\": $h, \"faulted\": $f, \"changed\": $c, \"hold_ms\": $hold}" \
		> "$FIPC_RESULTS/teardown-$path.json"
	[ "$p" = "$path" ] || { fipc_fail "teardown ($path): the disk connected on the '$p' data path"; rc=1; }
	[ "$h" -gt 0 ] || { fipc_fail "teardown ($path): fipc_holdref held no page"; rc=1; }
	[ "$f" = 0 ] ||
		{ fipc_fail "teardown ($path): $f held pages unmapped by the backend's teardown before their hold ended"; rc=1; }
	return $rc
}

# stacks: the stacks of stacks.sh (-o STACKS, default all five), each
# device given to the guest "stacks" three times: as phy1: on the grant
# path (with the default staging pages), as classic phy:, and as phy1:
# on memshare; and a fourth time, to the guest "neighbour" (xvdc on; the
# stacks guest has xvdb to xvdp, and a later vdev does not fit Linux's
# device names when the domid has two digits: stacks_extended_refused),
# attached (xl block-attach) once the figures are taken, as phy1: with
# grant_staging=N (read at the backend's probe): every request maps and
# unmaps its own grants.  The guest "stacks" measures phy1: (grant) and
# phy: (4 KiB random writes at QD 32, reads at QD 1) while dom0 counts
# its own CPU time around each job, then verifies each phy1: disk, grant,
# then memshare, and, where the stack takes discards, discards beside
# data that must read back unchanged, while the neighbour runs verified
# I/O on null_blk through the same poller and verifies the fourth disks.
# Wanted: every fio clean, the memshare disks on memshare, the fourth
# disks with no staged request, recycled_held 0 on every phy1: disk,
# every discard the guest made counted by the backend, every stack down
# cleanly.  The figures (emulated) and the
# fourth disks' held_unmaps (logged, not required: the stack decides
# whether pages stay held) go to stacks.json and stacks.txt.  -o
# NOSTAGING=0 leaves the fourth disks out.
stacks() {
	local s e dev n=1 d1 d0 dm q=2 map='' nmap='' disks='' p j t0 t1 id nid v max=0 rc=0 k
	local nost
	nost=$(fipc_opt NOSTAGING 1)
	echo Y > /sys/module/xen_fipc_back/parameters/grant_staging
	: > "$FIPC_WORK/stacks.up"
	: > "$FIPC_WORK/stacks-cpu.txt"
	for s in $(fipc_opt STACKS "thin crypt md nbd iscsi"); do
		dev=$(stack_up "$s") ||
			{ fipc_fail "storage stack $s did not come up"; rc=1; break; }
		echo "$s" >> "$FIPC_WORK/stacks.up"
		echo "$dev" > "$FIPC_WORK/dev-$s"
		fipc_log "stack $s: $dev"
		d1=xvd$(stack_letter $n) d0=xvd$(stack_letter $((n + 1)))
		dm=xvd$(stack_letter $((n + 2)))
		[ "$nost" != 1 ] || nmap="$nmap $s:$q"
		n=$((n + 3)) q=$((q + 1))
		map="$map $s:$d1:$d0:$dm"
		disks="$disks'phy1:$dev,$d1,w', 'phy:$dev,$d0,w', 'phy1:$dev,$dm,w,memshare=on', "
	done
	[ $rc = 0 ] || return 1
	export FIPC_OPT_STACK_DISKS="$map"
	fipc_domu_start stacks "$here/domU-stacks.cfg" "$here/guest.sh" \
		"DISKS=$disks" || return 1
	export FIPC_OPT_NOSTAGING_DISKS="$nmap"
	fipc_domu_start neighbour "$here/domU.cfg" "$here/guest.sh" \
		BACKING=/dev/nullb0 || { xl destroy stacks; return 1; }
	for e in $map; do
		for p in phy1 phy; do
			for j in w32 r1; do
				fipc_domu_wait_marker stacks "@@FIPC-STACK start ${e%%:*}-$p-$j" 300 ||
					return 1
				t0=$(dom0_busy)
				fipc_domu_wait_marker stacks "@@FIPC-STACK end ${e%%:*}-$p-$j" 300 ||
					return 1
				t1=$(dom0_busy)
				echo "${e%%:*} $p $j $((t1 - t0))" >> "$FIPC_WORK/stacks-cpu.txt"
			done
		done
		fipc_log "stack ${e%%:*}: figures taken on phy1: and phy:"
	done
	fipc_domu_wait_marker stacks "@@FIPC-STACK verify" 120 || return 1
	fipc_mailbox_put /dev/nullb0 go || return 1
	id=$(xl domid stacks) || return 1
	nid=$(xl domid neighbour) || return 1
	stacks_extended_refused "$id" || rc=1
	[ "$nost" != 1 ] || stacks_attach_nostaging "$nid" "$nmap" || rc=1
	while [ -n "$(fipc_domu_state stacks)" ]; do
		n=1
		for e in $map; do
			# The phy1: disks: grant (n), memshare (n + 2).
			for k in $(stack_vdev $n) $(stack_vdev $((n + 2))); do
				v=$(fipc_be_stat "$id" "$k" recycled_held)
				[ "$v" -gt "$max" ] && max=$v
			done
			# Requests that waited for their pages below, discards
			# served, the memshare disk's data path (last seen).
			v=$(fipc_be_stat "$id" $((51712 + 16 * n)) held_unmaps)
			[ "$v" -ge 0 ] && echo "$v" > "$FIPC_WORK/held-${e%%:*}"
			v=$(fipc_be_stat "$id" $((51712 + 16 * n)) ds_req)
			[ "$v" -ge 0 ] && echo "$v" > "$FIPC_WORK/discards-${e%%:*}"
			v=$(fipc_be_stat "$id" $((51712 + 16 * (n + 2))) data_path)
			[ "$v" = memshare ] && echo "$v" > "$FIPC_WORK/path-${e%%:*}"
			n=$((n + 3))
		done
		sleep 2
	done
	fipc_domu_wait stacks 900 || rc=1
	if [ "$nost" = 1 ]; then
		v=$(stacks_read_nostaging "$nid" "$nmap") || rc=1
		[ "${v:-0}" -le "$max" ] || max=$v
	fi
	fipc_mailbox_put /dev/nullb0 stop || rc=1
	fipc_domu_wait neighbour 120 || rc=1
	stacks_table || rc=1
	stacks_paths_and_discards || rc=1
	[ "$nost" != 1 ] || stacks_nostaging || rc=1
	[ "$max" = 0 ] ||
		{ fipc_fail "stacks: the backend put $max pages back in its cache while a stack below still held them"; rc=1; }
	return $rc
}

# stacks_attach_nostaging ID NMAP: each stack's fourth disk attached to
# the neighbour (domain ID; NMAP: "NAME:N ...", its N-th vdev) while
# grant_staging is N, Y again once all are connected (so probed).
stacks_attach_nostaging() {
	local e s out rc=0
	echo N > /sys/module/xen_fipc_back/parameters/grant_staging
	for e in $2; do
		s=${e%%:*}
		out=$(xl block-attach neighbour "phy1:$(cat "$FIPC_WORK/dev-$s"),xvd$(stack_letter "${e##*:}"),w" 2>&1) || {
			fipc_fail "stacks: xl block-attach of $s's grant_staging=N disk failed: $out"
			[ $rc = 1 ] || stacks_attach_diag "$1"
			rc=1
		}
	done
	for e in $2; do
		fipc_blk_wait_connected "$1" "$(stack_vdev "${e##*:}")" 60 || rc=1
	done
	echo Y > /sys/module/xen_fipc_back/parameters/grant_staging
	[ $rc = 0 ] && fipc_log "stacks: the grant_staging=N disks attached"
	return $rc
}

# stacks_extended_refused ID: xl refuses an extended vdev (xvdq) of the
# guest "stacks" (fipc_xl_refuses_extended) when its domid has two digits
# (the test command's shared boot); logged as not checked otherwise.
stacks_extended_refused() {
	local out
	if [ "$1" -lt 10 ]; then
		fipc_log "stacks: domain $1: its extended vdevs fit Linux's device names; the refusal is not checked"
		return 0
	fi
	out=$(fipc_xl_refuses_extended stacks "$1" "$(cat "$FIPC_WORK/dev-$(head -n 1 "$FIPC_WORK/stacks.up")")") ||
		return 1
	fipc_log "stacks: $(grep -m 1 'Linux cannot name' <<< "$out")"
}

# stacks_attach_diag ID: what a failed hot attach leaves to read: the
# guest's backend directories, the bus's devices, xenwatch's kernel
# stack (a probe or callback that never returns) and the kernel's log.
stacks_attach_diag() {
	local p
	fipc_log "stacks: attach diag: backend nodes of domain $1:"
	xenstore-ls -f "/local/domain/0/backend/fipcblk/$1" 2>&1 | sed 's/^/  /' | head -80
	fipc_log "stacks: attach diag: xen-backend devices: $(ls /sys/bus/xen-backend/devices 2>&1 | tr '\n' ' ')"
	for p in $(pgrep -x xenwatch) $(pgrep -x xenbus); do
		fipc_log "stacks: attach diag: $(cat "/proc/$p/comm") state $(awk '/^State/ {print $2}' "/proc/$p/status"), stack:"
		sed 's/^/  /' "/proc/$p/stack" 2>&1
	done
	fipc_log "stacks: attach diag: kernel log, last 60 lines:"
	dmesg | tail -60 | sed 's/^/  /'
}

# stacks_read_nostaging ID NMAP: once the neighbour (domain ID) said how
# each fourth disk's verify went, their counters: pages recycled while
# held (the most of them on stdout), requests that waited, those staged
# (none wanted), the data path.
stacks_read_nostaging() {
	local e s k v max=0 rc=0
	for e in $2; do
		s=${e%%:*} k=$(stack_vdev "${e##*:}")
		fipc_domu_wait_marker neighbour "@@FIPC-STACK nostaging $s:" 900 >&2 || rc=1
		v=$(fipc_be_stat "$1" "$k" recycled_held)
		[ "$v" -ge 0 ] && echo "$v" > "$FIPC_WORK/recycledn-$s"
		[ "$v" -le "$max" ] || max=$v
		v=$(fipc_be_stat "$1" "$k" held_unmaps)
		[ "$v" -ge 0 ] && echo "$v" > "$FIPC_WORK/heldn-$s"
		v=$(fipc_be_stat "$1" "$k" staged_req)
		[ "$v" -ge 0 ] && echo "$v" > "$FIPC_WORK/stagedn-$s"
		v=$(fipc_be_stat "$1" "$k" data_path)
		[ "$v" = grant ] && echo "$v" > "$FIPC_WORK/pathn-$s"
	done
	echo "$max"
	return $rc
}

# stacks_nostaging: each stack's grant_staging=N disk verified (the
# neighbour's "nostaging NAME: ok"), on the grant path with no request
# staged; its held_unmaps logged.
stacks_nostaging() {
	local s h g r rc=0 log=$FIPC_RESULTS/neighbour/guest.log
	while read -r s; do
		h=$(cat "$FIPC_WORK/heldn-$s" 2>/dev/null || echo -1)
		g=$(cat "$FIPC_WORK/stagedn-$s" 2>/dev/null || echo -1)
		r=$(cat "$FIPC_WORK/recycledn-$s" 2>/dev/null || echo -1)
		fipc_log "stack $s: phy1: with grant_staging=N: held_unmaps $h, staged_req $g, recycled_held $r"
		grep -q "@@FIPC-STACK nostaging $s: ok" "$log" 2>/dev/null ||
			{ fipc_fail "stacks: no clean verify on $s's grant_staging=N disk"; rc=1; }
		[ "$g" = 0 ] && [ "$(cat "$FIPC_WORK/pathn-$s" 2>/dev/null)" = grant ] ||
			{ fipc_fail "stacks: $s's grant_staging=N disk not seen on the grant path, or it staged requests ($g)"; rc=1; }
	done < "$FIPC_WORK/stacks.up"
	return $rc
}

# stacks_paths_and_discards: each stack's memshare disk was seen on
# memshare, and the guest discarded (its log says "discard NAME: ok"),
# the backend of the grant disk serving the discards: every stack here is
# set up to take them (stacks.sh).  -o DISCARD_NONE_OK=1 accepts a stack
# that takes none ("none": discard_max_bytes 0 through phy1:).
stacks_paths_and_discards() {
	local s log=$FIPC_RESULTS/stacks/guest.log rc=0 d
	while read -r s; do
		[ "$(cat "$FIPC_WORK/path-$s" 2>/dev/null)" = memshare ] ||
			{ fipc_fail "stacks: the memshare disk of $s was never seen on memshare"; rc=1; }
		d=$(cat "$FIPC_WORK/discards-$s" 2>/dev/null || echo 0)
		if grep -q "@@FIPC-STACK discard $s: ok" "$log" 2>/dev/null; then
			[ "$d" -gt 0 ] ||
				{ fipc_fail "stacks: the guest discarded on $s, the backend served no discard"; rc=1; }
			fipc_log "stack $s: discards through phy1: ($d served), the data beside them unchanged"
		elif grep -q "@@FIPC-STACK discard $s: none" "$log" 2>/dev/null; then
			fipc_log "stack $s: takes no discard ($(grep -o "discard $s: none.*" "$log" | head -1))"
			[ "$(fipc_opt DISCARD_NONE_OK 0)" = 1 ] ||
				{ fipc_fail "stacks: $s, set up to take discards, takes none through phy1:"; rc=1; }
		else
			fipc_fail "stacks: no discard result from the guest for $s"
			rc=1
		fi
	done < "$FIPC_WORK/stacks.up"
	return $rc
}

# stack_letter N: the N-th letter (1: b): the guest's disk names.
stack_letter() { echo abcdefghijklmnopqrstuvwxy | cut -c$(($1 + 1)); }

# stack_vdev N: the N-th disk's vdev number (xvdq on: libxl's extended
# numbers).
stack_vdev() {
	if [ "$1" -lt 16 ]; then
		echo $((51712 + 16 * $1))
	else
		echo $(((1 << 28) + 256 * $1))
	fi
}

# dom0_busy: dom0's CPU time so far (all vCPUs, not idle), in clock ticks.
dom0_busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }

# stacks_table: the figures of every stack and path from the guest's fio
# results and dom0's CPU counts: stacks.json, stacks.txt.
stacks_table() {
	local s p f w r1 iops lat ios t h hn sep='' rc=0 hz line
	# /proc/stat counts in USER_HZ, 100 on x86 (dom0 has no getconf).
	hz=100
	printf '%-6s %-5s %10s %12s %14s %14s %11s %13s\n' stack path "IOPS_w32" "lat_r1_us" \
		"dom0_us/io_w32" "dom0_us/io_r1" "held_unmaps" "held_unmaps_N" > "$FIPC_RESULTS/stacks.txt"
	echo '{"emulated": true, "stacks": [' > "$FIPC_RESULTS/stacks.json"
	while read -r s; do
		for p in phy1 phy; do
			f=$FIPC_RESULTS/stacks/$s-$p
			# fio's JSON: read's section comes first, then write's.
			iops=$(fipc_json_value "$f-w32.json" iops 2)
			ios=$(fipc_json_value "$f-w32.json" total_ios 2)
			t=$(awk -v s="$s" -v p="$p" '$1 == s && $2 == p && $3 == "w32" { print $4 }' "$FIPC_WORK/stacks-cpu.txt")
			w=$(awk -v t="$t" -v n="$ios" -v hz="$hz" 'BEGIN { printf "%.0f", (n > 0 ? t * 1e6 / hz / n : -1) }')
			# lat_ns's mean: the third "mean" of read's section.
			lat=$(awk -v v="$(fipc_json_value "$f-r1.json" mean 3)" 'BEGIN { printf "%.1f", v / 1000 }')
			ios=$(fipc_json_value "$f-r1.json" total_ios 1)
			t=$(awk -v s="$s" -v p="$p" '$1 == s && $2 == p && $3 == "r1" { print $4 }' "$FIPC_WORK/stacks-cpu.txt")
			r1=$(awk -v t="$t" -v n="$ios" -v hz="$hz" 'BEGIN { printf "%.0f", (n > 0 ? t * 1e6 / hz / n : -1) }')
			[ -n "$iops" ] && [ "$w" -ge 0 ] && [ "$r1" -ge 0 ] ||
				{ fipc_fail "stacks: no figures for $s on $p"; rc=1; continue; }
			# held_unmaps: the grant disk's (staging pages), and
			# the grant_staging=N disk's.
			h=- hn=-
			[ $p = phy1 ] && h=$(cat "$FIPC_WORK/held-$s" 2>/dev/null || echo -1) &&
				hn=$(cat "$FIPC_WORK/heldn-$s" 2>/dev/null || echo -1)
			printf '%-6s %-5s %10.1f %12s %14s %14s %11s %13s\n' "$s" "$p" "$iops" "$lat" "$w" "$r1" "$h" "$hn" \
				>> "$FIPC_RESULTS/stacks.txt"
			[ "$h" = - ] && h=null hn=null
			printf '%s  {"stack": "%s", "path": "%s", "iops_randwrite_qd32": %s, "lat_randread_qd1_us": %s, "dom0_cpu_us_per_io_qd32": %s, "dom0_cpu_us_per_io_qd1": %s, "held_unmaps": %s, "held_unmaps_grant_staging_n": %s}' \
				"$sep" "$s" "$p" "$iops" "$lat" "$w" "$r1" "$h" "$hn" >> "$FIPC_RESULTS/stacks.json"
			sep=$',\n'
		done
	done < "$FIPC_WORK/stacks.up"
	printf '\n]}\n' >> "$FIPC_RESULTS/stacks.json"
	fipc_log "storage stacks (EMULATED timings; 4 KiB, $(fipc_opt FIG_S 5) s a job):"
	while read -r line; do fipc_log "  $line"; done < "$FIPC_RESULTS/stacks.txt"
	return $rc
}

# stacks_down: every stack that came up goes down again, last first.
stacks_down() {
	local s rc=0
	[ -f "$FIPC_WORK/stacks.up" ] || return 0
	for s in $(tac "$FIPC_WORK/stacks.up"); do
		stack_down "$s" || rc=1
	done
	return $rc
}

finish() {
	local rc=0
	fipc_back_unload || rc=1
	rmmod fipc_holdref || { fipc_fail "rmmod fipc_holdref failed"; rc=1; }
	fipc_health final || rc=1
	return $rc
}

fipc_step stacks-prepare 120 prepare || exit 1
rc=0
phases=" $(fipc_opt PHASES "holdref teardown stacks") "
[[ $phases == *" holdref "* ]] && { fipc_step holdref 600 holdref || rc=1; }
if [[ $phases == *" teardown "* ]]; then
	fipc_step teardown 300 teardown grant domU.cfg gone || rc=1
	fipc_step teardown-memshare 300 teardown memshare domU-memshare.cfg gone-ms || rc=1
fi
if [[ $phases == *" stacks "* ]]; then
	fipc_step stacks 1500 stacks || rc=1
	fipc_step stacks-down 120 stacks_down || rc=1
fi
fipc_step stacks-finish 120 finish || rc=1
exit $rc
