# How long the backend holds dom0's xenwatch thread (issue 45, finding 3),
# measured from outside the driver: kprobe events on entry to and return
# from the backend's xenwatch callbacks (xfb_frontend_changed: every
# state change of a frontend, connects included; xfb_physdev_changed: the
# hotplug script's physical-device), in the kernel's trace buffer.  The
# events name the module (xen_fipc_back:SYMBOL), so the kernel arms them
# again whenever the module is loaded.  Removal (xfb_remove) is not one
# of them: it may wait for a drain, bounded (fipc-destroy measures it).
# For a long call the results say which state the frontend had reached
# (the callback's second argument) and how much of the time went before
# xfb_follow_frontend() (waiting for the device's mutex), and keep the
# dom0 log of those moments.
# Sourced by scenarios after lib/fipc-scenario.sh.

XW_TRACING=/sys/kernel/tracing
XW_FUNCS="xfb_frontend_changed xfb_physdev_changed"
# A disconnect's callbacks, by the state they saw.
XW_DISCONNECT='\((Closing|Closed|Unknown)\)'
# Exported: each phase (fipc_step) runs in a shell of its own.
export XW_TRACING XW_FUNCS XW_DISCONNECT

xw_undefine() {
    local f
    echo 0 > $XW_TRACING/events/fipcxw/enable
    for f in $XW_FUNCS; do
        echo "-:fipcxw/${f}_in" >> $XW_TRACING/kprobe_events
        echo "-:fipcxw/${f}_out" >> $XW_TRACING/kprobe_events
    done
    echo "-:fipcxw/follow" >> $XW_TRACING/kprobe_events
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
        echo "p:fipcxw/${f}_in xen_fipc_back:$f fe=\$arg2:u32" >> $t/kprobe_events &&
            echo "r:fipcxw/${f}_out xen_fipc_back:$f" >> $t/kprobe_events ||
            { fipc_fail "xenwatch timing: cannot define a kprobe event on $f"; return 1; }
    done
    echo "p:fipcxw/follow xen_fipc_back:xfb_follow_frontend" >> $t/kprobe_events ||
        { fipc_fail "xenwatch timing: cannot define a kprobe event on xfb_follow_frontend"; return 1; }
    echo 2048 > $t/buffer_size_kb
    echo > $t/trace
    echo 1 > $t/events/fipcxw/enable && echo 1 > $t/tracing_on ||
        { fipc_fail "xenwatch timing: cannot enable the events"; return 1; }
    fipc_log "xenwatch timing: kprobe events on $XW_FUNCS"
}

# xw_log_around: for each duration line on stdin, dom0's kernel log from
# half a second before the call to half a second after it (the trace and
# printk share the local clock).
xw_log_around() {
    local ms at
    awk '{ a = $5; sub(/,$/, "", a); print $1, a }' | head -5 |
        while read -r ms at; do
            echo "--- ${ms} ms from $at"
            dmesg | awk -v a="$at" -v d="$ms" '
                match($0, /^\[ *[0-9]+\.[0-9]+\]/) {
                    t = substr($0, 2, RLENGTH - 2) + 0
                    if (t >= a - 0.5 && t <= a + d / 1000 + 0.5) print
                }'
        done
}

# fipc_xenwatch_timing_check LABEL MAX_MS MIN_CALLS DISCONNECT_MS:
# every callback on the way to a connection (the frontend's Initialising,
# InitWait, Initialised and Connected, and physical-device) returned
# within MAX_MS, every callback for a disconnect (Closing, Closed,
# Unknown: the backend writes its own Closing there, as blkback does, a
# xenstore transaction; the drain and the unmapping run in a work item)
# within DISCONNECT_MS, and at least MIN_CALLS of them were seen (the
# probe worked).  The durations, longest first, go to
# results/dom0/xenwatch-LABEL.txt; dom0's log around each call over its
# limit to xenwatch-LABEL-log.txt.
fipc_xenwatch_timing_check() {
    local label=$1 max_ms=$2 min_calls=$3 max_dis=$4 t=$XW_TRACING
    local out stats n con dis over lost
    out=$FIPC_RESULTS/dom0/xenwatch-$label.txt
    mkdir -p "$FIPC_RESULTS/dom0"
    echo 0 > $t/tracing_on
    lost=$(awk '/^overrun:/ { n += $2 } END { print n + 0 }' $t/per_cpu/cpu*/stats 2>/dev/null)
    # "comm-PID [cpu] flags TIME: fipcxw_..._in: (...) fe=N": pair each
    # entry with the next return of the same thread (callbacks of the
    # xenwatch thread do not nest); a follow event between them marks
    # the end of the wait for the device's mutex.  xfb_physdev_changed
    # has no state argument (fe= is whatever its second register held).
    awk '
        BEGIN {
            split("Unknown Initialising InitWait Initialised Connected Closing Closed Reconfiguring Reconfigured", st, " ")
        }
        match($0, /-[0-9]+ +\[[0-9]+\]/) {
            pid = substr($0, RSTART + 1, RLENGTH - 1); sub(/ .*/, "", pid)
            for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break
            if (i >= NF) next
            ts = substr($i, 1, length($i) - 1); ev = $(i + 1)
            if (ev ~ /_in:$/) {
                start[pid] = ts; name[pid] = ev; fe[pid] = ""
                follow[pid] = ""
                if (ev ~ /frontend_changed/ && match($0, /fe=[0-9]+/))
                    fe[pid] = "(" st[substr($0, RSTART + 3, RLENGTH - 3) + 1] ")"
                next
            }
            if (ev ~ /follow:$/ && (pid in start)) { follow[pid] = ts; next }
            if (ev ~ /_out:$/ && (pid in start)) {
                f = name[pid]; sub(/_in:$/, "", f)
                wait = follow[pid] == "" ? "" : sprintf(", %.1f ms before xfb_follow_frontend", (follow[pid] - start[pid]) * 1000)
                printf "%.1f ms %s%s at %s%s\n", (ts - start[pid]) * 1000, f, fe[pid], start[pid], wait
                delete start[pid]
            }
        }' $t/trace | sort -rn > "$out"
    xw_undefine
    n=$(wc -l < "$out")
    con=$(grep -v -E "$XW_DISCONNECT" "$out" | head -1)
    dis=$(grep -E "$XW_DISCONNECT" "$out" | head -1)
    stats="$n callbacks, longest on the way to a connection ${con%% *} ms, for a disconnect ${dis%% *} ms, trace overruns ${lost:-0}"
    fipc_log "xenwatch timing ($label): $stats; longest: $(head -3 "$out" | paste -sd ';')"
    if [ "$n" -lt "$min_calls" ]; then
        fipc_fail "xenwatch timing ($label): only $n backend callbacks traced, want at least $min_calls (did the kprobe events work?)"
        return 1
    fi
    if [ "${lost:-0}" -gt 0 ]; then
        fipc_fail "xenwatch timing ($label): the trace buffer lost $lost events"
        return 1
    fi
    over=$( { grep -v -E "$XW_DISCONNECT" "$out" | awk -v m="$max_ms" '$1 > m'
              grep -E "$XW_DISCONNECT" "$out" | awk -v m="$max_dis" '$1 > m'; } )
    [ -z "$over" ] && return 0
    echo "$over" | xw_log_around > "$FIPC_RESULTS/dom0/xenwatch-$label-log.txt"
    if [ -n "$con" ] && awk -v m="$max_ms" '{ exit !($1 > m) }' <<< "$con"; then
        fipc_fail "xenwatch timing ($label): the backend held xenwatch ${con%% *} ms on the way to a connection, want at most $max_ms ms ($con)"
    fi
    if [ -n "$dis" ] && awk -v m="$max_dis" '{ exit !($1 > m) }' <<< "$dis"; then
        fipc_fail "xenwatch timing ($label): the backend held xenwatch ${dis%% *} ms for a disconnect, want at most $max_dis ms ($dis)"
    fi
    return 1
}
