# shellcheck shell=sh
# A driver's counters as one JSON object, for dom0's scenarios (bash,
# after fipc-lib.sh) and the guests' (busybox sh, after guest-lib.sh).

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
