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
