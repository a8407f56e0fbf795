#!/bin/bash
# Scenario "io-limits" (dom0 side): per-disk I/O limits of phy1: disks
# (issue 48).  Two guests on one backend poller (POLLERS=1), each with a
# phy1: disk on a null_blk of its own: "capped", whose disk dom0 limits
# through sysfs (limits/ of its backend device), and "neighbour".
#   refusals  xl's limit options (capped's config) are in limits/, none
#             on the neighbour, its guest total (given on xvdb) on xvdc
#             too; 0, garbage, a rate past 2^40 and a burst of 0, "+5"
#             or past 60000 ms are refused (EINVAL); "none" lifts a
#             limit; a limit set is in xenstore
#   caps      for each of capped's saturating 4 KiB reads (iops_read),
#             64 KiB reads (bps_read), 4 KiB writes (iops_write) and
#             64 KiB writes (bps_write): its rate uncapped from the
#             backend's counters, then a cap of -o CAP_PCT (25) % of it;
#             fio's rate over -o LIMIT_S (5) s at most 10 % over the
#             cap, and at least 90 % of it where it binds (a request
#             waited for it three quarters of fio's run or more; less:
#             the guest was slower than its cap then, as the emulated
#             host's load goes, and it is reported, not judged from
#             below; at least one disk cap and one guest total must
#             bind) (results/limits.txt; caps.txt: kind, cap, uncapped
#             rate, seconds a request waited for the cap in the phase)
#   guest     the same four kinds on both of capped's disks (xvdb, xvdc)
#             at once, under the guest's total (limits/guest_*) at each
#             kind's cap: the two disks' sum within 10 % of it, and where
#             it binds (each disk's waits, on average, three quarters of
#             its run) neither disk under 20 % of the sum; the total
#             shown on both disks and in both disks' xenstore keys
#   neighbour QD 1 reads alone (twice), beside capped's capped reads,
#             and beside the same reads paced by fio in the guest to the
#             cap's rate, the backend holding nothing, twice each in the
#             order capped, paced, paced, capped (a drift of the host's
#             load then weighs on both alike): its mean latency beside
#             the capped reads (the better of the two runs: the host's
#             noise only adds latency) stays within the spread (at
#             least 25 %) of its latency beside the paced ones (the
#             better run; the spread: of the alone runs and of the
#             paced ones).  Both guests' vCPUs share one pCPU here, so
#             beside a busy guest is never "alone": the paced reads give
#             the neighbour the same guest load, so what differs is the
#             backend's holding.  One run of each once failed on the
#             emulated host's noise alone (1590 us capped, 1135 paced)
#   live      capped reads at the iops_read cap's rate (iops); after 2 s
#             dom0 sets a quarter of it: the backend's request rate over
#             the 1 s to 4 s after the change is within 10 % of the new
#             cap (and a request of the window's granularity), before it
#             of the old as the caps are judged (from below where it binds)
#   slow      at iops 20 the backend poller sleeps between requests (its
#             sleeps grow by at least a quarter of the requests served)
#   badkey    fipc-guest-iops "fast" in xvdc's backend keys refuses its
#             connection once dom0 binds the device again (an error node
#             naming key and value, never Connected); mended, it connects
# Then throttled_req/throttled_us count capped's waits and none of the
# neighbour's, and dom0's health.  Emulated: rates are the caps', not the
# machine's; latencies compare only inside this boot.
set -u
. "${FIPC_LIB:-$(dirname "$0")/../../lib}/fipc-scenario.sh"
fipc_scenario_begin "$@"
export FIPC_DOMU_LOAD="fipc xen-fipc-front"
# Exported: fipc_step runs each phase in a child.
export XVDB=51728 XVDC=51744 CAP_PCT
CAP_PCT=$(fipc_opt CAP_PCT 25)

# lim FILE [VALUE]: capped's limits/FILE (of xvdb; $DEV to name
# another disk), or set it to VALUE.
lim() {
    local f
    f=$FIPC_BE_SYSFS/fipcblk-$(cat "$FIPC_WORK/capped.id")-${DEV:-$XVDB}/limits/$1
    if [ $# -eq 1 ]; then cat "$f"; else echo "$2" > "$f"; fi
}

# be_stat GUEST NAME: a counter of GUEST's backend device (xvdb; $DEV to
# name another disk).
be_stat() {
    cat "$FIPC_BE_SYSFS/fipcblk-$(cat "$FIPC_WORK/$1.id")-${DEV:-$XVDB}/statistics/$2"
}

# poller_sleeps: sleeps of the backend's pollers, summed.
poller_sleeps() {
    awk '$1 == "poller" { for (i = 2; i < NF; i++)
        if ($i == "sleeps") s += $(i + 1) } END { print s + 0 }' \
        /sys/module/xen_fipc_back/parameters/poller_cpus
}

start() {
    local g
    fipc_dmesg_mark
    fipc_null_blk 1 3 || return 1
    fipc_mailbox_new || return 1
    fipc_modules_load 0 || return 1
    # xl's limit options on capped's disk (limits that never bind here).
    fipc_domu_start capped "$here/domU.cfg" "$here/guest.sh" \
        BACKING=/dev/nullb0 \
        LIMITS=",iops-write=900000,bps-read=1024G,guest-iops-write=800000" \
        DISK2="'phy1:/dev/nullb2,xvdc,w', " || return 1
    fipc_domu_start neighbour "$here/domU.cfg" "$here/guest.sh" \
        BACKING=/dev/nullb1 LIMITS= DISK2= || return 1
    for g in capped neighbour; do
        xl domid "$g" > "$FIPC_WORK/$g.id"
    done
    for g in capped neighbour; do
        fipc_domu_wait_marker "$g" "@@LIMITS $g ready" 600 || return 1
    done
}

refusals() {
    local rc=0 v id k
    # xl's options: in the backend's keys and limits/, the neighbour's none.
    [ "$(lim iops_write)" = 900000 ] && [ "$(lim bps_read)" = 1099511627776 ] ||
        { fipc_fail "xl's iops-write and bps-read are '$(lim iops_write)' and '$(lim bps_read)' in limits/"; rc=1; }
    # xl's guest total, given on xvdb only: the guest's, so xvdc's too.
    [ "$(lim guest_iops_write)" = 800000 ] && [ "$(DEV=$XVDC lim guest_iops_write)" = 800000 ] ||
        { fipc_fail "xl's guest-iops-write is '$(lim guest_iops_write)' on xvdb, '$(DEV=$XVDC lim guest_iops_write)' on xvdc"; rc=1; }
    [ "$(DEV=$XVDC lim iops_write)" = none ] ||
        { fipc_fail "xvdc has xvdb's iops-write: '$(DEV=$XVDC lim iops_write)'"; rc=1; }
    for v in 0 fast +5; do
        if DEV=$XVDC lim guest_bps "$v" 2>/dev/null; then
            fipc_fail "limits/guest_bps took '$v'"; rc=1
        fi
    done
    DEV=$XVDC lim guest_iops_write none || rc=1
    id=$(cat "$FIPC_WORK/neighbour.id")
    k=$(xenstore-ls "backend/fipcblk/$id/$XVDB" 2>/dev/null | grep -E '^fipc-(iops|bps|burst)')
    [ -z "$k" ] || { fipc_fail "the neighbour's backend has limit keys: $k"; rc=1; }
    for v in 0 fast -1 +5 1099511627777 ''; do
        if lim iops "$v" 2>/dev/null; then
            fipc_fail "limits/iops took '$v'"; rc=1
        fi
    done
    for v in 0 60001 x +5 ' 5' 4294967297; do
        if lim burst_ms "$v" 2>/dev/null; then
            fipc_fail "limits/burst_ms took '$v'"; rc=1
        fi
    done
    [ "$(lim iops)" = none ] || { fipc_fail "limits/iops is '$(lim iops)' after refusals, not none"; rc=1; }
    [ "$(lim burst_ms)" = 100 ] || { fipc_fail "limits/burst_ms is '$(lim burst_ms)', not the default 100"; rc=1; }
    lim iops_read 1099511627776 || { fipc_fail "limits/iops_read refused 2^40"; rc=1; }
    lim iops_read none || { fipc_fail "limits/iops_read refused none"; rc=1; }
    lim iops 777 || rc=1
    id=$(cat "$FIPC_WORK/capped.id")
    v=$(xenstore-read "backend/fipcblk/$id/$XVDB/fipc-iops" 2>/dev/null)
    [ "$v" = 777 ] || { fipc_fail "fipc-iops in xenstore is '$v', not 777"; rc=1; }
    lim iops none || rc=1
    v=$(xenstore-read "backend/fipcblk/$id/$XVDB/fipc-iops" 2>/dev/null)
    [ "$v" = none ] || { fipc_fail "fipc-iops in xenstore is '$v' after none"; rc=1; }
    [ $rc -eq 0 ] && fipc_log "limits: refusals and xenstore as expected"
    return $rc
}

# phase WORD WHO: post WORD, wait for each of WHO to be done with it.
phase() {
    fipc_mailbox_put /dev/nullmbox "$1" && phase_done "$1" "$2"
}

# limit_file KIND: the limits/ file that caps KIND.
limit_file() {
    case $1 in
    riops) echo iops_read ;; rbps) echo bps_read ;;
    wiops) echo iops_write ;; wbps) echo bps_write ;;
    esac
}

# counter KIND: capped's backend counter KIND's cap limits (requests,
# or bytes).
counter() {
    case $1 in
    riops) be_stat capped rd_req ;;
    wiops) be_stat capped wr_req ;;
    rbps) echo $(($(be_stat capped rd_sect) * 512)) ;;
    wbps) echo $(($(be_stat capped wr_sect) * 512)) ;;
    esac
}

# moved KIND VALUE: KIND's counter is no longer VALUE.
moved() {
    [ "$(counter "$1")" != "$2" ]
}

# flowing KIND: wait until KIND's counter moves (the guest's fio starts
# seconds after the phase is posted, under TCG), then 1 s more.
flowing() {
    local c0
    c0=$(counter "$1")
    fipc_until 60 moved "$1" "$c0" ||
        { fipc_fail "$1: no I/O from the capped guest in 60 s"; return 1; }
    sleep 1
}

# window KIND SECONDS: KIND's rate (a second) over SECONDS from now.
window() {
    local t0 c0 t1 c1
    t0=$(date +%s.%N) c0=$(counter "$1")
    sleep "$2"
    t1=$(date +%s.%N) c1=$(counter "$1")
    awk -v a="$t0" -v b="$t1" -v x="$c0" -v y="$c1" \
        'BEGIN { printf "%.1f", (y - x) / (b - a) }'
}

# phase_done WORD WHO: wait for each of WHO to be done with WORD.
phase_done() {
    local g
    for g in $2; do
        fipc_domu_wait_marker "$g" "@@LIMITS $g $1 done rc=0" 300 || return 1
    done
}

# cap_kind KIND WHO: KIND's rate uncapped, then KIND capped at CAP_PCT %
# of it, WHO running the phase.
cap_kind() {
    local k=$1 free cap min=10 h0 h1 held
    fipc_mailbox_put /dev/nullmbox "$k-free" || return 1
    flowing "$k" || return 1
    free=$(window "$k" 3)
    phase_done "$k-free" capped || return 1
    case $k in *bps) min=$((10 * 65536)) ;; esac
    cap=$(awk -v f="$free" -v p="$CAP_PCT" 'BEGIN { printf "%d", f * p / 100 }')
    if [ "$cap" -lt "$min" ]; then
        fipc_fail "$k: $free a second uncapped: too slow a guest to test a cap"
        return 1
    fi
    lim "$(limit_file "$k")" "$cap" || return 1
    h0=$(be_stat capped throttled_us)
    phase "$k" "$2" || return 1
    h1=$(be_stat capped throttled_us)
    # caps.txt: kind, cap, rate uncapped, seconds a request of capped's
    # waited for the cap in the phase (figures() divides them by fio's
    # run: the phase also holds fio's start, 3-5 s in a PV guest under
    # TCG, which halved the share and hid a cap that bound).
    held=$(awk -v x="$h0" -v y="$h1" 'BEGIN { printf "%.2f", (y - x) / 1e6 }')
    echo "$k $cap $free $held" >> "$FIPC_RESULTS/caps.txt"
    lim "$(limit_file "$k")" none
}

caps() {
    local cap
    : > "$FIPC_RESULTS/caps.txt"
    phase alone1 neighbour || return 1
    cap_kind riops "capped neighbour" || return 1
    # The same reads paced by fio to the cap, nothing held by the backend.
    cap=$(awk '$1 == "riops" { print $2 }' "$FIPC_RESULTS/caps.txt")
    phase "paced-$cap" "capped neighbour" || return 1
    phase "paced2-$cap" "capped neighbour" || return 1
    lim iops_read "$cap" || return 1
    phase riops2 "capped neighbour" || return 1
    lim iops_read none || return 1
    phase alone2 neighbour || return 1
    cap_kind rbps capped && cap_kind wiops capped && cap_kind wbps capped
}

# guest_kind KIND: KIND on both of capped's disks under the guest's total
# at KIND's cap (caps.txt), set through xvdc's limits/.
guest_kind() {
    local k=$1 cap f id d v h0 h1 rc=0
    cap=$(awk -v k="$k" '$1 == k { print $2 }' "$FIPC_RESULTS/caps.txt")
    [ -n "$cap" ] || { fipc_fail "guest $k: no cap (caps failed)"; return 1; }
    f=guest_$(limit_file "$k")
    DEV=$XVDC lim "$f" "$cap" || return 1
    [ "$(lim "$f")" = "$cap" ] ||
        { fipc_fail "guest $k: xvdb's limits/$f is '$(lim "$f")', xvdc's $cap"; rc=1; }
    id=$(cat "$FIPC_WORK/capped.id")
    for d in $XVDB $XVDC; do
        v=$(xenstore-read "backend/fipcblk/$id/$d/fipc-${f//_/-}" 2>/dev/null)
        [ "$v" = "$cap" ] || { fipc_fail "guest $k: fipc-${f//_/-} of $d is '$v', not $cap"; rc=1; }
    done
    h0=$(( $(be_stat capped throttled_us) + $(DEV=$XVDC be_stat capped throttled_us) ))
    phase "g$k" capped || rc=1
    h1=$(( $(be_stat capped throttled_us) + $(DEV=$XVDC be_stat capped throttled_us) ))
    # held.txt: as caps.txt's last column, both disks' waits summed.
    awk -v k="g$k" -v x="$h0" -v y="$h1" \
        'BEGIN { printf "%s %.2f\n", k, (y - x) / 1e6 }' >> "$FIPC_RESULTS/held.txt"
    DEV=$XVDC lim "$f" none || rc=1
    return $rc
}

guest() {
    local k rc=0
    : > "$FIPC_RESULTS/held.txt"
    for k in riops rbps wiops wbps; do
        guest_kind "$k" || rc=1
    done
    return $rc
}

# within GOT WANT SECONDS: GOT within 10 % of WANT, or one request over
# the window.
within() {
    awk -v g="$1" -v w="$2" -v s="$3" \
        'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= 0.1 * w + 1 / s) }'
}

# held_window KIND SECONDS: KIND's rate over SECONDS from now, and the
# share of them a request of capped's xvdb waited for a cap.
held_window() {
    local h0 h1 t0 t1 c0 c1
    t0=$(date +%s.%N) c0=$(counter "$1") h0=$(be_stat capped throttled_us)
    sleep "$2"
    t1=$(date +%s.%N) c1=$(counter "$1") h1=$(be_stat capped throttled_us)
    awk -v a="$t0" -v b="$t1" -v x="$c0" -v y="$c1" -v g="$h0" -v h="$h1" \
        'BEGIN { printf "%.1f %.2f", (y - x) / (b - a), (h - g) / 1e6 / (b - a) }'
}

# capped_ok GOT HELD CAP SECONDS: as figures() judges a cap: never over
# (within()'s slack), and from below only where it binds.
capped_ok() {
    awk -v g="$1" -v h="$2" -v w="$3" -v s="$4" \
        'BEGIN { exit !(g <= 1.1 * w + 1 / s && (g >= 0.9 * w - 1 / s || h < 0.75)) }'
}

live() {
    local hi lo r1 r2 h1 h2 rc=0
    hi=$(awk '$1 == "riops" { print $2 }' "$FIPC_RESULTS/caps.txt")
    [ -n "$hi" ] || { fipc_fail "live: no riops cap (caps failed)"; return 1; }
    lo=$((hi / 4))
    lim iops "$hi" || return 1
    fipc_mailbox_put /dev/nullmbox live || return 1
    flowing riops || return 1
    # (No process substitution: dom0 has no /dev/fd.)
    set -- $(held_window riops 2)
    r1=$1 h1=$2
    lim iops "$lo" || return 1
    sleep 1
    set -- $(held_window riops 3)
    r2=$1 h2=$2
    phase_done live capped || return 1
    echo "live: $r1 requests/s at iops $hi (held $h1 of the time), $r2 from 1 s after setting $lo (held $h2)" >> "$FIPC_RESULTS/limits.txt"
    capped_ok "$r1" "$h1" "$hi" 2 || { fipc_fail "live: $r1 requests/s at iops $hi, held $h1 of the time"; rc=1; }
    # The lowered cap must bind: the same reads ran at the higher one.
    within "$r2" "$lo" 3 || { fipc_fail "live: $r2 requests/s from 1 s after iops $lo"; rc=1; }
    lim iops none || rc=1
    return $rc
}

slow() {
    local s0 s1 t0 t1 c0 c1 n r rc=0
    lim iops 20 || return 1
    fipc_mailbox_put /dev/nullmbox slow || return 1
    flowing riops || return 1
    s0=$(poller_sleeps) t0=$(date +%s.%N) c0=$(counter riops)
    sleep 2
    s1=$(poller_sleeps) t1=$(date +%s.%N) c1=$(counter riops)
    phase_done slow capped || return 1
    n=$((c1 - c0))
    r=$(awk -v a="$t0" -v b="$t1" -v n="$n" 'BEGIN { printf "%.1f", n / (b - a) }')
    echo "slow: $n requests ($r a second) at iops 20, backend poller sleeps $((s1 - s0))" >> "$FIPC_RESULTS/limits.txt"
    awk -v r="$r" 'BEGIN { exit !(r <= 20 * 1.1 + 0.5) }' ||
        { fipc_fail "slow: $r requests a second at iops 20"; rc=1; }
    [ $((s1 - s0)) -ge $((n / 4)) ] && [ $((s1 - s0)) -gt 0 ] ||
        { fipc_fail "slow: the backend poller slept $((s1 - s0)) times for $n requests held to 20 a second"; rc=1; }
    lim iops none || rc=1
    return $rc
}

# rebind DEV: unbind the backend device DEV and bind it again: it probes
# anew and connects the frontend again, reading the limit keys.
rebind() {
    local drv=/sys/bus/xen-backend/drivers/fipcblk
    echo "$1" > "$drv/unbind" && echo "$1" > "$drv/bind" ||
        { fipc_fail "badkey: cannot unbind and bind $1"; return 1; }
}

# error_says NODE WORD: xenstore's NODE names WORD.
error_says() {
    case $(xenstore-read "$1" 2>/dev/null) in *"$2"*) return 0 ;; esac
    return 1
}

# badkey: a limit key the toolstack wrote wrong (the guest cannot write
# there) refuses xvdc's connection, with an error node naming the key and
# the value, and the disk never Connected; mended, bound again, it
# connects and the total is gone.
badkey() {
    local id k e dev i=0 rc=0
    id=$(cat "$FIPC_WORK/capped.id")
    k=backend/fipcblk/$id/$XVDC dev=fipcblk-$id-$XVDC
    e=/local/domain/0/error/$k/error
    xenstore-rm "$e" 2>/dev/null
    xenstore-write "$k/fipc-guest-iops" fast || return 1
    rebind "$dev" || return 1
    fipc_until 30 error_says "$e" fipc-guest-iops ||
        { fipc_fail "badkey: no error node naming fipc-guest-iops 30 s after the rebind ('$(xenstore-read "$e" 2>/dev/null)')"; rc=1; }
    error_says "$e" '"fast"' ||
        { fipc_fail "badkey: the error node does not quote the value: '$(xenstore-read "$e" 2>/dev/null)'"; rc=1; }
    # Refused, not late: never Connected over 5 s.
    while [ $i -lt 50 ]; do
        [ "$(fipc_blk_state "$id" $XVDC back)" != 4 ] ||
            { fipc_fail "badkey: xvdc connected with fipc-guest-iops 'fast'"; rc=1; break; }
        i=$((i + 1))
        fipc_nap 0.1
    done
    fipc_log "badkey: refused: $(xenstore-read "$e" 2>/dev/null)"
    xenstore-write "$k/fipc-guest-iops" none || return 1
    rebind "$dev" || return 1
    fipc_blk_wait_connected "$id" $XVDC 60 || rc=1
    [ "$(DEV=$XVDC lim guest_iops)" = none ] ||
        { fipc_fail "badkey: guest_iops is '$(DEV=$XVDC lim guest_iops)' once mended, not none"; rc=1; }
    return $rc
}

finish() {
    local rc=0 g
    for g in capped neighbour; do
        fipc_be_stats_json "$(cat "$FIPC_WORK/$g.id")" $XVDB "$FIPC_RESULTS/dom0/backend-$g.json"
    done
    [ "$(be_stat capped throttled_req)" -gt 0 ] && [ "$(be_stat capped throttled_us)" -gt 0 ] ||
        { fipc_fail "capped's throttled_req $(be_stat capped throttled_req), throttled_us $(be_stat capped throttled_us)"; rc=1; }
    [ "$(be_stat neighbour throttled_req)" = 0 ] ||
        { fipc_fail "the neighbour was throttled $(be_stat neighbour throttled_req) times"; rc=1; }
    fipc_mailbox_put /dev/nullmbox bye || rc=1
    for g in capped neighbour; do
        fipc_domu_wait "$g" 300 || rc=1
    done
    figures || rc=1
    fipc_health io-limits || rc=1
    return $rc
}

# The guests' fio figures against the caps, and the neighbour's latency.
figures() {
    python3 - "$FIPC_RESULTS" <<'PY'
import json, os, sys
R = sys.argv[1]
out = open(os.path.join(R, "limits.txt"), "a")
bad = 0
def job(guest, phase):
    with open(os.path.join(R, guest, phase + ".json")) as f:
        return json.load(f)["jobs"][0]
# A cap is met from below only where it binds: a request waited for it
# at least three quarters of fio's run.  Less, and the guest was slower
# than its cap at the time (the emulated host's load): not judged from
# below.  (Over the whole phase, fio's start included, a cap that held
# every request bound only half the time: in the CI of 646062f a guest
# total at 0.876, held 27 % of its phase on each disk, failed as bound.)
BINDS = 0.75
# The least share of a guest's total one of its two saturating disks gets.
SHARE = 0.2
bound = {"disk": 0, "guest": 0}
def judge(got, cap, held, who):
    if got > 1.1 * cap:
        return False, ": FAILED"
    if held < BINDS and got < 0.9 * cap:
        return True, " (the cap did not bind: not judged from below)"
    bound[who] += 1
    return got >= 0.9 * cap, "" if got >= 0.9 * cap else ": FAILED"
gheld = {}
if os.path.exists(os.path.join(R, "held.txt")):
    with open(os.path.join(R, "held.txt")) as f:
        gheld = {k: float(v) for k, v in (line.split() for line in f)}
caps = {}
with open(os.path.join(R, "caps.txt")) as f:
    for line in f:
        kind, cap, free, held = line.split()
        caps[kind] = (int(cap), float(free), float(held))
for kind, rw, key in (("riops", "read", "iops"), ("rbps", "read", "bw_bytes"),
                      ("wiops", "write", "iops"), ("wbps", "write", "bw_bytes")):
    if kind not in caps:
        print("%s: not measured: FAILED" % kind, file=out)
        bad += 1
        continue
    cap, free, held_s = caps[kind]
    j = job("capped", kind)
    got = j[rw][key]
    h = held_s / max(0.001, j["job_runtime"] / 1000)
    ok, why = judge(got, cap, h, "disk")
    print("%s: %s %s %.1f against the cap %d (%.3f); %.1f uncapped; a "
          "request held %.0f %% of fio's run%s" % (
              kind, rw, key, got, cap, got / cap, free, 100 * h, why),
          file=out)
    bad += not ok
    # The guest's total: both disks' work over the longer job's time (a
    # job's last requests wait for the cap, so its runtime passes -o
    # LIMIT_S and the two differ).
    try:
        jobs = json.load(open(os.path.join(R, "capped", "g%s.json" % kind)))["jobs"]
        unit = "total_ios" if key == "iops" else "io_bytes"
        secs = max(j["job_runtime"] for j in jobs) / 1000
        gsum = sum(j[rw][unit] for j in jobs) / secs
        # Both disks' waits over both jobs' runs: each disk's share.
        h = gheld.get("g" + kind, 0) / max(0.001, sum(j["job_runtime"] for j in jobs) / 1000)
        ok, why = judge(gsum, cap, h, "guest")
        ok = ok and len(jobs) == 2
        # Where the total binds, the two disks compete for it: neither
        # may be starved (the poller's rounds start at each channel in
        # turn; when they all started at the same one, a disk got 5-14 %).
        least = min(j[rw][unit] for j in jobs) / max(1, sum(j[rw][unit] for j in jobs))
        if h >= BINDS and least < SHARE:
            ok, why = False, why + "; a disk got %.0f %% of it (at least %.0f %%): FAILED" % (
                100 * least, 100 * SHARE)
        print("guest %s: %s %s %.1f on 2 disks (%s %s in %.1f s) against "
              "the total %d (%.3f); each disk held %.0f %% of its run%s" % (
                  kind, rw, key, gsum, " + ".join(str(j[rw][unit]) for j in jobs),
                  unit, secs, cap, gsum / cap, 100 * h, why),
              file=out)
    except (OSError, ValueError, KeyError) as e:
        ok = False
        print("guest %s: not measured (%s): FAILED" % (kind, e), file=out)
    bad += not ok
# Each kind of cap met from below at least once.
for who, n in sorted(bound.items()):
    if not n:
        print("no %s cap bound: none judged from below: FAILED" % who, file=out)
        bad += 1
try:
    lat = {p: job("neighbour", p)["read"]["lat_ns"]["mean"] / 1000
           for p in ("alone1", "alone2", "riops", "riops2", "paced",
                     "paced2")}
except OSError as e:
    print("neighbour: not measured (%s): FAILED" % e, file=out)
    sys.exit(1)
# The better run of each pair: a busy moment of the 2-core host only
# lengthens a run (one capped run once took 7070 us, its twin 1762, the
# paced ones 2947 and 2940, with a helper's builds on the host).
capped = min(lat["riops"], lat["riops2"])
paced = min(lat["paced"], lat["paced2"])
spread = max(abs(lat["alone1"] - lat["alone2"]),
             abs(lat["paced"] - lat["paced2"]))
margin = max(spread, 0.25 * paced)
ok = capped <= paced + margin
print("neighbour QD 1 mean latency: alone %.0f and %.0f us; beside the "
      "capped reads %.0f us (better of %.0f, %.0f), beside the same reads "
      "paced by the guest %.0f us (better of %.0f, %.0f; at most %.0f)%s" % (
          lat["alone1"], lat["alone2"], capped, lat["riops"], lat["riops2"],
          paced, lat["paced"], lat["paced2"], paced + margin,
          "" if ok else ": FAILED"), file=out)
bad += not ok
out.close()
sys.exit(1 if bad else 0)
PY
    local rc=$?
    cat "$FIPC_RESULTS/limits.txt"
    [ $rc -eq 0 ] || fipc_fail "io-limits: a cap or the neighbour's latency is off (results/limits.txt)"
    return $rc
}

mkdir -p "$FIPC_RESULTS/dom0"
: > "$FIPC_RESULTS/limits.txt"
fipc_step limits-start 900 start || exit 1
fipc_steps limits-refusals:60:refusals limits-caps:600:caps \
    limits-guest:300:guest limits-live:120:live limits-slow:120:slow \
    limits-badkey:180:badkey limits-finish:600:finish
