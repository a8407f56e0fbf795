# How long the backend holds dom0's xenwatch thread (issue 45, finding 3),
# measured from outside the driver: kprobe events on entry to and return
# from the backend's xenwatch callbacks (xfb_frontend_changed: every
# state change of a frontend, connects included; xfb_physdev_changed: the
# hotplug script's physical-device), in the kernel's trace buffer.  The
# events name the module (xen_fipc_back:SYMBOL), so the kernel arms them
# again whenever the module is loaded.  Removal (xfb_remove) is not one
# of them: it may wait for a drain, bounded (fipc-destroy measures it).
# Sourced by scenarios after fipc-lib.sh.

XW_TRACING=/sys/kernel/tracing
XW_FUNCS="xfb_frontend_changed xfb_physdev_changed"
export XW_TRACING XW_FUNCS

xw_undefine() {
    local f
    echo 0 > $XW_TRACING/events/fipcxw/enable
    for f in $XW_FUNCS; do
        echo "-:fipcxw/${f}_in" >> $XW_TRACING/kprobe_events
        echo "-:fipcxw/${f}_out" >> $XW_TRACING/kprobe_events
    done
}

# fipc_xenwatch_timing_start: define and enable the events, empty the
# buffer.
fipc_xenwatch_timing_start() {
    local f t=$XW_TRACING
    [ -e $t/kprobe_events ] || mount -t tracefs nodev $t ||
        { fipc_fail "xenwatch timing: cannot mount tracefs on $t"; return 1; }
    echo 0 > $t/tracing_on
    [ -d $t/events/fipcxw ] && xw_undefine
    for f in $XW_FUNCS; do
        echo "p:fipcxw/${f}_in xen_fipc_back:$f" >> $t/kprobe_events &&
            echo "r:fipcxw/${f}_out xen_fipc_back:$f" >> $t/kprobe_events ||
            { fipc_fail "xenwatch timing: cannot define a kprobe event on $f"; return 1; }
    done
    echo 2048 > $t/buffer_size_kb
    echo > $t/trace
    echo 1 > $t/events/fipcxw/enable && echo 1 > $t/tracing_on ||
        { fipc_fail "xenwatch timing: cannot enable the events"; return 1; }
    fipc_log "xenwatch timing: kprobe events on $XW_FUNCS"
}

# fipc_xenwatch_timing_check LABEL MAX_MS MIN_CALLS: every callback
# since the start returned within MAX_MS, and at least MIN_CALLS of them
# were seen (the probe worked).  The durations, longest first, go to
# results/dom0/xenwatch-LABEL.txt.
fipc_xenwatch_timing_check() {
    local label=$1 max_ms=$2 min_calls=$3 t=$XW_TRACING out stats n max lost
    out=$FIPC_RESULTS/dom0/xenwatch-$label.txt
    mkdir -p "$FIPC_RESULTS/dom0"
    echo 0 > $t/tracing_on
    lost=$(awk '/^overrun:/ { n += $2 } END { print n + 0 }' $t/per_cpu/cpu*/stats 2>/dev/null)
    # "comm-PID [cpu] flags TIME: fipcxw_..._in: (...)": pair each
    # entry with the next return of the same thread (callbacks of the
    # xenwatch thread do not nest).
    awk '
        match($0, /-[0-9]+ +\[[0-9]+\]/) {
            pid = substr($0, RSTART + 1, RLENGTH - 1); sub(/ .*/, "", pid)
            for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break
            if (i >= NF) next
            ts = substr($i, 1, length($i) - 1); ev = $(i + 1)
            if (ev ~ /_in:$/) { start[pid] = ts; name[pid] = ev; next }
            if (ev ~ /_out:$/ && (pid in start)) {
                f = name[pid]; sub(/_in:$/, "", f)
                printf "%.1f ms %s at %s\n", (ts - start[pid]) * 1000, f, start[pid]
                delete start[pid]
            }
        }' $t/trace | sort -rn > "$out"
    xw_undefine
    n=$(wc -l < "$out")
    max=$(awk 'NR == 1 { print $1 }' "$out")
    stats="$n callbacks, longest ${max:-0} ms, trace overruns ${lost:-0}"
    fipc_log "xenwatch timing ($label): $stats; longest: $(head -3 "$out" | paste -sd ';')"
    if [ "$n" -lt "$min_calls" ]; then
        fipc_fail "xenwatch timing ($label): only $n backend callbacks traced, want at least $min_calls (did the kprobe events work?)"
        return 1
    fi
    if [ "${lost:-0}" -gt 0 ]; then
        fipc_fail "xenwatch timing ($label): the trace buffer lost $lost events"
        return 1
    fi
    if awk -v m="$max_ms" 'NR == 1 { exit !($1 > m) }' "$out"; then
        fipc_fail "xenwatch timing ($label): the backend held xenwatch ${max} ms, want at most $max_ms ms ($(head -1 "$out"))"
        return 1
    fi
    return 0
}
