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
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"
. "$common/fipc-lib.sh"
export FIPC_DOMU_LOAD="fipc xen-fipc-front"

prepare() {
	fipc_dmesg_mark
	fipc_null_blk 1 || return 1
	fipc_load_module fipc_holdref size_mib=128 hold_ms="$(fipc_opt HOLD_MS 20)" ||
		return 1
	fipc_wait_blockdev /dev/fipc_holdref || return 1
	fipc_modules_load 0 || return 1
	echo N > /sys/module/xen_fipc_back/parameters/grant_staging
}

# holdref_param NAME: a counter of fipc_holdref.
holdref_param() { cat "/sys/module/fipc_holdref/parameters/$1"; }

holdref() {
	local id v max=0 waited=0 rc=0 held changed faulted
	fipc_domu_start stack "$here/domU.cfg" "$common/guest-stacks.sh" \
		BACKING=/dev/fipc_holdref || return 1
	fipc_domu_start beside "$here/domU.cfg" "$common/guest-stacks.sh" \
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

# teardown: pages mapped for the connection (the grant path's staging
# pages, grant_staging=Y, the default) still held below the backend when
# the guest goes away.  The guest "gone" writes 4 MiB on fipc_holdref,
# holding each page -o TEARDOWN_HOLD_MS (3000) ms, and powers off at
# once: the backend's teardown must wait for the holds before it unmaps
# the staging pages.  Wanted: pages held, none unreadable when its hold
# ended.  ("changed" may grow here: the guest itself reuses its staging
# pages once a write is answered, as with blkback's persistent grants.)
teardown() {
	local hold f0 h0 c0 f h c rc=0
	hold=$(fipc_opt TEARDOWN_HOLD_MS 3000)
	echo Y > /sys/module/xen_fipc_back/parameters/grant_staging
	echo "$hold" > /sys/module/fipc_holdref/parameters/hold_ms
	f0=$(holdref_param faulted) h0=$(holdref_param held) c0=$(holdref_param changed)
	fipc_domu_start gone "$here/domU.cfg" "$common/guest-stacks.sh" \
		BACKING=/dev/fipc_holdref || return 1
	fipc_domu_wait gone 300 || rc=1
	# Every hold ends within hold_ms of the guest's last write.
	sleep $((hold / 1000 + 2))
	f=$(($(holdref_param faulted) - f0)) h=$(($(holdref_param held) - h0))
	c=$(($(holdref_param changed) - c0))
	fipc_log "teardown: pages held $h, unreadable $f, changed $c (hold $hold ms)"
	echo "{\"held\": $h, \"faulted\": $f, \"changed\": $c, \"hold_ms\": $hold}" \
		> "$FIPC_RESULTS/teardown.json"
	[ "$h" -gt 0 ] || { fipc_fail "teardown: fipc_holdref held no page"; rc=1; }
	[ "$f" = 0 ] ||
		{ fipc_fail "teardown: $f held pages unmapped by the backend's teardown before their hold ended"; rc=1; }
	return $rc
}

finish() {
	local rc=0
	rmmod xen-fipc-back || { fipc_fail "rmmod xen-fipc-back failed"; rc=1; }
	rmmod fipc || rc=1
	rmmod fipc_holdref || { fipc_fail "rmmod fipc_holdref failed"; rc=1; }
	fipc_health final || rc=1
	return $rc
}

fipc_step stacks-prepare 120 prepare || exit 1
rc=0
fipc_step holdref 600 holdref || rc=1
fipc_step teardown 300 teardown || rc=1
fipc_step stacks-finish 120 finish || rc=1
exit $rc
