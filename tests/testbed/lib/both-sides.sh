# shellcheck shell=sh
# The testbed library's part for both sides: dom0 (sourced by
# fipc-scenario.sh, bash) and the guests (appended to their /fipc/lib.sh,
# busybox sh).  POSIX sh and sed, as busybox has them, so no python3 in
# the guests and no start-up cost: the one polling loop, the one JSON
# reader, a driver's counters as JSON, and the frontend's
# malformed-request test mode.

# fipc_nap SECONDS: wait SECONDS (a fraction too).  dom0's bash replaces
# it with a wait that starts no process (fipc-scenario.sh).
fipc_nap() { sleep "$1"; }

# fipc_until SECONDS CMD [ARG...]: run CMD every 0.1 s until it succeeds;
# non-zero if it still fails after SECONDS (10 tries per second).
fipc_until() {
    local n=$(($1 * 10)) i=0
    shift
    until "$@"; do
        i=$((i + 1))
        [ $i -lt $n ] || return 1
        fipc_nap 0.1
    done
}

# fipc_json_value FILE KEY [N]: the N-th value (default the first) of
# "KEY" in the JSON file FILE: a number, true/false, or a string without
# blanks, quotes, commas or braces, printed bare.  Reads both the
# testbed's one-line objects ("KEY": value) and fio's pretty-printed
# output ("KEY" : value).  Prints nothing if FILE or KEY is missing.
fipc_json_value() {
    sed -n "s/.*\"$2\" *: *\"\{0,1\}\([^\", }]*\)\"\{0,1\} *[,}]\{0,1\}.*/\1/p" \
        "$1" 2>/dev/null | sed -n "${3:-1}p"
}

# fipc_counters_json DIR DBGDIR: the open JSON object (no closing brace,
# so that the caller may add more) of the files in sysfs directory DIR,
# a number as a JSON number and a word (data_path) as a string, then of
# the "name value" lines of DBGDIR/counters, the driver's developer
# counters in debugfs (mounted here if it is not; none if absent).
fipc_counters_json() {
    local f v sep=""

    printf '{'
    for f in "$1"/*; do
        [ -f "$f" ] || continue
        v=$(cat "$f")
        case $v in
        ''|*[!0-9-]*) printf '%s"%s": "%s"' "$sep" "${f##*/}" "$v" ;;
        *) printf '%s"%s": %s' "$sep" "${f##*/}" "$v" ;;
        esac
        sep=", "
    done
    [ -d "${2%/*}" ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
    [ -r "$2/counters" ] || return 0
    while read -r f v; do
        [ -n "$f" ] || continue
        printf '%s"%s": %s' "$sep" "$f" "$v"
        sep=", "
    done < "$2/counters"
}

# fipc_hostile DEVNAME EXPECT...: send each malformed request kind through
# the frontend's test mode and check the status the backend answers.
# EXPECT items are KIND=STATUS (0 okay, -1 error, -2 not supported).  Works
# in dom0 (bash) and in a domU (busybox sh).  Prints one line per kind and
# returns the number of mismatches.
fipc_hostile() {
    dev=$1
    shift
    f=/sys/kernel/debug/xen-fipc-front/$dev/inject
    [ -d /sys/kernel/debug/xen-fipc-front ] ||
        mount -t debugfs none /sys/kernel/debug 2>/dev/null
    if [ ! -w "$f" ]; then
        echo "hostile: no $f"
        return 99
    fi
    bad=0
    for kv in "$@"; do
        kind=${kv%%=*}
        want=${kv#*=}
        echo "$kind" > "$f"
        got=$(head -n 1 "$f")
        case $got in
        "$kind status $want "*) echo "hostile: ok   $got" ;;
        *) echo "hostile: FAIL $kind: want status $want, got '$got'"; bad=$((bad + 1)) ;;
        esac
    done
    return $bad
}

# fipc_klog_unexplained [FILE]: the kernel log FILE (or standard input),
# dmesg or a console, less the reports known to come from the emulated
# machine rather than from a kernel or driver under test, each from its
# first line to its "---[ end trace" (80 lines at most).  Each one left
# out is named on standard error.  Known:
#  - "WARNING: ... at arch/x86/kernel/traps.c:N exc_debug_kernel", a
#    single-step debug trap taken in kernel mode.  Nothing in the testbed
#    sets the trap flag (no debugger; x86 kprobes do not single-step) and
#    the kernel's comment at that warning names QEMU as a known source.
#    Seen once: trixie's PV dom0 (Linux 6.12, Xen 4.20, QEMU TCG) in
#    phy1-xl's reconnect, in the CI of fb40aa6 (2026-12-02).
fipc_klog_unexplained() {
    awk '
    /------------\[ cut here \]------------/ {
        if (cut != "") print cut
        cut = $0
        next
    }
    /WARNING: CPU: [0-9]+ PID: [0-9]+ at arch\/x86\/kernel\/traps\.c:[0-9]+ exc_debug_kernel/ {
        print "fipc: left out, an artefact of the emulated CPU: " $0 > "/dev/stderr"
        cut = ""
        skip = 80
    }
    skip > 0 { skip--; if ($0 ~ /---\[ end trace/) skip = 0; next }
    {
        if (cut != "") print cut
        cut = ""
        print
    }
    END { if (cut != "") print cut }' "$@"
}
