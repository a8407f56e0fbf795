#!/bin/bash
# Host test of fipc-memshare/xenwatch-timing.sh's check on made-up traces
# in the kernel's format: durations paired per thread, the frontend's
# state named, the wait for the device's mutex measured, calls of other
# threads ignored, the limits (one for calls on the way to a connection,
# one for a disconnect's), the minimum of calls and trace overruns each
# failing the check, and dom0's log kept around a long call.
# Prints "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
lib=$here/../scenarios/fipc-memshare/xenwatch-timing.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# A dom0 trace: a Closing that waited 250 ms for the mutex, a physdev
# call, a quick Initialised, and a worker's follow that must not count.
write_trace() {
    cat > "$1" <<'TRACE'
# tracer: nop
       xenwatch-48      [001] d....   583.225587: xfb_frontend_changed_in: (xfb_frontend_changed+0x0/0x120 [xen_fipc_back]) fe=5
  kworker/u4:2-99       [000] d....   583.300000: follow: (xfb_follow_frontend+0x0/0x200 [xen_fipc_back])
       xenwatch-48      [001] d....   583.475600: follow: (xfb_follow_frontend+0x0/0x200 [xen_fipc_back])
       xenwatch-48      [001] d....   583.481787: xfb_frontend_changed_out: (xenbus_otherend_changed+0x96/0x110 <- xfb_frontend_changed)
       xenwatch-48      [001] d....   590.000000: xfb_physdev_changed_in: (xfb_physdev_changed+0x0/0x120 [xen_fipc_back]) fe=4294967295
       xenwatch-48      [001] d....   590.010000: xfb_physdev_changed_out: (xenwatch_thread+0x96/0x110 <- xfb_physdev_changed)
       xenwatch-48      [001] d....   591.000000: xfb_frontend_changed_in: (xfb_frontend_changed+0x0/0x120 [xen_fipc_back]) fe=3
       xenwatch-48      [001] d....   591.002000: xfb_frontend_changed_out: (xenbus_otherend_changed+0x96/0x110 <- xfb_frontend_changed)
TRACE
}

# check MAX_MS MIN_CALLS OVERRUN DISCONNECT_MS: run the check in a fake tracefs; its
# output in $tmp/out, the results in $tmp/res.
check() {
    local t=$tmp/tracing
    rm -rf "$t" "$tmp/res"
    mkdir -p "$t/events/fipcxw" "$t/per_cpu/cpu0" "$t/per_cpu/cpu1"
    : > "$t/kprobe_events"
    echo "overrun: 0" > "$t/per_cpu/cpu0/stats"
    echo "overrun: $3" > "$t/per_cpu/cpu1/stats"
    write_trace "$t/trace"
    (
        fipc_log() { echo "LOG: $*"; }
        fipc_fail() { echo "FAILED: $*"; }
        dmesg() {
            printf '%s\n' '[  582.1] too early' \
                '[  583.3] xen-fipc-back vbd-1-51728: disconnected' \
                '[  600.0] too late'
        }
        export FIPC_RESULTS=$tmp/res
        # shellcheck source=../scenarios/fipc-memshare/xenwatch-timing.sh
        . "$lib"
        XW_TRACING=$t
        # As fipc_step runs a phase: the functions in a new shell, which
        # gets only exported variables.
        declare -f > "$tmp/functions"
        FNS=$tmp/functions bash -c '. "$FNS" && "$@"' check \
            fipc_xenwatch_timing_check memshare "$1" "$2" "$4"
    ) > "$tmp/out" 2>&1
}

check 100 3 0 200
rc=$?
durations=$tmp/res/dom0/xenwatch-memshare.txt
[ "$rc" -ne 0 ] && grep -q "FAILED: .*held xenwatch 256.2 ms for a disconnect, want at most 200 ms" "$tmp/out" &&
    ! grep -q "on the way to a connection, want" "$tmp/out" &&
    ok "a disconnect over its limit fails the check" || bad "a disconnect over its limit fails the check"
[ "$(wc -l < "$durations")" -eq 3 ] &&
    ok "three calls of the xenwatch thread, the worker's follow ignored" ||
    bad "three calls of the xenwatch thread, the worker's follow ignored"
head -1 "$durations" | grep -qx "256.2 ms xfb_frontend_changed(Closing) at 583.225587, 250.0 ms before xfb_follow_frontend" &&
    ok "the longest call names the state and its wait for the mutex" ||
    bad "the longest call names the state and its wait for the mutex: $(head -1 "$durations")"
grep -qx "2.0 ms xfb_frontend_changed(Initialised) at 591.000000" "$durations" &&
    grep -qx "10.0 ms xfb_physdev_changed at 590.000000" "$durations" &&
    ok "short calls listed, physdev without a state" ||
    bad "short calls listed, physdev without a state"
log=$tmp/res/dom0/xenwatch-memshare-log.txt
grep -q "583.3.*disconnected" "$log" && ! grep -q "too early\|too late" "$log" &&
    ok "dom0's log kept around the long call, and only that" ||
    bad "dom0's log kept around the long call, and only that"
grep -q "LOG: .*longest on the way to a connection 10.0 ms, for a disconnect 256.2 ms" "$tmp/out" &&
    ok "the longest of each kind logged" || bad "the longest of each kind logged"

check 100 3 0 1000
[ $? -eq 0 ] && ! grep -q FAILED "$tmp/out" && [ ! -e "$tmp/res/dom0/xenwatch-memshare-log.txt" ] &&
    ok "every call within its limit passes" || bad "every call within its limit passes"
check 5 3 0 1000
[ $? -ne 0 ] && grep -q "held xenwatch 10.0 ms on the way to a connection, want at most 5 ms (10.0 ms xfb_physdev_changed" "$tmp/out" &&
    ! grep -q "for a disconnect, want" "$tmp/out" &&
    ok "a call on the way to a connection over its limit fails" ||
    bad "a call on the way to a connection over its limit fails"
check 300 4 0 1000
[ $? -ne 0 ] && grep -q "only 3 backend callbacks traced, want at least 4" "$tmp/out" &&
    ok "too few calls traced fails" || bad "too few calls traced fails"
check 300 3 2 1000
[ $? -ne 0 ] && grep -q "the trace buffer lost 2 events" "$tmp/out" &&
    ok "a trace overrun fails" || bad "a trace overrun fails"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
